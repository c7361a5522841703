"""SM2 encryption (GB/T 32918.4-2016) and the SM3 KDF from Python: OpenSSL's
known answer, an independent model (sm2_model.py, with pyca's SM3) both
ways, GmSSL (gmssl-pyx) both ways where installed, the three formats, and
bad ciphertexts refused."""

import os

import pytest

import kuaisuo
from kuaisuo import KuaisuoError, sm2
import sm2_model

try:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
except ImportError:  # pragma: no cover - CI installs it
    hashes = None

needs_cryptography = pytest.mark.skipif(hashes is None, reason="no cryptography package")

# OpenSSL test/sm2_internal_test.c (sm2_crypt_test): d, and the C1 || C3 ||
# C2 of "encryption standard" under k = 59276E27...
D = bytes.fromhex("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8")
EXAMPLE = bytes.fromhex(
    "04"
    "04EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
    "E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0"
    "59983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766"
    "21886CA989CA9C7D58087307CA93092D651EFA")


def _sm3(data):
    h = hashes.Hash(hashes.SM3())
    h.update(data)
    return h.finalize()


def test_openssl_example_decrypts():
    key = sm2.SM2PrivateKey.from_private_bytes(D)
    assert key.decrypt(EXAMPLE) == b"encryption standard"
    swapped = EXAMPLE[:65] + EXAMPLE[97:] + EXAMPLE[65:97]  # C1 || C2 || C3
    assert key.decrypt(swapped, format="c1c2c3") == b"encryption standard"


@pytest.mark.parametrize("form", ["c1c3c2", "c1c2c3", "der"])
def test_round_trip_every_length(form):
    key = sm2.SM2PrivateKey.generate()
    pub = key.public_key()
    for n in list(range(0, 70)) + [4096, 100_000]:
        msg = os.urandom(n)
        ct = pub.encrypt(msg, format=form)
        if form != "der":
            assert len(ct) == n + 97
        assert key.decrypt(ct, format=form) == msg


@needs_cryptography
def test_model_both_ways():
    key = sm2.SM2PrivateKey.generate()
    d = int.from_bytes(key.private_bytes_raw(), "big")
    raw = key.public_key().public_bytes_raw()
    pub = (int.from_bytes(raw[1:33], "big"), int.from_bytes(raw[33:65], "big"))
    d_ex = int.from_bytes(D, "big")
    assert sm2_model.encrypt(_sm3, sm2_model.mul(d_ex), b"encryption standard",
                             0x59276E27D506861A16680F3AD9C02DCCEF3CC1FA3CDBE4CE6D54B80DEAC1BC21) \
        == EXAMPLE  # the model reproduces OpenSSL's example
    for n in (0, 1, 32, 33, 200):
        msg = os.urandom(n)
        assert sm2_model.decrypt(_sm3, d, key.public_key().encrypt(msg)) == msg
        k = int.from_bytes(os.urandom(32), "big") % (sm2_model.N - 1) + 1
        assert key.decrypt(sm2_model.encrypt(_sm3, pub, msg, k)) == msg


def test_gmssl_both_ways():
    g = pytest.importorskip("gmssl_pyx")
    pub_raw, priv_raw = g.sm2_key_generate()  # x || y, d
    key = sm2.SM2PrivateKey.from_private_bytes(priv_raw)
    pub = key.public_key()
    assert pub.public_bytes_raw()[1:] == pub_raw
    for n in (1, 16, 100, 255):  # GmSSL's limits: 1 to 255 bytes
        msg = os.urandom(n)
        assert key.decrypt(g.sm2_encrypt(pub_raw, msg), format="der") == msg
        assert g.sm2_decrypt(priv_raw, pub.encrypt(msg, format="der")) == msg


def test_bad_ciphertexts_raise_and_release_nothing():
    key, other = sm2.SM2PrivateKey.generate(), sm2.SM2PrivateKey.generate()
    ct = key.public_key().encrypt(b"secret")
    with pytest.raises(KuaisuoError) as e:
        other.decrypt(ct)
    assert e.value.code == -54
    with pytest.raises(KuaisuoError) as e:
        key.decrypt(ct[:96])
    assert e.value.code == -53
    with pytest.raises(KuaisuoError) as e:
        key.decrypt(ct[:64] + bytes([ct[64] ^ 1]) + ct[65:])  # C1 off the curve
    assert e.value.code == -53
    with pytest.raises(ValueError):
        key.decrypt(ct, format="asn1")
    with pytest.raises(ValueError):
        key.public_key().encrypt(b"x", format="c2c1c3")


@needs_cryptography
def test_kdf_is_x963_over_sm3():
    for z, n in ((b"\x01" * 64, 1), (os.urandom(64), 100), (b"abc", 32), (b"z", 1000)):
        want = X963KDF(algorithm=hashes.SM3(), length=n, sharedinfo=None).derive(z)
        assert kuaisuo.sm3_kdf(z, n) == want
    assert kuaisuo.sm3_kdf(b"z", 0) == b""


def test_precomputed_key_encrypts_and_verifies_as_without():
    key = sm2.SM2PrivateKey.generate()
    pub = key.public_key()
    table_pub = sm2.SM2PublicKey.from_public_bytes(pub.public_bytes_raw()).precompute()
    for msg in (b"", b"x", os.urandom(200)):
        for fmt in ("c1c3c2", "c1c2c3", "der"):
            assert key.decrypt(table_pub.encrypt(msg, format=fmt), format=fmt) == msg
        sig = key.sign(msg)
        table_pub.verify(sig, msg)
        with pytest.raises(kuaisuo.InvalidSignature):
            table_pub.verify(sig, msg + b"!")


@needs_cryptography
def test_batches_against_the_model():
    """ctx.sm2.encrypt (one recipient, above the table's threshold, and one
    key per item with a bad one) and ctx.sm2.decrypt, item by item against
    the independent model."""
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    key = sm2.SM2PrivateKey.generate()
    d = int.from_bytes(key.private_bytes_raw(), "big")
    msgs = [os.urandom(i % 90) for i in range(150)]
    for ct, msg in zip(ctx.sm2.encrypt(msgs, key.public_key()), msgs):
        assert sm2_model.decrypt(_sm3, d, ct) == msg
    others = [sm2.SM2PrivateKey.generate() for _ in range(3)]
    pubs = [others[i % 3].public_key().public_bytes_raw() for i in range(9)]
    pubs[4] = pubs[4][:64] + bytes([pubs[4][64] ^ 1])
    cts = ctx.sm2.encrypt(msgs[:9], pubs, format="c1c2c3")
    assert cts[4] is None
    for i, ct in enumerate(cts):
        if i != 4:
            assert others[i % 3].decrypt(ct, format="c1c2c3") == msgs[i]
    made = []
    for i, msg in enumerate(msgs[:40]):
        k = int.from_bytes(os.urandom(32), "big") % (sm2_model.N - 1) + 1
        ct = sm2_model.encrypt(_sm3, sm2_model.mul(d), msg, k)
        made.append(ct if i % 4 else ct[:-1] + bytes([ct[-1] ^ 1]))
    back = ctx.sm2.decrypt(key, made)
    assert back == [None if i % 4 == 0 else msg for i, msg in enumerate(msgs[:40])]
