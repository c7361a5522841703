"""kuaisuo.sm4 against the GB/T 32907 vector, RFC 8998's SM4-GCM example and
Python `cryptography` (every mode, random keys, IVs, lengths and AAD), with
the errors a caller meets: wrong key or IV lengths, bad padding, a wrong
tag (no plaintext released)."""

import os
import pickle
import random

import pytest

from kuaisuo import KuaisuoError, sm4

KEY = bytes.fromhex("0123456789ABCDEFFEDCBA9876543210")


def test_gbt_32907_vector():
    ct = sm4.encrypt(KEY, KEY, mode="ecb", padding=False)
    assert ct.hex().upper() == "681EDF34D206965E86B3E94F536E4246"
    assert sm4.decrypt(KEY, ct, mode="ecb", padding=False) == KEY


def test_rfc8998_gcm_example():
    # RFC 8998 appendix A.1
    key = bytes.fromhex("0123456789ABCDEFFEDCBA9876543210")
    iv = bytes.fromhex("00001234567800000000ABCD")
    aad = bytes.fromhex("FEEDFACEDEADBEEFFEEDFACEDEADBEEFABADDAD2")
    pt = bytes.fromhex("AAAAAAAAAAAAAAAABBBBBBBBBBBBBBBBCCCCCCCCCCCCCCCCDDDDDDDDDDDDDDDD"
                       "EEEEEEEEEEEEEEEEFFFFFFFFFFFFFFFFEEEEEEEEEEEEEEEEAAAAAAAAAAAAAAAA")
    out = sm4.SM4GCM(key).encrypt(iv, pt, aad)
    assert out[:-16].hex().upper() == (
        "17F399F08C67D5EE19D0DC9969C4BB7D5FD46FD3756489069157B282BB200735"
        "D82710CA5C22F0CCFA7CBF93D496AC15A56834CBCF98C397B4024A2691233B8D")
    assert out[-16:].hex().upper() == "83DE3541E4C2B58177E065A9BF7B62EC"
    assert sm4.SM4GCM(key).decrypt(iv, out, aad) == pt


@pytest.mark.parametrize("mode", ["ecb", "cbc", "cfb", "ofb", "ctr"])
def test_round_trip_and_padding(mode):
    rng = random.Random(7)
    for n in [0, 1, 15, 16, 17, 100, 4096, 70000]:
        data = rng.randbytes(n)
        iv = None if mode == "ecb" else rng.randbytes(16)
        pad = mode in ("ecb", "cbc")
        ct = sm4.encrypt(KEY, data, mode=mode, iv=iv, padding=pad)
        assert sm4.decrypt(KEY, ct, mode=mode, iv=iv, padding=pad) == data


def test_errors():
    with pytest.raises(KuaisuoError):
        sm4.encrypt(KEY[:15], b"x" * 16, mode="ecb", padding=False)
    with pytest.raises(KuaisuoError):
        sm4.encrypt(KEY, b"x" * 16, mode="cbc", iv=b"short", padding=False)
    with pytest.raises(KuaisuoError):
        sm4.encrypt(KEY, b"x" * 15, mode="ecb", padding=False)  # no padding: whole blocks only
    with pytest.raises(KuaisuoError):
        sm4.decrypt(KEY, os.urandom(32), mode="cbc", iv=bytes(16), padding=True)  # bad padding
    with pytest.raises(ValueError):
        sm4.encrypt(KEY, b"", mode="xts")
    gcm = sm4.SM4GCM(KEY)
    sealed = bytearray(gcm.encrypt(b"n" * 12, b"secret", b"aad"))
    sealed[-1] ^= 1
    with pytest.raises(KuaisuoError) as e:
        gcm.decrypt(b"n" * 12, bytes(sealed), b"aad")
    assert "tag" in str(e.value)


def _gcm_reference(key, nonce, data, aad):
    return sm4.SM4GCM(key).encrypt(nonce, data, aad)


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_gcm_batch_matches_one_shot_per_item(backend):
    """ctx.sm4.gcm_encrypt / gcm_decrypt on fresh random items (one key for
    all, and one key per item) against the one-shot SM4GCM (itself checked
    against the cryptography package below), on the CPU threads and on the
    GPU, and a status per item for altered, short and wrong-AAD boxes."""
    import kuaisuo

    if backend == "gpu" and kuaisuo.gpu_device_count() == 0:
        pytest.skip("no GPU")
    ctx = kuaisuo.Context(backend, 0, 2)
    rng = random.Random()
    n = 300
    msgs = [rng.randbytes(rng.choice([0, 1, 15, 16, 17, rng.randrange(0, 2000)]))
            for _ in range(n)]
    aads = [rng.randbytes(rng.randrange(0, 40)) for _ in range(n)]
    nonces = [os.urandom(12) for _ in range(n)]
    one = sm4.SM4Key.generate()
    per_item = [os.urandom(16) for _ in range(n)]
    for keys, key_of in ((one, lambda i: one.to_bytes()), (per_item, lambda i: per_item[i])):
        sealed, statuses = ctx.sm4.gcm_encrypt(keys, nonces, msgs, aads)
        assert statuses == [0] * n
        assert sealed == [_gcm_reference(key_of(i), nonces[i], msgs[i], aads[i])
                          for i in range(n)]
        altered = list(sealed)
        altered[1] = bytes([altered[1][0] ^ 0x80]) + altered[1][1:]
        altered[2] = altered[2][:15]
        wrong_aad = list(aads)
        wrong_aad[3] = aads[3] + b"x"
        plain, statuses = ctx.sm4.gcm_decrypt(keys, nonces, altered, wrong_aad)
        assert statuses[1:4] == [-49, -3, -49]
        assert plain[1:4] == [None, None, None]
        assert statuses[:1] + statuses[4:] == [0] * (n - 3)
        assert plain[:1] + plain[4:] == msgs[:1] + msgs[4:]



@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_gcm_rows_match_one_shot_per_row(backend):
    """gcm_seal_rows / gcm_open_rows (fixed-size plaintexts as numpy rows,
    a fresh nonce each) against the one-shot SM4GCM row by row, on the CPU
    threads and on the GPU; a tampered row gets -49 and zeros; wrong shapes
    raise; 0 rows and 0-byte rows work."""
    import kuaisuo
    import numpy as np

    if backend == "gpu" and kuaisuo.gpu_device_count() == 0:
        pytest.skip("no GPU")
    ctx = kuaisuo.Context(backend, 0, 2)
    key = sm4.SM4Key.generate()
    for count, width in ((1, 1), (333, 64), (40, 1000)):
        rows = np.frombuffer(os.urandom(count * width), np.uint8).reshape(count, width)
        sealed, statuses = ctx.sm4.gcm_seal_rows(key, rows)
        assert sealed.shape == (count, width + 28) and (statuses == 0).all()
        assert len({bytes(r[:12]) for r in sealed}) == count
        for row, plain in zip(sealed, rows):
            nonce = bytes(row[:12])
            assert bytes(row[12:]) == _gcm_reference(key.to_bytes(), nonce, plain.tobytes(), b"")
        sealed[count // 2, -1] ^= 1
        opened, statuses = ctx.sm4.gcm_open_rows(key, sealed)
        keep = np.arange(count) != count // 2
        assert statuses[count // 2] == -49 and not opened[count // 2].any()
        assert (statuses[keep] == 0).all() and (opened[keep] == rows[keep]).all()
    empty, statuses = ctx.sm4.gcm_seal_rows(key, np.zeros((0, 16), np.uint8))
    assert empty.shape == (0, 44) and len(statuses) == 0
    tags, statuses = ctx.sm4.gcm_seal_rows(key, np.zeros((3, 0), np.uint8))
    assert tags.shape == (3, 28) and (ctx.sm4.gcm_open_rows(key, tags)[1] == 0).all()
    with pytest.raises(TypeError):
        ctx.sm4.gcm_seal_rows(key, b"not rows")
    with pytest.raises(TypeError):
        ctx.sm4.gcm_seal_rows(key, np.zeros(16, np.uint8))
    with pytest.raises(ValueError):
        ctx.sm4.gcm_open_rows(key, np.zeros((2, 27), np.uint8))


try:  # not on the GPU machines: the tests that need it skip there, the others run
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    try:  # CFB and OFB moved to the "decrepit" package in cryptography 44
        from cryptography.hazmat.decrepit.ciphers.modes import CFB, OFB
    except ImportError:
        CFB, OFB = modes.CFB, modes.OFB
except ImportError:
    Cipher = None
needs_cryptography = pytest.mark.skipif(Cipher is None, reason="no cryptography package")


def _reference(mode, key, iv, data, encrypt):
    m = {"ecb": lambda: modes.ECB(), "cbc": lambda: modes.CBC(iv), "cfb": lambda: CFB(iv),
         "ofb": lambda: OFB(iv), "ctr": lambda: modes.CTR(iv)}[mode]()
    c = Cipher(algorithms.SM4(key), m)
    op = c.encryptor() if encrypt else c.decryptor()
    return op.update(data) + op.finalize()


@needs_cryptography
@pytest.mark.parametrize("mode", ["ecb", "cbc", "cfb", "ofb", "ctr"])
def test_modes_match_cryptography(mode):
    rng = random.Random()
    for _ in range(40):
        key = rng.randbytes(16)
        iv = None if mode == "ecb" else rng.randbytes(16)
        n = rng.randrange(0, 3000)
        if mode in ("ecb", "cbc"):
            n -= n % 16
        data = rng.randbytes(n)
        want = _reference(mode, key, iv, data, True)
        pad = False if mode in ("ecb", "cbc") else None
        assert sm4.encrypt(key, data, mode=mode, iv=iv, padding=pad) == want
        assert sm4.decrypt(key, want, mode=mode, iv=iv, padding=pad) == data


@needs_cryptography
@pytest.mark.parametrize("mode", ["ecb", "cbc", "cfb", "ofb", "ctr"])
def test_key_object_reuses_its_schedule_and_matches_cryptography(mode):
    """SM4Key.encrypt / decrypt (the key schedule made once, ks_sm4_schedule)
    agree with pyca at every length 0..64 and beyond, many calls per key."""
    rng = random.Random()
    raw = rng.randbytes(16)
    key = sm4.SM4Key(raw)
    pad = False if mode in ("ecb", "cbc") else None
    for n in list(range(65)) + [1000, 4099]:
        if mode in ("ecb", "cbc"):
            n -= n % 16
        iv = None if mode == "ecb" else rng.randbytes(16)
        data = rng.randbytes(n)
        want = _reference(mode, raw, iv, data, True)
        assert key.encrypt(data, mode=mode, iv=iv, padding=pad) == want
        assert key.decrypt(want, mode=mode, iv=iv, padding=pad) == data
    if mode in ("ecb", "cbc"):
        iv = None if mode == "ecb" else bytes(16)
        sealed = key.encrypt(b"abc", mode=mode, iv=iv, padding=True)
        assert sm4.decrypt(raw, sealed, mode=mode, iv=iv, padding=True) == b"abc"
        with pytest.raises(KuaisuoError):
            key.encrypt(b"abc", mode=mode, iv=iv, padding=False)  # not whole blocks


@needs_cryptography
def test_gcm_matches_cryptography():
    rng = random.Random()
    for _ in range(100):
        key, data, aad = rng.randbytes(16), rng.randbytes(rng.randrange(0, 600)), rng.randbytes(
            rng.randrange(0, 50))
        iv = rng.randbytes(rng.choice([12, 12, 8, 16, 60]))
        tag_len = rng.choice([16, 12, 8, 4])
        ours = sm4.SM4GCM(key).encrypt(iv, data, aad, tag_length=tag_len)
        enc = Cipher(algorithms.SM4(key), modes.GCM(iv, min_tag_length=4)).encryptor()
        enc.authenticate_additional_data(aad)
        want = enc.update(data) + enc.finalize()
        assert ours == want + enc.tag[:tag_len]
        assert sm4.SM4GCM(key).decrypt(iv, ours, aad, tag_length=tag_len) == data


@pytest.mark.parametrize("mode", ["ecb", "ctr"])
def test_context_buffer_matches_one_shot(mode):
    """ctx.sm4 over one buffer (the context's threads, or its GPU) gives the
    one-shot bytes; a partial CTR block and in-range errors included."""
    import kuaisuo

    ctx = kuaisuo.Context(threads=2)
    key, iv = os.urandom(16), os.urandom(16)
    for length in (0, 16, 4096 * 16 + (5 if mode == "ctr" else 0), (1 << 20) + 16):
        data = os.urandom(length)
        kw = {} if mode == "ecb" else {"iv": iv}
        ct = ctx.sm4.encrypt_buffer(key, data, mode=mode, **kw)
        assert ct == sm4.encrypt(key, data, mode=mode, padding=False if mode == "ecb" else None,
                                 **kw)
        assert ctx.sm4.decrypt_buffer(key, ct, mode=mode, **kw) == data
    with pytest.raises(KuaisuoError):
        ctx.sm4.encrypt_buffer(key, b"x" * 17, mode="ecb")
    with pytest.raises(ValueError):
        ctx.sm4.encrypt_buffer(key, b"x" * 16, mode="xts")
    with pytest.raises(KuaisuoError):
        ctx.sm4.encrypt_buffer(key, b"x" * 16, mode="cbc", iv=iv)  # buffers: ECB or CTR


def test_gcm_batch_argument_errors():
    import kuaisuo

    ctx = kuaisuo.Context("cpu", 0, 1)
    key = sm4.SM4Key.generate()
    with pytest.raises(ValueError):
        ctx.sm4.gcm_encrypt(key, [b"n" * 11], [b"m"])
    with pytest.raises(ValueError):
        ctx.sm4.gcm_encrypt(key, [b"n" * 12], [b"m"], [b"a", b"b"])
    with pytest.raises(ValueError):
        ctx.sm4.gcm_encrypt([b"k" * 15], [b"n" * 12], [b"m"])
    assert ctx.sm4.gcm_encrypt(key, [], []) == ([], [])


def test_key_files_round_trip_plain_and_encrypted():
    key = sm4.SM4Key.generate()
    assert "SM4Key(<secret>)" == repr(key) and key.to_bytes().hex() not in repr(key)
    with pytest.raises(TypeError):
        pickle.dumps(key)
    der = key.to_der()
    assert len(der) == 34 and der[:18] == bytes.fromhex("302002010030090607" "2a811ccf55016804" "10")
    assert sm4.SM4Key.from_der(der).to_bytes() == key.to_bytes()
    assert sm4.SM4Key.from_pem(key.to_pem()).to_bytes() == key.to_bytes()
    for scheme in ("sm4-cbc", "aes-256-cbc"):
        locked = key.to_pem("pw", scheme=scheme, iterations=1000)
        assert "ENCRYPTED PRIVATE KEY" in locked
        assert sm4.SM4Key.from_pem(locked, "pw").to_bytes() == key.to_bytes()
        with pytest.raises(KuaisuoError) as e:
            sm4.SM4Key.from_pem(locked, "wrong")
        assert e.value.code == -50
    with pytest.raises(TypeError):
        sm4.SM4Key.from_der(der, "pw")
    assert key.gcm().encrypt(b"n" * 12, b"m") == sm4.SM4GCM(key.to_bytes()).encrypt(b"n" * 12, b"m")


def test_key_files_of_other_algorithms_and_damaged_ones_are_refused():
    from kuaisuo.ed25519 import Ed25519PrivateKey
    from kuaisuo.sm2 import SM2PrivateKey

    for other in (SM2PrivateKey.generate(), Ed25519PrivateKey.generate()):
        with pytest.raises(KuaisuoError) as e:
            sm4.SM4Key.from_der(other.to_der())
        assert e.value.code == -33
    der = sm4.SM4Key.generate().to_der()
    with pytest.raises(KuaisuoError) as e:
        SM2PrivateKey.from_der(der)
    assert e.value.code == -33
    for damaged in (der[:-1], der + b"\x00", b"", der[:2] + b"\x02\x01\x05" + der[5:]):
        with pytest.raises(KuaisuoError):
            sm4.SM4Key.from_der(damaged)
    with pytest.raises(ValueError):
        sm4.SM4Key(b"short")
