"""Password-encrypted PKCS#8 through the Python API: keys that the openssl
CLI encrypts (several PBES2 parameter sets) load with password= and equal
the plain key; keys we encrypt load in `openssl pkey -passin`; GmSSL's
scheme (PBKDF2-HMAC-SM3, SM4-CBC) round trips; wrong and missing passwords
fail as pyca/cryptography's load_pem_private_key does."""

import os
import shutil
import subprocess

import pytest

from kuaisuo import KuaisuoError, ed25519, sm2, x25519

KEY_CLASSES = [sm2.SM2PrivateKey, ed25519.Ed25519PrivateKey, x25519.X25519PrivateKey]
OPENSSL = shutil.which("openssl")
needs_openssl = pytest.mark.skipif(OPENSSL is None, reason="openssl not on PATH")


def openssl(*args, data=None):
    r = subprocess.run([OPENSSL, *args], input=data, capture_output=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


@needs_openssl
@pytest.mark.parametrize("cls", KEY_CLASSES)
@pytest.mark.parametrize("options", [["-v2", "aes-256-cbc"],
                                     ["-v2", "aes-128-cbc", "-v2prf", "hmacWithSHA1"],
                                     ["-v2", "aes-192-cbc", "-iter", "1"],
                                     ["-v2", "sm4-cbc"]])
def test_reads_what_openssl_encrypts(cls, options):
    key = cls.generate()
    enc = openssl("pkcs8", "-topk8", *options, "-passout", "pass:pässword",
                  data=key.to_pem().encode())
    for password in ("pässword", "pässword".encode()):
        back = cls.from_pem(enc, password=password)
        assert back.to_der() == key.to_der()
    der = openssl("pkcs8", "-topk8", *options, "-passout", "pass:pw", "-outform", "DER",
                  data=key.to_pem().encode())
    assert cls.from_der(der, password=b"pw").to_der() == key.to_der()
    with pytest.raises(KuaisuoError) as e:
        cls.from_pem(enc, password="wrong")
    assert e.value.code == -50 and "wrong passphrase" in str(e.value)


@needs_openssl
@pytest.mark.parametrize("cls", KEY_CLASSES)
@pytest.mark.parametrize("scheme", ["aes-256-cbc", "aes-128-cbc"])
def test_openssl_reads_what_we_encrypt(cls, scheme):
    key = cls.generate()
    for pem in (True, False):
        enc = (key.to_pem("pw", scheme=scheme, iterations=2048).encode() if pem
               else key.to_der(b"pw", scheme=scheme, iterations=2048))
        form = ["-inform", "PEM" if pem else "DER"]
        plain = openssl("pkey", *form, "-passin", "pass:pw", data=enc)
        assert plain.decode() == key.to_pem()
        r = subprocess.run([OPENSSL, "pkey", *form, "-passin", "pass:nope"], input=enc,
                           capture_output=True)
        assert r.returncode != 0


@pytest.mark.parametrize("cls", KEY_CLASSES)
def test_gmssl_scheme_round_trips(cls):
    key = cls.generate()
    enc = key.to_pem("12345678", scheme="sm4-cbc", iterations=65536)
    assert enc.startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----\n")
    # PBES2 with HMAC-SM3 (1.2.156.10197.1.401.2) and SM4-CBC (1.2.156.10197.1.104.2)
    der = key.to_der("12345678", scheme="sm4-cbc", iterations=1000)
    assert bytes.fromhex("06092a811ccf550183110205") in der  # the PRF's OID and NULL
    assert bytes.fromhex("06082a811ccf5501680204") in der   # SM4-CBC's OID, then the IV
    assert cls.from_pem(enc, password="12345678").to_der() == key.to_der()
    assert cls.from_der(der, password="12345678").to_der() == key.to_der()


def test_missing_and_unneeded_passwords_are_type_errors():
    key = sm2.SM2PrivateKey.generate()
    enc = key.to_pem("pw", iterations=1)
    with pytest.raises(TypeError, match="encrypted"):
        sm2.SM2PrivateKey.from_pem(enc)
    with pytest.raises(TypeError, match="not encrypted"):
        sm2.SM2PrivateKey.from_pem(key.to_pem(), password="pw")


def test_bad_parameters_are_value_errors():
    key = ed25519.Ed25519PrivateKey.generate()
    with pytest.raises(ValueError, match="scheme"):
        key.to_pem("pw", scheme="des-ede3-cbc")
    with pytest.raises(ValueError, match="iterations"):
        key.to_pem("pw", iterations=0)


def test_damaged_files_fail_cleanly():
    der = sm2.SM2PrivateKey.generate().to_der("pw", iterations=1)
    for cut in range(1, len(der), 7):
        with pytest.raises((KuaisuoError, TypeError)):
            sm2.SM2PrivateKey.from_der(der[:cut], password="pw")


# ---- GmSSL's scheme against GmSSL's own primitives (gmssl-pyx) ----------------
# gmssl-pyx has no PKCS#8 writer, so the file is put together here from
# GmSSL's HMAC-SM3 and SM4-CBC, in the layout GmSSL's pkcs8.c writes
# (PBES2; PBKDF2 with salt, iterations, keyLength 16 and the HMAC-SM3 PRF;
# SM4-CBC with its IV), and ours is taken apart the same way.

def _tlv(tag, body):
    n = len(body)
    head = bytes([n]) if n < 0x80 else bytes([0x80 | ((n.bit_length() + 7) // 8)]) + \
        n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag]) + head + body


def _seq(*parts):
    return _tlv(0x30, b"".join(parts))


def _int(v):
    return _tlv(0x02, v.to_bytes(v.bit_length() // 8 + 1, "big"))


OID_PBES2 = _tlv(0x06, bytes.fromhex("2a864886f70d01050d"))
OID_PBKDF2 = _tlv(0x06, bytes.fromhex("2a864886f70d01050c"))
OID_HMAC_SM3 = _tlv(0x06, bytes.fromhex("2a811ccf5501831102"))
OID_SM4_CBC = _tlv(0x06, bytes.fromhex("2a811ccf55016802"))


def _gmssl_pbkdf2(g, password, salt, iterations, length=16):
    out = b""
    block = 1
    while len(out) < length:
        u = g.sm3_hmac(password, salt + block.to_bytes(4, "big"))
        t = bytearray(u)
        for _ in range(iterations - 1):
            u = g.sm3_hmac(password, u)
            t = bytearray(a ^ b for a, b in zip(t, u))
        out += bytes(t)
        block += 1
    return out[:length]


def _read(der, at=0):
    """(tag, body start, body end) of the element at `at` (DER, short or long)."""
    tag, n = der[at], der[at + 1]
    at += 2
    if n & 0x80:
        k = n & 0x7F
        n = int.from_bytes(der[at:at + k], "big")
        at += k
    return tag, at, at + n


def test_gmssl_primitives_read_our_sm4_sm3_keys_and_write_ones_we_read():
    g = pytest.importorskip("gmssl_pyx")
    key = sm2.SM2PrivateKey.generate()
    plain = key.to_der()
    # Ours, taken apart and decrypted with GmSSL's HMAC-SM3 and SM4-CBC.
    der = key.to_der("gm-pass", scheme="sm4-cbc", iterations=1000)
    _, a, _ = _read(der)                      # EncryptedPrivateKeyInfo
    _, alg, alg_end = _read(der, a)           # AlgorithmIdentifier
    _, ct_at, ct_end = _read(der, alg_end)    # encryptedData
    _, oid_at, oid_end = _read(der, alg)      # PBES2 OID
    assert der[alg:oid_end] == OID_PBES2
    _, params, _ = _read(der, oid_end)        # PBES2-params
    _, kdf, kdf_end = _read(der, params)      # keyDerivationFunc
    _, _, o_end = _read(der, kdf)             # PBKDF2 OID
    _, p, _ = _read(der, o_end)               # PBKDF2-params
    _, s0, s1 = _read(der, p)                 # salt
    _, i0, i1 = _read(der, s1)                # iterationCount
    _, e0, _ = _read(der, kdf_end)            # encryptionScheme
    _, c0, c1 = _read(der, e0)                # SM4-CBC OID
    assert der[e0:c1] == OID_SM4_CBC
    _, v0, v1 = _read(der, c1)                # IV
    k = _gmssl_pbkdf2(g, b"gm-pass", der[s0:s1], int.from_bytes(der[i0:i1], "big"))
    assert g.sm4_cbc_padding_decrypt(k, der[v0:v1], der[ct_at:ct_end]) == plain
    # GmSSL's layout, made with GmSSL's primitives, read by us.
    salt, iv = os.urandom(8), os.urandom(16)
    k = _gmssl_pbkdf2(g, b"12345678", salt, 2048)
    ct = g.sm4_cbc_padding_encrypt(k, iv, plain)
    pbkdf2 = _seq(OID_PBKDF2, _seq(_tlv(0x04, salt), _int(2048), _int(16),
                                   _seq(OID_HMAC_SM3, b"\x05\x00")))
    theirs = _seq(_seq(OID_PBES2, _seq(pbkdf2, _seq(OID_SM4_CBC, _tlv(0x04, iv)))),
                  _tlv(0x04, ct))
    assert sm2.SM2PrivateKey.from_der(theirs, password="12345678").to_der() == plain
    with pytest.raises(KuaisuoError) as e:
        sm2.SM2PrivateKey.from_der(theirs, password="12345679")
    assert e.value.code == -50
