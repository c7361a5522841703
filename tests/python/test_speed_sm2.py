"""`kuaisuo speed sm2`: the key-exchange row, one party's whole side of an
SM2 key exchange (the initiator's) on one thread, beside OpenSSL's nearest
equivalent (it has no SM2 key exchange): an ephemeral EC key on the SM2
curve and ECDH, the row saying so in the table, the JSON and the plot."""

import json
import subprocess
import sys

from kuaisuo import _native, speed

NOTE = "(openssl ran: ephemeral EC keygen + ECDH derive on curve SM2; it has no SM2 key exchange)"


def kx_rows(plan):
    return [c for c in plan if c.ours.op == "key-exchange"]


def test_plan_has_one_key_exchange_row_on_one_thread_without_peers():
    opt = speed.Options(backend="cpu", threads=4, batch=None, seconds=1.0, gpu=False)
    [cmp] = kx_rows(speed.build_plan(["sm2"], opt))
    assert cmp.ours == speed.Case("sm2", "key-exchange", "kuaisuo", "cpu", 1, 1, 16, "initiator")
    assert cmp.theirs == speed.replace(cmp.ours, impl="openssl")
    assert cmp.peers == ()  # gmssl-pyx has no SM2 key exchange: not attached, installed or not
    assert cmp.ours.what() == "initiator, 16 B key"
    gpu = speed.Options(backend="gpu", threads=4, batch=None, seconds=1.0, gpu=True)
    assert kx_rows(speed.plan_sm2(gpu)) == []  # no batch call, no GPU rows


def constructed():
    ours = speed.Case("sm2", "key-exchange", "kuaisuo", "cpu", 1, 1, 16, "initiator")
    theirs = speed.replace(ours, impl="openssl")
    sign = speed.Case("sm2", "sign", "kuaisuo", "cpu", 1, 1, 32, "digest")
    plan = [speed.Comparison(sign, speed.replace(sign, impl="openssl")),
            speed.Comparison(ours, theirs)]

    def r(ops):
        return {"ops_per_s": ops, "bytes_per_s": ops * 16, "runs": 21, "backend": "cpu",
                "ops_per_s_min": ops, "ops_per_s_max": ops}

    results = {sign: r(8000.0), plan[0].theirs: r(2000.0), ours: r(9000.0), theirs: r(1000.0)}
    return plan, results


def test_the_row_says_what_openssl_ran():
    plan, results = constructed()
    lines = speed.format_table(plan, results).splitlines()
    sign_row, kx_row = lines[2], lines[3]
    assert "key-exchange" in kx_row and "9.00x" in kx_row and kx_row.endswith(NOTE), kx_row
    assert "openssl ran" not in sign_row
    doc = speed.json_comparisons(plan, results)
    assert doc[1]["theirs_note"] == "ephemeral EC keygen + ECDH derive on curve SM2"
    assert doc[0]["theirs_note"] is None
    labels, _ = speed.plot_series(plan, results)
    assert "(OpenSSL: ephemeral EC keygen + ECDH derive on curve SM2)" in labels[1]


def test_a_noisy_key_exchange_row_carries_both_notes():
    plan, results = constructed()
    results[plan[1].theirs].update(ops_per_s_min=100.0, ops_per_s_max=3000.0)
    row = speed.format_table(plan, results).splitlines()[3]
    assert row.endswith(NOTE + " (noisy: openssl spread 145% > 25%; no ratio)"), row


def test_harness_times_both_sides_and_refuses_what_it_cannot_do():
    for impl in ("kuaisuo", "openssl"):
        r = _native._bench_case("sm2", "key-exchange", impl, "cpu", 1, 1, 16, 0.02, "initiator")
        assert "error" not in r and r["ops_per_s"] > 0, (impl, r)
    r = _native._bench_case("sm2", "key-exchange", "kuaisuo", "cpu", 2, 1, 32, 0.02, "initiator")
    assert "error" not in r and r["ops_per_s"] > 0, r
    r = _native._bench_case("sm2", "key-exchange", "kuaisuo", "cpu", 1, 8, 16, 0.02, "initiator")
    assert r["error"] == "SM2 key exchange has no batch call"
    r = _native._bench_case("sm2", "key-exchange", "kuaisuo", "cpu", 1, 1, 0, 0.02, "initiator")
    assert "key length" in r["error"]


def test_speed_sm2_prints_the_key_exchange_row(tmp_path):
    out = tmp_path / "speed.json"
    r = subprocess.run([sys.executable, "-m", "kuaisuo", "speed", "sm2", "--backend", "cpu",
                        "--seconds", "0.02", "--threads", "1", "--batch", "1",
                        "--json", str(out)], capture_output=True, timeout=600)
    assert r.returncode == 0, r.stderr
    [line] = [ln for ln in r.stdout.decode().splitlines() if ln.startswith("sm2  key-exchange")]
    # The note closes the row; a noisy run may add its spread after it.
    assert "initiator, 16 B key" in line and NOTE in line and "n/a" not in line, line
    doc = json.loads(out.read_text())
    rows = {row["impl"]: row for row in doc["results"] if row["op"] == "key-exchange"}
    assert set(rows) == {"kuaisuo", "openssl"}
    for row in rows.values():
        assert (row["threads"], row["batch"], row["msg_bytes"]) == (1, 1, 16)
        assert row["ops_per_s"] > 0
    [cmp] = [c for c in doc["comparisons"] if c["op"] == "key-exchange"]
    assert cmp["peers"] == [] and cmp["theirs_note"].startswith("ephemeral EC keygen")
