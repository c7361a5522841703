"""X25519 from Python: RFC 7748 vectors (1 and 1,000 iterations, the
Diffie-Hellman example), random cross-checks in both directions against
`cryptography` (OpenSSL) and PyNaCl (libsodium), key files, the inputs where
implementations differ (small order, all-zero peer, high bit, u >= p), and
batches against single operations."""

import os

import pytest

import kuaisuo
from kuaisuo import x25519
from kuaisuo.x25519 import X25519PrivateKey, X25519PublicKey

try:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import x25519 as pyca
except ImportError:  # optional oracle (scripts/env.sh installs it where it can)
    pyca = None

try:
    import nacl.bindings
    import nacl.exceptions
    import nacl.public
except ImportError:  # optional oracle
    nacl = None

needs_pyca = pytest.mark.skipif(pyca is None, reason="cryptography not installed")
needs_nacl = pytest.mark.skipif(nacl is None, reason="PyNaCl not installed")

ZERO_SHARED_SECRET, BAD_PRIVATE_KEY, BAD_PUBLIC_KEY = -46, -40, -41
P = 2**255 - 19


def _x25519(k: bytes, u: bytes) -> bytes:
    """The single operation through the public API."""
    return X25519PrivateKey.from_private_bytes(k).exchange(X25519PublicKey.from_public_bytes(u))


def _reference(k: bytes, u: bytes) -> int:
    """RFC 7748 section 5, written out: clamping, the top bit of u masked,
    the Montgomery ladder. Returns the u-coordinate (0 for small order)."""
    scalar = int.from_bytes(k, "little") & ((1 << 254) - 8) | (1 << 254)
    x1 = (int.from_bytes(u, "little") & ((1 << 255) - 1)) % P
    x2, z2, x3, z3, swap = 1, 0, x1, 1, 0
    for t in reversed(range(255)):
        bit = (scalar >> t) & 1
        if swap ^ bit:
            x2, x3, z2, z3 = x3, x2, z3, z2
        swap = bit
        a, b = x2 + z2, x2 - z2
        aa, bb = a * a % P, b * b % P
        e = aa - bb
        c, d = x3 + z3, x3 - z3
        da, cb = d * a % P, c * b % P
        x3, z3 = (da + cb) ** 2 % P, x1 * (da - cb) ** 2 % P
        x2, z2 = aa * bb % P, e * (aa + 121665 * e) % P
    if swap:
        x2, z2 = x3, z3
    return x2 * pow(z2, P - 2, P) % P


def test_rfc7748_vectors():
    for k, u, out in [
        ("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
         "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
         "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"),
        ("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
         "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
         "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"),
    ]:
        assert _x25519(bytes.fromhex(k), bytes.fromhex(u)).hex() == out
        assert _reference(bytes.fromhex(k), bytes.fromhex(u)).to_bytes(32, "little").hex() == out


def test_rfc7748_iterations():
    k = u = (9).to_bytes(32, "little")
    for i in range(1, 1001):
        k, u = _x25519(k, u), k
        if i == 1:
            assert k.hex() == "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079"
    assert k.hex() == "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51"


def test_rfc7748_diffie_hellman():
    alice = X25519PrivateKey.from_private_bytes(bytes.fromhex(
        "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
    bob = X25519PrivateKey.from_private_bytes(bytes.fromhex(
        "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
    assert alice.public_key().public_bytes_raw().hex() == \
        "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"
    assert bob.public_key().public_bytes_raw().hex() == \
        "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"
    secret = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
    assert alice.exchange(bob.public_key()).hex() == secret
    assert bob.exchange(alice.public_key()).hex() == secret
    assert bob.exchange(alice.public_key().public_bytes_raw()).hex() == secret  # raw bytes too


def test_generate_and_encodings_roundtrip():
    key = X25519PrivateKey.generate()
    pub = key.public_key()
    assert key.to_pem().startswith("-----BEGIN PRIVATE KEY-----\n")
    assert pub.to_pem().startswith("-----BEGIN PUBLIC KEY-----\n")
    assert len(key.to_der()) == 48 and len(pub.to_der()) == 44  # RFC 8410's sizes
    for blob in (key.to_pem(), key.to_pem().encode(), key.to_der()):
        for load in (X25519PrivateKey.from_pem, X25519PrivateKey.from_der):
            assert load(blob).private_bytes_raw() == key.private_bytes_raw()
    for blob in (pub.to_pem(), pub.to_pem().encode(), pub.to_der()):
        for load in (X25519PublicKey.from_pem, X25519PublicKey.from_der):
            assert load(blob) == pub
    assert X25519PublicKey.from_public_bytes(pub.public_bytes_raw()) == pub
    assert hash(X25519PublicKey.from_public_bytes(bytearray(pub.public_bytes_raw()))) == hash(pub)
    assert pub.public_bytes_raw().hex() in repr(pub)
    assert key.private_bytes_raw().hex() not in repr(key)
    assert X25519PrivateKey.generate().private_bytes_raw() != key.private_bytes_raw()
    from kuaisuo import ed25519
    with pytest.raises(kuaisuo.KuaisuoError) as e:
        X25519PrivateKey.from_pem(ed25519.Ed25519PrivateKey.generate().to_pem())
    assert e.value.code == -33  # KS_ERR_KEY_ALGORITHM
    with pytest.raises(kuaisuo.KuaisuoError):
        X25519PublicKey.from_der(ed25519.Ed25519PrivateKey.generate().public_key().to_der())


def test_wrong_lengths_and_types():
    key = X25519PrivateKey.generate()
    for n in (0, 31, 33):
        with pytest.raises(kuaisuo.KuaisuoError) as e:
            X25519PrivateKey.from_private_bytes(bytes(n))
        assert e.value.code == BAD_PRIVATE_KEY
        with pytest.raises(kuaisuo.KuaisuoError) as e:
            X25519PublicKey.from_public_bytes(b"\x09" * n)
        assert e.value.code == BAD_PUBLIC_KEY
        with pytest.raises(kuaisuo.KuaisuoError) as e:
            key.exchange(b"\x09" * n)
        assert e.value.code == BAD_PUBLIC_KEY
    with pytest.raises(TypeError):
        X25519PrivateKey.from_private_bytes("32 characters of text, not bytes")
    with pytest.raises(TypeError):
        key.exchange("text")
    with pytest.raises(TypeError):
        X25519PublicKey.from_public_bytes(None)


SMALL_ORDER = [bytes.fromhex(h) for h in (
    "0000000000000000000000000000000000000000000000000000000000000000",  # 0
    "0100000000000000000000000000000000000000000000000000000000000000",  # 1
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",  # order 8
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",  # order 8
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # p - 1
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # p (= 0)
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # p + 1 (= 1)
    "0000000000000000000000000000000000000000000000000000000000000080",  # 0, high bit set
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b880",  # order 8, high bit
)]


def test_small_order_peers_give_the_zero_secret_error():
    key = X25519PrivateKey.generate()
    for u in SMALL_ORDER:
        assert _reference(key.private_bytes_raw(), u) == 0
        with pytest.raises(kuaisuo.KuaisuoError) as e:
            key.exchange(X25519PublicKey.from_public_bytes(u))
        assert e.value.code == ZERO_SHARED_SECRET and "small order" in e.value.message
        if pyca is not None:  # cryptography raises ValueError for the same inputs
            theirs = pyca.X25519PrivateKey.from_private_bytes(key.private_bytes_raw())
            with pytest.raises(ValueError):
                theirs.exchange(pyca.X25519PublicKey.from_public_bytes(u))
    # The key files of such peers still load (they are 32 bytes of u).
    zero = X25519PublicKey.from_pem(X25519PublicKey.from_public_bytes(bytes(32)).to_pem())
    with pytest.raises(kuaisuo.KuaisuoError):
        key.exchange(zero)


def test_high_bit_is_masked_and_u_is_taken_mod_p():
    for _ in range(20):
        k, u = os.urandom(32), bytearray(os.urandom(32))
        u[31] &= 0x7F
        expected = _reference(k, bytes(u)).to_bytes(32, "little")
        assert _x25519(k, bytes(u)) == expected
        high = bytes(u[:31]) + bytes([u[31] | 0x80])
        assert _x25519(k, high) == expected
        assert _reference(k, high).to_bytes(32, "little") == expected
    # u in [p, 2^255): the same as u - p.
    k = os.urandom(32)
    for small in (2, 9, 18):
        non_canonical = (P + small).to_bytes(32, "little")
        assert _x25519(k, non_canonical) == _x25519(k, small.to_bytes(32, "little"))
        assert _x25519(k, non_canonical) == _reference(k, non_canonical).to_bytes(32, "little")
    # Public keys keep the bytes they were given (high bit included).
    raw = b"\xff" * 32
    assert X25519PublicKey.from_public_bytes(raw).public_bytes_raw() == raw


def test_clamping():
    k = bytearray(os.urandom(32))
    base = _x25519(bytes(k), (9).to_bytes(32, "little"))
    k[0] ^= 7       # the low three bits are cleared,
    k[31] ^= 0x80   # bit 255 too,
    k[31] |= 0x40   # bit 254 set
    assert _x25519(bytes(k), (9).to_bytes(32, "little")) == base
    assert X25519PrivateKey.from_private_bytes(bytes(k)).public_key().public_bytes_raw() == base


# ---- Cross-checks ------------------------------------------------------------------


@needs_pyca
def test_matches_cryptography_both_ways():
    for i in range(40):
        k1, k2 = os.urandom(32), os.urandom(32)
        ours = X25519PrivateKey.from_private_bytes(k1)
        theirs = pyca.X25519PrivateKey.from_private_bytes(k1)
        assert ours.public_key().public_bytes_raw() == theirs.public_key().public_bytes_raw()
        u = bytearray(os.urandom(32))
        if i % 2:
            u[31] |= 0x80  # the high bit: masked by both
        expected = theirs.exchange(pyca.X25519PublicKey.from_public_bytes(bytes(u)))
        assert ours.exchange(bytes(u)) == expected
        # A key exchange between the two libraries.
        peer = pyca.X25519PrivateKey.from_private_bytes(k2)
        secret = ours.exchange(X25519PublicKey.from_public_bytes(
            peer.public_key().public_bytes_raw()))
        assert secret == peer.exchange(pyca.X25519PublicKey.from_public_bytes(
            ours.public_key().public_bytes_raw()))
    theirs = pyca.X25519PrivateKey.generate()
    ours = X25519PrivateKey.generate()
    assert ours.exchange(theirs.public_key().public_bytes_raw()) == theirs.exchange(
        pyca.X25519PublicKey.from_public_bytes(ours.public_key().public_bytes_raw()))


@needs_pyca
def test_key_files_are_cryptographys_byte_for_byte():
    pem, der = serialization.Encoding.PEM, serialization.Encoding.DER
    pkcs8, spki = serialization.PrivateFormat.PKCS8, serialization.PublicFormat.SubjectPublicKeyInfo
    plain = serialization.NoEncryption()
    for _ in range(10):
        theirs = pyca.X25519PrivateKey.generate()
        ours = X25519PrivateKey.from_private_bytes(theirs.private_bytes_raw())
        assert ours.to_pem().encode() == theirs.private_bytes(pem, pkcs8, plain)
        assert ours.to_der() == theirs.private_bytes(der, pkcs8, plain)
        assert ours.public_key().to_pem().encode() == theirs.public_key().public_bytes(pem, spki)
        assert ours.public_key().to_der() == theirs.public_key().public_bytes(der, spki)
        back = serialization.load_pem_private_key(ours.to_pem().encode(), None)
        assert back.private_bytes_raw() == ours.private_bytes_raw()
        back_pub = serialization.load_der_public_key(ours.public_key().to_der())
        assert back_pub.public_bytes_raw() == ours.public_key().public_bytes_raw()
        assert X25519PrivateKey.from_der(theirs.private_bytes(der, pkcs8, plain)) \
            .private_bytes_raw() == theirs.private_bytes_raw()
        assert X25519PublicKey.from_pem(theirs.public_key().public_bytes(pem, spki)) \
            .public_bytes_raw() == theirs.public_key().public_bytes_raw()


@needs_nacl
def test_matches_pynacl_both_ways():
    for _ in range(40):
        k1, k2 = os.urandom(32), os.urandom(32)
        ours = X25519PrivateKey.from_private_bytes(k1)
        assert ours.public_key().public_bytes_raw() == nacl.bindings.crypto_scalarmult_base(k1)
        assert ours.public_key().public_bytes_raw() == bytes(nacl.public.PrivateKey(k1).public_key)
        peer_pub = nacl.bindings.crypto_scalarmult_base(k2)
        assert ours.exchange(peer_pub) == nacl.bindings.crypto_scalarmult(k1, peer_pub)
        assert nacl.bindings.crypto_scalarmult(k2, ours.public_key().public_bytes_raw()) == \
            X25519PrivateKey.from_private_bytes(k2).exchange(ours.public_key())
    # libsodium refuses the all-zero secret as well.
    for u in SMALL_ORDER[:4]:
        with pytest.raises(nacl.exceptions.RuntimeError):
            nacl.bindings.crypto_scalarmult(os.urandom(32), u)


# ---- Batches -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ctx():
    return kuaisuo.Context(backend="cpu", threads=2)


def test_batch_keygen_and_public_keys(ctx):
    import numpy as np

    pairs = ctx.x25519.keygen(41)
    assert len(pairs) == 41 and len({k for k, _ in pairs}) == 41
    for k, pub in pairs:
        assert X25519PrivateKey.from_private_bytes(k).public_key().public_bytes_raw() == pub
    keys = [k for k, _ in pairs]
    pubs = [p for _, p in pairs]
    assert ctx.x25519.public_keys(keys) == pubs
    assert ctx.x25519.public_keys(np.frombuffer(b"".join(keys), np.uint8).reshape(-1, 32)) == pubs
    assert ctx.x25519.public_keys([X25519PrivateKey.from_private_bytes(k) for k in keys]) == pubs
    assert ctx.x25519.keygen(0) == [] and ctx.x25519.public_keys([]) == []
    with pytest.raises(ValueError):
        ctx.x25519.keygen(-1)
    with pytest.raises(ValueError, match=r"private_keys\[2\]"):
        ctx.x25519.public_keys(keys[:2] + [b"short"])


def test_batch_derive_agrees_with_single_on_invalid_items(ctx):
    import numpy as np

    key = X25519PrivateKey.generate()
    peers = [X25519PrivateKey.generate().public_key().public_bytes_raw() for _ in range(30)]
    high = bytearray(peers[3])
    high[31] |= 0x80
    peers[7:7] = SMALL_ORDER
    peers.append(bytes(high))
    peers.append((P + 9).to_bytes(32, "little"))

    def single(k, u):
        try:
            return k.exchange(u), 0
        except kuaisuo.KuaisuoError as e:
            return bytes(32), e.code

    expected = [single(key, u) for u in peers]
    assert [s for _, s in expected].count(ZERO_SHARED_SECRET) == len(SMALL_ORDER)
    for private in (key, key.private_bytes_raw(), bytearray(key.private_bytes_raw())):
        secrets, status = ctx.x25519.derive(private, peers)
        assert list(zip(secrets, status)) == expected
    # Peers as key objects or one flat array.
    secrets, status = ctx.x25519.derive(key, [X25519PublicKey.from_public_bytes(u) for u in peers])
    assert list(zip(secrets, status)) == expected
    secrets, status = ctx.x25519.derive(key, np.frombuffer(b"".join(peers), np.uint8))
    assert list(zip(secrets, status)) == expected
    # One private key per peer: a list (raw or objects) or a flat buffer.
    keys = [X25519PrivateKey.generate() for _ in peers]
    expected = [single(k, u) for k, u in zip(keys, peers)]
    for private in (keys, [k.private_bytes_raw() for k in keys],
                    b"".join(k.private_bytes_raw() for k in keys)):
        secrets, status = ctx.x25519.derive(private, peers)
        assert list(zip(secrets, status)) == expected
    with pytest.raises(ValueError, match="same count"):
        ctx.x25519.derive(keys[:3], peers)
    with pytest.raises(ValueError, match="multiple"):
        ctx.x25519.derive(key, b"".join(peers) + b"x")
    assert ctx.x25519.derive(key, []) == ([], [])


def test_numpy_outputs_match_the_lists():
    np = pytest.importorskip("numpy")
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    priv, pub = ctx.x25519.keygen(5, as_numpy=True)
    assert priv.shape == pub.shape == (5, 32) and priv.dtype == np.uint8
    assert ctx.x25519.public_keys(priv, as_numpy=True).tobytes() == pub.tobytes()
    mine = X25519PrivateKey.generate()
    peers = np.concatenate([pub, np.zeros((1, 32), np.uint8)])    # the last: small order
    shared, status = ctx.x25519.derive(mine, peers, as_numpy=True)
    assert shared.shape == (6, 32) and status.dtype == np.int32
    assert status.tolist() == [0] * 5 + [-46]
    listed, list_status = ctx.x25519.derive(mine, peers)
    assert [s.tobytes() for s in shared] == listed and list_status == status.tolist()
