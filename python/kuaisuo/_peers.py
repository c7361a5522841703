"""Peers for `kuaisuo speed` beside OpenSSL, where a registry package
brings one: GmSSL through gmssl-pyx (SM2, SM3, SM4 CTR/GCM) and libsodium
through PyNaCl (Ed25519, X25519). They are called from Python, so each
operation carries the call's overhead (about 0.1-0.3 us): rows of a few
microseconds and up, where that is a few percent at most, are the fair
ones. Every peer is checked once against kuaisuo on the same inputs before
it is timed, so that a row compares the same operation."""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import ed25519, sm2, sm4, sm3 as _sm3, x25519

# A peer operation: a zero-argument function doing one operation, built
# (and checked against kuaisuo) from the case's (op, input, msg_bytes).
Maker = Callable[[str, str, int], Optional[Callable[[], Any]]]


def _gmssl(alg: str) -> Optional[Maker]:
    try:
        import gmssl_pyx as g  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None
    if alg == "sm3":
        def sm3_op(op: str, kind: str, n: int):
            data = os.urandom(n)
            assert g.sm3_hash(data) == _sm3(data)
            return lambda: g.sm3_hash(data)
        return sm3_op
    if alg == "sm2":
        def sm2_op(op: str, kind: str, n: int):
            pub, priv = g.sm2_key_generate()
            ours = sm2.SM2PublicKey.from_public_bytes(b"\x04" + pub)
            msg = os.urandom(n) if kind == "message" else os.urandom(32)
            if op == "keygen":
                return g.sm2_key_generate
            if op == "sign":
                sign = g.sm2_sign if kind == "message" else g.sm2_sign_sm3_digest
                args = (priv, pub, msg) if kind == "message" else (priv, msg)
                sig = sign(*args)
                # raises InvalidSignature if gmssl-pyx's signature does not verify here
                if kind == "message":
                    ours.verify(sig, msg)
                else:
                    ours.verify_digest(sig, msg)
                return lambda: sign(*args)
            if op == "verify":
                key = sm2.SM2PrivateKey.from_private_bytes(priv)
                if kind == "message":
                    sig = key.sign(msg)
                    assert g.sm2_verify(pub, msg, sig)
                    return lambda: g.sm2_verify(pub, msg, sig)
                sig = key.sign_digest(msg)
                assert g.sm2_verify_sm3_digest(pub, msg, sig)
                return lambda: g.sm2_verify_sm3_digest(pub, msg, sig)
            if op == "encrypt":  # the DER form; checked by decrypting here
                key = sm2.SM2PrivateKey.from_private_bytes(priv)
                assert key.decrypt(g.sm2_encrypt(pub, msg), format="der") == msg
                return lambda: g.sm2_encrypt(pub, msg)
            if op == "decrypt":
                ct = ours.encrypt(msg, format="der")
                assert g.sm2_decrypt(priv, ct) == msg
                return lambda: g.sm2_decrypt(priv, ct)
            return None
        return sm2_op
    if alg == "sm4":
        def sm4_op(op: str, kind: str, n: int):
            key, data = os.urandom(16), os.urandom(n)
            if op == "ctr":
                iv = os.urandom(16)
                assert g.sm4_ctr_encrypt(key, iv, data) == sm4.encrypt(key, data, mode="ctr",
                                                                      iv=iv)
                return lambda: g.sm4_ctr_encrypt(key, iv, data)
            if op == "gcm":
                iv = os.urandom(12)
                ct, tag = g.sm4_gcm_encrypt(key, iv, b"", data)
                assert ct + tag == sm4.SM4GCM(key).encrypt(iv, data)
                return lambda: g.sm4_gcm_encrypt(key, iv, b"", data)
            return None
        return sm4_op
    return None


def _libsodium(alg: str) -> Optional[Maker]:
    try:
        import nacl.bindings as b  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        return None
    if alg == "ed25519":
        def ed_op(op: str, kind: str, n: int):
            seed = os.urandom(32)
            pk, sk = b.crypto_sign_seed_keypair(seed)
            ours = ed25519.Ed25519PrivateKey.from_private_bytes(seed)
            msg = os.urandom(n)
            if op == "keygen":
                return lambda: b.crypto_sign_seed_keypair(os.urandom(32))
            if op == "sign":
                assert b.crypto_sign(msg, sk)[:64] == ours.sign(msg)
                return lambda: b.crypto_sign(msg, sk)
            if op == "verify":
                signed = ours.sign(msg) + msg
                assert b.crypto_sign_open(signed, pk) == msg
                return lambda: b.crypto_sign_open(signed, pk)
            return None
        return ed_op
    if alg == "x25519":
        def x_op(op: str, kind: str, n: int):
            a, peer = os.urandom(32), x25519.X25519PrivateKey.generate().public_key()
            if op == "keygen":
                return lambda: b.crypto_scalarmult_base(os.urandom(32))
            if op == "derive":
                ours = x25519.X25519PrivateKey.from_private_bytes(a).exchange(peer)
                assert b.crypto_scalarmult(a, peer.public_bytes_raw()) == ours
                return lambda: b.crypto_scalarmult(a, peer.public_bytes_raw())
            return None
        return x_op
    return None


# impl name -> the library it measures, and its per-algorithm makers.
PEERS: Dict[str, Callable[[str], Optional[Maker]]] = {
    "gmssl-pyx": _gmssl, "pynacl": _libsodium}


# impl name -> (package on the registry, module, its C extension, the
# library it wraps, the names of that library's version string).
PACKAGES: Dict[str, Tuple[str, str, str, str, Tuple[str, ...]]] = {
    "gmssl-pyx": ("gmssl-pyx", "gmssl_pyx", "gmssl_pyx.gmsslext", "GmSSL",
                  ("gmssl_version_str",)),
    "pynacl": ("PyNaCl", "nacl", "nacl._sodium", "libsodium", ("sodium_version_string",)),
}


def _library_version(modules: List[Any], symbols: Tuple[str, ...]) -> Optional[str]:
    """The wrapped C library's version string where the package exposes it:
    a Python attribute of one of these names on the package or its
    extension, or a C function of that name the (already loaded) extension
    exports. None otherwise: gmssl-pyx 2.1 and PyNaCl 1.6 link theirs
    statically and expose neither."""
    import ctypes

    for module in modules:
        for name in symbols:
            value = getattr(module, name, None)
            if callable(value):
                value = value()
            if isinstance(value, bytes):
                value = value.decode("ascii", "replace")
            if isinstance(value, str) and value:
                return value
    for module in modules[1:]:
        path = getattr(module, "__file__", None)
        if not path or not path.endswith(".so"):
            continue
        dll = ctypes.CDLL(path)  # loaded already by the import: no new code runs
        for name in symbols:
            fn = getattr(dll, name, None)
            if fn is None:
                continue
            fn.restype, fn.argtypes = ctypes.c_char_p, []
            out = fn()
            if out:
                return out.decode("ascii", "replace")
    return None


def versions() -> Dict[str, Dict[str, Any]]:
    """Each optional peer: installed or not, its package's version and the
    wrapped library's where exposed (else None). Never raises."""
    import importlib
    import importlib.metadata

    out: Dict[str, Dict[str, Any]] = {}
    for impl, (package, module_name, extension, library, symbols) in PACKAGES.items():
        entry: Dict[str, Any] = {"package": package, "installed": False,
                                 "package_version": None, "library": library,
                                 "library_version": None}
        out[impl] = entry
        try:
            module = importlib.import_module(module_name)
        except Exception:  # noqa: BLE001 - absent or broken: not installed
            continue
        entry["installed"] = True
        try:
            entry["package_version"] = importlib.metadata.version(package)
        except Exception:  # noqa: BLE001
            v = getattr(module, "__version__", None)
            entry["package_version"] = v if isinstance(v, str) else None
        try:
            modules = [module]
            try:
                modules.append(importlib.import_module(extension))
            except Exception:  # noqa: BLE001
                pass
            entry["library_version"] = _library_version(modules, symbols)
        except Exception:  # noqa: BLE001
            entry["library_version"] = None
    return out


def available(alg: str) -> List[Tuple[str, Maker]]:
    out = []
    for name, get in PEERS.items():
        maker = get(alg)
        if maker is not None:
            out.append((name, maker))
    return out


def measure(maker: Maker, op: str, kind: str, n: int, seconds: float) -> dict:
    """Operations per second of one peer operation over about `seconds`,
    in 7 timed runs after a warm-up, the median run kept (as the C++
    harness does); {"error": ...} when the peer lacks the operation."""
    try:
        fn = maker(op, kind, n)
    except AssertionError as e:
        return {"error": f"disagrees with kuaisuo: {e}"}
    if fn is None:
        return {"error": "no such operation"}
    start = time.perf_counter()
    fn()
    per = max(time.perf_counter() - start, 1e-7)
    iters = max(1, int(seconds / 7 / per))
    rates = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(iters):
            fn()
        rates.append(iters / max(time.perf_counter() - t, 1e-9))
    rates.sort()
    rate = rates[3]
    return {"ops_per_s": rate, "bytes_per_s": rate * n, "runs": 7 * iters, "backend": "cpu"}
