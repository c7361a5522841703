#!/usr/bin/env bash
# kuaisuo serve under load from bench/load (python -m bench.load), on this machine over
# loopback: one server (gRPC, the rows form of SM2 on digests), PROCS
# generator processes in parallel (one Python generator tops out at a few
# thousand requests/s), every rate for SM2 sign-rows and verify-rows.
# Writes OUT_JSON: the server's settings, and per op and rate the summed
# throughput and the generators' latency percentiles (the highest of the
# processes: a bound, percentiles do not add) and, from kuaisuo-grpc-load,
# the CPU its processes used per request; per op the CPU the server's
# processes used and how busy the host was over the op's whole run.
# Usage: bench/serve_bench.sh OUT_JSON BACKEND DEVICES PROCS RATES ITEMS [SECONDS [WORKERS]]
#   e.g. bench/serve_bench.sh out.json gpu 0,1 4 4000,16000,32000 1024 3 8
# (WORKERS: kuaisuo serve --workers, server processes sharing the port;
#  OPS=... in the environment: the ops to run, default "sign-rows verify-rows";
#  "encrypt" / "encrypt-rows" seal 64-byte messages with SM4-GCM under the
#  key id vault, as a list of items / in the rows form; "ed25519-sign" /
#  "ed25519-verify" send lists of messages (GENERATOR=native; the sign op
#  under the Ed25519 key id node, GEN_ARGS="--message-bytes N" their size);
#  SERVE_ARGS=... more server options, e.g. --share-devices;
#  SERVER=grpcd: the native front end kuaisuo-grpcd instead of kuaisuo serve
#  (the rows and ed25519 ops; WORKERS its --workers), GENERATOR=native: kuaisuo-grpc-load
#  instead of python -m bench.load (GEN_ARGS=... more of its options, e.g.
#  "--channels 64 --threads 8"); both binaries from GRPCD_BIN, default
#  build/cpu/bin, and neither needs the Python package; both are built from
#  serve/grpcd and bench/load/grpc);
#  SERVER_CPUS=... / GENERATOR_CPUS=...: taskset CPU lists for the server
#  and for the generators, e.g. 0-9 and 10-15, to see what each side needs
#  of a host they share)
set -euo pipefail
# bench/load is the checkout's: run from anywhere, it is found from here.
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1 backend=$2 devices=$3 procs=$4 rates=$5 items=$6 seconds=${7:-3} workers=${8:-1}
server_kind=${SERVER:-python} generator=${GENERATOR:-python} bin=${GRPCD_BIN:-build/cpu/bin}
server_pin=() generator_pin=()
[ -n "${SERVER_CPUS:-}" ] && server_pin=(taskset -c "$SERVER_CPUS")
[ -n "${GENERATOR_CPUS:-}" ] && generator_pin=(taskset -c "$GENERATOR_CPUS")
work=$(mktemp -d)
trap 'kill -TERM "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir "$work/keys"
if [ "$server_kind" = grpcd ] || [ "$generator" = native ]; then
  "$bin/kuaisuo-grpc-load" --new-key "$work/keys/gov.pem"
  "$bin/kuaisuo-grpc-load" --new-key "$work/keys/node.pem" ed25519
else
  kuaisuo sm2 keygen --out "$work/keys/gov.pem"
  kuaisuo sm4 keygen --out "$work/keys/vault.pem"
  kuaisuo ed25519 keygen --out "$work/keys/node.pem"
fi
python3 -c 'import secrets; print(secrets.token_hex(16), end="")' > "$work/token"
python3 - "$work" <<'PY'
import hashlib, json, sys
work = sys.argv[1]
token = open(f"{work}/token").read()
digest = hashlib.sha256(token.encode()).hexdigest()  # keystore.token_digest
json.dump({"tokens": {digest: ["*"]}}, open(f"{work}/access.json", "w"))
PY
port=$((50000 + RANDOM % 10000))
if [ "$server_kind" = grpcd ]; then
  "${server_pin[@]}" "$bin/kuaisuo-grpcd" --keys "$work/keys" --access "$work/access.json" --allow-plain \
    --listen "127.0.0.1:$port" --backend "$backend" --devices "$devices" --max-batch 65536 \
    --max-delay-ms 2 --max-items 65536 --workers "$workers" --audit-log "$work/audit.log" \
    ${SERVE_ARGS:-} 2> "$work/serve.log" &
else
  "${server_pin[@]}" kuaisuo serve --keys "$work/keys" --access "$work/access.json" --allow-plain --http off \
    --grpc "127.0.0.1:$port" --backend "$backend" --devices "$devices" --max-batch 65536 \
    --max-delay-ms 2 --max-items 65536 --workers "$workers" --audit-log "$work/audit.log" \
    ${SERVE_ARGS:-} \
    2> "$work/serve.log" &
fi
server=$!
up=1
if [ "$server_kind" = grpcd ]; then up=$workers; fi  # each worker says so
for _ in $(seq 600); do
  [ "$(grep -c listening "$work/serve.log" 2>/dev/null || true)" -ge "$up" ] && break
  sleep 0.2
done
cat "$work/serve.log"
# CPU the server used (its processes: the server and its workers) and the
# host's busy fraction, per op: "server ticks, host busy ticks, host ticks".
cpu_sample() {
  local ticks=0 p f
  for p in "$server" $(pgrep -P "$server" || true); do
    read -r -a f < "/proc/$p/stat" 2>/dev/null || continue
    ticks=$((ticks + f[13] + f[14]))
  done
  read -r -a f < /proc/stat
  local total=$((f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7] + f[8]))
  echo "$ticks $((total - f[4] - f[5])) $total"
}
for op in ${OPS:-sign-rows verify-rows}; do
  cpu_sample > "$work/$op.cpu0"
  key=gov; case $op in encrypt*) key=vault ;; ed25519-sign) key=node ;; esac
  per_proc=$(python3 -c "print(','.join(str(float(r) / $procs) for r in '$rates'.split(',')))")
  for i in $(seq "$procs"); do
    if [ "$generator" = native ]; then
      "${generator_pin[@]}" "$bin/kuaisuo-grpc-load" --address "127.0.0.1:$port" --token-file "$work/token" \
        --op "$op" --key-id "$key" --items "$items" --rates "$per_proc" --seconds "$seconds" \
        --warmup 1 --pool 65536 --timeout-ms 10000 --seed "$i" ${GEN_ARGS:-} \
        --json "$work/$op-$i.json" > "$work/$op-$i.txt" &
    else
      PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" \
        "${generator_pin[@]}" python3 -m bench.load --transport grpc --address "127.0.0.1:$port" --token-file "$work/token" \
        --op "$op" --key-id "$key" --items "$items" --rates "$per_proc" --seconds "$seconds" \
        --warmup 1 --pool 65536 --timeout-ms 10000 --json "$work/$op-$i.json" > "$work/$op-$i.txt" &
    fi
  done
  wait $(jobs -p | grep -v "^$server\$") 2>/dev/null || true
  cpu_sample > "$work/$op.cpu1"
  cat "$work/$op-1.txt"
done
python3 - "$work" "$out" "$backend" "$devices" "$procs" "$items" "$workers" <<'PY'
import glob, json, os, sys
work, out, backend, devices, procs, items, workers = sys.argv[1:]
doc = {"tool": "bench/serve_bench.sh", "backend": backend, "devices": devices,
       "server": os.environ.get("SERVER", "python"),
       "generator": os.environ.get("GENERATOR", "python"),
       "generator_args": os.environ.get("GEN_ARGS", ""),
       "serve_args": os.environ.get("SERVE_ARGS", ""),
       "server_cpus": os.environ.get("SERVER_CPUS", "all"),
       "generator_cpus": os.environ.get("GENERATOR_CPUS", "all"),
       "server_processes": int(workers), "generator_processes": int(procs),
       "items_per_request": int(items), "ops": {}}
for path in sorted(glob.glob(f"{work}/*-[0-9]*.json")):
    run = json.load(open(path))
    op = path.rsplit("/", 1)[1].rsplit("-", 1)[0]
    doc.setdefault("host", run.get("host"))
    rows = doc["ops"].setdefault(op, [])
    for k, row in enumerate(run["rows"]):
        if len(rows) <= k:
            rows.append({"offered_rps": 0, "achieved_rps": 0, "items_per_s": 0, "sent": 0,
                         "ok": 0, "item_errors": 0, "refused": 0, "timeouts": 0,
                         "transport_errors": 0, "latency_ms_max_of_processes": {},
                         "per_process": []})
        agg = rows[k]
        agg["offered_rps"] += row["offered_rps"]
        agg["achieved_rps"] += row["achieved_rps"]
        agg["items_per_s"] += row["achieved_items_per_s"]
        for key in ("sent", "ok", "item_errors", "refused", "timeouts", "transport_errors"):
            agg[key] += row[key]
        for q, v in row["latency_ms"].items():
            if v is not None:
                agg["latency_ms_max_of_processes"][q] = max(
                    v, agg["latency_ms_max_of_processes"].get(q, 0))
        agg["per_process"].append(row)
        if row.get("generator_cpu_s") is not None:  # kuaisuo-grpc-load's own CPU
            agg["generator_cpu_s"] = round(agg.get("generator_cpu_s", 0) + row["generator_cpu_s"], 4)
            agg["generator_cpu_us_per_request"] = round(
                agg["generator_cpu_s"] / max(1, agg["sent"]) * 1e6, 2)
tick = os.sysconf("SC_CLK_TCK")
for op, rows in doc["ops"].items():
    # Over the whole op: the warm-up (1 s at the first rate) and every rate.
    a, b = (list(map(int, open(f"{work}/{op}.cpu{i}").read().split())) for i in (0, 1))
    requests = sum(r["sent"] for r in rows) + rows[0]["offered_rps"] * 1.0
    doc.setdefault("cpu", {})[op] = {
        "server_cpu_s": (b[0] - a[0]) / tick,
        "host_busy_fraction": round((b[1] - a[1]) / max(1, b[2] - a[2]), 3),
        "server_cpu_us_per_request": round((b[0] - a[0]) / tick / max(1.0, requests) * 1e6, 2),
        "note": "the op's whole run: its warm-up second and every rate"}
json.dump(doc, open(out, "w"), indent=1)
for op, rows in doc["ops"].items():
    for r in rows:
        lat = r["latency_ms_max_of_processes"]
        print(f"{op:12s} offered {r['offered_rps']:8.0f} req/s achieved {r['achieved_rps']:8.0f}"
              f" items/s {r['items_per_s']:12,.0f} errors {r['item_errors']}+{r['refused']}"
              f"+{r['timeouts']}+{r['transport_errors']} p50 {lat.get('p50', 0):.2f}"
              f" p99 {lat.get('p99', 0):.2f} p99.9 {lat.get('p99.9', 0):.2f} ms"
              + (f" generators {r['generator_cpu_us_per_request']} us CPU a request"
                 if "generator_cpu_us_per_request" in r else ""))
    c = doc["cpu"][op]
    print(f"{op:12s} server CPU {c['server_cpu_s']:.1f} s ({c['server_cpu_us_per_request']} us"
          f" a request), host busy {c['host_busy_fraction']:.0%}")
PY
