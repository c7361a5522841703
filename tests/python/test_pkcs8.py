"""Password-encrypted PKCS#8 through the Python API: keys that the openssl
CLI encrypts (several PBES2 parameter sets) load with password= and equal
the plain key; keys we encrypt load in `openssl pkey -passin`; GmSSL's
scheme (PBKDF2-HMAC-SM3, SM4-CBC) round trips; wrong and missing passwords
fail as pyca/cryptography's load_pem_private_key does."""

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
