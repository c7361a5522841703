#!/bin/sh
# provider_nginx.sh: what the provider buys a TLS server. nginx (one worker,
# TLS 1.3 only, an Ed25519 certificate, X25519) is run with the default
# provider alone and with kuaisuo preferred (OPENSSL_CONF), in alternating
# rounds, under the same load from clients on the same machine:
#  - h2load (Debian's nghttp2-client) opens N connections, one request
#    each (full handshakes, no resumption), at a rate above what the server
#    keeps up with: handshakes/s, and the worker's CPU time per handshake
#    from /proc/PID/schedstat (nanoseconds on the CPU);
#  - a Python client makes M handshakes one after another: the p50 and p99
#    of a handshake's latency (TCP connect to handshake done).
# Best round of each (the machine is shared). JSON on stdout.
# Usage: bench/provider_nginx.sh <directory holding kuaisuo.so> [rounds] [connections]
set -eu
# shellcheck source=../src/provider/provider_lib.sh
. "$(cd "$(dirname "$0")" && pwd)/../src/provider/provider_lib.sh"
modules=$(cd "$1" && pwd)
rounds=${2:-3}
conns=${3:-2000}
for tool in nginx h2load python3 openssl; do
  command -v $tool > /dev/null || [ -x /usr/sbin/$tool ] || { echo "needs $tool" >&2; exit 2; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
work=$(mktemp -d)
chmod 755 "$work"
stop() { [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2> /dev/null; sleep 0.3; rm -f "$work/nginx.pid"; }
trap 'stop; rm -rf "$work"' EXIT
port=$(ks_free_port)

ks_ed25519_cert "$work"
printf '%s\n' 'openssl_conf = openssl_init' '[openssl_init]' 'providers = provider_sect' \
  '[provider_sect]' 'default = default_sect' '[default_sect]' 'activate = 1' > "$work/default.cnf"
ks_openssl_cnf > "$work/kuaisuo.cnf"
mkdir "$work/tmp"
cat > "$work/nginx.conf" <<CONF
daemon on;
worker_processes 1;
worker_rlimit_nofile 16384;
pid $work/nginx.pid;
error_log $work/error.log error;
events { worker_connections 8192; }
http {
  ssl_session_tickets off;
  ssl_session_cache off;
$(ks_nginx_http "$work" "$port" "ssl http2" ok)
}
CONF

cpu_ns() { cut -d' ' -f1 "/proc/$1/schedstat"; }

latency() { # p50 and p99 (ms) of M sequential handshakes
  python3 - "$port" "$1" <<'PY'
import socket, ssl, sys, time
port, m = int(sys.argv[1]), int(sys.argv[2])
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
ctx.minimum_version = ssl.TLSVersion.TLSv1_3
t = []
for _ in range(m):
    start = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port)) as raw:
        with ctx.wrap_socket(raw) as s:
            t.append(time.perf_counter() - start)
t.sort()
print("%.3f %.3f" % (1e3 * t[len(t) // 2], 1e3 * t[int(len(t) * 0.99)]))
PY
}

round() { # variant -> "cpu_us_per_handshake handshakes_per_s p50_ms p99_ms"
  OPENSSL_CONF="$work/$1.cnf" OPENSSL_MODULES="$modules" "$NGINX" -p "$work" -c "$work/nginx.conf"
  sleep 0.3
  worker=$(pgrep -P "$(cat "$work/nginx.pid")")
  h2load -n 200 -c 200 -r 100 --rate-period 100ms "https://127.0.0.1:$port/" > /dev/null 2>&1 # warm-up
  before=$(cpu_ns "$worker")
  out=$(h2load -n "$conns" -c "$conns" -r 200 --rate-period 100ms "https://127.0.0.1:$port/" 2>&1)
  after=$(cpu_ns "$worker")
  done_n=$(echo "$out" | sed -n 's/.* \([0-9]*\) succeeded.*/\1/p')
  rate=$(echo "$out" | sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p')
  lat=$(latency 500)
  stop
  [ "${done_n:-0}" -gt 0 ] || { echo "h2load failed: $out" >&2; exit 1; }
  echo "$(( (after - before) / done_n / 1000 )) $rate $lat"
}

results=""
for r in $(seq "$rounds"); do
  for v in default kuaisuo; do
    results="$results$v $(round $v)
"
  done
done
printf '%s' "$results" | python3 -c '
import json, os, sys, platform
rows = [l.split() for l in sys.stdin if l.strip()]
best = {}
for v, cpu, rate, p50, p99 in rows:
    b = best.setdefault(v, {"cpu_us_per_handshake": 1e18, "handshakes_per_s": 0, "p50_ms": 1e18, "p99_ms": 1e18})
    b["cpu_us_per_handshake"] = min(b["cpu_us_per_handshake"], int(cpu))
    b["handshakes_per_s"] = max(b["handshakes_per_s"], float(rate))
    b["p50_ms"] = min(b["p50_ms"], float(p50)); b["p99_ms"] = min(b["p99_ms"], float(p99))
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "CPU")
doc = {"benchmark": "provider_nginx_handshakes",
       "command": "bench/provider_nginx.sh BUILD/ossl-modules %s %s" % (sys.argv[1], sys.argv[2]),
       "device": "%s, %d online CPUs (server, clients and other work share them)" % (model, os.cpu_count()),
       "loadavg_end": os.getloadavg()[0],
       "setup": "nginx 1 worker, TLS 1.3, Ed25519 certificate, X25519, no resumption; h2load: one request per connection; latency: Python ssl, sequential handshakes",
       "rounds": [dict(variant=v, cpu_us_per_handshake=int(c), handshakes_per_s=float(r), p50_ms=float(a), p99_ms=float(b)) for v, c, r, a, b in rows],
       "best": best,
       "cpu_ratio_default_over_kuaisuo": round(best["default"]["cpu_us_per_handshake"] / best["kuaisuo"]["cpu_us_per_handshake"], 3),
       "paired_cpu_ratios": [round(int(a[1]) / int(b[1]), 3) for a, b in zip(rows[0::2], rows[1::2])]}
doc["paired_cpu_ratio_median"] = sorted(doc["paired_cpu_ratios"])[len(doc["paired_cpu_ratios"]) // 2]
print(json.dumps(doc, indent=1))
' "$rounds" "$conns"
