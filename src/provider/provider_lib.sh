# provider_lib.sh: shell helpers shared by the scripts that run programs
# with kuaisuo's provider (tests/provider/cli.sh and nginx.sh,
# bench/provider_nginx.sh). Sourced (`. .../provider_lib.sh`), POSIX sh.

# ks_openssl_cnf: on stdout, the OPENSSL_CONF file of docs/PROVIDER.md:
# kuaisuo activated beside the default provider and preferred over it.
ks_openssl_cnf() {
  cat <<CNF
openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
alg_section = algorithm_sect
[provider_sect]
default = default_sect
kuaisuo = kuaisuo_sect
[default_sect]
activate = 1
[kuaisuo_sect]
activate = 1
[algorithm_sect]
default_properties = ?provider=kuaisuo
CNF
}

# ks_free_port: a TCP port free on 127.0.0.1 now (Python binds port 0).
ks_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ks_ed25519_cert DIR [REQ OPTIONS]: DIR/ed.key, an Ed25519 key, and
# DIR/ed.crt, its self-signed certificate for CN=localhost (one day), made
# by `openssl` with its default provider.
ks_ed25519_cert() {
  _ks_dir=$1
  shift
  openssl genpkey -algorithm ED25519 -out "$_ks_dir/ed.key"
  openssl req -x509 -new -key "$_ks_dir/ed.key" -subj /CN=localhost "$@" \
    -days 1 -out "$_ks_dir/ed.crt" 2> /dev/null
}

# ks_nginx_http WORK PORT LISTEN BODY: on stdout, the inside of an nginx
# http block: temporary files in WORK/tmp (the caller makes it), no access
# log, and one server on 127.0.0.1:PORT (listen options LISTEN, "ssl"
# first) with TLS 1.3 only, X25519 and WORK/ed.crt and WORK/ed.key
# (ks_ed25519_cert), answering every request with BODY and a newline.
ks_nginx_http() {
  cat <<CONF
  access_log off;
  client_body_temp_path $1/tmp;
  proxy_temp_path $1/tmp;
  fastcgi_temp_path $1/tmp;
  uwsgi_temp_path $1/tmp;
  scgi_temp_path $1/tmp;
  server {
    listen 127.0.0.1:$2 $3;
    ssl_certificate $1/ed.crt;
    ssl_certificate_key $1/ed.key;
    ssl_protocols TLSv1.3;
    ssl_ecdh_curve X25519;
    location / { return 200 "$4\n"; }
  }
CONF
}
