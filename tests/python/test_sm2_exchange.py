"""SM2 key exchange (GB/T 32918.3-2016) from Python, against two
independent implementations: a model written from the standard
(sm2_model.exchange, with pyca's SM3; checked here against GM/T 0003.5's
recommended-curve example), playing either role with confirmation, and
gmalg (pure Python) either role without it. Then the refusals: points off
the curve, wrong tags, steps out of order, bad lengths."""

import os

import pytest

from kuaisuo import KuaisuoError, SM2KeyExchange, sm2
import sm2_model

try:
    from cryptography.hazmat.primitives import hashes
except ImportError:  # pragma: no cover - CI installs it
    hashes = None
try:
    import gmalg
except ImportError:  # pragma: no cover - CI installs it
    gmalg = None

needs_cryptography = pytest.mark.skipif(hashes is None, reason="no cryptography package")

ERR_BAD_PUBLIC_KEY, ERR_STATE, ERR_CONFIRMATION = -41, -55, -56

# GM/T 0003.5-2012 Annex A: key exchange on the recommended curve, both
# IDs the default, klen = 128 bits.
D_A = 0x81EB26E941BB5AF16DF116495F90695272AE2CD63D6C4AE1678418BE48230029
D_B = 0x785129917D45A9EA5437A59356B82338EAADDA6CEB199088F14AE10DEFA229B5
R_A = 0xD4DE15474DB74D06491C440D305E012400990F3E390C7E87153C12DB2EA60BB3
R_B = 0x7E07124814B309489125EAED101113164EBF0F3458C5BD88335C1F9D596243D6
K = bytes.fromhex("6C89347354DE2484C60B4AB1FDE4C6E5")
S_B = bytes.fromhex("D3A0FE15DEE185CEAE907A6B595CC32A266ED7B3367E9983A896DC32FA20F8EB")
S_A = bytes.fromhex("18C7894B3816DF16CF07B05C5EC0BEF5D655D58F779CC1B400A4F3884644DB88")


def _sm3(data):
    h = hashes.Hash(hashes.SM3())
    h.update(data)
    return h.finalize()


def _point(enc):
    return int.from_bytes(enc[1:33], "big"), int.from_bytes(enc[33:65], "big")


def _encode(pt):
    return b"\x04" + sm2_model.b32(pt[0]) + sm2_model.b32(pt[1])


def _scalar():
    return int.from_bytes(os.urandom(32), "big") % (sm2_model.N - 2) + 1


def _party():
    d = _scalar()
    key = sm2.SM2PrivateKey.from_private_bytes(sm2_model.b32(d))
    return d, key, _point(key.public_key().public_bytes_raw())


@needs_cryptography
def test_model_gives_the_standards_example():
    p_a, p_b = sm2_model.mul(D_A), sm2_model.mul(D_B)
    uid = sm2.DEFAULT_ID
    z_a, z_b = sm2_model.za(_sm3, p_a, uid), sm2_model.za(_sm3, p_b, uid)
    for initiator, d, r, peer, peer_r in ((True, D_A, R_A, p_b, R_B), (False, D_B, R_B, p_a, R_A)):
        assert sm2_model.exchange(_sm3, initiator, d, r, peer, sm2_model.mul(peer_r), z_a, z_b,
                                  16) == (K, S_B, S_A)


@needs_cryptography
@pytest.mark.parametrize("length", [1, 16, 32, 57])
def test_initiator_against_the_model(length):
    _, key_a, p_a = _party()
    d_b, key_b, p_b = _party()
    id_a, id_b = os.urandom(5), b"responder@example"
    a = SM2KeyExchange(key_a, key_b.public_key(), initiator=True, id=id_a, peer_id=id_b,
                       confirm=True)
    r_a = a.start()
    r_b = _scalar()
    z_a, z_b = sm2_model.za(_sm3, p_a, id_a), sm2_model.za(_sm3, p_b, id_b)
    k, s_b, s_a = sm2_model.exchange(_sm3, False, d_b, r_b, p_a, _point(r_a), z_a, z_b, length)
    key, tag = a.finish(_encode(sm2_model.mul(r_b)), s_b, length)
    assert (key, tag) == (k, s_a)


@needs_cryptography
@pytest.mark.parametrize("length", [1, 16, 32, 57])
def test_responder_against_the_model(length):
    d_a, key_a, p_a = _party()
    _, key_b, p_b = _party()
    b = SM2KeyExchange(key_b, key_a.public_key(), initiator=False, peer_id=b"", confirm=True)
    r_a = _scalar()
    r_b, s_b, none = b.respond(_encode(sm2_model.mul(r_a)), length)
    assert none is None
    z_a, z_b = sm2_model.za(_sm3, p_a, b""), sm2_model.za(_sm3, p_b, sm2.DEFAULT_ID)
    k, want_s_b, s_a = sm2_model.exchange(_sm3, True, d_a, r_a, p_b, _point(r_b), z_a, z_b,
                                          length)
    assert s_b == want_s_b
    assert b.confirm(s_a, length) == k


@pytest.mark.skipif(gmalg is None, reason="no gmalg package")
@pytest.mark.parametrize("we_initiate", [True, False])
def test_against_gmalg(we_initiate):
    _, ours, _ = _party()
    d_theirs, theirs, _ = _party()
    pk_ours = ours.public_key().public_bytes_raw()
    pk_theirs = theirs.public_key().public_bytes_raw()
    other = gmalg.SM2(sm2_model.b32(d_theirs), b"gmalg", pk_theirs)
    mode = gmalg.KEYXCHG_MODE
    x = SM2KeyExchange(ours, theirs.public_key(), initiator=we_initiate, id=b"kuaisuo",
                       peer_id=b"gmalg")
    their_r, t = other.begin_key_exchange()
    if we_initiate:
        our_r = x.start()
        key, _ = x.finish(their_r, length=48)
        want = other.end_key_exchange(48, t, our_r, b"kuaisuo", pk_ours, mode.RESPONDER)
    else:
        our_r, _, key = x.respond(their_r, 48)
        want = other.end_key_exchange(48, t, our_r, b"kuaisuo", pk_ours, mode.INITIATOR)
    assert key == want


def _pair(confirm):
    _, key_a, _ = _party()
    _, key_b, _ = _party()
    return (SM2KeyExchange(key_a, key_b.public_key(), initiator=True, confirm=confirm),
            SM2KeyExchange(key_b, key_a.public_key(), initiator=False, confirm=confirm))


def test_both_sides_agree_without_the_oracles():
    for confirm in (False, True):
        a, b = _pair(confirm)
        r_a = a.start()
        r_b, s_b, k_b = b.respond(r_a, 32)
        k_a, s_a = a.finish(r_b, s_b, 32)
        if confirm:
            k_b = b.confirm(s_a, 32)
        assert k_a == k_b and len(k_a) == 32


def test_refusals():
    a, b = _pair(True)
    r_a = a.start()
    off = bytearray(r_a)
    off[64] ^= 1
    with pytest.raises(KuaisuoError) as e:
        b.respond(bytes(off))
    assert e.value.code == ERR_BAD_PUBLIC_KEY
    with pytest.raises(KuaisuoError) as e:  # failed for good
        b.respond(r_a)
    assert e.value.code == ERR_STATE

    a, b = _pair(True)
    r_b, s_b, _ = b.respond(a.start())
    with pytest.raises(KuaisuoError) as e:
        a.finish(r_b, bytes(32))
    assert e.value.code == ERR_CONFIRMATION
    with pytest.raises(ValueError):
        a.finish(r_b)  # S_B required with confirmation

    a, b = _pair(False)
    with pytest.raises(KuaisuoError) as e:
        b.start()  # a responder does not start
    assert e.value.code == ERR_STATE
    with pytest.raises(ValueError):
        a.start() and a.finish(b"\x04" + bytes(64), length=0)
