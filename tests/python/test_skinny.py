"""SKINNY-128-256 from Python against the independently written model
(skinny_model.py, a plain transcription of the paper's round function that
shares no code with the C++): every entry point on random tweakeys, tweaks,
counters and lengths, and the paper's vector."""

import os
import random

import pytest

import kuaisuo
from kuaisuo import skinny

import skinny_model as model
from conftest import requires_gpu

TK = bytes.fromhex("009CEC81605D4AC1D2AE9E3085D7A1F31AC123EBFC00FDDCF01046CEEDDFCAB3")
PT = bytes.fromhex("3A0C47767A26A68DD382A695E7022E25")
CT = bytes.fromhex("B731D98A4BDE147A7ED4A6F16B9B587F")


def test_paper_vector_here_and_in_the_model():
    assert model.check_known_answer()
    assert skinny.encrypt(TK, PT, mode="ecb") == CT
    assert skinny.decrypt(TK, CT, mode="ecb") == PT


def test_ecb_and_ctr_match_the_model_on_random_inputs():
    rng = random.Random(os.urandom(8))
    for _ in range(40):
        tk, iv = os.urandom(32), os.urandom(16)
        if rng.random() < 0.2:
            iv = b"\xff" * 15 + bytes([rng.randrange(250, 256)])   # the counter wraps
        data = os.urandom(rng.randrange(0, 200))
        assert skinny.encrypt(tk, data, mode="ctr", iv=iv) == model.ctr_crypt(tk, iv, data)
        whole = data[: len(data) // 16 * 16]
        ct = skinny.encrypt(tk, whole, mode="ecb")
        assert ct == model.ecb_encrypt(tk, whole)
        assert skinny.decrypt(tk, ct, mode="ecb") == model.ecb_decrypt(tk, ct) == whole


def test_tweak_per_block_matches_the_model():
    key, tweaks, data = os.urandom(16), os.urandom(16 * 6), os.urandom(16 * 6)
    ct = skinny.encrypt_tweaked(key, tweaks, data)
    for i in range(6):
        tk = tweaks[16 * i:16 * i + 16] + key
        assert ct[16 * i:16 * i + 16] == model.encrypt_block(tk, data[16 * i:16 * i + 16])
    assert skinny.decrypt_tweaked(key, tweaks, ct) == data
    with pytest.raises(ValueError, match="tweak"):
        skinny.encrypt_tweaked(key, tweaks[:16], data)


def test_stream_buffer_and_batch_match_the_model():
    ctx = kuaisuo.Context(backend="cpu", threads=2)
    tk, iv = os.urandom(32), os.urandom(16)
    data = os.urandom(5000)
    want = model.ctr_crypt(tk, iv, data)
    s = skinny.SkinnyCTR(tk, iv)
    assert b"".join(s.update(data[a:a + 333]) for a in range(0, len(data), 333)) == want
    assert ctx.skinny.encrypt_buffer(tk, data, mode="ctr", iv=iv) == want
    assert ctx.skinny.decrypt_buffer(tk, want, mode="ctr", iv=iv) == data
    tks = [os.urandom(32) for _ in range(9)]
    ivs = [os.urandom(16) for _ in range(9)]
    msgs = [os.urandom(17 * i) for i in range(9)]
    outs, status = ctx.skinny.encrypt(tks, msgs, mode="ctr", ivs=ivs)
    assert status == [0] * 9
    assert outs == [model.ctr_crypt(k, v, m) for k, v, m in zip(tks, ivs, msgs)]
    outs, status = ctx.skinny.encrypt(tks, msgs, mode="ecb")
    assert [s == 0 for s in status] == [len(m) % 16 == 0 for m in msgs]
    for k, m, o, st in zip(tks, msgs, outs, status):
        if st == 0:
            assert o == model.ecb_encrypt(k, m)


@requires_gpu
def test_gpu_context_buffers_match_the_model():
    """ks_skinny128_256_crypt_buffer on the GPU (the bitsliced kernel; ECB
    decryption stays on the CPU): ECB and CTR against the model on the
    first and last 70 blocks (the model is slow), with a partial last
    block and a counter that carries across 2^64; then round trips."""
    gpu = kuaisuo.Context(backend="gpu")
    tk, iv = os.urandom(32), os.urandom(8) + b"\xff" * 7 + bytes([0xF0])
    data = os.urandom((1 << 20) + 1000 + 9)
    part, tail = 16 * 70, (len(data) // 16 - 70) * 16
    tail_iv = ((int.from_bytes(iv, "big") + tail // 16) % (1 << 128)).to_bytes(16, "big")
    ct = gpu.skinny.encrypt_buffer(tk, data, mode="ctr", iv=iv)
    assert ct[:part] == model.ctr_crypt(tk, iv, data[:part])
    assert ct[tail:] == model.ctr_crypt(tk, tail_iv, data[tail:])
    assert gpu.skinny.decrypt_buffer(tk, ct, mode="ctr", iv=iv) == data
    whole = data[: len(data) // 16 * 16]
    ct = gpu.skinny.encrypt_buffer(tk, whole, mode="ecb")
    assert ct[:part] == model.ecb_encrypt(tk, whole[:part])
    assert ct[-part:] == model.ecb_encrypt(tk, whole[-part:])
    assert gpu.skinny.decrypt_buffer(tk, ct, mode="ecb") == whole


def test_bad_lengths_name_the_input():
    with pytest.raises(ValueError, match="tweakey"):
        skinny.encrypt(os.urandom(16), b"x", mode="ctr", iv=os.urandom(16))
    with pytest.raises(kuaisuo.KuaisuoError, match="^iv"):
        skinny.encrypt(TK, b"x", mode="ctr", iv=os.urandom(8))
    with pytest.raises(kuaisuo.KuaisuoError, match="^data"):
        skinny.encrypt(TK, b"x" * 17, mode="ecb")
    with pytest.raises(ValueError, match="mode"):
        skinny.encrypt(TK, b"x", mode="cbc", iv=os.urandom(16))
