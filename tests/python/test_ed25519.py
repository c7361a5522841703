"""Ed25519 from Python: RFC 8032 vectors (Ed25519, Ed25519ctx, Ed25519ph),
random cross-checks in both directions against `cryptography` (OpenSSL)
and PyNaCl (libsodium), key files, the verification rules on the inputs
where implementations disagree, and batches against single operations."""

import base64
import hashlib
import os

import pytest

import kuaisuo
from kuaisuo import ed25519
from kuaisuo.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from sigcheck import verifies

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519 as pyca
except ImportError:  # optional oracle (scripts/env.sh installs it where it can)
    pyca = None

try:
    import nacl.exceptions
    import nacl.signing
except ImportError:  # optional oracle
    nacl = None

needs_pyca = pytest.mark.skipif(pyca is None, reason="cryptography not installed")
needs_nacl = pytest.mark.skipif(nacl is None, reason="PyNaCl not installed")

BAD_PUBLIC_KEY, SIGNATURE_RANGE, VERIFY_FAILED, CONTEXT_LENGTH = -41, -43, -44, -47

# RFC 8032 section 7.1 TEST 1, 2, 3; 7.2 (Ed25519ctx, "foo", "bar" and the
# other key/message); 7.3 (Ed25519ph, "abc"). (seed, public, message,
# context or None, prehashed, signature), as in tests/cpp/test_ed25519.cc.
VECTORS = [
    ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "", None, False,
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e3970"
     "1cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72", None, False,
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613"
     "d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82", None, False,
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760"
     "984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ("0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6",
     "dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292",
     "f726936d19c800494e3fdaff20b276a8", "666f6f", False,
     "55a4cc2f70a54e04288c5f4cd1e45a7bb520b36292911876cada7323198dd87a8b36950b95130022907a7fb7"
     "c4e9b2d5f6cca685a587b4b21f4b888e4e7edb0d"),
    ("0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6",
     "dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292",
     "f726936d19c800494e3fdaff20b276a8", "626172", False,
     "fc60d5872fc46b3aa69f8b5b4351d5808f92bcc044606db097abab6dbcb1aee3216c48e8b3b66431b5b186d1"
     "d28f8ee15a5ca2df6668346291c2043d4eb3e90d"),
    ("0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6",
     "dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292",
     "508e9e6882b979fea900f62adceaca35", "666f6f", False,
     "8b70c1cc8310e1de20ac53ce28ae6e7207f33c3295e03bb5c0732a1d20dc64908922a8b052cf99b7c4fe107a"
     "5abb5b2c4085ae75890d02df26269d8945f84b0b"),
    ("ab9c2853ce297ddab85c993b3ae14bcad39b2c682beabc27d6d4eb20711d6560",
     "0f1d1274943b91415889152e893d80e93275a1fc0b65fd71b4b0dda10ad7d772",
     "f726936d19c800494e3fdaff20b276a8", "666f6f", False,
     "21655b5f1aa965996b3f97b3c849eafba922a0a62992f73b3d1b73106a84ad85e9b86a7b6005ea868337ff2d"
     "20a7f5fbd4cd10b0be49a68da2b2e0dc0ad8960f"),
    ("833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
     "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf", "616263", None, True,
     "98a70222f0b8121aa9d30f813d683f809e462b469c7ff87639499bb94e6dae4131f85042463c2a355a2003d0"
     "62adf5aaa10b8c61e636062aaad11c2a26083406"),
]


@pytest.mark.parametrize("seed,pub,msg,context,prehashed,sig", VECTORS)
def test_rfc8032_vectors(seed, pub, msg, context, prehashed, sig):
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed))
    msg, ctx = bytes.fromhex(msg), None if context is None else bytes.fromhex(context)
    assert key.public_key().public_bytes_raw().hex() == pub
    assert key.private_bytes_raw().hex() == seed
    signature = key.sign(msg, ctx, prehashed)
    assert signature.hex() == sig
    public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(pub))
    assert verifies(public.verify, signature, msg, ctx, prehashed)
    # Each instance signs its own domain: no other one accepts the signature.
    for other_ctx, other_ph in ((None, False), (b"foo", False), (b"bar", False), (None, True),
                                (b"foo", True)):
        if (other_ctx, other_ph) != (ctx, prehashed):
            assert not verifies(public.verify, signature, msg, other_ctx, other_ph)
    assert not verifies(public.verify, signature, msg + b"x", ctx, prehashed)
    flipped = bytearray(signature)
    flipped[5] ^= 1
    assert not verifies(public.verify, bytes(flipped), msg, ctx, prehashed)


def test_rfc8032_ph_is_ed25519ph_of_the_message_not_of_a_digest():
    seed, _, msg, _, _, sig = VECTORS[-1]
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed))
    digest = hashlib.sha512(bytes.fromhex(msg)).digest()
    assert key.sign(digest, prehashed=True).hex() != sig
    # A context changes Ed25519ph's signature; an empty one is the default.
    assert key.sign(b"abc", b"", prehashed=True).hex() == sig
    assert key.sign(b"abc", b"c", prehashed=True).hex() != sig


def test_contexts_the_instance_does_not_allow():
    key = Ed25519PrivateKey.generate()
    pub = key.public_key()
    for ctx in (b"", bytes(256)):  # Ed25519ctx: 1 to 255 bytes
        with pytest.raises(kuaisuo.KuaisuoError) as e:
            key.sign(b"m", ctx)
        assert e.value.code == CONTEXT_LENGTH
        with pytest.raises(kuaisuo.KuaisuoError):
            verifies(pub.verify, bytes(64), b"m", ctx)
    with pytest.raises(kuaisuo.KuaisuoError):
        key.sign(b"m", bytes(256), prehashed=True)
    for ctx, ph in ((bytes(255), False), (bytes(255), True), (b"", True), (b"\x00", False)):
        assert verifies(pub.verify, key.sign(b"m", ctx, ph), b"m", ctx, ph)


def test_key_encodings_roundtrip():
    key = Ed25519PrivateKey.generate()
    pub = key.public_key()
    assert key.to_pem().startswith("-----BEGIN PRIVATE KEY-----\n")
    assert pub.to_pem().startswith("-----BEGIN PUBLIC KEY-----\n")
    for blob in (key.to_pem(), key.to_pem().encode(), key.to_der()):
        for load in (Ed25519PrivateKey.from_pem, Ed25519PrivateKey.from_der):
            assert load(blob).private_bytes_raw() == key.private_bytes_raw()
    for blob in (pub.to_pem(), pub.to_pem().encode(), pub.to_der(), bytearray(pub.to_der())):
        for load in (Ed25519PublicKey.from_pem, Ed25519PublicKey.from_der):
            assert load(blob) == pub
    assert len(key.to_der()) == 48 and len(pub.to_der()) == 44  # RFC 8410's sizes
    assert Ed25519PublicKey.from_public_bytes(pub.public_bytes_raw()) == pub
    assert hash(Ed25519PublicKey.from_public_bytes(pub.public_bytes_raw())) == hash(pub)
    assert pub.public_bytes_raw().hex() in repr(pub) and "public=" in repr(key)
    # An X25519 key file is another algorithm; an SM2 one too.
    from kuaisuo import sm2, x25519
    for other in (x25519.X25519PrivateKey.generate().to_pem(),
                  sm2.SM2PrivateKey.generate().to_pem()):
        with pytest.raises(kuaisuo.KuaisuoError):
            Ed25519PrivateKey.from_pem(other)
    with pytest.raises(kuaisuo.KuaisuoError) as e:
        Ed25519PublicKey.from_pem(x25519.X25519PrivateKey.generate().public_key().to_pem())
    assert e.value.code == -33  # KS_ERR_KEY_ALGORITHM


def test_rfc8410_version_1_key_with_attributes_and_public_key():
    # RFC 8410 section 10.3: OneAsymmetricKey v1 with an attribute and the
    # public key, which must match the seed.
    pem = ("-----BEGIN PRIVATE KEY-----\n"
           "MHICAQEwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC\n"
           "oB8wHQYKKoZIhvcNAQkJFDEPDA1DdXJkbGUgQ2hhaXJzgSEAGb9ECWmEzf6FQbrB\n"
           "Z9w7lshQhqowtrbLDFw4rXAxZuE=\n"
           "-----END PRIVATE KEY-----\n")
    key = Ed25519PrivateKey.from_pem(pem)
    assert key.public_key().public_bytes_raw().hex() == \
        "19bf44096984cdfe8541bac167dc3b96c85086aa30b6b6cb0c5c38ad703166e1"
    der = bytearray(base64.b64decode("".join(pem.splitlines()[1:-1])))
    der[-1] ^= 1  # the embedded public key no longer matches
    with pytest.raises(kuaisuo.KuaisuoError) as e:
        Ed25519PrivateKey.from_der(bytes(der))
    assert e.value.code == -35  # KS_ERR_KEY_MISMATCH
    # Written back as OpenSSL writes it: version 0, seed only.
    assert len(key.to_der()) == 48


def test_wrong_lengths_and_types():
    key = Ed25519PrivateKey.generate()
    pub = key.public_key()
    sig = key.sign(b"m")
    for n in (0, 31, 33, 64):
        with pytest.raises(kuaisuo.KuaisuoError) as e:
            Ed25519PrivateKey.from_private_bytes(bytes(n))
        assert e.value.code == -40
        with pytest.raises(kuaisuo.KuaisuoError) as e:
            Ed25519PublicKey.from_public_bytes(b"\x09" * n)
        assert e.value.code == BAD_PUBLIC_KEY
    for bad in (b"", sig[:63], sig + b"\x00", bytes(128)):  # not 64 bytes: invalid
        assert verifies(pub.verify, bad, b"m") is False
    with pytest.raises(TypeError):
        key.sign("text")
    with pytest.raises(TypeError):
        verifies(pub.verify, sig, "m")
    with pytest.raises(TypeError):
        verifies(pub.verify, None, b"m")
    with pytest.raises(TypeError):
        Ed25519PrivateKey.from_private_bytes(None)
    # Other bytes-like objects are read in place.
    assert verifies(pub.verify, bytearray(sig), memoryview(b"m"))
    assert key.sign(bytearray(b"m")) == sig


def test_empty_and_large_messages():
    key = Ed25519PrivateKey.generate()
    pub = key.public_key()
    for msg in (b"", os.urandom(7 << 20)):
        for ctx, ph in ((None, False), (b"c", False), (None, True)):
            sig = key.sign(msg, ctx, ph)
            assert verifies(pub.verify, sig, msg, ctx, ph)
    big = bytearray(os.urandom(5 << 20))
    sig = key.sign(big)
    big[-1] ^= 1
    assert not verifies(pub.verify, sig, big)


# ---- Cross-checks ----------------------------------------------------------------

LENGTHS = (0, 1, 31, 32, 63, 64, 65, 111, 112, 127, 128, 129, 1000, 65537, 3 << 20)


@needs_pyca
def test_matches_cryptography_both_ways():
    for n in LENGTHS:
        seed, msg = os.urandom(32), os.urandom(n)
        ours, theirs = Ed25519PrivateKey.from_private_bytes(seed), pyca.Ed25519PrivateKey.from_private_bytes(seed)
        assert ours.public_key().public_bytes_raw() == theirs.public_key().public_bytes_raw()
        sig = ours.sign(msg)
        assert sig == theirs.sign(msg)  # deterministic: the same bytes
        theirs.public_key().verify(sig, msg)  # raises if it does not verify
        assert verifies(ours.public_key().verify, theirs.sign(msg), msg)
        with pytest.raises(InvalidSignature):
            theirs.public_key().verify(sig, msg + b"!")
    # Their fresh keys work here, ours there.
    for _ in range(20):
        theirs = pyca.Ed25519PrivateKey.generate()
        seed = theirs.private_bytes_raw()
        msg = os.urandom(50)
        pub = Ed25519PublicKey.from_public_bytes(theirs.public_key().public_bytes_raw())
        assert verifies(pub.verify, theirs.sign(msg), msg)
        ours = Ed25519PrivateKey.generate()
        theirs_pub = pyca.Ed25519PublicKey.from_public_bytes(ours.public_key().public_bytes_raw())
        theirs_pub.verify(ours.sign(msg), msg)
        assert Ed25519PrivateKey.from_private_bytes(seed).sign(msg) == theirs.sign(msg)


@needs_pyca
def test_key_files_are_cryptographys_byte_for_byte():
    pem, der = serialization.Encoding.PEM, serialization.Encoding.DER
    pkcs8, spki = serialization.PrivateFormat.PKCS8, serialization.PublicFormat.SubjectPublicKeyInfo
    plain = serialization.NoEncryption()
    for _ in range(10):
        theirs = pyca.Ed25519PrivateKey.generate()
        ours = Ed25519PrivateKey.from_private_bytes(theirs.private_bytes_raw())
        assert ours.to_pem().encode() == theirs.private_bytes(pem, pkcs8, plain)
        assert ours.to_der() == theirs.private_bytes(der, pkcs8, plain)
        assert ours.public_key().to_pem().encode() == theirs.public_key().public_bytes(pem, spki)
        assert ours.public_key().to_der() == theirs.public_key().public_bytes(der, spki)
        # Each reads the other's files.
        back = serialization.load_pem_private_key(ours.to_pem().encode(), None)
        assert back.private_bytes_raw() == ours.private_bytes_raw()
        back = serialization.load_der_private_key(ours.to_der(), None)
        assert back.private_bytes_raw() == ours.private_bytes_raw()
        back_pub = serialization.load_pem_public_key(ours.public_key().to_pem().encode())
        assert back_pub.public_bytes_raw() == ours.public_key().public_bytes_raw()
        assert Ed25519PrivateKey.from_pem(theirs.private_bytes(pem, pkcs8, plain)) \
            .private_bytes_raw() == theirs.private_bytes_raw()
        assert Ed25519PublicKey.from_der(theirs.public_key().public_bytes(der, spki)) \
            .public_bytes_raw() == theirs.public_key().public_bytes_raw()


@needs_nacl
def test_matches_pynacl_both_ways():
    for n in LENGTHS:
        seed, msg = os.urandom(32), os.urandom(n)
        ours, theirs = Ed25519PrivateKey.from_private_bytes(seed), nacl.signing.SigningKey(seed)
        assert ours.public_key().public_bytes_raw() == bytes(theirs.verify_key)
        sig = ours.sign(msg)
        assert sig == theirs.sign(msg).signature
        theirs.verify_key.verify(msg, sig)  # raises BadSignatureError if not
        assert verifies(ours.public_key().verify, theirs.sign(msg).signature, msg)
        with pytest.raises(nacl.exceptions.BadSignatureError):
            theirs.verify_key.verify(msg + b"!", sig)
    for _ in range(20):
        theirs = nacl.signing.SigningKey.generate()
        msg = os.urandom(33)
        pub = Ed25519PublicKey.from_public_bytes(bytes(theirs.verify_key))
        assert verifies(pub.verify, theirs.sign(msg).signature, msg)
        ours = Ed25519PrivateKey.generate()
        nacl.signing.VerifyKey(ours.public_key().public_bytes_raw()).verify(msg, ours.sign(msg))


# ---- A small reference implementation (RFC 8032 section 6), for crafted inputs ----

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
IDENTITY = (0, 1, 1, 0)


def _add(p, q):
    a = (p[1] - p[0]) * (q[1] - q[0]) % P
    b = (p[1] + p[0]) * (q[1] + q[0]) % P
    c = 2 * p[3] * q[3] * D % P
    d = 2 * p[2] * q[2] % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(s, p):
    q = IDENTITY
    while s > 0:
        if s & 1:
            q = _add(q, p)
        p = _add(p, p)
        s >>= 1
    return q


def _x_of(y, sign):
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P:
        return None
    return P - x if (x & 1) != sign else x


def _point(y, sign=0):
    x = _x_of(y % P, sign)
    assert x is not None
    return (x, y % P, 1, x * y % P)


def _encode(p):
    zi = pow(p[2], P - 2, P)
    x, y = p[0] * zi % P, p[1] * zi % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def _decode(b):
    v = int.from_bytes(b, "little")
    return _point(v & ((1 << 255) - 1), v >> 255)


def _same(p, q):
    return _encode(p) == _encode(q)


BASE = _point(4 * pow(5, P - 2, P) % P)
T8 = _decode(bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"))
SMALL_ORDER = [_encode(_mul(k, T8)) for k in range(8)]
# Non-canonical encodings: y + p for y = 0 and 1 (small order), the "negative
# zero" forms of (0, 1) and (0, -1), and y = 3 + p, a point of large order.
NON_CANONICAL_SMALL = [(P).to_bytes(32, "little"), (P + 1).to_bytes(32, "little"),
                       (1 | 1 << 255).to_bytes(32, "little"),
                       ((P - 1) | 1 << 255).to_bytes(32, "little")]
LARGE_Y3 = _point(3)
NON_CANONICAL_LARGE = (3 + P).to_bytes(32, "little")


def _expand(seed):
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], "little") & ((1 << 254) - 8) | (1 << 254)
    return a, h[32:]


def _k(r_enc, a_enc, msg):
    return int.from_bytes(hashlib.sha512(r_enc + a_enc + msg).digest(), "little") % L


def _sign_with_r(seed, msg, r_point, r):
    """A signature whose R is r_point = [r]B + (a small-order part)."""
    a, _ = _expand(seed)
    a_enc = _encode(_mul(a, BASE))
    r_enc = _encode(r_point)
    s = (r + _k(r_enc, a_enc, msg) * a) % L
    return r_enc + s.to_bytes(32, "little")


def test_reference_agrees_with_the_library():
    assert _same(_mul(8, T8), IDENTITY)
    assert not _same(_mul(4, T8), IDENTITY)
    assert len(set(SMALL_ORDER)) == 8
    assert not _same(_mul(L, LARGE_Y3), IDENTITY)
    seed = os.urandom(32)
    key = Ed25519PrivateKey.from_private_bytes(seed)
    a, prefix = _expand(seed)
    assert _encode(_mul(a, BASE)) == key.public_key().public_bytes_raw()
    r = int.from_bytes(hashlib.sha512(prefix + b"m").digest(), "little") % L
    assert _sign_with_r(seed, b"m", _mul(r, BASE), r) == key.sign(b"m")


# ---- The verification rules, on the inputs where implementations disagree ----


def _s_plus(sig, add):
    s = int.from_bytes(sig[32:], "little") + add
    return sig[:32] + (s % (1 << 256)).to_bytes(32, "little")


def test_s_at_or_above_l_is_malformed():
    key = Ed25519PrivateKey.generate()
    pub = key.public_key()
    sig = key.sign(b"msg")
    for bad in (_s_plus(sig, L), sig[:32] + L.to_bytes(32, "little"), sig[:32] + b"\xff" * 32,
                sig[:32] + (1 << 253).to_bytes(32, "little")):
        assert not verifies(pub.verify, bad, b"msg")  # False, not an exception
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    assert ctx.ed25519.verify([pub], [b"msg"], [_s_plus(sig, L)]) == [SIGNATURE_RANGE]
    if pyca is not None:  # OpenSSL rejects S + L too
        with pytest.raises(InvalidSignature):
            pyca.Ed25519PublicKey.from_public_bytes(pub.public_bytes_raw()).verify(
                _s_plus(sig, L), b"msg")


def test_small_order_and_non_canonical_public_keys_are_refused():
    for enc in SMALL_ORDER + NON_CANONICAL_SMALL + [NON_CANONICAL_LARGE]:
        with pytest.raises(kuaisuo.KuaisuoError) as e:
            Ed25519PublicKey.from_public_bytes(enc)
        assert e.value.code == BAD_PUBLIC_KEY, enc.hex()
    # The canonical encoding of the same large-order point is a good key.
    assert Ed25519PublicKey.from_public_bytes(_encode(LARGE_Y3)).public_bytes_raw() \
        == _encode(LARGE_Y3)
    # In a batch: per-item status, with every other item still checked.
    key = Ed25519PrivateKey.generate()
    sig = key.sign(b"m")
    keys = SMALL_ORDER + [NON_CANONICAL_LARGE, key.public_key().public_bytes_raw()]
    status = kuaisuo.Context(backend="cpu").ed25519.verify(keys, [b"m"] * len(keys),
                                                           [sig] * len(keys))
    assert status == [BAD_PUBLIC_KEY] * (len(keys) - 1) + [0]


def test_small_order_and_non_canonical_r_are_malformed():
    seed = os.urandom(32)
    key = Ed25519PrivateKey.from_private_bytes(seed)
    pub = key.public_key()
    a, _ = _expand(seed)
    bad = []
    for enc in SMALL_ORDER + NON_CANONICAL_SMALL:
        # R of small order with S = k*a: [S]B = R + [k]A holds up to torsion.
        k = _k(enc, pub.public_bytes_raw(), b"m")
        bad.append(enc + (k * a % L).to_bytes(32, "little"))
    # R = (0, 3) written as y + p, S made for it.
    r_enc = NON_CANONICAL_LARGE
    bad.append(r_enc + bytes(32))
    for sig in bad:
        assert not verifies(pub.verify, sig, b"m"), sig.hex()
    status = kuaisuo.Context(backend="cpu").ed25519.verify([pub] * len(bad), [b"m"] * len(bad),
                                                           bad)
    assert status == [SIGNATURE_RANGE] * len(bad)


def test_cofactored_equation_accepts_r_with_a_small_order_part():
    """[8][S]B = [8]R + [8][k]A: R = [r]B + T (T of order 8) verifies here,
    as the documented rule says, and not under OpenSSL's cofactorless
    equation; batch and single checks agree."""
    seed, msg = os.urandom(32), b"torsion"
    pub = Ed25519PrivateKey.from_private_bytes(seed).public_key()
    r = int.from_bytes(os.urandom(64), "little") % L
    sig = _sign_with_r(seed, msg, _add(_mul(r, BASE), T8), r)
    assert verifies(pub.verify, sig, msg)
    ctx = kuaisuo.Context(backend="cpu")
    assert ctx.ed25519.verify([pub], [msg], [sig]) == [0]
    if pyca is not None:
        with pytest.raises(InvalidSignature):
            pyca.Ed25519PublicKey.from_public_bytes(pub.public_bytes_raw()).verify(sig, msg)
    # A public key with a small-order part is of large order: accepted, and
    # the cofactored equation holds for a signature made with its scalar.
    a, _ = _expand(seed)
    mixed = _add(_mul(a, BASE), T8)
    mixed_pub = Ed25519PublicKey.from_public_bytes(_encode(mixed))
    r_enc = _encode(_mul(r, BASE))
    s = (r + _k(r_enc, _encode(mixed), msg) * a) % L
    assert verifies(mixed_pub.verify, r_enc + s.to_bytes(32, "little"), msg)


# ---- Batches ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def ctx():
    return kuaisuo.Context(backend="cpu", threads=2)


def test_batch_keygen_and_public_keys(ctx):
    import numpy as np

    pairs = ctx.ed25519.keygen(37)
    assert len(pairs) == 37 and len({s for s, _ in pairs}) == 37
    for seed, pub in pairs:
        assert Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw() == pub
    seeds = [s for s, _ in pairs]
    assert ctx.ed25519.public_keys(seeds) == [p for _, p in pairs]
    flat = np.frombuffer(b"".join(seeds), dtype=np.uint8).reshape(-1, 32)
    assert ctx.ed25519.public_keys(flat) == [p for _, p in pairs]
    keys = [Ed25519PrivateKey.from_private_bytes(s) for s in seeds]
    assert ctx.ed25519.public_keys(keys) == [p for _, p in pairs]
    assert ctx.ed25519.keygen(0) == [] and ctx.ed25519.public_keys([]) == []
    with pytest.raises(ValueError):
        ctx.ed25519.keygen(-1)
    with pytest.raises(ValueError, match=r"seeds\[1\]"):
        ctx.ed25519.public_keys([seeds[0], seeds[1][:31]])
    with pytest.raises(ValueError, match="multiple"):
        ctx.ed25519.public_keys(b"".join(seeds)[:-1])


def test_batch_signatures_equal_single_ones(ctx):
    import numpy as np

    key = Ed25519PrivateKey.generate()
    msgs = [os.urandom(i * 13 % 300) for i in range(50)] + [b"", os.urandom(100000)]
    sigs = ctx.ed25519.sign(key, msgs)
    assert sigs == [key.sign(m) for m in msgs]
    # Flat data with numpy offsets, read in place.
    data = b"".join(msgs)
    offsets = np.cumsum([0] + [len(m) for m in msgs], dtype=np.uint64)
    assert ctx.ed25519.sign(key, np.frombuffer(data, np.uint8), offsets=offsets) == sigs
    # Per-item keys: seeds, key objects or one flat array.
    keys = [Ed25519PrivateKey.generate() for _ in msgs]
    expected = [k.sign(m) for k, m in zip(keys, msgs)]
    seeds = [k.private_bytes_raw() for k in keys]
    assert ctx.ed25519.sign(seeds, msgs) == expected
    assert ctx.ed25519.sign(keys, msgs) == expected
    assert ctx.ed25519.sign(np.frombuffer(b"".join(seeds), np.uint8), data,
                            offsets=offsets) == expected
    with pytest.deprecated_call():
        assert ctx.ed25519.sign_seeds(seeds, msgs) == expected
    with pytest.raises(ValueError, match="same count"):
        ctx.ed25519.sign(seeds[:3], msgs[:4])
    with pytest.raises(TypeError):
        ctx.ed25519.sign(key, b"flat data without offsets")


def test_batch_verification_agrees_with_single_on_invalid_items(ctx):
    import numpy as np

    seed = os.urandom(32)
    good = Ed25519PrivateKey.from_private_bytes(seed)
    pub = good.public_key()
    a, _ = _expand(seed)
    r = int.from_bytes(os.urandom(64), "little") % L
    triples = []
    for i in range(24):  # valid items under several keys
        k = Ed25519PrivateKey.generate()
        m = os.urandom(i * 5)
        triples.append((k.public_key().public_bytes_raw(), m, k.sign(m)))
    sig = good.sign(b"message")
    flipped = bytearray(sig)
    flipped[40] ^= 0x10
    small_r = SMALL_ORDER[1] + ((_k(SMALL_ORDER[1], pub.public_bytes_raw(), b"message") * a)
                                % L).to_bytes(32, "little")
    torsion = _sign_with_r(seed, b"message", _add(_mul(r, BASE), T8), r)
    pk = pub.public_bytes_raw()
    invalid = [
        (pk, b"message", sig, 0),
        (pk, b"other", sig, VERIFY_FAILED),
        (pk, b"message", bytes(flipped), None),  # VERIFY_FAILED or SIGNATURE_RANGE
        (pk, b"message", _s_plus(sig, L), SIGNATURE_RANGE),
        (pk, b"message", sig[:32] + b"\xff" * 32, SIGNATURE_RANGE),
        (pk, b"message", small_r, SIGNATURE_RANGE),
        (pk, b"message", NON_CANONICAL_LARGE + sig[32:], SIGNATURE_RANGE),
        (pk, b"message", torsion, 0),
        (SMALL_ORDER[0], b"message", sig, BAD_PUBLIC_KEY),
        (SMALL_ORDER[5], b"message", sig, BAD_PUBLIC_KEY),
        (NON_CANONICAL_LARGE, b"message", sig, BAD_PUBLIC_KEY),
        (bytes(32), b"message", sig, BAD_PUBLIC_KEY),
        (b"\xff" * 32, b"message", sig, BAD_PUBLIC_KEY),
        (pk, b"", good.sign(b""), 0),
        (pk, b"", sig, VERIFY_FAILED),
    ]
    items = triples[:10] + [t[:3] for t in invalid] + triples[10:]
    expect = [0] * 10 + [t[3] for t in invalid] + [0] * 14
    keys, msgs, sigs = (list(x) for x in zip(*items))
    status = ctx.ed25519.verify(keys, msgs, sigs)
    for i, (s, e) in enumerate(zip(status, expect)):
        if e is not None:
            assert s == e, (i, s, e)
        else:
            assert s in (VERIFY_FAILED, SIGNATURE_RANGE)
    # Single verification gives the same answer on every item.
    for (k, m, sg), s in zip(items, status):
        try:
            single = verifies(Ed25519PublicKey.from_public_bytes(k).verify, sg, m)
        except kuaisuo.KuaisuoError as e:
            assert e.code == BAD_PUBLIC_KEY == s
            continue
        assert single == (s == 0)
    # The same through flat numpy inputs and key objects.
    offsets = np.cumsum([0] + [len(m) for m in msgs], dtype=np.int64)
    flat_status = ctx.ed25519.verify(np.frombuffer(b"".join(keys), np.uint8), b"".join(msgs),
                                     np.frombuffer(b"".join(sigs), np.uint8), offsets=offsets)
    assert flat_status == status
    with pytest.raises(ValueError, match="64 bytes"):
        ctx.ed25519.verify([pk], [b"m"], [sig[:63]])
    with pytest.raises(ValueError, match="same count"):
        ctx.ed25519.verify([pk, pk], [b"m"], [sig])
    with pytest.raises(ValueError, match="same count"):
        ctx.ed25519.verify(pk * 2, b"mm", sig, offsets=np.array([0, 1], dtype=np.uint64))
    assert ctx.ed25519.verify([], [], []) == []


def test_numpy_outputs_match_the_lists():
    np = pytest.importorskip("numpy")
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    seeds, pubs = ctx.ed25519.keygen(4, as_numpy=True)
    assert seeds.shape == pubs.shape == (4, 32) and seeds.dtype == np.uint8
    assert ctx.ed25519.public_keys(seeds, as_numpy=True).tobytes() == pubs.tobytes()
    assert ctx.ed25519.public_keys(seeds) == [p.tobytes() for p in pubs]
    msgs = [os.urandom(i) for i in range(4)]
    sigs = ctx.ed25519.sign(seeds, msgs, as_numpy=True)
    assert sigs.shape == (4, 64)
    assert [s.tobytes() for s in sigs] == ctx.ed25519.sign(seeds, msgs)
    key = Ed25519PrivateKey.from_private_bytes(seeds[0].tobytes())
    one = ctx.ed25519.sign(key, msgs, as_numpy=True)
    sigs[2, 63] ^= 0x01
    status = ctx.ed25519.verify(pubs, msgs, sigs, as_numpy=True)
    assert status.dtype == np.int32 and status.tolist()[:2] == [0, 0] and status[2] != 0
    assert ctx.ed25519.verify(key.public_key(), msgs, one, as_numpy=True).tolist() == [0] * 4


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_wide_base_table_context_gives_the_same_keys_and_signatures(ctx, backend):
    """wide_base_table=True (KS_GPU_WIDE_BASE_TABLE) changes how a GPU
    computes [k]B, never the result: public keys, X25519 public keys and
    signatures equal the default CPU context's (on the CPU it has no
    effect; the GPU case needs a device)."""
    if backend == "gpu" and kuaisuo.gpu_device_count() == 0:
        pytest.skip("no CUDA device")
    wide = kuaisuo.Context(backend=backend, wide_base_table=True)
    seeds = [os.urandom(32) for _ in range(5000)]
    msgs = [os.urandom(i % 200) for i in range(5000)]
    assert wide.ed25519.public_keys(seeds) == ctx.ed25519.public_keys(seeds)
    assert wide.x25519.public_keys(seeds) == ctx.x25519.public_keys(seeds)
    assert wide.ed25519.sign(seeds, msgs) == ctx.ed25519.sign(seeds, msgs)
    pairs = wide.ed25519.keygen(5000)
    assert ctx.ed25519.public_keys([s for s, _ in pairs]) == [p for _, p in pairs]
    with pytest.raises(TypeError):
        kuaisuo.Context("cpu", 0, 0, True)  # keyword only
