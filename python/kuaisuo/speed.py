"""`kuaisuo speed`: our throughput next to OpenSSL's, measured in one run.

Every case runs in the C++ harness (bench/harness): a warm-up, then seven
timed runs over fresh random inputs, reporting the median. OpenSSL's
libcrypto is loaded at run time and called through EVP as an application
would. Each algorithm contributes a plan: a list of comparisons, each pairing
one kuaisuo case with the OpenSSL case it is measured against.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import sys
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _native

ALGORITHMS = ("sm3", "sm2", "ed25519", "x25519", "sm4", "skinny128-256")


@dataclass(frozen=True)
class Case:
    alg: str
    op: str
    impl: str  # "kuaisuo" | "openssl" | "table" (SKINNY's table-based baseline)
    backend: str  # "cpu" | "gpu"
    threads: int
    batch: int
    msg_bytes: int
    input: str = "message"  # sm2 sign/verify: "digest" when e is given; x25519: "key";
    # sm2 key-exchange: "initiator" (the side timed; msg_bytes is the key's length);
    # Ed25519/X25519 GPU rows: "wide-table" (KS_GPU_WIDE_BASE_TABLE)
    pinned: bool = False  # GPU batches: buffers from ks_host_alloc (page-locked)
    device: bool = False  # GPU rows on CuPy arrays already in GPU memory (_device_bench.py)

    def what(self) -> str:
        """The operand column: a digest, or a message of some size."""
        if self.op in ("keygen", "derive", "setkey"):
            return "-"
        if self.op == "key-exchange":
            return f"{self.input}, {human_bytes(self.msg_bytes)} key"
        if self.input == "schedule":
            return human_bytes(self.msg_bytes) + ", key reused"
        if self.input == "table":
            return human_bytes(self.msg_bytes) + ", key's table"
        return "digest" if self.input == "digest" else human_bytes(self.msg_bytes)

    def where(self) -> str:
        if self.backend == "cpu":
            return f"cpu x{self.threads}"
        table = " wide table" if self.input == "wide-table" else ""
        memory = " device memory" if self.device else " pinned" if self.pinned else ""
        return "gpu" + memory + table

    def label(self) -> str:
        where = f"{self.backend}, {self.threads} thr" if self.backend == "cpu" else self.where()
        return (f"{self.alg} {self.op} {self.what()} {self.impl} "
                f"({where}, batch {self.batch})")


@dataclass(frozen=True)
class Comparison:
    ours: Case
    theirs: Case  # OpenSSL
    peers: Tuple[Case, ...] = ()  # other libraries (_peers.py), single operations only


@dataclass
class Options:
    backend: str  # "auto" | "cpu" | "gpu"
    threads: int
    batch: Optional[int]
    seconds: float
    gpu: bool  # a GPU is usable for this run
    max_bytes: int = 4 << 20  # the largest SM4 buffer (--max-bytes)
    device_arrays: bool = False  # GPU rows on arrays already in GPU memory (CuPy installed)


def human_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def plan_sm3(opt: Options) -> List[Comparison]:
    """Single-thread one-shot hashing at 64 B, 1 KiB, 1 MiB; then batches on
    every thread (and on the GPU) against OpenSSL on as many threads."""
    plan: List[Comparison] = []
    sizes = (64, 1024, 1 << 20)
    if opt.backend != "gpu":
        for size in sizes:
            ours = Case("sm3", "hash", "kuaisuo", "cpu", 1, 1, size)
            plan.append(Comparison(ours, replace(ours, impl="openssl")))
        cpu_batch = opt.batch or 4096
        for size in (64, 1024):
            ours = Case("sm3", "hash", "kuaisuo", "cpu", opt.threads, cpu_batch, size)
            theirs = Case("sm3", "hash", "openssl", "cpu", opt.threads, 1, size)
            plan.append(Comparison(ours, theirs))
    if opt.gpu:
        gpu_batch = opt.batch or (1 << 20)
        for device in (False, True)[:1 + opt.device_arrays]:
            for size in (64, 1024):
                ours = Case("sm3", "hash", "kuaisuo", "gpu", opt.threads, gpu_batch, size,
                            device=device)
                theirs = Case("sm3", "hash", "openssl", "cpu", opt.threads, 1, size)
                plan.append(Comparison(ours, theirs))
    return plan


def plan_sm2(opt: Options) -> List[Comparison]:
    """keygen, sign and verify (digest-in, and 64-byte messages with the
    default ID) at one thread as single operations, then batches on every
    thread, each against OpenSSL's EVP SM2 on as many threads; encryption
    and decryption of 64-byte messages (the DER form) on one thread, one at
    a time, to a recipient whose table was built beforehand ("table",
    ks_sm2_pubkey_precompute), and in batches (encryption to one
    recipient with its table, eight items at a time in IFMA lanes); and
    key exchange (GB/T 32918.3) on one thread: one party's whole side, the
    initiator's (ks_sm2_kx_new, _start, _finish with a responder's R_B made
    beforehand, a 16-byte key, no confirmation; checked beforehand that
    whole exchanges, with confirmation and without, give both ends the same
    key), against OpenSSL's nearest equivalent, which has no SM2 key
    exchange: an ephemeral EC key on the SM2 curve and ECDH with a peer's
    (OPENSSL_STAND_INS)."""
    plan: List[Comparison] = []
    ops = [("keygen", "digest", 0), ("sign", "digest", 32), ("sign", "message", 64),
           ("verify", "digest", 32), ("verify", "message", 64)]
    if opt.backend != "gpu":
        batch = opt.batch or 4096
        for threads, size in ((1, 1), (opt.threads, batch)):
            for op, kind, msg in ops:
                ours = Case("sm2", op, "kuaisuo", "cpu", threads, size, msg, kind)
                plan.append(Comparison(ours, replace(ours, impl="openssl", batch=1)))
        crypt = [("encrypt", "message", 1), ("encrypt", "table", 1), ("decrypt", "message", 1)]
        if batch > 1:
            crypt += [("encrypt", "table", batch), ("decrypt", "message", batch)]
        for op, kind, size in crypt:  # DER form, one thread
            ours = Case("sm2", op, "kuaisuo", "cpu", 1, size, 64, kind)
            plan.append(Comparison(ours, replace(ours, impl="openssl", batch=1,
                                                 input="message")))
        ours = Case("sm2", "key-exchange", "kuaisuo", "cpu", 1, 1, 16, "initiator")
        plan.append(Comparison(ours, replace(ours, impl="openssl")))
    if opt.gpu:
        batch = opt.batch or (1 << 20)
        for op, kind, msg in ops:
            # Host threads stage the copies (and run the message offsets).
            ours = Case("sm2", op, "kuaisuo", "gpu", opt.threads, batch, msg, kind)
            theirs = Case("sm2", op, "openssl", "cpu", opt.threads, 1, msg, kind)
            plan.append(Comparison(ours, theirs))
        for op, kind, msg in ops:  # fixed-size items from pinned buffers: no staging
            if kind == "digest":
                ours = Case("sm2", op, "kuaisuo", "gpu", opt.threads, batch, msg, kind, True)
                theirs = Case("sm2", op, "openssl", "cpu", opt.threads, 1, msg, kind)
                plan.append(Comparison(ours, theirs))
        for kind, msg in (("digest", 32), ("message", 64)) if opt.device_arrays else ():
            ours = Case("sm2", "verify", "kuaisuo", "gpu", opt.threads, batch, msg, kind,
                        device=True)
            theirs = Case("sm2", "verify", "openssl", "cpu", opt.threads, 1, msg, kind)
            plan.append(Comparison(ours, theirs))
    return plan


def plan_single_and_batches(alg: str, ops: List[Tuple[str, str, int]],
                            opt: Options,
                            gpu_ops: Tuple[Tuple[str, str, int], ...] = (),
                            device_ops: Tuple[str, ...] = ()) -> List[Comparison]:
    """Single operations at one thread, then CPU batches on one thread and
    on all threads, then GPU batches from ordinary and from pinned caller
    buffers (and, for device_ops, on arrays already in GPU memory), each
    against OpenSSL's single operation (EVP) on as many threads. ops holds
    (op, input, msg_bytes); gpu_ops, GPU-only variants in the same form."""
    plan: List[Comparison] = []
    if opt.backend != "gpu":
        batch = opt.batch or 4096
        settings = [(1, 1), (1, batch)]
        if opt.threads > 1:
            settings.append((opt.threads, batch))
        for threads, size in settings:
            for op, kind, msg in ops:
                ours = Case(alg, op, "kuaisuo", "cpu", threads, size, msg, kind)
                plan.append(Comparison(ours, replace(ours, impl="openssl", batch=1)))
    if opt.gpu:
        batch = opt.batch or (1 << 20)
        plain_input = {op: kind for op, kind, _ in ops}  # OpenSSL's row for a GPU variant
        for pinned in (False, True):
            for op, kind, msg in list(ops) + list(gpu_ops):
                ours = Case(alg, op, "kuaisuo", "gpu", opt.threads, batch, msg, kind, pinned)
                theirs = Case(alg, op, "openssl", "cpu", opt.threads, 1, msg,
                              plain_input.get(op, kind))
                plan.append(Comparison(ours, theirs))
        for op, kind, msg in ops:  # arrays already in GPU memory
            if opt.device_arrays and op in device_ops:
                ours = Case(alg, op, "kuaisuo", "gpu", opt.threads, batch, msg, kind,
                            device=True)
                plan.append(Comparison(ours, replace(ours, impl="openssl", backend="cpu",
                                                     batch=1, device=False)))
    return plan


# GPU rows over the wide fixed-base table (input "wide-table": a context
# with KS_GPU_WIDE_BASE_TABLE, secret-dependent addresses; the default rows
# use the constant-time comb).
WIDE_TABLE_OPS = (("keygen", "wide-table", 0), ("sign", "wide-table", 64))


def plan_ed25519(opt: Options) -> List[Comparison]:
    """Ed25519 keygen, and sign and verify of 64-byte messages (pure
    Ed25519); verify batches hold 16 distinct keys."""
    ops = [("keygen", "message", 0), ("sign", "message", 64), ("verify", "message", 64)]
    return plan_single_and_batches("ed25519", ops, opt, WIDE_TABLE_OPS, ("verify",))


def plan_x25519(opt: Options) -> List[Comparison]:
    """X25519 keygen (a private key and its public key) and derive (a
    shared secret; batches with a private key per item)."""
    return plan_single_and_batches("x25519", [("keygen", "key", 0), ("derive", "key", 0)], opt,
                                   WIDE_TABLE_OPS[:1], ("derive",))


SM4_OPS = ("ecb", "cbc", "cbc-dec", "cfb", "ofb", "ctr", "gcm")
SM4_SIZES = (16, 64, 1 << 10, 16 << 10, 64 << 10, 1 << 20)
SM4_LARGE_SIZES = (4 << 20, 64 << 20, 1 << 30)  # those up to --max-bytes


def plan_sm4(opt: Options) -> List[Comparison]:
    """Each mode (op: the mode's name, encrypting; "cbc-dec" decrypts CBC,
    which runs in parallel where CBC encryption is serial) on one thread at
    16 B to 1 MiB against OpenSSL's EVP SM4 on one thread; then CTR and GCM
    batches of 16 KiB messages (ks_sm4_batch, a key and IV per message) on
    every thread against OpenSSL on as many threads. An operation is one
    whole message under a random key and IV, no padding, no AAD, a 16-byte
    GCM tag: our one-shot call, and OpenSSL's init (key and IV), update and
    final on an EVP_CIPHER_CTX made once per thread. With a GPU: batches of
    1 KiB messages (2^20 unless --batch) on the device, end to end from
    ordinary host memory, every mode (CBC, CFB and OFB encryption through
    the serial-mode chains), against OpenSSL on every thread; and CTR and
    GCM of one buffer already in GPU memory from 4 MiB up to --max-bytes."""
    plan: List[Comparison] = []
    if opt.backend != "gpu":
        for op in SM4_OPS:
            for size in SM4_SIZES:
                ours = Case("sm4", op, "kuaisuo", "cpu", 1, 1, size)
                plan.append(Comparison(ours, replace(ours, impl="openssl")))
        plan += sm4_reused_keys()
        plan += sm4_large_buffers(opt)
        plan += sm4_serial_batches()
        batch = opt.batch or 4096
        for op in ("ctr", "gcm", "cbc"):
            ours = Case("sm4", op, "kuaisuo", "cpu", opt.threads, batch, 16 << 10)
            theirs = Case("sm4", op, "openssl", "cpu", opt.threads, 1, 16 << 10)
            plan.append(Comparison(ours, theirs))
    if opt.gpu:
        batch = opt.batch or (1 << 20)
        for op in ("ecb", "ctr", "gcm", "cbc", "cfb", "ofb"):
            ours = Case("sm4", op, "kuaisuo", "gpu", opt.threads, batch, 1 << 10)
            theirs = Case("sm4", op, "openssl", "cpu", opt.threads, 1, 1 << 10)
            plan.append(Comparison(ours, theirs))
        for op in ("ctr", "gcm") if opt.device_arrays else ():  # one buffer in GPU memory
            for size in (n for n in SM4_LARGE_SIZES if n <= opt.max_bytes):
                ours = Case("sm4", op, "kuaisuo", "gpu", opt.threads, 1, size, "buffer",
                            device=True)
                theirs = Case("sm4", op, "openssl", "cpu", opt.threads, 1, size)
                plan.append(Comparison(ours, theirs))
    return plan


def sm4_reused_keys() -> List[Comparison]:
    """The same modes and sizes with the key expanded once (input
    "schedule": our ks_sm4_schedule; OpenSSL's context re-initialised with
    the IV alone), and the key schedule by itself (op "setkey")."""
    plan: List[Comparison] = []
    for op in SM4_OPS:
        if op == "gcm":
            continue
        for size in SM4_SIZES:
            ours = Case("sm4", op, "kuaisuo", "cpu", 1, 1, size, "schedule")
            plan.append(Comparison(ours, replace(ours, impl="openssl")))
    ours = Case("sm4", "setkey", "kuaisuo", "cpu", 1, 1, 16)
    return plan + [Comparison(ours, replace(ours, impl="openssl"))]


def sm4_serial_batches() -> List[Comparison]:
    """CBC, CFB and OFB encryption of 16 messages of 1 KiB at once on one
    thread (ks_sm4_batch: a key and IV per message, the messages one per
    SIMD lane), against OpenSSL one message at a time; CBC also against
    Intel's crypto_mb over 16 buffers when KS_CRYPTO_MB names its library
    (built from source: docs/BUILDING.md)."""
    plan: List[Comparison] = []
    for op in ("cbc", "cfb", "ofb"):
        ours = Case("sm4", op, "kuaisuo", "cpu", 1, 16, 1 << 10)
        peers = (replace(ours, impl="crypto_mb"),) if op == "cbc" and os.environ.get(
            "KS_CRYPTO_MB") else ()
        plan.append(Comparison(ours, replace(ours, impl="openssl", batch=1), peers))
    return plan


def sm4_large_buffers(opt: Options) -> List[Comparison]:
    """Buffers past 1 MiB, up to opt.max_bytes (4 MiB, 64 MiB, 1 GiB): ECB,
    CTR and GCM one-shot on one thread; then ECB and CTR as one buffer
    split over every thread (ks_sm4_crypt_buffer on a context), against
    OpenSSL on as many threads, each with a buffer of that size."""
    plan: List[Comparison] = []
    sizes = [n for n in SM4_LARGE_SIZES if n <= opt.max_bytes]
    for op in ("ecb", "ctr", "gcm"):
        for size in sizes:
            ours = Case("sm4", op, "kuaisuo", "cpu", 1, 1, size)
            plan.append(Comparison(ours, replace(ours, impl="openssl")))
    if opt.threads > 1:
        for op in ("ecb", "ctr"):
            for size in sizes:
                ours = Case("sm4", op, "kuaisuo", "cpu", opt.threads, 1, size, "buffer")
                plan.append(Comparison(ours, replace(ours, impl="openssl", input="message")))
    return plan


SKINNY_SIZES = (16, 64, 1 << 10, 64 << 10, 1 << 20)
SKINNY_LARGE_SIZES = (4 << 20, 64 << 20, 1 << 30)  # those up to --max-bytes


def plan_skinny(opt: Options) -> List[Comparison]:
    """SKINNY-128-256 ECB and CTR (encrypting) on one thread, 16 B to 1 MiB
    and on up to --max-bytes, then ECB and CTR as one buffer over every
    thread (ks_skinny128_256_crypt_buffer)
    from 1 MiB up to --max-bytes, each against the table-based baseline on
    one thread (impl "table", shown in the openssl column: no OpenSSL peer
    exists; the seed measures its speedups against such code). With a GPU:
    ECB and CTR as one buffer on it (the bitsliced kernel, end to end from
    ordinary and from pinned caller memory), against the same baseline."""
    plan: List[Comparison] = []
    alg = "skinny128-256"
    sizes = (1 << 20,) + tuple(n for n in SKINNY_LARGE_SIZES if n <= opt.max_bytes)
    if opt.backend != "gpu":
        for op in ("ecb", "ctr"):
            for size in SKINNY_SIZES + sizes[1:]:
                ours = Case(alg, op, "kuaisuo", "cpu", 1, 1, size)
                plan.append(Comparison(ours, replace(ours, impl="table")))
        if opt.threads > 1:
            for op in ("ecb", "ctr"):
                for size in sizes:
                    ours = Case(alg, op, "kuaisuo", "cpu", opt.threads, 1, size, "buffer")
                    plan.append(Comparison(ours, Case(alg, op, "table", "cpu", 1, 1, size)))
    if opt.gpu:
        for op in ("ecb", "ctr"):
            for size in sizes:
                for pinned in (False, True):
                    ours = Case(alg, op, "kuaisuo", "gpu", opt.threads, 1, size, "buffer", pinned)
                    plan.append(Comparison(ours, Case(alg, op, "table", "cpu", 1, 1, size)))
        for size in sizes if opt.device_arrays else ():  # CTR of a buffer in GPU memory
            ours = Case(alg, "ctr", "kuaisuo", "gpu", opt.threads, 1, size, "buffer", device=True)
            plan.append(Comparison(ours, Case(alg, "ctr", "table", "cpu", 1, 1, size)))
    return plan


# Rows where OpenSSL lacks the operation and runs its nearest equivalent
# instead, (alg, op) -> (what it runs, what it lacks): the table says so
# beside the row, the JSON in "theirs_note", the plot in the row's label.
OPENSSL_STAND_INS: Dict[Tuple[str, str], Tuple[str, str]] = {
    ("sm2", "key-exchange"): ("ephemeral EC keygen + ECDH derive on curve SM2",
                              "SM2 key exchange"),
}

# Rows no optional peer measures, though the peer has the algorithm:
# gmssl-pyx exposes no SM2 key exchange.
NO_PEER_OPS = {("sm2", "key-exchange")}


def stand_in_note(case: Case) -> Optional[str]:
    """What OpenSSL runs on this row where it lacks the operation, else None."""
    found = OPENSSL_STAND_INS.get((case.alg, case.op)) if case.impl == "openssl" else None
    return None if found is None else found[0]


def stand_in_text(case: Case) -> str:
    """The table's note for such a row ("" for the others), e.g.
    "(openssl ran: ephemeral EC keygen + ECDH derive on curve SM2; it has
    no SM2 key exchange)"."""
    found = OPENSSL_STAND_INS.get((case.alg, case.op)) if case.impl == "openssl" else None
    return "" if found is None else f"(openssl ran: {found[0]}; it has no {found[1]})"


PLANS: Dict[str, Callable[[Options], List[Comparison]]] = {
    "sm3": plan_sm3, "sm2": plan_sm2, "ed25519": plan_ed25519, "x25519": plan_x25519,
    "sm4": plan_sm4, "skinny128-256": plan_skinny}


# For `kuaisuo speed --help` (kuaisuo/cli/speed.py): what ALG takes, and which libraries
# are measured beside kuaisuo, on which rows, and how to get them.
# (name, package, import name, algorithms) of each optional peer (_peers.py).
OPTIONAL_PEERS = (
    ("GmSSL", "gmssl-pyx", "gmssl_pyx", "SM2 keygen/sign/verify/encrypt/decrypt, SM3, SM4 CTR and GCM"),
    ("libsodium", "PyNaCl", "nacl", "Ed25519 keygen/sign/verify, X25519 keygen/derive"),
)


def help_description(width: int = 78) -> str:
    """The speed subcommand's --help text (kuaisuo/cli/speed.py shows it as written):
    the algorithms ALG takes, and the libraries measured beside kuaisuo,
    when each appears and how to install the optional ones."""
    import importlib.util
    import textwrap

    def installed(module: str) -> str:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        return "installed" if found else "not installed"

    def item(text: str) -> str:
        return textwrap.fill(text, width, initial_indent="  - ", subsequent_indent="    ",
                             break_on_hyphens=False)

    paragraphs = [
        textwrap.fill("Measures kuaisuo's throughput next to other libraries' in one run: "
                      "each case in interleaved rounds, the median round kept with the "
                      "rounds' spread (±); a row where either side's spread exceeds "
                      f"{NOISY_SPREAD_PCT:.0f}% is marked noisy and gets no ratio.", width),
        textwrap.fill(f"ALG (default: all): {', '.join(ALGORITHMS)}.", width),
        "Measured beside kuaisuo:\n" + "\n".join(
            [item("OpenSSL (libcrypto through EVP, loaded at run time): always, on every "
                  "row (skinny128-256, which OpenSSL lacks, is measured against kuaisuo's "
                  "table-based baseline in that column; SM2 key exchange, which it lacks "
                  "too, against its ephemeral ECDH on the SM2 curve, the row saying so).")] +
            [item(f"{name} via {package} ({installed(module)}): {what}; on the "
                  "one-thread single-operation rows.")
             for name, package, module, what in OPTIONAL_PEERS]),
        textwrap.fill("Where peers ran, the \"best peer\" column shows the fastest of OpenSSL "
                      "and the peers, and --json and --plot carry every one. Install the "
                      "optional peers with: pip install "
                      f"{' '.join(p[1].lower() for p in OPTIONAL_PEERS)}", width),
    ]
    return "\n\n".join(paragraphs)


def machine_info(gpu: bool) -> dict:
    info: Dict[str, Any] = {
        "cpu_model": _native._cpu_model(),
        "cpu_features": _native.cpu_features(),
        "online_cpus": os.cpu_count(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "kuaisuo_version": _native.version(),
        "kuaisuo_gpu_built": _native.gpu_built(),
        "openssl": _native._openssl_version() or None,
        "gpu": None,
    }
    if gpu:
        info["gpu"] = _native._gpu_info(0)
    return info


def load_average() -> Optional[List[float]]:
    """os.getloadavg(): the 1, 5 and 15 minute load averages (None where the
    platform has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def source_commit(package_dir: Optional[str] = None) -> Dict[str, Any]:
    """What was measured: {"commit": git rev-parse HEAD, "commit_source":
    "git", "dirty": whether tracked files differ from it} when the package's
    sources are tracked files of a git checkout (an editable install of
    one); otherwise the package version ("commit_source": "package
    version"), or None. Never raises: no git, not a checkout, an installed
    copy inside some other repository's ignored files all fall back."""
    import subprocess

    from . import __version__

    here = package_dir or os.path.dirname(os.path.abspath(__file__))
    fallback: Dict[str, Any] = {"commit": __version__ or None,
                                "commit_source": "package version" if __version__ else None,
                                "dirty": None}

    def git(*args: str) -> Optional[str]:
        r = subprocess.run(["git", "-C", here, *args], capture_output=True, text=True,
                           timeout=10, stdin=subprocess.DEVNULL)
        return r.stdout.strip() if r.returncode == 0 else None

    try:
        # The package's own files must be tracked here, or this is some
        # other repository around an installed copy.
        if git("ls-files", "--error-unmatch", "--", os.path.basename(__file__)) is None:
            return fallback
        head = git("rev-parse", "--verify", "HEAD")
        if not head or len(head) < 40:
            return fallback
        status = git("status", "--porcelain", "--untracked-files=no")
        return {"commit": head, "commit_source": "git",
                "dirty": None if status is None else bool(status)}
    except Exception:  # noqa: BLE001 - never fail a run over its provenance
        return fallback


def peer_versions(info: dict) -> Dict[str, Dict[str, Any]]:
    """OpenSSL's version as the bench reports it, then each optional peer's
    package and library versions (_peers.versions())."""
    from . import _peers

    out: Dict[str, Dict[str, Any]] = {"openssl": {
        "installed": info.get("openssl") is not None, "library": "OpenSSL",
        "library_version": info.get("openssl")}}
    try:
        out.update(_peers.versions())
    except Exception:  # noqa: BLE001
        pass
    return out


def versions_text(peers: Dict[str, Dict[str, Any]]) -> str:
    """One line naming each optional peer installed, e.g. "peers: gmssl-pyx
    2.1.0 (GmSSL), pynacl 1.6.2 (libsodium 1.0.20)"."""
    parts = []
    for impl, v in peers.items():
        if impl == "openssl" or not v.get("installed"):
            continue
        lib = v.get("library") or ""
        if v.get("library_version"):
            lib += f" {v['library_version']}"
        parts.append(f"{impl} {v.get('package_version') or '?'} ({lib})")
    return "peers: " + (", ".join(parts) if parts else "none installed (see --help)")


def document(info: dict, commit: Dict[str, Any], loadavg: Dict[str, Any],
             peers: Dict[str, Dict[str, Any]], plan: List[Comparison],
             results: Dict[Case, dict]) -> dict:
    """The --json document."""
    return {"machine": info, **commit, "loadavg": loadavg, "peers": peers,
            "noisy_spread_pct": NOISY_SPREAD_PCT, "results": json_rows(results),
            "comparisons": json_comparisons(plan, results)}


class Progress:
    """Progress with an estimate of the time left: a live line on a
    terminal; otherwise (logs, CI) a plain line at most every
    `every` seconds, so that long runs are visibly alive."""

    def __init__(self, total: int, every: float = 10.0) -> None:
        self.total, self.done = total, 0
        self.live = sys.stderr.isatty()
        self.every = every
        self.started = self.last = time.monotonic()

    def line(self, case: Case) -> str:
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        return (f"[{self.done}/{self.total} {elapsed:5.1f}s, about {left:.0f}s left] "
                f"{case.label()}")

    def step(self, case: Case) -> None:
        self.done += 1
        now = time.monotonic()
        if self.live:
            sys.stderr.write("\r\033[K" + self.line(case)[:120])
            sys.stderr.flush()
        elif now - self.last >= self.every:
            self.last = now
            print(self.line(case), file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.live:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


ROUNDS = 3  # each case is measured this many times, interleaved with the others


def attach_peers(plan: List[Comparison]) -> List[Comparison]:
    """The plan with the peers that are installed (_peers.py) beside
    OpenSSL on the one-thread single-operation CPU rows they have."""
    from . import _peers

    out = []
    for cmp in plan:
        c = cmp.ours
        # Not where the input is ours alone: a buffer on a context, or a
        # key schedule kept (the peers' calls take the key every time).
        if (c.backend == "cpu" and c.threads == 1 and c.batch == 1
                and c.input not in ("buffer", "schedule") and c.op != "setkey"
                and (c.alg, c.op) not in NO_PEER_OPS):
            names = tuple(name for name, _ in _peers.available(c.alg))
            cmp = replace(cmp, peers=tuple(replace(c, impl=name) for name in names))
        out.append(cmp)
    return out


def unique(plan: List[Comparison]) -> List[Comparison]:
    """The plan with each row once, the first kept. Plans list the
    one-thread single operations and then the batches on every thread; under
    --threads 1 --batch 1 a batch row is that same one-thread single
    operation (SM2, Ed25519 and X25519 list (1 thread, batch) twice, SM3's
    and SM4's batch rows fall on a single-operation size), and it printed
    twice."""
    seen = set()
    out = []
    for cmp in plan:
        key = (cmp.ours, cmp.theirs)
        if key not in seen:
            seen.add(key)
            out.append(cmp)
    return out


def build_plan(algs: List[str], opt: Options) -> List[Comparison]:
    """Every algorithm's rows, each once, with the installed peers."""
    return attach_peers(unique([cmp for alg in algs for cmp in PLANS[alg](opt)]))


def _measure_case(case: Case, seconds: float) -> dict:
    from . import _peers

    if case.device:
        from . import _device_bench

        return _device_bench.measure(case.alg, case.op, case.batch, case.msg_bytes, case.input,
                                     seconds)
    if case.impl in _peers.PEERS:
        maker = _peers.PEERS[case.impl](case.alg)
        if maker is None:
            return {"error": f"{case.impl} is not installed"}
        return _peers.measure(maker, case.op, case.input, case.msg_bytes, seconds)
    return _native._bench_case(case.alg, case.op, case.impl, case.backend, case.threads,
                               case.batch, case.msg_bytes, seconds, case.input, case.pinned)


def measure_all(plan: List[Comparison], seconds: float) -> Dict[Case, dict]:
    """Measures every case in ROUNDS rounds of seconds / ROUNDS each, in plan
    order (ours, then the OpenSSL case it is compared with), and keeps each
    case's median round. On a shared machine whose speed drifts, ours and
    OpenSSL's runs then see the same conditions, so the ratios hold still
    where a single block per case would not."""
    cases: List[Case] = []
    for cmp in plan:
        for case in (cmp.ours, cmp.theirs) + cmp.peers:
            if case not in cases:
                cases.append(case)
    progress = Progress(ROUNDS * len(cases))
    rounds: Dict[Case, List[dict]] = {case: [] for case in cases}
    try:
        for _ in range(ROUNDS):
            for case in cases:
                progress.step(case)
                rounds[case].append(_measure_case(case, seconds / ROUNDS))
    finally:
        progress.close()
    results: Dict[Case, dict] = {}
    for case, runs in rounds.items():
        failed = [r for r in runs if "error" in r]
        if failed:
            results[case] = failed[0]
            continue
        runs.sort(key=lambda r: r["ops_per_s"])
        median = dict(runs[len(runs) // 2])
        median["runs"] = sum(r["runs"] for r in runs)
        # The spread of the rounds beside their median: how far to trust it.
        median["ops_per_s_min"] = runs[0]["ops_per_s"]
        median["ops_per_s_max"] = runs[-1]["ops_per_s"]
        results[case] = median
    return results


# A row whose spread (of either side) exceeds this, in percent of its
# median, gets no ratio: the ratio of two such medians says nothing (issue
# 41: "openssl 630 op/s ±476% -> 101.18x").
NOISY_SPREAD_PCT = 25.0


def spread_pct(r: dict) -> Optional[float]:
    """Half the rounds' range in percent of their median, as the table
    prints it after "±" (None for a failed or empty case)."""
    if "error" in r or r.get("ops_per_s", 0) <= 0:
        return None
    med = r["ops_per_s"]
    lo, hi = r.get("ops_per_s_min", med), r.get("ops_per_s_max", med)
    return 50 * (hi - lo) / med


def is_noisy(r: dict) -> bool:
    s = spread_pct(r)
    return s is not None and s > NOISY_SPREAD_PCT


def spread_text(r: dict) -> str:
    """The rounds' range around the median, in percent of it."""
    s = spread_pct(r)
    return "" if s is None else f" ±{s:.0f}%"


def rate_text(r: dict, msg_bytes: int) -> str:
    """MB/s for bulk sizes, operations per second for small items, with the
    half-range of the rounds."""
    if "error" in r:
        return "n/a"
    if msg_bytes >= 1024:
        return f"{r['bytes_per_s'] / 1e6:,.0f} MB/s" + spread_text(r)
    return f"{r['ops_per_s']:,.0f} op/s" + spread_text(r)


def best_peer(cmp: Comparison, results: Dict[Case, dict]) -> Optional[Case]:
    """The fastest of OpenSSL and the peers on this row (None if none ran)."""
    ran = [c for c in (cmp.theirs,) + cmp.peers
           if "error" not in results[c] and results[c]["ops_per_s"] > 0]
    return max(ran, key=lambda c: results[c]["ops_per_s"]) if ran else None


def ratio(o: dict, t: Optional[dict]) -> Optional[float]:
    """ours / theirs in operations per second; None where either failed or
    either is noisy (spread over NOISY_SPREAD_PCT)."""
    if t is None or "error" in o or "error" in t or t["ops_per_s"] <= 0:
        return None
    if is_noisy(o) or is_noisy(t):
        return None
    return o["ops_per_s"] / t["ops_per_s"]


def _ratio(o: dict, t: Optional[dict]) -> str:
    if t is not None and "error" not in o and "error" not in t and (is_noisy(o) or
                                                                     is_noisy(t)):
        return "noisy"
    x = ratio(o, t)
    return "n/a" if x is None else f"{x:.2f}x"


def _pct(s: float) -> str:
    """A spread for the noisy note, never shown as "25% > 25%"."""
    return f"{s:.0f}%" if s >= NOISY_SPREAD_PCT + 0.5 else f"{s:.1f}%"


def noisy_note(cmp: Comparison, results: Dict[Case, dict],
               best: Optional[Case] = None) -> str:
    """"(noisy: <side> spread S% > 25%; no ratio)" naming each noisy side of
    the row (kuaisuo, the OpenSSL column, the best peer), or "" if none is.
    Only the ratio to the best peer is withheld when only that peer is."""
    sides = [cmp.ours, cmp.theirs] + ([best] if best is not None and best != cmp.theirs
                                      else [])
    noisy = [(c.impl, spread_pct(results[c])) for c in sides if is_noisy(results[c])]
    if not noisy:
        return ""
    main = is_noisy(results[cmp.ours]) or is_noisy(results[cmp.theirs])
    what = ", ".join(f"{impl} spread {_pct(s)}" for impl, s in noisy if s is not None)
    return (f"(noisy: {what} > {NOISY_SPREAD_PCT:.0f}%; "
            f"{'no ratio' if main else 'no ratio to best'})")


def format_table(plan: List[Comparison], results: Dict[Case, dict]) -> str:
    """One row per comparison: ours, OpenSSL and the ratio, then, where
    peers ran, the best of OpenSSL and the peers and the ratio to it. A
    ratio with a noisy side (spread over NOISY_SPREAD_PCT) reads "noisy",
    and the row ends with a note saying whose spread it is."""
    with_peers = any(cmp.peers for cmp in plan)
    head: Tuple[str, ...] = ("alg", "op", "input", "where", "batch", "kuaisuo", "openssl",
                             "ratio")
    if with_peers:
        head += ("best peer", "ratio to best")
    rows: List[Tuple[str, ...]] = [head]
    notes: List[str] = [""]
    for cmp in plan:
        o, t = results[cmp.ours], results[cmp.theirs]
        c = cmp.ours
        theirs_where = f" (cpu x{cmp.theirs.threads})" if c.backend == "gpu" else ""
        if cmp.theirs.impl != "openssl":  # a baseline of ours stands in (SKINNY)
            theirs_where += f" ({cmp.theirs.impl}, cpu x{cmp.theirs.threads})"
        row: Tuple[str, ...] = (c.alg, c.op, c.what(), c.where(), str(c.batch),
                                rate_text(o, c.msg_bytes), rate_text(t, c.msg_bytes) + theirs_where,
                                _ratio(o, t))
        best = best_peer(cmp, results) if cmp.peers else None
        if with_peers:
            row += (("-", "-") if best is None else
                    (f"{best.impl} {rate_text(results[best], c.msg_bytes)}",
                     _ratio(o, results[best])))
        rows.append(row)
        notes.append(" ".join(n for n in (stand_in_text(cmp.theirs),
                                          noisy_note(cmp, results, best)) if n))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [("  ".join(cell.rjust(w) if i >= 4 else cell.ljust(w)
                        for i, (cell, w) in enumerate(zip(r, widths))) +
              (f"  {note}" if note else "")).rstrip()
             for r, note in zip(rows, notes)]
    lines.insert(1, "-" * len(lines[0]))
    errors = sorted({f"{case.label()}: {r['error']}" for case, r in results.items() if "error" in r})
    return "\n".join(lines + [f"note: {e}" for e in errors])


def _memory(case: Case) -> str:
    return "device" if case.device else "pinned" if case.pinned else "pageable"


def json_rows(results: Dict[Case, dict]) -> List[dict]:
    rows = []
    for case, r in results.items():
        if "error" in r:
            continue
        rows.append({
            "alg": case.alg, "op": case.op, "impl": case.impl, "backend": r["backend"],
            "threads": case.threads, "batch": case.batch, "msg_bytes": case.msg_bytes,
            "input": case.input, "host_memory": _memory(case),
            "ops_per_s": r["ops_per_s"], "bytes_per_s": r["bytes_per_s"], "runs": r["runs"],
            "ops_per_s_min": r.get("ops_per_s_min", r["ops_per_s"]),
            "ops_per_s_max": r.get("ops_per_s_max", r["ops_per_s"]),
            "spread_pct": spread_pct(r), "noisy": is_noisy(r),
        })
    return rows


def _case_key(case: Case) -> dict:
    return {"impl": case.impl, "backend": case.backend, "threads": case.threads,
            "batch": case.batch, "msg_bytes": case.msg_bytes, "input": case.input,
            "host_memory": _memory(case)}


def json_comparisons(plan: List[Comparison], results: Dict[Case, dict]) -> List[dict]:
    """The table's rows: which cases each compares (keys as in "results"),
    the ratio (null where a side failed, or is noisy: "noisy" true when a
    side's spread exceeds NOISY_SPREAD_PCT), the same for the best of
    OpenSSL and the peers, and "theirs_note": what OpenSSL ran where it
    lacks the operation (OPENSSL_STAND_INS), else null."""
    out = []
    for cmp in plan:
        o, t = results[cmp.ours], results[cmp.theirs]
        best = best_peer(cmp, results) if cmp.peers else None
        row: Dict[str, Any] = {
            "alg": cmp.ours.alg, "op": cmp.ours.op,
            "ours": _case_key(cmp.ours), "theirs": _case_key(cmp.theirs),
            "peers": [_case_key(p) for p in cmp.peers],
            "ratio": ratio(o, t), "noisy": is_noisy(o) or is_noisy(t),
            "spread_pct": {"ours": spread_pct(o), "theirs": spread_pct(t)},
            "theirs_note": stand_in_note(cmp.theirs),  # what OpenSSL ran instead, or null
        }
        if cmp.peers:
            row["best_peer"] = None if best is None else best.impl
            row["ratio_to_best"] = None if best is None else ratio(o, results[best])
            row["noisy_to_best"] = best is not None and (is_noisy(o) or
                                                         is_noisy(results[best]))
        out.append(row)
    return out


# The plot's name for each library measured against kuaisuo (Case.impl).
PEER_NAMES = {"openssl": "OpenSSL", "table": "table baseline",
              "gmssl-pyx": "GmSSL (gmssl-pyx)", "pynacl": "libsodium (PyNaCl)"}

Bar = Tuple[float, float, float]  # ratio (the medians'), lowest and highest (the rounds')


def plot_series(plan: List[Comparison], results: Dict[Case, dict]
                ) -> Tuple[List[str], Dict[str, List[Optional[Bar]]]]:
    """The plot's rows (labels) and, for OpenSSL (or SKINNY's table
    baseline) and each peer measured, kuaisuo's ratio to it on each row:
    None where it was not measured, failed, or either side is noisy (the
    row's label then says "noisy"). Every library that ran on some row has
    a series (in the legend, even if each of its ratios is noisy); rows
    where none ran are left out."""
    impls: List[str] = []
    for cmp in plan:
        for case in (cmp.theirs,) + cmp.peers:
            if case.impl not in impls:
                impls.append(case.impl)
    labels: List[str] = []
    series: Dict[str, List[Optional[Bar]]] = {impl: [] for impl in impls}
    measured: set = set()  # the libraries that ran on some row
    for cmp in plan:
        o = results[cmp.ours]
        if "error" in o or o["ops_per_s"] <= 0:
            continue
        theirs = {case.impl: results[case] for case in (cmp.theirs,) + cmp.peers}
        ran = {impl: t for impl, t in theirs.items() if "error" not in t and t["ops_per_s"] > 0}
        if not ran:
            continue
        measured.update(ran)
        noisy = sorted(impl for impl, t in ran.items() if is_noisy(o) or is_noisy(t))
        c = cmp.ours
        label = f"{c.alg} {c.op} {c.what()} {c.where()} x{c.batch}"
        if stand_in_note(cmp.theirs):
            label += f" (OpenSSL: {stand_in_note(cmp.theirs)})"
        if noisy:
            label += " (noisy: " + ("all" if len(noisy) == len(ran) else
                                    ", ".join(PEER_NAMES.get(i, i) for i in noisy)) + ")"
        labels.append(label)
        for impl in impls:
            t = ran.get(impl)
            x = None if t is None else ratio(o, t)
            if t is None or x is None:
                series[impl].append(None)
                continue
            lo = o.get("ops_per_s_min", o["ops_per_s"]) / t.get("ops_per_s_max", t["ops_per_s"])
            hi = o.get("ops_per_s_max", o["ops_per_s"]) / t.get("ops_per_s_min", t["ops_per_s"])
            series[impl].append((x, min(lo, x), max(hi, x)))
    return labels, {impl: bars for impl, bars in series.items() if impl in measured}


def plot(plan: List[Comparison], results: Dict[Case, dict], title: str, path: str) -> None:
    """A PNG of every comparison: kuaisuo's ratio to OpenSSL and to each
    peer measured (GmSSL, libsodium; SKINNY's table baseline), a bar each
    (log scale, 1x marked), one group of bars per row of the table; noisy
    ratios are left out and their rows say so. Needs matplotlib."""
    # optional: only --plot needs it
    import matplotlib  # type: ignore[import-not-found,unused-ignore]

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # type: ignore[import-not-found,unused-ignore]
    from matplotlib.patches import Patch  # type: ignore[import-not-found,unused-ignore]

    labels, series = plot_series(plan, results)
    n = max(len(series), 1)
    height = 0.8 / n
    fig, ax = plt.subplots(figsize=(9, 0.22 * len(labels) * max(1.0, 0.6 * n) + 1.8))
    colors = {"openssl": "tab:blue", "table": "tab:blue", "gmssl-pyx": "tab:red",
              "pynacl": "tab:green"}
    legend = []
    for k, (impl, bars) in enumerate(series.items()):
        color = colors.get(impl, f"C{k + 3}")
        name = f"kuaisuo / {PEER_NAMES.get(impl, impl)}"
        legend.append(Patch(color=color, label=name))  # also for a series all noisy
        rows = [(y, bar) for y, bar in enumerate(bars) if bar is not None]
        if not rows:
            continue
        ys = [y - 0.4 + height * (k + 0.5) for y, _ in rows]
        xs = [bar[0] for _, bar in rows]
        errs = ([max(bar[0] - bar[1], 0.0) for _, bar in rows],
                [max(bar[2] - bar[0], 0.0) for _, bar in rows])
        ax.barh(ys, xs, height=height, xerr=errs, color=color, error_kw={"elinewidth": 0.8},
                label=name)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ys = list(range(len(labels)))
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=6)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("kuaisuo / each library (bars: median; whiskers: the rounds' range)")
    if legend:
        ax.legend(handles=legend, fontsize=7, loc="best")
    ax.set_title(title, fontsize=8)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(algs: List[str], backend: str, threads: int, batch: Optional[int], seconds: float,
        json_path: Optional[str], plot_path: Optional[str] = None,
        max_bytes: int = 4 << 20) -> int:
    gpu_count = _native.gpu_device_count()
    if backend == "gpu" and gpu_count == 0:
        why = "built without CUDA" if not _native.gpu_built() else "no CUDA device found"
        print(f"kuaisuo speed: --backend gpu, but {why}", file=sys.stderr)
        return 2
    gpu = backend != "cpu" and gpu_count > 0
    opt = Options(backend=backend, threads=threads, batch=batch, seconds=seconds, gpu=gpu,
                  max_bytes=max_bytes,
                  device_arrays=gpu and importlib.util.find_spec("cupy") is not None)
    plan = build_plan(algs, opt)
    info = machine_info(opt.gpu)
    gpu_text = info["gpu"]["name"] if info["gpu"] else "none"
    print(f"kuaisuo {info['kuaisuo_version']} vs {info['openssl'] or 'OpenSSL (not found)'}")
    print(f"cpu: {info['cpu_model']} [{info['cpu_features']}]; gpu: {gpu_text}; "
          f"{seconds:g} s per case in {ROUNDS} interleaved rounds of 7 runs, median round "
          f"(± half the rounds' range; over {NOISY_SPREAD_PCT:.0f}%: noisy, no ratio)")
    if plot_path:  # fail before measuring, not after
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("kuaisuo speed: --plot needs matplotlib (pip install matplotlib)",
                  file=sys.stderr)
            return 2
    commit = source_commit()
    peers = peer_versions(info)
    print(versions_text(peers))
    loadavg: Dict[str, Any] = {"start": load_average()}
    results = measure_all(plan, seconds)
    loadavg["end"] = load_average()
    print(format_table(plan, results))
    if loadavg["start"] and loadavg["end"]:
        print(f"load average (1 min): {loadavg['start'][0]:g} at start, "
              f"{loadavg['end'][0]:g} at end, on {os.cpu_count()} CPUs")
    if plot_path:
        plot(plan, results, f"kuaisuo {info['kuaisuo_version']} vs {info['openssl']}: "
             f"{info['cpu_model']}, gpu {gpu_text}", plot_path)
        print(f"wrote {plot_path}")
    if json_path:
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump(document(info, commit, loadavg, peers, plan, results), f, indent=2)
            f.write("\n")
        print(f"wrote {json_path}")
    failed = [r for case, r in results.items() if "error" in r and case.impl == "kuaisuo"]
    return 1 if failed else 0
