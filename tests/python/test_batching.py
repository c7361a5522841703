"""kuaisuo.batching: items of concurrent requests coalesced into batch calls,
with the results checked against the single-operation API (an independent
path through the library) and the service statuses (overloaded, deadline,
shutting down, malformed items) on the items they concern only."""

import asyncio
import os

import pytest

import kuaisuo
from kuaisuo import batching as b
from kuaisuo.ed25519 import Ed25519PrivateKey
from kuaisuo.sm2 import SM2PrivateKey
from sigcheck import verifies

VERIFY_FAILED = -44


def run(coro):
    return asyncio.run(coro)


@pytest.fixture(scope="module")
def ctx():
    return kuaisuo.Context(backend="cpu", threads=2)


def test_concurrent_requests_share_batches(ctx):
    key = SM2PrivateKey.generate()
    digests = [os.urandom(32) for _ in range(64)]

    async def main():
        batcher = b.Batcher(ctx, max_batch=1024, max_delay=0.05)
        replies = await asyncio.gather(
            *(batcher.submit(b.SM2_SIGN_DIGESTS, key, [d]) for d in digests))
        await batcher.close()
        return batcher.stats, replies

    stats, replies = run(main())
    assert stats.items == 64 and stats.batches < 64 and stats.largest_batch > 1
    for d, [(status, sig)] in zip(digests, replies):
        assert status == b.OK
        assert verifies(key.public_key().verify_digest, sig, d)


def test_max_batch_splits_and_results_stay_in_order(ctx):
    messages = [os.urandom(n) for n in (0, 1, 55, 64, 1000, 7, 3, 200, 9, 33)]

    async def main():
        batcher = b.Batcher(ctx, max_batch=4, max_delay=0.05)
        first = batcher.submit(b.SM3_HASH, None, messages[:7])
        second = batcher.submit(b.SM3_HASH, None, messages[7:])
        replies = await asyncio.gather(first, second)
        await batcher.close()
        return batcher.stats, replies

    stats, (first, second) = run(main())
    assert stats.largest_batch == 4 and stats.batches == 3
    assert [v for _, v in first + second] == [kuaisuo.sm3(m) for m in messages]


def test_a_lone_item_runs_after_max_delay(ctx):
    async def main():
        batcher = b.Batcher(ctx, max_batch=4096, max_delay=0.01)
        reply = await asyncio.wait_for(batcher.submit(b.SM3_HASH, None, [b"abc"]), 30)
        await batcher.close()
        return reply

    assert run(main()) == [(b.OK, kuaisuo.sm3(b"abc"))]


def test_verify_statuses_per_item(ctx):
    sm2_key, ed_key = SM2PrivateKey.generate(), Ed25519PrivateKey.generate()
    msgs = [os.urandom(40) for _ in range(6)]
    sm2_items = [(sm2_key.public_key(), m, sm2_key.sign(m)) for m in msgs]
    sm2_items[2] = (sm2_key.public_key(), b"other", sm2_items[2][2])
    sm2_items[4] = (sm2_key.public_key(), msgs[4], b"\x30\x00")  # malformed DER
    ed_items = [(ed_key.public_key(), m, ed_key.sign(m)) for m in msgs]
    ed_items[1] = (ed_key.public_key(), msgs[1] + b"!", ed_items[1][2])

    async def main():
        batcher = b.Batcher(ctx, max_delay=0.02)
        replies = await asyncio.gather(
            batcher.submit(b.SM2_VERIFY, None, sm2_items),
            batcher.submit(b.ED25519_VERIFY, None, ed_items))
        await batcher.close()
        return replies

    sm2_reply, ed_reply = run(main())
    sm2_status = [s for s, _ in sm2_reply]
    assert sm2_status[2] == VERIFY_FAILED and sm2_status[4] < 0
    assert [s for i, s in enumerate(sm2_status) if i not in (2, 4)] == [b.OK] * 4
    for i, ((pub, m, sig), s) in enumerate(zip(sm2_items, sm2_status)):
        if i != 4:  # the single-item API agrees
            assert (s == b.OK) == verifies(pub.verify, sig, m)
    assert [s for s, _ in ed_reply] == [b.OK, VERIFY_FAILED, b.OK, b.OK, b.OK, b.OK]


def test_malformed_items_get_their_own_status(ctx):
    key = SM2PrivateKey.generate()
    good = os.urandom(32)

    async def main():
        batcher = b.Batcher(ctx, max_delay=0.01)
        reply = await batcher.submit(b.SM2_SIGN_DIGESTS, key, [good, b"short", 5, good])
        bad_key = await batcher.submit(
            b.SM2_VERIFY_DIGESTS, None,
            [(b"\x04" + bytes(64), good, b"\x30\x00"), "not a triple"])
        await batcher.close()
        return reply, bad_key

    reply, bad_key = run(main())
    assert [s for s, _ in reply] == [b.OK, b.ERR_LENGTH, b.ERR_LENGTH, b.OK]
    assert verifies(key.public_key().verify_digest, reply[3][1], good)
    assert bad_key[0][0] < 0 and bad_key[0][0] != b.ERR_INTERNAL
    assert bad_key[1][0] == b.ERR_LENGTH


def test_sm4_gcm_requests_share_batches_and_malformed_items_fail_alone(ctx):
    """Sealed boxes from concurrent requests open with the key directly,
    and open again through the batcher; a non-pair, a non-bytes AAD and a
    box shorter than nonce + tag get KS_ERR_LENGTH without failing others."""
    from kuaisuo.sm4 import SM4GCM, SM4Key

    key = SM4Key.generate()
    msgs = [os.urandom(n) for n in range(40)]

    async def main():
        batcher = b.Batcher(ctx, max_batch=64, max_delay=0.02)
        sealed = await asyncio.gather(*(batcher.submit(b.SM4_GCM_SEAL, key, [(m, b"ad")])
                                        for m in msgs))
        boxes = [box for [(status, box)] in sealed]
        opened = await batcher.submit(b.SM4_GCM_OPEN, key, [(box, b"ad") for box in boxes]
                                      + [b"not a pair", (boxes[0], 5), (b"x" * 27, b"")])
        await batcher.close()
        return batcher.stats, sealed, boxes, opened

    stats, sealed, boxes, opened = run(main())
    assert stats.batches < len(msgs) + 1 and all(s == 0 for [(s, _)] in sealed)
    gcm = SM4GCM(key.to_bytes())
    assert [gcm.decrypt(box[:12], box[12:], b"ad") for box in boxes] == msgs
    assert opened[:len(msgs)] == [(0, m) for m in msgs]
    assert opened[len(msgs):] == [(-3, None)] * 3


def test_sm4_gcm_rows_split_across_batches_open_with_the_key(ctx):
    """The rows form of SM4-GCM: requests of 50-byte plaintexts cut across
    batches of 64; every sealed row opens with SM4GCM directly (fresh,
    distinct nonces) and through the batcher; a tampered row gets
    KS_ERR_TAG_MISMATCH and zeros; widths queue apart; width 0 refused."""
    import numpy as np
    from kuaisuo.sm4 import SM4GCM, SM4Key

    key, width = SM4Key.generate(), 50
    seal, opener = b.sm4_gcm_rows(True, width), b.sm4_gcm_rows(False, width)
    assert seal is b.sm4_gcm_rows(True, width) and seal != b.sm4_gcm_rows(True, width + 1)
    plain = [np.frombuffer(os.urandom(width * n), np.uint8).reshape(n, width)
             for n in (1, 70, 130)]

    async def main():
        batcher = b.Batcher(ctx, max_batch=64, max_delay=0.02)
        sealed = await asyncio.gather(*(batcher.submit_rows(seal, key, [p]) for p in plain))
        rows = np.concatenate([rows for _, rows in sealed])
        tampered = rows.copy()
        tampered[5, 12] ^= 1
        opened = await batcher.submit_rows(opener, key, [tampered])
        await batcher.close()
        return batcher.stats, sealed, rows, opened

    stats, sealed, rows, (statuses, opened) = run(main())
    assert stats.batches >= 4 and all((st == 0).all() for st, _ in sealed)
    assert rows.shape == (201, width + 28) and len({bytes(r[:12]) for r in rows}) == 201
    gcm = SM4GCM(key.to_bytes())
    everything = np.concatenate(plain)
    for row, expected in zip(rows, everything):
        assert gcm.decrypt(bytes(row[:12]), bytes(row[12:]), b"") == expected.tobytes()
    assert statuses[5] == -49 and not opened[5].any()
    keep = np.arange(201) != 5
    assert (statuses[keep] == 0).all() and (opened[keep] == everything[keep]).all()
    with pytest.raises(ValueError):
        b.sm4_gcm_rows(True, 0)
    with pytest.raises(TypeError):  # 16.0 would share 16's cache slot
        b.sm4_gcm_rows(True, 16.0)


def test_overload_refuses_whole_requests_and_drain_runs_the_rest(ctx):
    async def main():
        batcher = b.Batcher(ctx, max_batch=1000, max_delay=60.0, max_queued=5)
        accepted = asyncio.ensure_future(batcher.submit(b.SM3_HASH, None, [b"a"] * 4))
        await asyncio.sleep(0)
        assert batcher.queued == 4
        refused = await batcher.submit(b.SM3_HASH, None, [b"b", b"c"])
        await batcher.close()  # the 60 s delay does not hold the drain
        late = await batcher.submit(b.SM3_HASH, None, [b"d"])
        return await accepted, refused, late, batcher.stats

    accepted, refused, late, stats = run(main())
    assert accepted == [(b.OK, kuaisuo.sm3(b"a"))] * 4
    assert refused == [(b.ERR_OVERLOADED, None)] * 2 and stats.overloaded == 2
    assert late == [(b.ERR_SHUTTING_DOWN, None)]
    assert "overloaded" in kuaisuo.strerror(b.ERR_OVERLOADED)


def test_items_handed_to_batches_still_count_against_the_bound(ctx):
    async def main():
        batcher = b.Batcher(ctx, max_batch=2, max_delay=60.0, max_queued=4, in_flight=2)
        accepted = asyncio.ensure_future(batcher.submit(b.SM3_HASH, None, [b"a"] * 4))
        await asyncio.sleep(0)
        assert batcher.queued == 0  # both batches formed, neither finished
        refused = await batcher.submit(b.SM3_HASH, None, [b"b"])
        first = await accepted
        after = await batcher.submit(b.SM3_HASH, None, [b"c", b"d"])  # room again
        await batcher.close()
        return first, refused, after

    first, refused, after = run(main())
    assert first == [(b.OK, kuaisuo.sm3(b"a"))] * 4
    assert refused == [(b.ERR_OVERLOADED, None)]
    assert after == [(b.OK, kuaisuo.sm3(b"c")), (b.OK, kuaisuo.sm3(b"d"))]


def test_items_collect_while_every_context_is_busy(ctx):
    """One batch call per context at a time: requests that come while it
    runs wait (past max_delay) and then run together as one batch."""
    import time

    def slow_sm3(c, key, items):
        time.sleep(0.3)  # a long batch call: the others arrive meanwhile
        return b.SM3_HASH.run(c, key, items)
    slow = b.Operation("slow-sm3", slow_sm3, b.SM3_HASH.check)
    messages = [os.urandom(8) for _ in range(50)]

    async def main():
        batcher = b.Batcher(ctx, max_batch=4096, max_delay=0.005)
        first = asyncio.ensure_future(batcher.submit(slow, None, [b"first"]))
        await asyncio.sleep(0.1)
        replies = await asyncio.gather(*(batcher.submit(slow, None, [m]) for m in messages))
        await first
        await batcher.close()
        return batcher.stats, replies

    stats, replies = run(main())
    assert stats.batches == 2 and stats.largest_batch == 50
    assert [v for [(_, v)] in replies] == [kuaisuo.sm3(m) for m in messages]


def test_expired_items_do_not_run(ctx):
    async def main():
        batcher = b.Batcher(ctx, max_delay=0.05)
        expired = batcher.submit(b.SM3_HASH, None, [b"x", b"y"], timeout=0.0)
        fresh = batcher.submit(b.SM3_HASH, None, [b"z"], timeout=60.0)
        replies = await asyncio.gather(expired, fresh)
        await batcher.close()
        return replies, batcher.stats

    (expired, fresh), stats = run(main())
    assert expired == [(b.ERR_DEADLINE, None)] * 2 and stats.expired == 2
    assert fresh == [(b.OK, kuaisuo.sm3(b"z"))] and stats.items == 1


def test_batches_of_different_keys_stay_apart(ctx):
    keys = [Ed25519PrivateKey.generate() for _ in range(3)]
    msgs = [os.urandom(20) for _ in range(9)]

    async def main():
        batcher = b.Batcher(ctx, max_delay=0.02)
        replies = await asyncio.gather(*(batcher.submit(b.ED25519_SIGN, keys[i % 3], [m])
                                         for i, m in enumerate(msgs)))
        await batcher.close()
        return replies, batcher.stats

    replies, stats = run(main())
    assert stats.batches == 3
    for i, (m, [(status, sig)]) in enumerate(zip(msgs, replies)):
        assert status == b.OK and sig == keys[i % 3].sign(m)


def test_bad_limits_raise(ctx):
    for kwargs in ({"max_batch": 0}, {"max_queued": 0}, {"max_delay": -1}):
        with pytest.raises(ValueError):
            b.Batcher(ctx, **kwargs)


def test_batches_are_spread_over_several_contexts(ctx):
    """One context per device (two CPU contexts stand in for two GPUs):
    batches go to the context with the fewest items in flight, and every
    item's result is the same as the single-item API's."""
    key = SM2PrivateKey.generate()
    digests = [os.urandom(32) for _ in range(256)]
    messages = [os.urandom(n) for n in range(100)]
    contexts = [ctx, kuaisuo.Context(backend="cpu", threads=1)]

    async def main():
        batcher = b.Batcher(contexts, max_batch=16, max_delay=0.05)
        signed, hashed = await asyncio.gather(
            batcher.submit(b.SM2_SIGN_DIGESTS, key, digests),
            batcher.submit(b.SM3_HASH, None, messages))
        await batcher.close()
        return batcher.stats, signed, hashed

    stats, signed, hashed = run(main())
    assert len(stats.per_context) == 2 and all(n > 0 for n in stats.per_context)
    assert sum(stats.per_context) == stats.items == 356
    assert all(verifies(key.public_key().verify_digest, sig, d) for (_, sig), d in zip(signed, digests))
    assert [v for _, v in hashed] == [kuaisuo.sm3(m) for m in messages]

    with pytest.raises(ValueError):
        b.Batcher([])


@pytest.mark.skipif(kuaisuo.gpu_device_count() == 0, reason="no GPU")
def test_every_gpu_of_the_host_checked_item_by_item_against_the_cpu(ctx):
    """One GPU context per device, batches spread over them: 2^17 fresh
    signatures checked on the CPU, and SM2 verification statuses (a tenth
    of the items altered) equal to the CPU's for every item."""
    gpus = [kuaisuo.Context(backend="gpu", device=d) for d in range(kuaisuo.gpu_device_count())]
    key = SM2PrivateKey.generate()
    n = 1 << 17
    digests = [os.urandom(32) for _ in range(n)]

    async def main(op, items, batch_key):
        batcher = b.Batcher(gpus, max_batch=8192, max_delay=0.01)
        results = await batcher.submit(op, batch_key, items)
        await batcher.close()
        return batcher.stats, results

    stats, signed = run(main(b.SM2_SIGN_DIGESTS, digests, key))
    assert all(s == b.OK for s, _ in signed)
    assert all(count > 0 for count in stats.per_context), stats.per_context
    pub = key.public_key().public_bytes_raw()
    sigs = [sig for _, sig in signed]
    for i in range(0, n, 10):  # alter a tenth: another digest, or a malformed signature
        if i % 20:
            digests[i] = os.urandom(32)
        else:
            sigs[i] = sigs[i][:-1]
    on_cpu = ctx.sm2.verify_digests(key.public_key(), digests, sigs)
    assert [s != 0 for s in on_cpu] == [i % 10 == 0 for i in range(n)]
    stats, verified = run(main(b.SM2_VERIFY_DIGESTS,
                               list(zip([pub] * n, digests, sigs)), None))
    assert [s for s, _ in verified] == on_cpu
    assert all(count > 0 for count in stats.per_context), stats.per_context


def test_row_requests_are_split_across_batches_and_match_the_item_api(ctx):
    """Fixed-size items as rows (a request costs O(1) Python work): requests
    of 0, 1, 37 and 300 items cut into batches of 64 (chunks split at batch
    boundaries) give the signatures and statuses the list API gives."""
    np = pytest.importorskip("numpy")
    key = SM2PrivateKey.generate()
    pub = key.public_key().public_bytes_raw()
    sizes = (0, 1, 37, 300)
    digests = [np.frombuffer(os.urandom(32 * n), np.uint8).reshape(n, 32) for n in sizes]

    async def main():
        batcher = b.Batcher(ctx, max_batch=64, max_delay=0.05)
        signed = await asyncio.gather(*(batcher.submit_rows(b.SM2_SIGN_DIGEST_ROWS, key, [d])
                                        for d in digests))
        all_digests = np.concatenate(digests)
        sigs = np.concatenate([v for _, v in signed])
        sigs[5, 10] ^= 1                      # a changed signature
        all_digests[7] = 0                    # another digest
        keys = np.frombuffer(pub * len(sigs), np.uint8).reshape(-1, 65).copy()
        keys[9, 1] ^= 1                       # a key off the curve
        halves = [(0, 150), (150, len(sigs))]
        verified = await asyncio.gather(*(
            batcher.submit_rows(b.SM2_VERIFY_DIGEST_ROWS, None,
                                [keys[i:j], all_digests[i:j], sigs[i:j]]) for i, j in halves))
        await batcher.close()
        return batcher.stats, signed, keys, all_digests, sigs, verified

    stats, signed, keys, all_digests, sigs, verified = run(main())
    assert stats.largest_batch == 64 and stats.items == 2 * 338
    for d, (statuses, values) in zip(digests, signed):
        assert statuses.dtype == np.int32 and not statuses.any() and values.shape == (len(d), 64)
        assert not len(d) or ctx.sm2.verify_digests(pub * len(d), d, values,
                                                    encoding="raw") == [0] * len(d)
    statuses = np.concatenate([s for s, _ in verified])
    want = ctx.sm2.verify_digests([bytes(k) for k in keys], all_digests, sigs, encoding="raw")
    assert statuses.tolist() == want
    assert [i for i, s in enumerate(want) if s] == [5, 7, 9]
    assert all(v is None for _, v in verified)


def test_row_requests_get_service_statuses_and_bad_columns_raise(ctx):
    np = pytest.importorskip("numpy")
    key = SM2PrivateKey.generate()
    rows = np.zeros((10, 32), np.uint8)

    async def main():
        batcher = b.Batcher(ctx, max_batch=4096, max_delay=0.05, max_queued=8)
        over = await batcher.submit_rows(b.SM2_SIGN_DIGEST_ROWS, key, [rows])
        late = await batcher.submit_rows(b.SM2_SIGN_DIGEST_ROWS, key, [rows[:3]], timeout=0)
        flat = await batcher.submit_rows(b.SM2_SIGN_DIGEST_ROWS, key, [bytes(64)])
        await batcher.close()
        closed = await batcher.submit_rows(b.SM2_SIGN_DIGEST_ROWS, key, [rows[:2]])
        with pytest.raises(ValueError):
            await batcher.submit_rows(b.SM2_SIGN_DIGEST_ROWS, key, [bytes(33)])
        with pytest.raises(ValueError):
            await batcher.submit_rows(b.SM2_VERIFY_DIGEST_ROWS, None, [rows, rows])
        return over, late, flat, closed

    over, late, flat, closed = run(main())
    assert over[0].tolist() == [b.ERR_OVERLOADED] * 10 and not over[1].any()
    assert late[0].tolist() == [b.ERR_DEADLINE] * 3
    assert flat[0].tolist() == [0, 0] and flat[1].shape == (2, 64)
    assert closed[0].tolist() == [b.ERR_SHUTTING_DOWN] * 2
