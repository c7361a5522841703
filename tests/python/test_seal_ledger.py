"""The seal ledger (serve/python/kuaisuo_serve/seal_ledger.py): SM4 seals per
key against SP 800-38D 8.3's limit for random nonces, shared by several
ledgers on one file (the worker processes) and kept across restarts; a
new key starts at zero; an unreadable ledger refuses (fail closed)."""

import json
import multiprocessing
import os

import pytest

from kuaisuo_serve.seal_ledger import LedgerError, SealLedger, fingerprint

KEY, OTHER = b"k" * 16, b"o" * 16


def test_workers_on_one_file_never_pass_the_limit_together(tmp_path):
    path = str(tmp_path / "seals.json")
    a, b = SealLedger(path, limit=100, block=16), SealLedger(path, limit=100, block=16)
    taken = 0
    for i in range(200):  # alternate, as two processes would
        if (a if i % 2 else b).take(KEY, 3):
            taken += 3
    assert 100 - 2 * 16 <= taken <= 100  # what one worker holds the other cannot use
    assert json.load(open(path)) == {fingerprint(KEY): 100}
    while a.take(KEY, 1) or b.take(KEY, 1):  # the held remainders, one at a time
        taken += 1
    assert taken == 100 and not a.take(KEY, 1) and not b.take(KEY, 1)
    assert a.take(OTHER, 50) and KEY.hex() not in open(path).read()


def test_a_restart_continues_the_count(tmp_path):
    path = str(tmp_path / "seals.json")
    first = SealLedger(path, limit=40, block=8)
    assert first.take(KEY, 10)  # reserves 10 (more than a block)
    assert first.take(KEY, 5)   # reserves 8 more: 18 on file
    again = SealLedger(path, limit=40, block=8)
    assert again.take(KEY, 22) and not again.take(KEY, 1)
    assert not again.take(KEY, 41)
    assert SealLedger(path, limit=0).take(OTHER, 1) is False
    assert SealLedger(path, limit=0).take(OTHER, 0) is True


def _worker(path, takes, out):
    ledger = SealLedger(path, limit=1000, block=7)
    out.put(sum(1 for _ in range(takes) if ledger.take(KEY, 1)))


def test_processes_share_it_under_the_lock(tmp_path):
    path = str(tmp_path / "seals.json")
    mp = multiprocessing.get_context("spawn")
    out = mp.Queue()
    procs = [mp.Process(target=_worker, args=(path, 400, out)) for _ in range(4)]
    for p in procs:
        p.start()
    counts = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(60)
    assert 1000 - 4 * 7 <= sum(counts) <= 1000
    assert json.load(open(path))[fingerprint(KEY)] == 1000


@pytest.mark.parametrize("content", ["not json", "[1, 2]", '{"a": "many"}'])
def test_an_unreadable_ledger_refuses(tmp_path, content):
    path = tmp_path / "seals.json"
    path.write_text(content)
    with pytest.raises(LedgerError):
        SealLedger(str(path)).take(KEY, 1)
    with pytest.raises(LedgerError):  # a directory that is not there
        SealLedger(str(tmp_path / "missing" / "seals.json")).take(KEY, 1)
    assert path.read_text() == content  # left as it was
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
