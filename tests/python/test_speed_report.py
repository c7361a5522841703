"""`kuaisuo speed` reports the spread of its rounds beside each median, shows
progress with an estimate of the time left when not on a terminal, and
draws its ratios with --plot."""

import importlib.util
import io
import json
import subprocess
import sys

import pytest

from kuaisuo import speed


def run_speed(tmp_path, *extra):
    out = tmp_path / "speed.json"
    r = subprocess.run([sys.executable, "-m", "kuaisuo", "speed", "sm3", "--backend", "cpu",
                        "--seconds", "0.02", "--threads", "1", "--batch", "8",
                        "--json", str(out), *extra], capture_output=True, timeout=600)
    return r, out


def test_rows_carry_the_rounds_range(tmp_path):
    r, out = run_speed(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "±".encode() in r.stdout
    rows = json.loads(out.read_text())["results"]
    assert rows
    for row in rows:
        assert 0 < row["ops_per_s_min"] <= row["ops_per_s"] <= row["ops_per_s_max"]


def test_progress_off_a_terminal_prints_lines_with_time_left(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    case = speed.Case("sm3", "hash", "kuaisuo", "cpu", 1, 1, 64)
    p = speed.Progress(4, every=0.0)
    assert not p.live
    for _ in range(4):
        p.step(case)
    p.close()
    lines = err.getvalue().splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("[1/4 ") and "left]" in lines[0] and "sm3" in lines[0]
    assert "\r" not in err.getvalue()


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="no matplotlib")
def test_plot_writes_a_png(tmp_path):
    png = tmp_path / "speed.png"
    r, _ = run_speed(tmp_path, "--plot", str(png))
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is not None,
                    reason="matplotlib is installed")
def test_plot_without_matplotlib_says_so_before_measuring(tmp_path):
    r, out = run_speed(tmp_path, "--plot", str(tmp_path / "speed.png"))
    assert r.returncode == 2
    assert b"needs matplotlib" in r.stderr
    assert not out.exists()


def test_sm4_buffers_reach_max_bytes_on_one_and_all_threads():
    opt = speed.Options(backend="cpu", threads=4, batch=None, seconds=1.0, gpu=False)
    sizes = {c.ours.msg_bytes for c in speed.plan_sm4(opt)}
    assert max(sizes) == 4 << 20 and 16 in sizes  # the default stops at 4 MiB
    opt.max_bytes = 1 << 30
    plan = speed.plan_sm4(opt)
    big = [c for c in plan if c.ours.msg_bytes == 1 << 30]
    assert {(c.ours.op, c.ours.threads) for c in big} == {
        ("ecb", 1), ("ctr", 1), ("gcm", 1), ("ecb", 4), ("ctr", 4)}
    for c in big:  # OpenSSL on as many threads, each with a whole buffer
        assert c.theirs.impl == "openssl" and c.theirs.threads == c.ours.threads
        assert c.theirs.input == "message"


def test_skinny_gpu_rows_are_buffers_from_both_memories_against_the_table_baseline():
    opt = speed.Options(backend="gpu", threads=16, batch=None, seconds=1.0, gpu=True,
                        max_bytes=64 << 20)
    plan = speed.plan_skinny(opt)
    assert {(c.ours.op, c.ours.msg_bytes, c.ours.pinned) for c in plan} == {
        (op, size, pinned) for op in ("ecb", "ctr") for size in (1 << 20, 4 << 20, 64 << 20)
        for pinned in (False, True)}
    for c in plan:
        assert (c.ours.backend, c.ours.input, c.ours.batch) == ("gpu", "buffer", 1)
        assert (c.theirs.impl, c.theirs.threads, c.theirs.op) == ("table", 1, c.ours.op)
        assert c.theirs.msg_bytes == c.ours.msg_bytes
    opt.backend = "auto"  # CPU rows first, then the same GPU rows
    both = speed.plan_skinny(opt)
    assert [c for c in both if c.ours.backend == "gpu"] == plan
    assert any(c.ours.backend == "cpu" for c in both)
    one_thread = {(c.ours.op, c.ours.msg_bytes) for c in both
                  if c.ours.backend == "cpu" and c.ours.threads == 1}
    assert one_thread == {(op, size) for op in ("ecb", "ctr")
                          for size in (16, 64, 1 << 10, 64 << 10, 1 << 20, 4 << 20, 64 << 20)}


@pytest.mark.parametrize("text,value", [("1GiB", 1 << 30), ("64M", 64 << 20),
                                        ("1048576", 1 << 20), ("2g", None), ("512K", None),
                                        ("lots", None)])
def test_max_bytes_takes_sizes_from_1mib_to_1gib(text, value):
    r = subprocess.run([sys.executable, "-m", "kuaisuo", "speed", "sm4", "--backend", "gpu",
                        "--max-bytes", text], capture_output=True, timeout=60)
    if value is None:
        assert r.returncode == 2 and b"--max-bytes: must be a size from 1MiB to 1GiB" in r.stderr
    else:  # parsed; then refused for want of a GPU (or run on one): not a usage error
        assert b"--max-bytes" not in r.stderr


def test_peers_sit_beside_openssl_on_single_operations():
    from kuaisuo import _peers

    opt = speed.Options(backend="cpu", threads=2, batch=None, seconds=1.0, gpu=False)
    plan = speed.attach_peers(speed.plan_sm2(opt) + speed.plan_ed25519(opt))
    for cmp in plan:
        single = cmp.ours.threads == 1 and cmp.ours.batch == 1
        measured_by_peers = (cmp.ours.alg, cmp.ours.op) not in speed.NO_PEER_OPS
        assert bool(cmp.peers) == (single and measured_by_peers and
                                   bool(_peers.available(cmp.ours.alg)))
        for peer in cmp.peers:
            assert peer.impl in _peers.PEERS and peer.op == cmp.ours.op
    if not any(cmp.peers for cmp in plan):
        pytest.skip("neither gmssl-pyx nor pynacl is installed")
    results = speed.measure_all([c for c in plan if c.peers][:3], 0.03)
    table = speed.format_table([c for c in plan if c.peers][:3], results)
    assert "best peer" in table and "ratio to best" in table
    for case, r in results.items():
        assert "error" not in r and r["ops_per_s"] > 0, (case, r)


@pytest.mark.parametrize("alg,op,kind,n", [("sm3", "hash", "message", 1000),
                                           ("sm2", "sign", "digest", 32),
                                           ("sm2", "verify", "message", 64),
                                           ("sm4", "ctr", "message", 4096),
                                           ("sm4", "gcm", "message", 100),
                                           ("ed25519", "verify", "message", 64),
                                           ("x25519", "derive", "key", 0)])
def test_each_peer_operation_agrees_with_kuaisuo(alg, op, kind, n):
    from kuaisuo import _peers

    peers = _peers.available(alg)
    if not peers:
        pytest.skip(f"no peer installed for {alg}")
    for name, maker in peers:
        r = _peers.measure(maker, op, kind, n, 0.01)  # checks the result first
        assert "error" not in r and r["ops_per_s"] > 0, (name, r)


@pytest.mark.parametrize("backend,gpu", [("cpu", False), ("auto", True)])
def test_threads_1_batch_1_lists_each_row_once(backend, gpu):
    """Issue 41: under --threads 1 --batch 1 the batch rows were the
    one-thread single-operation rows again, and printed twice."""
    opt = speed.Options(backend=backend, threads=1, batch=1, seconds=1.0, gpu=gpu)
    plan = speed.build_plan(list(speed.ALGORITHMS), opt)
    keys = [(c.ours, c.theirs) for c in plan]
    assert len(keys) == len(set(keys))
    rows = [(c.ours.alg, c.ours.op, c.ours.what(), c.ours.where(), c.ours.batch) for c in plan]
    assert len(rows) == len(set(rows))
    # Nothing was lost: every row of the raw plans is still there.
    raw = {(c.ours, c.theirs) for alg in speed.ALGORITHMS for c in speed.PLANS[alg](opt)}
    assert set(keys) == raw


def test_unique_keeps_distinct_rows_and_their_order():
    opt = speed.Options(backend="cpu", threads=2, batch=16, seconds=1.0, gpu=False)
    raw = [c for alg in speed.ALGORITHMS for c in speed.PLANS[alg](opt)]
    assert speed.unique(raw) == raw
    assert speed.unique(raw + raw[:3]) == raw


def test_threads_1_batch_1_prints_each_row_once(tmp_path):
    r = subprocess.run([sys.executable, "-m", "kuaisuo", "speed", "sm3", "--backend", "cpu",
                        "--seconds", "0.01", "--threads", "1", "--batch", "1"],
                       capture_output=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.decode().splitlines()
    rows = [line.split()[:5] for line in lines if line.startswith("sm3 ")]
    assert len(rows) == 3 and len({tuple(row) for row in rows}) == 3, lines


def measured(ops, lo=None, hi=None, msg_bytes=64):
    """A constructed result: median ops, rounds from lo to hi."""
    lo = ops if lo is None else lo
    hi = ops if hi is None else hi
    return {"ops_per_s": ops, "bytes_per_s": ops * msg_bytes, "runs": 21, "backend": "cpu",
            "ops_per_s_min": lo, "ops_per_s_max": hi}


def ed25519_verify_row(ours, theirs, peer=None):
    c = speed.Case("ed25519", "verify", "kuaisuo", "cpu", 2, 16, 64)
    t = speed.Case("ed25519", "verify", "openssl", "cpu", 2, 1, 64)
    peers = (speed.replace(c, impl="pynacl", threads=1, batch=1),) if peer else ()
    results = {c: ours, t: theirs}
    if peer:
        results[peers[0]] = peer
    return speed.Comparison(c, t, peers), results


def test_a_noisy_row_gets_no_ratio_and_says_why():
    """Issue 41: "openssl 630 op/s ±476% -> 101.18x". OpenSSL's rounds
    ran from 30 to 6,030 op/s around a median of 630: a spread of 476%."""
    cmp, results = ed25519_verify_row(measured(63_743, 63_000, 64_000),
                                      measured(630, 30, 6_030))
    table = speed.format_table([cmp], results)
    row = table.splitlines()[2]
    assert "±476%" in row
    assert "101.18x" not in table and "x  " not in row
    assert row.endswith("(noisy: openssl spread 476% > 25%; no ratio)"), row
    assert " noisy " in row  # the ratio cell
    assert speed.ratio(results[cmp.ours], results[cmp.theirs]) is None
    [doc] = speed.json_comparisons([cmp], results)
    assert doc["noisy"] is True and doc["ratio"] is None
    assert doc["spread_pct"]["theirs"] == pytest.approx(476.19, abs=0.01)
    rows = {r["impl"]: r for r in speed.json_rows(results)}
    assert rows["openssl"]["noisy"] is True and rows["kuaisuo"]["noisy"] is False


@pytest.mark.parametrize("ours_spread,theirs_spread,noisy", [
    (0, 0, False), (25, 0, False), (0, 25, False),  # 25% is not over 25%
    (26, 0, True), (0, 26, True), (30, 40, True)])
def test_either_side_over_25_percent_is_noisy(ours_spread, theirs_spread, noisy):
    def with_spread(ops, pct):  # half the range is pct% of the median
        return measured(ops, ops * (1 - pct / 100), ops * (1 + pct / 100))
    cmp, results = ed25519_verify_row(with_spread(2000.0, ours_spread),
                                      with_spread(1000.0, theirs_spread))
    table = speed.format_table([cmp], results)
    [doc] = speed.json_comparisons([cmp], results)
    assert doc["noisy"] is noisy
    if noisy:
        assert doc["ratio"] is None and "2.00x" not in table and "no ratio)" in table
        side = "kuaisuo" if ours_spread > 25 else "openssl"
        assert f"(noisy: {side} spread" in table
    else:
        assert doc["ratio"] == pytest.approx(2.0) and "2.00x" in table
        assert "noisy" not in table


def test_a_noisy_best_peer_withholds_only_the_ratio_to_it():
    cmp, results = ed25519_verify_row(measured(2000.0), measured(1000.0),
                                      peer=measured(1500.0, 500.0, 2500.0))
    table = speed.format_table([cmp], results)
    row = table.splitlines()[2]
    assert "2.00x" in row and "1.33x" not in row
    assert row.endswith("(noisy: pynacl spread 67% > 25%; no ratio to best)"), row
    [doc] = speed.json_comparisons([cmp], results)
    assert doc["ratio"] == pytest.approx(2.0) and doc["noisy"] is False
    assert doc["best_peer"] == "pynacl" and doc["ratio_to_best"] is None
    assert doc["noisy_to_best"] is True


def test_json_carries_the_noisy_flag(tmp_path):
    r, out = run_speed(tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["noisy_spread_pct"] == 25
    for row in doc["results"]:
        assert row["noisy"] == (row["spread_pct"] > 25)
    assert len(doc["comparisons"]) == 5  # 3 sizes on one thread, 2 batches
    for cmp in doc["comparisons"]:
        assert (cmp["ratio"] is None) == cmp["noisy"]


def test_help_names_the_algorithms_and_the_peers():
    """Issue 41: --help named neither the algorithms ALG takes nor the
    peers (GmSSL, libsodium), when each appears, or how to get them."""
    r = subprocess.run([sys.executable, "-m", "kuaisuo", "speed", "--help"],
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.decode().split())  # argparse's line breaks aside
    for alg in speed.ALGORITHMS:
        assert alg in text, alg
    assert "ALG (default: all): " + ", ".join(speed.ALGORITHMS) in text
    assert "OpenSSL (libcrypto through EVP, loaded at run time): always" in text
    assert "GmSSL via gmssl-pyx (" in text and "SM2 keygen/sign/verify/encrypt/decrypt, SM3, SM4 CTR" in text
    assert "libsodium via PyNaCl (" in text and "Ed25519" in text and "X25519" in text
    assert "pip install gmssl-pyx pynacl" in text
    assert "noisy" in text


def test_help_says_whether_each_peer_is_installed(monkeypatch):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "nacl" else object())
    text = " ".join(speed.help_description().split())
    assert "GmSSL via gmssl-pyx (installed)" in text
    assert "libsodium via PyNaCl (not installed)" in text
    assert max(len(line) for line in speed.help_description().splitlines()) <= 78


def rows_with_peers():
    """Two rows with both optional peers (constructed), one of them noisy
    on GmSSL's side, and a row without peers."""
    sm2 = speed.Case("sm2", "sign", "kuaisuo", "cpu", 1, 1, 32, "digest")
    ed = speed.Case("ed25519", "sign", "kuaisuo", "cpu", 1, 1, 64)
    sm3 = speed.Case("sm3", "hash", "kuaisuo", "cpu", 2, 16, 64)
    plan = [speed.Comparison(sm2, speed.replace(sm2, impl="openssl"),
                             (speed.replace(sm2, impl="gmssl-pyx"),)),
            speed.Comparison(ed, speed.replace(ed, impl="openssl"),
                             (speed.replace(ed, impl="pynacl"),)),
            speed.Comparison(sm3, speed.replace(sm3, impl="openssl", batch=1))]
    results = {sm2: measured(4000.0), speed.replace(sm2, impl="openssl"): measured(1000.0),
               speed.replace(sm2, impl="gmssl-pyx"): measured(2000.0, 1000.0, 4000.0),
               ed: measured(9000.0), speed.replace(ed, impl="openssl"): measured(3000.0),
               speed.replace(ed, impl="pynacl"): measured(4500.0, 4000.0, 5000.0),
               sm3: measured(600.0), speed.replace(sm3, impl="openssl", batch=1):
               measured(300.0)}
    return plan, results


def test_plot_series_include_every_peer():
    """Issue 41: the plot drew kuaisuo / OpenSSL only."""
    plan, results = rows_with_peers()
    labels, series = speed.plot_series(plan, results)
    assert len(labels) == 3
    assert list(series) == ["openssl", "gmssl-pyx", "pynacl"]
    assert [bar and bar[0] for bar in series["openssl"]] == [4.0, 3.0, 2.0]
    assert series["gmssl-pyx"] == [None, None, None]  # noisy (75%): no bar
    assert "(noisy: GmSSL (gmssl-pyx))" in labels[0]
    assert series["pynacl"][0] is None and series["pynacl"][2] is None
    x, lo, hi = series["pynacl"][1]
    assert x == pytest.approx(2.0) and lo == pytest.approx(1.8) and hi == pytest.approx(2.25)


def test_plot_draws_a_bar_series_per_peer(monkeypatch, tmp_path):
    """plot() with a stand-in matplotlib: a labelled bar series for OpenSSL
    and each peer (runs whether or not matplotlib is installed)."""
    from unittest import mock

    mpl, plt = mock.MagicMock(), mock.MagicMock()
    fig, ax = mock.MagicMock(), mock.MagicMock()
    plt.subplots.return_value = (fig, ax)
    mpl.pyplot = plt
    monkeypatch.setitem(sys.modules, "matplotlib", mpl)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", plt)
    patches = mock.MagicMock()
    patches.Patch = lambda color, label: ("patch", color, label)
    monkeypatch.setitem(sys.modules, "matplotlib.patches", patches)
    plan, results = rows_with_peers()
    results[speed.replace(plan[0].ours, impl="gmssl-pyx")] = measured(2000.0)  # not noisy
    speed.plot(plan, results, "title", str(tmp_path / "speed.png"))
    drawn = {call.kwargs["label"]: call.args for call in ax.barh.call_args_list}
    assert set(drawn) == {"kuaisuo / OpenSSL", "kuaisuo / GmSSL (gmssl-pyx)",
                          "kuaisuo / libsodium (PyNaCl)"}
    assert list(drawn["kuaisuo / GmSSL (gmssl-pyx)"][1]) == [2.0]
    assert list(drawn["kuaisuo / libsodium (PyNaCl)"][1]) == [2.0]
    assert list(drawn["kuaisuo / OpenSSL"][1]) == [4.0, 3.0, 2.0]
    ax.legend.assert_called_once()
    assert [h[2] for h in ax.legend.call_args.kwargs["handles"]] == [
        "kuaisuo / OpenSSL", "kuaisuo / GmSSL (gmssl-pyx)", "kuaisuo / libsodium (PyNaCl)"]
    fig.savefig.assert_called_once()


def test_json_carries_loadavg_commit_and_peer_versions(tmp_path):
    """Issue 41: the JSON lacked the load average, the commit and the
    peers' versions."""
    from importlib import metadata

    r, out = run_speed(tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    for when in ("start", "end"):
        load = doc["loadavg"][when]
        assert len(load) == 3 and all(x >= 0 for x in load)
    assert b"load average (1 min): " in r.stdout
    here = speed.os.path.dirname(speed.__file__)
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=here)
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", speed.__file__],
                             capture_output=True, cwd=here)
    # From the checkout's own files: its commit. From an installed copy (the
    # wheel in a venv, even one under the checkout's ignored build/): the
    # package version, which test_commit_falls_back_to_the_package_version covers.
    if head.returncode == 0 and tracked.returncode == 0:
        assert doc["commit"] == head.stdout.strip() and doc["commit_source"] == "git"
        assert doc["dirty"] in (True, False)
    peers = doc["peers"]
    assert peers["openssl"]["library_version"] == doc["machine"]["openssl"]
    for impl, package in (("gmssl-pyx", "gmssl-pyx"), ("pynacl", "PyNaCl")):
        assert peers[impl]["package"] == package
        assert set(peers[impl]) == {"package", "installed", "package_version", "library",
                                    "library_version"}
        if importlib.util.find_spec("nacl" if impl == "pynacl" else "gmssl_pyx"):
            assert peers[impl]["installed"]
            assert peers[impl]["package_version"] == metadata.version(package)
            assert f"{impl} {peers[impl]['package_version']}".encode() in r.stdout
    assert peers["gmssl-pyx"]["library"] == "GmSSL"
    assert peers["pynacl"]["library"] == "libsodium"


def test_commit_falls_back_to_the_package_version(tmp_path, monkeypatch):
    import kuaisuo

    # Not a git checkout (an installed copy): the package version.
    c = speed.source_commit(str(tmp_path))
    assert c == {"commit": kuaisuo.__version__, "commit_source": "package version",
                 "dirty": None}
    # A copy inside some other repository, where it is not tracked.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=False)
    (tmp_path / "site").mkdir()
    assert speed.source_commit(str(tmp_path / "site"))["commit_source"] == "package version"

    # No git at all, or git failing in any way: never fail.
    def broken(*a, **k):
        raise FileNotFoundError("git")
    monkeypatch.setattr(subprocess, "run", broken)
    assert speed.source_commit()["commit"] == kuaisuo.__version__


def test_loadavg_is_none_where_the_platform_has_none(monkeypatch):
    def unsupported():
        raise OSError("no load average")
    monkeypatch.setattr(speed.os, "getloadavg", unsupported)
    assert speed.load_average() is None


def test_peer_versions_read_what_the_package_exposes(monkeypatch):
    import types

    from kuaisuo import _peers

    fake = types.ModuleType("fake")
    fake.sodium_version_string = lambda: b"1.0.20"
    assert _peers._library_version([fake], ("sodium_version_string",)) == "1.0.20"
    assert _peers._library_version([types.ModuleType("bare")], ("x",)) is None
    v = _peers.versions()
    assert set(v) == set(_peers.PEERS)
    monkeypatch.setattr(_peers, "versions", lambda: (_ for _ in ()).throw(RuntimeError()))
    info = {"openssl": "OpenSSL 3.0.19 27 Jan 2026"}
    assert speed.peer_versions(info) == {"openssl": {
        "installed": True, "library": "OpenSSL", "library_version": info["openssl"]}}
    text = speed.versions_text({"pynacl": {"installed": True, "package_version": "1.6.2",
                                           "library": "libsodium",
                                           "library_version": "1.0.20"},
                                "gmssl-pyx": {"installed": False}})
    assert text == "peers: pynacl 1.6.2 (libsodium 1.0.20)"


def test_device_memory_rows_come_with_cupy_and_say_so():
    opt = speed.Options(backend="gpu", threads=16, batch=None, seconds=1.0, gpu=True,
                        max_bytes=64 << 20)
    assert not any(c.ours.device for c in speed.build_plan(list(speed.ALGORITHMS), opt))
    opt.device_arrays = True
    device = [c for c in speed.build_plan(list(speed.ALGORITHMS), opt) if c.ours.device]
    assert {(c.ours.alg, c.ours.op) for c in device} == {
        ("sm3", "hash"), ("sm2", "verify"), ("ed25519", "verify"), ("x25519", "derive"),
        ("sm4", "ctr"), ("sm4", "gcm"), ("skinny128-256", "ctr")}
    for c in device:
        assert c.ours.backend == "gpu" and c.ours.where().startswith("gpu device memory")
        assert c.theirs.backend == "cpu" and not c.theirs.device
        assert speed._memory(c.ours) == "device" and speed._memory(c.theirs) == "pageable"
    assert {c.ours.msg_bytes for c in device if c.ours.alg == "sm4"} == {4 << 20, 64 << 20}
