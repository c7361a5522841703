#!/bin/sh
# nginx serving TLS 1.3 on 127.0.0.1 with an Ed25519 certificate and the
# X25519 group, kuaisuo's provider activated through OPENSSL_CONF; curl and
# Python's ssl module fetch a page through it, checking the certificate (the
# signature kuaisuo made is verified by the client's default provider). The
# test then reads kuaisuo's trace: the worker's handshakes must have run
# their X25519 key generation and derivation and their Ed25519 signature in
# kuaisuo. Started and stopped here; exit 77 (skipped) without nginx or curl.
# Usage: nginx.sh <directory holding kuaisuo.so>
set -eu
# shellcheck source=../../src/provider/provider_lib.sh
. "$(cd "$(dirname "$0")" && pwd)/../../src/provider/provider_lib.sh"
modules=$(cd "$1" && pwd)
NGINX=$(command -v nginx || ls /usr/sbin/nginx 2> /dev/null || true)
if [ -z "$NGINX" ] || ! command -v curl > /dev/null; then
  echo "nginx or curl not installed: skipped"; exit 77
fi
work=$(mktemp -d)
chmod 755 "$work" # nginx's worker (another user when run as root) writes the trace
cleanup() {
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2> /dev/null || true
  sleep 0.2
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAILED: $*" >&2; [ -f "$work/error.log" ] && tail -5 "$work/error.log" >&2; exit 1; }
port=$(ks_free_port 2> /dev/null || echo 28443)

ks_ed25519_cert "$work" -addext subjectAltName=DNS:localhost
ks_openssl_cnf > "$work/openssl.cnf"
mkdir "$work/tmp"
cat > "$work/nginx.conf" <<CONF
daemon on;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log notice;
env KUAISUO_PROVIDER_TRACE;
events { worker_connections 64; }
http {
$(ks_nginx_http "$work" "$port" ssl "hello from nginx")
}
CONF
: > "$work/trace"
chmod 666 "$work/trace"
OPENSSL_CONF="$work/openssl.cnf" OPENSSL_MODULES="$modules" KUAISUO_PROVIDER_TRACE="$work/trace" \
  "$NGINX" -p "$work" -c "$work/nginx.conf" || fail "nginx did not start"
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -f "$work/nginx.pid" ] && break; sleep 0.1; done

# curl: TLS 1.3, X25519 only, the certificate checked against ed.crt
body=$(curl -sS --tlsv1.3 --curves X25519 --cacert "$work/ed.crt" \
  --resolve "localhost:$port:127.0.0.1" "https://localhost:$port/") || fail "curl"
[ "$body" = "hello from nginx" ] || fail "curl got '$body'"
# Python's ssl module, checking the certificate too
if command -v python3 > /dev/null; then
  python3 - "$work/ed.crt" "$port" <<'PY' || fail "python ssl"
import http.client, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[1])  # the certificate is checked
ctx.minimum_version = ssl.TLSVersion.TLSv1_3
ctx.check_hostname = False  # connecting to 127.0.0.1, which the certificate does not name
conn = http.client.HTTPSConnection("127.0.0.1", int(sys.argv[2]), context=ctx)
conn.request("GET", "/")
body = conn.getresponse().read()
assert body == b"hello from nginx\n", body
assert conn.sock.version() == "TLSv1.3", conn.sock.version()
PY
fi

# The handshakes ran in kuaisuo, in nginx's worker: two connections, each an
# X25519 key generation and derivation and an Ed25519 signature.
for op in "keygen X25519" "derive X25519" "sign ED25519"; do
  n=$(grep -c " $op\$" "$work/trace" || true)
  [ "$n" -ge 2 ] || fail "trace: $n x '$op' (want 2): $(cat "$work/trace")"
done
echo "nginx: TLS 1.3 with Ed25519 and X25519 in kuaisuo:"
sort "$work/trace" | uniq -c | sed 's/^/  /'
