"""SM2 from Python: the recommended-curve example, signatures and keys in
both encodings, batches with per-item status, and errors."""

import os

import pytest

import kuaisuo
from kuaisuo import sm2
from sigcheck import verifies

D = bytes.fromhex("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8")
XA = "09F9DF311E5421A150DD7D161E4BC5C672179FAD1833FC076BB08FF356F35020"
YA = "CCEA490CE26775A52DC6EA718CC1AA600AED05FBF35E084A6632F6072DA9AD13"
ZA = "B2E14C5C79C6DF5B85F4FE7ED8DB7A262B9DA7E07CCB0EA9F4747B8CCDA8A4F3"
E = "F0B43E94BA45ACCAACE692ED534382EB17E6AB5A19CE7B31F4486FDFC0D28640"


def test_recommended_curve_example():  # GM/T 0003.5 / OpenSSL sm2_internal_test
    key = sm2.SM2PrivateKey.from_private_bytes(D)
    pub = key.public_key()
    assert pub.public_bytes_raw().hex().upper() == "04" + XA + YA
    assert pub.za().hex().upper() == ZA
    assert pub.digest(b"message digest").hex().upper() == E
    # e computed by hand from Z_A with our SM3 agrees.
    assert kuaisuo.sm3(pub.za() + b"message digest").hex().upper() == E


@pytest.mark.parametrize("encoding", ["der", "raw"])
def test_sign_verify_roundtrip(encoding):
    key = sm2.SM2PrivateKey.generate()
    pub = key.public_key()
    for msg in (b"", os.urandom(1), os.urandom(5000)):
        for ident in (sm2.DEFAULT_ID, b"", os.urandom(30)):
            sig = key.sign(msg, ident, encoding=encoding)
            assert len(sig) == 64 if encoding == "raw" else 8 <= len(sig) <= 72
            assert verifies(pub.verify, sig, msg, ident, encoding=encoding)
            assert not verifies(pub.verify, sig, msg + b"x", ident, encoding=encoding)
            assert not verifies(pub.verify, sig, msg, ident + b"x", encoding=encoding)
    e = os.urandom(32)
    assert verifies(pub.verify_digest, key.sign_digest(e), e)


def test_deterministic_signatures():
    key = sm2.SM2PrivateKey.generate()
    a = key.sign(b"m", deterministic=True)
    assert a == key.sign(b"m", deterministic=True)
    assert a != key.sign(b"n", deterministic=True)
    assert key.sign(b"m") != key.sign(b"m")  # fresh random k


def test_key_encodings_roundtrip():
    key = sm2.SM2PrivateKey.generate()
    pub = key.public_key()
    for blob in (key.to_pem(), key.to_pem().encode(), key.to_der()):
        assert sm2.SM2PrivateKey.from_der(blob).private_bytes_raw() == key.private_bytes_raw()
    assert key.to_pem().startswith("-----BEGIN PRIVATE KEY-----\n")
    assert pub.to_pem().startswith("-----BEGIN PUBLIC KEY-----\n")
    for blob in (pub.to_pem().encode(), pub.to_der()):
        assert sm2.SM2PublicKey.from_der(blob) == pub
    for form in (pub.public_bytes_raw(), pub.public_bytes_raw()[1:], pub.public_bytes_raw(compressed=True)):
        assert sm2.SM2PublicKey.from_public_bytes(form) == pub


def test_bad_inputs_say_what_is_wrong():
    with pytest.raises(kuaisuo.KuaisuoError, match=r"\[1, n-2\]"):
        sm2.SM2PrivateKey.from_private_bytes(bytes(32))
    with pytest.raises(kuaisuo.KuaisuoError, match="private key"):
        sm2.SM2PrivateKey.from_private_bytes(b"\x01" * 31)
    with pytest.raises(kuaisuo.KuaisuoError, match="not on the curve"):
        sm2.SM2PublicKey.from_public_bytes(b"\x04" + bytes(64))
    der = sm2.SM2PrivateKey.generate().sign(b"x")
    with pytest.raises(kuaisuo.KuaisuoError, match="after the end"):
        sm2.signature_from_der(der + b"\x00")
    pub = sm2.SM2PrivateKey.generate().public_key()
    # verify is a predicate on untrusted input: every malformed signature is
    # False, never an exception; only a bad encoding name raises.
    for bad in (der[:-1], der + b"\x00", b"", b"\x30", bytes(72)):
        assert verifies(pub.verify, bad, b"x") is False
        assert verifies(pub.verify_digest, bad, bytes(32)) is False
    with pytest.raises(ValueError, match="encoding"):
        verifies(pub.verify, der, b"x", encoding="base64")
    assert verifies(pub.verify, b"\x01" * 63, b"x", encoding="raw") is False
    assert verifies(pub.verify, bytes(64), b"x", encoding="raw") is False  # r = s = 0: invalid
    with pytest.raises(kuaisuo.KuaisuoError, match="ID"):
        pub.za(bytes(8192))
    with pytest.raises(kuaisuo.KuaisuoError, match="PEM"):
        sm2.SM2PrivateKey.from_der("-----BEGIN PRIVATE KEY-----\n@@@\n-----END PRIVATE KEY-----\n")
    with pytest.raises(TypeError):
        sm2.SM2PrivateKey.generate().sign("text")


def test_batches_with_per_item_status():
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    pairs = ctx.sm2.keygen(50)
    assert len(pairs) == 50
    for d, p in pairs[:5]:
        assert sm2.SM2PrivateKey.from_private_bytes(d).public_key().public_bytes_raw() == p
    key = sm2.SM2PrivateKey.generate()
    msgs = [os.urandom(i * 7) for i in range(40)]
    sigs = ctx.sm2.sign(key, msgs)
    pubs = [key.public_key()] * len(msgs)
    assert ctx.sm2.verify(pubs, msgs, sigs) == [0] * len(msgs)
    broken = list(sigs)
    broken[3] = sigs[4]                      # valid DER, wrong message
    broken[5] = sigs[5] + b"\x00"            # trailing byte
    status = ctx.sm2.verify(pubs, msgs, broken)
    assert status[3] == -44 and kuaisuo.strerror(status[3]).endswith("does not verify")
    assert "after the end" in kuaisuo.strerror(status[5])
    assert all(s == 0 for i, s in enumerate(status) if i not in (3, 5))
    digests = [os.urandom(32) for _ in range(20)]
    dsigs = ctx.sm2.sign_digests(key, digests, deterministic=True)
    assert all(verifies(key.public_key().verify_digest, s, e) for s, e in zip(dsigs, digests))
    with pytest.raises(ValueError):
        ctx.sm2.verify(pubs[:2], msgs[:3], sigs[:3])


def test_digest_batches_one_key_and_flat_inputs():
    np = pytest.importorskip("numpy")
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    key = sm2.SM2PrivateKey.generate()
    pub = key.public_key()
    other = sm2.SM2PrivateKey.generate().public_key()
    digests = np.frombuffer(os.urandom(32 * 30), dtype=np.uint8).reshape(30, 32)
    raw = ctx.sm2.sign_digests(key, digests, encoding="raw")  # numpy in, read in place
    der = [sm2.signature_to_der(r) for r in raw]
    assert ctx.sm2.verify_digests(pub, digests, der) == [0] * 30  # one key for all
    flat_sigs = np.frombuffer(b"".join(raw), dtype=np.uint8).reshape(30, 64)
    assert ctx.sm2.verify_digests(pub, digests.tobytes(), flat_sigs, encoding="raw") == [0] * 30
    keys = [pub] * 30
    keys[7] = other
    bad = list(der)
    bad[9] = b"\x30\x00"
    status = ctx.sm2.verify_digests(keys, digests, bad)
    want = [verifies(pub.verify_digest, s, bytes(e)) and k == pub for s, e, k in zip(bad, digests, keys)]
    assert [st == 0 for st in status] == want
    assert status[7] == -44 and status[9] < 0
    # Messages as flat data with offsets, one key for all.
    msgs = [os.urandom(i) for i in range(12)]
    sigs = ctx.sm2.sign(key, msgs)
    data = b"".join(msgs)
    offsets = np.cumsum([0] + [len(m) for m in msgs], dtype=np.uint64)
    assert ctx.sm2.verify(pub, data, sigs, offsets=offsets) == [0] * 12
    with pytest.raises(ValueError, match="public keys for"):
        ctx.sm2.verify_digests(keys[:5], digests, der)
    with pytest.raises(ValueError, match="signatures for"):
        ctx.sm2.verify_digests(pub, digests, der[:4])


class _NativeCalls:
    """A native Context that records the public_keys each verify call gets."""

    def __init__(self, native):
        self._native, self.keys = native, []

    def __getattr__(self, name):
        call = getattr(self._native, name)
        if not name.startswith("sm2_verify"):
            return call

        def recorded(public_keys, *args, **kwargs):
            self.keys.append(public_keys)
            return call(public_keys, *args, **kwargs)
        return recorded


def _spoiled(i, sig, signed, change):
    """Item i's raw signature and signed bytes, left valid (even i) or made
    invalid: a bit of s flipped, r = 0, s >= n, r + s = n, a signature of
    nothing here, or the signed bytes changed (change(signed))."""
    n_order = bytes.fromhex("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123")
    r, s = sig[:32], sig[32:]
    kind = (i // 2) % 6
    if i % 2 == 0:
        return sig, signed
    if kind == 0:
        return r + bytes([s[0] ^ 1]) + s[1:], signed
    if kind == 1:
        return bytes(32) + s, signed
    if kind == 2:
        return r + b"\xff" * 32, signed
    if kind == 3:
        t_zero = (int.from_bytes(n_order, "big") - int.from_bytes(r, "big")).to_bytes(32, "big")
        return r + t_zero, signed
    if kind == 4:
        return b"\x01" * 64, signed
    return sig, change(signed)


@pytest.mark.parametrize("n", [0, 1, 7, 300])
def test_one_key_object_agrees_with_per_item_keys_and_single_calls(n):
    # One SM2PublicKey goes to the native calls as the key object (its 65
    # bytes not repeated); every item's status is the per-item keys' and
    # the single call's, valid and invalid items alike. 300 items build the
    # key's table in the first call; the second finds it.
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    native = _NativeCalls(ctx.sm2._ctx)
    ctx.sm2._ctx = native
    key = sm2.SM2PrivateKey.generate()
    pub = key.public_key()
    msgs = [os.urandom(i % 50) for i in range(n)]
    digests = [os.urandom(32) for _ in range(n)]
    items = [_spoiled(i, s, m, lambda m: m + b"x") for i, (s, m) in
             enumerate(zip(ctx.sm2.sign(key, msgs, id=b"ALICE", encoding="raw"), msgs))]
    ditems = [_spoiled(i, s, e, lambda e: e[:31] + bytes([e[31] ^ 1])) for i, (s, e) in
              enumerate(zip(ctx.sm2.sign_digests(key, digests, encoding="raw"), digests))]
    sigs, msgs = [s for s, _ in items], [m for _, m in items]
    dsigs, digests = [s for s, _ in ditems], [e for _, e in ditems]
    for _ in range(2):
        got = ctx.sm2.verify(pub, msgs, sigs, id=b"ALICE", encoding="raw")
        assert got == ctx.sm2.verify([pub] * n, msgs, sigs, id=b"ALICE", encoding="raw")
        assert [st == 0 for st in got] == [verifies(pub.verify, s, m, id=b"ALICE", encoding="raw")
                                           for s, m in zip(sigs, msgs)]
        dgot = ctx.sm2.verify_digests(pub, digests, dsigs, encoding="raw")
        assert dgot == ctx.sm2.verify_digests([pub] * n, digests, dsigs, encoding="raw")
        assert [st == 0 for st in dgot] == [verifies(pub.verify_digest, s, e, encoding="raw")
                                            for s, e in zip(dsigs, digests)]
        assert got.count(0) == dgot.count(0) == (n + 1) // 2
        if n >= 7:
            assert {-43, -44} <= set(got) and {-43, -44} <= set(dgot)
    assert [type(k).__name__ for k in native.keys] == ["Sm2Pub", "bytes", "Sm2Pub", "bytes"] * 2
    # Per-item IDs hash under the repeated bytes, then verify under the key.
    native.keys.clear()
    ctx.sm2.verify(pub, msgs, sigs, id=[b"ALICE"] * n, encoding="raw")
    assert [type(k).__name__ for k in native.keys] == ["Sm2Pub"]


def test_one_key_object_checks_gmssl_signatures():
    # GmSSL (gmssl-pyx) as the independent signer of messages and digests,
    # checked in batches under one key object, large enough for its table.
    g = pytest.importorskip("gmssl_pyx")
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    key = sm2.SM2PrivateKey.generate()
    pub = key.public_key()
    priv, pub64 = key.private_bytes_raw(), pub.public_bytes_raw()[1:]
    msgs = [os.urandom(1 + i % 40) for i in range(300)]
    theirs = [g.sm2_sign(priv, pub64, m) for m in msgs]
    digests = [os.urandom(32) for _ in range(300)]
    dtheirs = [g.sm2_sign_sm3_digest(priv, e) for e in digests]
    bad = set(range(5, 300, 7))
    changed = [m + b"x" if i in bad else m for i, m in enumerate(msgs)]
    dchanged = [bytes(32) if i in bad else e for i, e in enumerate(digests)]
    want = [-44 if i in bad else 0 for i in range(300)]
    assert ctx.sm2.verify(pub, changed, theirs) == want
    assert ctx.sm2.verify_digests(pub, dchanged, dtheirs) == want


def test_per_item_ids_agree_with_single_calls_and_gmssl():
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    keys = [sm2.SM2PrivateKey.generate() for _ in range(3)]
    n = 40
    msgs = [os.urandom(i * 3) for i in range(n)]
    ids = [os.urandom(i % 20) for i in range(n)]            # the empty ID included
    signer = keys[0]
    sigs = ctx.sm2.sign(signer, msgs, id=ids)
    assert all(verifies(signer.public_key().verify, s, m, id=i) for s, m, i in zip(sigs, msgs, ids))
    # Per-item keys and IDs; each item's status is the single call's answer.
    pubs = [keys[i % 3].public_key() for i in range(n)]
    status = ctx.sm2.verify(pubs, msgs, sigs, id=ids)
    assert status == [0 if p == signer.public_key() else -44 for p in pubs]
    assert ctx.sm2.verify(signer.public_key(), msgs, sigs, id=ids) == [0] * n
    shifted = ids[1:] + ids[:1]
    assert all(s != 0 for s in ctx.sm2.verify(signer.public_key(), msgs, sigs, id=shifted)[1:])
    digests, dstatus = ctx.sm2.digests(pubs, msgs, id=ids)
    assert dstatus == [0] * n
    assert digests == [p.digest(m, id=i) for p, m, i in zip(pubs, msgs, ids)]
    # A bad key or an overlong ID fails its item only.
    raw_pubs = [p.public_bytes_raw() for p in pubs]
    raw_pubs[2] = b"\x04" + bytes(64)
    long_ids = list(ids)
    long_ids[4] = bytes(8192)
    status = ctx.sm2.verify(raw_pubs, msgs, sigs, id=long_ids)
    assert status[2] == -41 and status[4] == -45
    # A malformed DER signature gets its decoding error, before a bad ID's;
    # the statuses as a list and as an int32 array agree.
    with pytest.raises(kuaisuo.KuaisuoError) as der_error:
        kuaisuo._native.sm2_signature_from_der(b"junk")
    bad_sigs = list(sigs)
    bad_sigs[4] = bad_sigs[7] = b"junk"
    status = ctx.sm2.verify(raw_pubs, msgs, bad_sigs, id=long_ids)
    want = [0 if p == signer.public_key() else -44 for p in pubs]
    want[2], want[4], want[7] = -41, der_error.value.code, der_error.value.code
    assert status == want
    array = ctx.sm2.verify(raw_pubs, msgs, bad_sigs, id=long_ids, as_numpy=True)
    assert array.tolist() == want and array.flags.writeable
    with pytest.raises(ValueError, match=r"id\[1\]"):
        ctx.sm2.sign(signer, msgs[:2], id=[b"a", bytes(8192)])
    with pytest.raises(ValueError, match="IDs for"):
        ctx.sm2.sign(signer, msgs, id=ids[:3])
    # GmSSL checks our per-item-ID signatures with each item's ID, and we
    # check its (gmssl-pyx refuses the empty ID: items 1 to 10).
    g = pytest.importorskip("gmssl_pyx")
    pub64 = signer.public_key().public_bytes_raw()[1:]
    for s, m, i in list(zip(sigs, msgs, ids))[1:11]:
        assert g.sm2_verify(pub64, m, s, signer_id=i)
    theirs = [g.sm2_sign(signer.private_bytes_raw(), pub64, m, signer_id=i)
              for m, i in zip(msgs[1:11], ids[1:11])]
    assert ctx.sm2.verify(signer.public_key(), msgs[1:11], theirs, id=ids[1:11]) == [0] * 10


def test_numpy_outputs_match_the_lists():
    np = pytest.importorskip("numpy")
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    priv, pub = ctx.sm2.keygen(5, as_numpy=True)
    assert priv.shape == (5, 32) and pub.shape == (5, 65) and priv.dtype == np.uint8
    assert all(sm2.SM2PrivateKey.from_private_bytes(d).public_key().public_bytes_raw() == p.tobytes()
               for d, p in zip(priv, pub))
    key = sm2.SM2PrivateKey.generate()
    msgs = [os.urandom(i) for i in range(9)]
    sigs = ctx.sm2.sign(key, msgs, encoding="raw", as_numpy=True)
    assert sigs.shape == (9, 64) and sigs.flags.writeable
    status = ctx.sm2.verify(key.public_key(), msgs, sigs, encoding="raw", as_numpy=True)
    assert status.dtype == np.int32 and status.tolist() == [0] * 9
    sigs[3, 40] ^= 1
    status = ctx.sm2.verify(key.public_key(), msgs, sigs, encoding="raw", as_numpy=True)
    assert status.tolist() == [0, 0, 0, -44, 0, 0, 0, 0, 0]
    digests = np.frombuffer(os.urandom(32 * 6), np.uint8).reshape(6, 32)
    dsigs = ctx.sm2.sign_digests(key, digests, encoding="raw", as_numpy=True)
    assert ctx.sm2.verify_digests(key.public_key(), digests, dsigs, encoding="raw",
                                  as_numpy=True).tolist() == [0] * 6
    with pytest.raises(ValueError, match="encoding='raw'"):
        ctx.sm2.sign(key, msgs, as_numpy=True)
    assert ctx.sm3.hash([b"abc", b""], as_numpy=True).tobytes() == \
        kuaisuo.sm3(b"abc") + kuaisuo.sm3(b"")
    empty = ctx.sm2.verify(key.public_key(), [], [], as_numpy=True)
    assert empty.shape == (0,) and empty.dtype == np.int32


def test_native_batch_calls_fill_the_buffer_given():
    # The out= of the native batch calls (what as_numpy passes): filled in
    # place and returned, of the exact size, writable; statuses come as a
    # bytearray that numpy views without a copy.
    np = pytest.importorskip("numpy")
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    native = ctx._ctx
    key = sm2.SM2PrivateKey.generate()
    digests = np.frombuffer(os.urandom(32 * 5), np.uint8).reshape(5, 32)
    out = np.zeros((5, 64), np.uint8)
    assert native.sm2_sign_digest_batch(key._k, digests, 1, out) is out
    assert ctx.sm2.verify_digests(key.public_key(), digests, out, encoding="raw") == [0] * 5
    with pytest.raises(ValueError, match="out must be 320 bytes, not 256"):
        native.sm2_sign_digest_batch(key._k, digests, 1, np.zeros((4, 64), np.uint8))
    with pytest.raises(TypeError, match="out must be a writable"):
        native.sm2_sign_digest_batch(key._k, digests, 1, bytes(320))
    with pytest.raises(TypeError, match="out must be a writable"):
        native.sm2_sign_digest_batch(key._k, digests, 1, np.zeros((10, 64), np.uint8)[::2])
    assert isinstance(native.sm2_sign_digest_batch(key._k, digests, 1), bytes)
    status = native.sm2_verify_digest_batch(key.public_key().public_bytes_raw() * 5, digests, out)
    assert isinstance(status, bytearray) and len(status) == 5 * 4
    priv, pub = ctx.sm2.keygen(3, as_numpy=True)
    sigs = ctx.sm2.sign_digests(key, digests, encoding="raw", as_numpy=True)
    codes = ctx.sm2.verify_digests(key.public_key(), digests, sigs, encoding="raw", as_numpy=True)
    hashes = ctx.sm3.hash([b"a", b"bc"], as_numpy=True)
    assert all(a.flags.writeable for a in (priv, pub, sigs, codes, hashes))
    codes[0] = 7                                  # the caller's own array
    assert codes.tolist() == [7, 0, 0, 0, 0]


def test_batch_calls_fill_the_callers_out():
    # out= with as_numpy=True: the library fills the caller's array (reused
    # from call to call) and the call returns it; statuses of undecodable
    # DER items are patched into it too.
    np = pytest.importorskip("numpy")
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    key = sm2.SM2PrivateKey.generate()
    digests = np.frombuffer(os.urandom(32 * 4), np.uint8).reshape(4, 32)
    sigs = np.zeros((4, 64), np.uint8)
    assert ctx.sm2.sign_digests(key, digests, encoding="raw", as_numpy=True, out=sigs) is sigs
    codes = np.full(4, 99, np.int32)
    assert ctx.sm2.verify_digests(key.public_key(), digests, sigs, encoding="raw",
                                  as_numpy=True, out=codes) is codes
    assert codes.tolist() == [0] * 4
    der = [sm2.signature_to_der(s.tobytes()) for s in sigs]
    der[1] = b"junk"
    assert ctx.sm2.verify_digests(key.public_key(), digests, der, as_numpy=True,
                                  out=codes) is codes
    assert codes[1] < 0 and codes[[0, 2, 3]].tolist() == [0, 0, 0]
    msgs = [b"a", b"bb", b"", b"dddd"]
    assert ctx.sm2.sign(key, msgs, encoding="raw", as_numpy=True, out=sigs) is sigs
    assert ctx.sm2.verify(key.public_key(), msgs, sigs, encoding="raw", as_numpy=True,
                          out=codes).tolist() == [0] * 4
    ed = kuaisuo.Ed25519PrivateKey.generate()
    ed_sigs = np.zeros((4, 64), np.uint8)
    assert ctx.ed25519.sign(ed, msgs, as_numpy=True, out=ed_sigs) is ed_sigs
    assert ctx.ed25519.verify(ed.public_key(), msgs, ed_sigs, as_numpy=True,
                              out=codes) is codes and codes.tolist() == [0] * 4
    seeds = np.frombuffer(os.urandom(32 * 4), np.uint8).reshape(4, 32)
    pubs = np.zeros((4, 32), np.uint8)
    assert ctx.ed25519.public_keys(seeds, as_numpy=True, out=pubs) is pubs
    assert ctx.ed25519.sign(seeds, msgs, as_numpy=True, out=ed_sigs) is ed_sigs
    assert ctx.ed25519.verify(pubs, msgs, ed_sigs) == [0] * 4
    assert ctx.x25519.public_keys(seeds, as_numpy=True, out=pubs) is pubs
    shared = np.zeros((4, 32), np.uint8)
    mine = kuaisuo.X25519PrivateKey.generate()
    got, status = ctx.x25519.derive(mine, pubs, as_numpy=True, out=shared)
    assert got is shared and [s.tobytes() for s in shared] == ctx.x25519.derive(mine, pubs)[0]
    with pytest.raises(ValueError, match="as_numpy=True"):
        ctx.ed25519.sign(ed, msgs, out=ed_sigs)
    with pytest.raises(ValueError, match="must be 256 bytes, not 192"):
        ctx.ed25519.sign(ed, msgs, as_numpy=True, out=np.zeros((3, 64), np.uint8))
    wrong = bytearray(12)
    with pytest.raises(ValueError, match="status_out must be 16 bytes, not 12"):
        ctx.sm2.verify_digests(key.public_key(), digests, sigs, encoding="raw", as_numpy=True,
                               out=wrong)
    wrong.extend(bytes(4))   # a bytearray with a buffer still exported could not grow
    with pytest.raises(ValueError, match="aligned to 4 bytes"):
        ctx.sm2.verify_digests(key.public_key(), digests, sigs, encoding="raw", as_numpy=True,
                               out=memoryview(bytearray(17))[1:])


def test_errors_name_the_input():
    cases = [
        (lambda: sm2.SM2PrivateKey.from_pem(b"garbage"), "SM2 private key"),
        (lambda: sm2.SM2PublicKey.from_der(b"garbage"), "SM2 public key"),
        (lambda: sm2.SM2PublicKey.from_public_bytes(b"\x04" + bytes(64)), "SM2 public key"),
        (lambda: sm2.signature_from_der(b"\x30\x01"), "SM2 signature"),
        (lambda: kuaisuo.Ed25519PrivateKey.from_pem(b"x"), "Ed25519 private key"),
        (lambda: kuaisuo.X25519PublicKey.from_pem(b"x"), "X25519 public key"),
        (lambda: kuaisuo.sm4.encrypt(bytes(15), b"x", mode="ctr", iv=bytes(16)), r"SM4 key \(16 bytes, not 15\)"),
        (lambda: kuaisuo.sm4.encrypt(bytes(16), bytes(15), mode="cbc", iv=bytes(16),
                                         padding=False), "^data"),
        (lambda: kuaisuo.sm4.encrypt(bytes(16), bytes(16), mode="cbc", iv=bytes(8),
                                         padding=False), "^iv"),
    ]
    for call, name in cases:
        with pytest.raises(kuaisuo.KuaisuoError, match=name) as err:
            call()
        assert err.value.code is not None and err.value.code < 0
