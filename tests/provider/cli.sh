#!/bin/sh
# The `openssl` command line with kuaisuo's provider (docs/PROVIDER.md):
# each command runs once with kuaisuo preferred (-provider kuaisuo
# -provider default -propquery ?provider=kuaisuo) and its result is checked
# by the default provider alone (or compared with the default's own), both
# directions where there are two. $KUAISUO_PROVIDER_TRACE receives one line
# per operation that ran in kuaisuo, so every step also checks that the work
# was ours. Last, the same through an OPENSSL_CONF file.
# Usage: cli.sh <directory holding kuaisuo.so> [openssl binary]
set -eu
# shellcheck source=../../src/provider/provider_lib.sh
. "$(cd "$(dirname "$0")" && pwd)/../../src/provider/provider_lib.sh"
modules=$(cd "$1" && pwd)
OPENSSL=${2:-openssl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export KUAISUO_PROVIDER_TRACE="$work/trace"
KS="-provider-path $modules -provider kuaisuo -provider default -propquery ?provider=kuaisuo"
passed=0

fail() { echo "FAILED: $*" >&2; exit 1; }
ok() { passed=$((passed + 1)); }
# ks CMD ARGS: openssl CMD with kuaisuo preferred; the trace must gain a line
# matching $want (unless it is empty: commands that only move keys).
ks() {
  : > trace
  cmd=$1; shift
  $OPENSSL $cmd $KS "$@" || fail "openssl $cmd $*"
  [ -z "$want" ] || grep -q "$want" trace || fail "openssl $cmd $*: no '$want' in kuaisuo's trace"
}
# def ARGS: openssl with the default provider only.
def() { KUAISUO_PROVIDER_TRACE= $OPENSSL "$@" || fail "openssl (default) $*"; }

head -c 100000 /dev/urandom > msg
head -c 32 /dev/urandom > digest

# dgst -sm3, and its known answer (GB/T 32905 example 1)
want="digest SM3"; ks dgst -sm3 -r -out ours msg
def dgst -sm3 -r -out theirs msg
cmp -s ours theirs || fail "dgst -sm3 differs"; ok
printf abc > abc
want="digest SM3"; ks dgst -sm3 -r -out ours abc
grep -q '^66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0' ours || fail "SM3(abc)"; ok

# enc -sm4-*: ciphertexts equal to the default's; kuaisuo decrypts them
key=0123456789abcdeffedcba9876543210
iv=000102030405060708090a0b0c0d0e0f
for mode in ecb cbc cfb ofb ctr; do
  ivarg="-iv $iv"; [ $mode = ecb ] && ivarg=
  name=$(echo "SM4-$mode" | tr a-z A-Z)
  want="cipher $name"; ks enc -sm4-$mode -K $key $ivarg -in msg -out ours
  def enc -sm4-$mode -K $key $ivarg -in msg -out theirs
  cmp -s ours theirs || fail "enc -sm4-$mode differs"
  want="cipher $name"; ks enc -d -sm4-$mode -K $key $ivarg -in theirs -out back
  cmp -s back msg || fail "enc -d -sm4-$mode"; ok
done

# genpkey, pkey (-check, -text, -pubout) for every key type
for alg in SM2 ED25519 X25519; do
  want="keygen $alg"; ks genpkey -algorithm $alg -out $alg.key
  want=""; ks pkey -in $alg.key -check -noout > /dev/null
  ks pkey -in $alg.key -text -noout > $alg.txt
  grep -q "priv:" $alg.txt || fail "pkey -text $alg"
  ks pkey -in $alg.key -pubout -out $alg.pub
  def pkey -in $alg.key -pubout -out $alg.pub.default
  cmp -s $alg.pub $alg.pub.default || fail "pkey -pubout $alg"
  def genpkey -algorithm $alg -out $alg.default.key
  def pkey -in $alg.default.key -pubout -out $alg.default.pub; ok
done

# SM2 signatures with a distinguishing ID, over the message (-rawin, SM3),
# and of a precomputed digest; each verified by the other provider
id="distid:ALICE123@YAHOO.COM"
want="sign SM2"; ks pkeyutl -sign -inkey SM2.key -rawin -digest sm3 -pkeyopt $id -in msg -out sig
def pkeyutl -verify -pubin -inkey SM2.pub -rawin -digest sm3 -pkeyopt $id -in msg -sigfile sig > /dev/null
if $OPENSSL pkeyutl -verify -pubin -inkey SM2.pub -rawin -digest sm3 -pkeyopt distid:another \
     -in msg -sigfile sig > /dev/null 2>&1; then fail "SM2 verified under another ID"; fi
def pkeyutl -sign -inkey SM2.default.key -rawin -digest sm3 -pkeyopt $id -in msg -out sig2
want="verify SM2"; ks pkeyutl -verify -pubin -inkey SM2.default.pub -rawin -digest sm3 -pkeyopt $id -in msg -sigfile sig2 > /dev/null
want="sign SM2"; ks pkeyutl -sign -inkey SM2.key -in digest -out sig3
def pkeyutl -verify -pubin -inkey SM2.pub -in digest -sigfile sig3 > /dev/null; ok

# Ed25519 (-rawin): deterministic, so both providers write the same bytes
want="sign ED25519"; ks pkeyutl -sign -inkey ED25519.key -rawin -in msg -out sig
def pkeyutl -sign -inkey ED25519.key -rawin -in msg -out sig.default
cmp -s sig sig.default || fail "Ed25519 signatures differ"
def pkeyutl -verify -pubin -inkey ED25519.pub -rawin -in msg -sigfile sig > /dev/null
want="verify ED25519"; ks pkeyutl -verify -pubin -inkey ED25519.pub -rawin -in msg -sigfile sig.default > /dev/null; ok

# X25519: each side derives the same secret
want="derive X25519"; ks pkeyutl -derive -inkey X25519.key -peerkey X25519.default.pub -out s1
def pkeyutl -derive -inkey X25519.default.key -peerkey X25519.pub -out s2
cmp -s s1 s2 || fail "X25519 secrets differ"; ok

# SM2 encryption: one provider encrypts, the other decrypts
head -c 300 msg > short
want="encrypt SM2"; ks pkeyutl -encrypt -pubin -inkey SM2.default.pub -in short -out ct
def pkeyutl -decrypt -inkey SM2.default.key -in ct -out back
cmp -s back short || fail "SM2: kuaisuo's ciphertext"
def pkeyutl -encrypt -pubin -inkey SM2.pub -in short -out ct2
want="decrypt SM2"; ks pkeyutl -decrypt -inkey SM2.key -in ct2 -out back2
cmp -s back2 short || fail "SM2: the default's ciphertext"; ok

# req -x509: certificates signed in kuaisuo, their signatures checked by the
# default provider alone (-check_ss_sig: a self-signed one's own signature)
want="sign SM2"; ks req -x509 -new -key SM2.key -sm3 -subj /CN=kuaisuo-sm2 -days 1 -out sm2.crt
def verify -check_ss_sig -CAfile sm2.crt sm2.crt > /dev/null
want="sign ED25519"; ks req -x509 -new -key ED25519.key -subj /CN=kuaisuo-ed25519 -days 1 -out ed.crt
def verify -check_ss_sig -CAfile ed.crt ed.crt > /dev/null
def x509 -in ed.crt -noout -text | grep -q "Signature Algorithm: ED25519" || fail "ed.crt"; ok
# ... and the default's certificate checked in kuaisuo
def req -x509 -new -key SM2.default.key -sm3 -subj /CN=default-sm2 -days 1 -out sm2d.crt
want="verify SM2"; ks verify -check_ss_sig -CAfile sm2d.crt sm2d.crt > /dev/null; ok

# OPENSSL_CONF (docs/PROVIDER.md): kuaisuo beside default, preferred
ks_openssl_cnf > openssl.cnf
: > trace
OPENSSL_CONF=openssl.cnf OPENSSL_MODULES="$modules" $OPENSSL dgst -sm3 msg > /dev/null || fail "conf: dgst"
OPENSSL_CONF=openssl.cnf OPENSSL_MODULES="$modules" \
  $OPENSSL pkeyutl -sign -inkey ED25519.key -rawin -in msg -out sig4 || fail "conf: pkeyutl"
grep -q "digest SM3" trace && grep -q "sign ED25519" trace || fail "conf: not in kuaisuo"
cmp -s sig4 sig.default || fail "conf: Ed25519 signature"; ok

echo "provider command line: $passed groups passed"
