"""The contract every algorithm keeps (issue: one API shape): single
verification returns None or raises InvalidSignature, as pyca/cryptography's
does, so that code ported from it as a bare `pub.verify(sig, msg)` rejects
forgeries; GCM tag failures raise InvalidTag; PEM text is accepted as str
wherever to_pem returns str."""

import os

import pytest

import kuaisuo
from kuaisuo import InvalidSignature, InvalidTag, KuaisuoError, ed25519, sm2, sm4, x25519


def _pyca_style(pub, sig, msg, **kw):
    """What code written against pyca/cryptography does."""
    try:
        pub.verify(sig, msg, **kw)
    except InvalidSignature:
        return "rejected"
    return "accepted"


def test_exceptions_are_kuaisuo_errors():
    assert issubclass(InvalidSignature, KuaisuoError) and issubclass(InvalidTag, KuaisuoError)
    assert kuaisuo.InvalidSignature is InvalidSignature


@pytest.mark.parametrize("encoding", ["der", "raw"])
def test_sm2_verify_returns_none_or_raises(encoding):
    key = sm2.SM2PrivateKey.generate()
    pub = key.public_key()
    sig = key.sign(b"msg", encoding=encoding)
    assert pub.verify(sig, b"msg", encoding=encoding) is None
    assert _pyca_style(pub, sig, b"msg", encoding=encoding) == "accepted"
    assert _pyca_style(pub, sig, b"msh", encoding=encoding) == "rejected"
    forged = bytearray(sig)
    forged[-1] ^= 1
    assert _pyca_style(pub, bytes(forged), b"msg", encoding=encoding) == "rejected"
    for malformed in (b"", b"\x30\x00", sig[:-1], sig + b"\x00", bytes(64)):
        with pytest.raises(InvalidSignature) as info:
            pub.verify(malformed, b"msg", encoding=encoding)
        assert info.value.code < 0 and info.value.message
    e = pub.digest(b"msg")
    assert pub.verify_digest(key.sign_digest(e, encoding=encoding), e, encoding=encoding) is None
    with pytest.raises(InvalidSignature):
        pub.verify_digest(key.sign_digest(e, encoding=encoding), bytes(32), encoding=encoding)


def test_ed25519_verify_returns_none_or_raises():
    key = ed25519.Ed25519PrivateKey.generate()
    pub = key.public_key()
    sig = key.sign(b"msg")
    assert pub.verify(sig, b"msg") is None
    assert _pyca_style(pub, sig, b"other") == "rejected"
    for bad in (b"", sig[:63], sig + b"\x00", bytes(64), b"\xff" * 64):
        with pytest.raises(InvalidSignature):
            pub.verify(bad, b"msg")
    with pytest.raises(InvalidSignature) as info:
        pub.verify(key.sign(b"msg", context=b"c"), b"msg", context=b"d")
    assert info.value.code == -44  # KS_ERR_VERIFY_FAILED


def test_gcm_wrong_tag_raises_invalid_tag():
    gcm = sm4.SM4GCM(os.urandom(16))
    nonce = os.urandom(12)
    sealed = bytearray(gcm.encrypt(nonce, b"plaintext", b"aad"))
    assert gcm.decrypt(nonce, bytes(sealed), b"aad") == b"plaintext"
    sealed[-1] ^= 1
    with pytest.raises(InvalidTag):
        gcm.decrypt(nonce, bytes(sealed), b"aad")


@pytest.mark.parametrize("module,private", [(sm2, "SM2PrivateKey"),
                                            (ed25519, "Ed25519PrivateKey"),
                                            (x25519, "X25519PrivateKey")])
def test_public_keys_read_their_own_to_pem(module, private):
    pub = getattr(module, private).generate().public_key()
    again = type(pub).from_pem(pub.to_pem())
    assert again.to_der() == pub.to_der()
    assert type(pub).from_der(pub.to_pem().encode()).to_der() == pub.to_der()


def test_sm4_one_shot_says_what_is_missing():
    """Mode always named, an IV for every mode but ECB, padding chosen for
    ECB and CBC (PKCS#7, the CLI's and openssl enc's default, or none):
    each said in the call's own words, never the C layer's NULL pointer."""
    key = os.urandom(16)
    with pytest.raises(TypeError, match="mode"):
        sm4.encrypt(key, b"data")  # no default mode
    with pytest.raises(TypeError, match=r"mode 'ctr' needs iv="):
        sm4.encrypt(key, b"data", mode="ctr")
    with pytest.raises(TypeError, match=r"mode 'cbc' needs iv="):
        sm4.decrypt(key, bytes(16), mode="cbc", padding=True)
    with pytest.raises(TypeError, match="padding=True"):
        sm4.encrypt(key, bytes(16), mode="cbc", iv=bytes(16))
    with pytest.raises(ValueError, match="ECB takes no iv"):
        sm4.encrypt(key, bytes(16), mode="ecb", iv=bytes(16), padding=False)
    with pytest.raises(ValueError, match="stream mode"):
        sm4.encrypt(key, b"x", mode="ofb", iv=bytes(16), padding=True)
    # padding=True is what the CLI writes for CBC by default.
    ct = sm4.encrypt(key, b"abc", mode="cbc", iv=bytes(16), padding=True)
    assert len(ct) == 16 and sm4.decrypt(key, ct, mode="cbc", iv=bytes(16), padding=True) == b"abc"


def test_every_algorithm_batches_as_ctx_alg_op():
    """ctx.<alg>.<op> for every algorithm; SM3's old Context methods warn
    for one release and still answer the same."""
    import numpy as np

    ctx = kuaisuo.Context(backend="cpu", threads=2)
    msgs = [b"abc", b"", os.urandom(100)]
    want = [kuaisuo.sm3(m) for m in msgs]
    assert ctx.sm3.hash(msgs) == want
    data, offsets = b"".join(msgs), np.array([0, 3, 3, 103], dtype=np.uint64)
    assert ctx.sm3.hash(data, offsets) == want
    assert ctx.sm3.hash(msgs, as_numpy=True).tobytes() == b"".join(want)
    with pytest.deprecated_call():
        assert ctx.sm3_batch(msgs) == want
    with pytest.deprecated_call():
        assert ctx.sm3_batch_flat(data, offsets) == b"".join(want)
    for alg in ("sm2", "sm3", "sm4", "ed25519", "x25519", "skinny"):
        assert getattr(ctx, alg) is not None


@pytest.mark.parametrize("mode", ["ecb", "cbc", "cfb", "ofb", "ctr"])
def test_sm4_batch_of_messages_in_every_mode(mode):
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    count = 9
    keys = [os.urandom(16) for _ in range(count)]
    ivs = None if mode == "ecb" else [os.urandom(16) for _ in range(count)]
    block = mode in ("ecb", "cbc")
    msgs = [os.urandom(16 * n if block else 7 * n) for n in range(count)]
    out, status = ctx.sm4.encrypt(keys, msgs, mode=mode, ivs=ivs)
    assert status == [0] * count
    pad = False if block else None
    for i in range(count):
        iv = None if ivs is None else ivs[i]
        assert out[i] == sm4.encrypt(keys[i], msgs[i], mode=mode, iv=iv, padding=pad)
    back, status = ctx.sm4.decrypt(keys, out, mode=mode, ivs=ivs)
    assert back == msgs and status == [0] * count
    if block:  # an item that is not whole blocks fails alone
        _, status = ctx.sm4.encrypt(keys[0], [bytes(16), bytes(15)], mode=mode,
                                    ivs=None if ivs is None else ivs[:2])
        assert status == [0, -3]


def test_key_bytes_have_pyca_names_everywhere():
    """from_private_bytes / private_bytes_raw / from_public_bytes /
    public_bytes_raw on every asymmetric key class; SM2's old from_bytes /
    to_bytes warn for one release and give the same bytes."""
    for module, cls in ((sm2, "SM2"), (ed25519, "Ed25519"), (x25519, "X25519")):
        private, public = getattr(module, f"{cls}PrivateKey"), getattr(module, f"{cls}PublicKey")
        key = private.generate()
        raw = key.private_bytes_raw()
        assert private.from_private_bytes(raw).public_key() == key.public_key()
        pub = key.public_key().public_bytes_raw()
        assert public.from_public_bytes(pub) == key.public_key()
    key = sm2.SM2PrivateKey.generate()
    with pytest.deprecated_call():
        assert key.to_bytes() == key.private_bytes_raw()
    with pytest.deprecated_call():
        assert sm2.SM2PrivateKey.from_bytes(key.private_bytes_raw()).public_key() == \
            key.public_key()
    pub = key.public_key()
    with pytest.deprecated_call():
        assert pub.to_bytes(compressed=True) == pub.public_bytes_raw(compressed=True)
    with pytest.deprecated_call():
        assert sm2.SM2PublicKey.from_bytes(pub.public_bytes_raw()) == pub
