#!/usr/bin/env bash
# Issue 13's side-by-side: kuaisuo's single-operation SM2 and its field
# product on this core, next to GmSSL's SM2 x86-64 assembly and OpenSSL's
# P-256 field assembly (ecp_nistz256, the reference the issue names), all
# built here from source and run in turns on the same core.
#
#   bench/peers/sm2_native_peers.sh [work dir, default build/peers] [rounds, default 2]
#
# Sources: GMSSL_SRC (a GmSSL checkout; default: a clone of guanzhi/GmSSL
# at the commit measured in session 24) and OPENSSL_SRC (an OpenSSL 3
# source tree; default: `apt-get source openssl` from Debian's deb-src).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mkdir -p "${1:-$root/build/peers}" && cd "${1:-$root/build/peers}" && pwd)
rounds=${2:-2}
gmssl_commit=24ae482701a7b124826c382fffc55c19f76d475d

if [ -z "${GMSSL_SRC:-}" ]; then
  GMSSL_SRC=$work/GmSSL
  if [ ! -d "$GMSSL_SRC/.git" ]; then
    git clone -q https://github.com/guanzhi/GmSSL "$GMSSL_SRC"
    git -C "$GMSSL_SRC" checkout -q "$gmssl_commit" 2>/dev/null ||
      echo "sm2_native_peers: commit $gmssl_commit not found; measuring GmSSL's default branch" >&2
  fi
fi
if [ -z "${OPENSSL_SRC:-}" ]; then
  if ! OPENSSL_SRC=$(ls -d "$work"/openssl-3.*/ 2>/dev/null | head -1) || [ -z "$OPENSSL_SRC" ]; then
    echo "deb-src http://deb.debian.org/debian bookworm main" > "$work/deb-src.list"
    apt_opts=(-o "Dir::Etc::SourceList=$work/deb-src.list" -o Dir::Etc::SourceParts=/dev/null)
    apt-get "${apt_opts[@]}" update >/dev/null
    (cd "$work" && apt-get "${apt_opts[@]}" source --download-only openssl >/dev/null 2>&1)
    tar -C "$work" -xzf "$(ls "$work"/openssl_3.*.orig.tar.gz | head -1)"
    OPENSSL_SRC=$(ls -d "$work"/openssl-3.*/ | head -1)
  fi
fi

# GmSSL with its SM2 assembly, static
cmake -S "$GMSSL_SRC" -B "$work/gmssl-build" -DCMAKE_BUILD_TYPE=Release -DENABLE_SM2_AMD64=ON \
  -DBUILD_SHARED_LIBS=OFF >/dev/null
cmake --build "$work/gmssl-build" --parallel "$(nproc)" --target gmssl >/dev/null
g++ -O2 -std=c++17 -I"$GMSSL_SRC/include" -I"$root/tools" "$here/gmssl_sm2_micro.cc" \
  "$work/gmssl-build/bin/libgmssl.a" -o "$work/gmssl_sm2_micro"

# OpenSSL's ecp_nistz256 field, assembled from its perlasm
(cd "$OPENSSL_SRC/crypto/ec" && CC=gcc perl asm/ecp_nistz256-x86_64.pl elf "$work/ecp_nistz256-x86_64.s")
g++ -O2 -std=c++17 -I"$root/tools" "$here/nistz256_field_micro.cc" "$work/ecp_nistz256-x86_64.s" \
  -Wl,-z,noexecstack -o "$work/nistz256_field_micro"

# kuaisuo's instruments
build=${KS_BUILD:-$root/build/cpu}
[ -f "$build/build.ninja" ] ||
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKS_ENABLE_CUDA=OFF >/dev/null
cmake --build "$build" --target sm2_micro sm2_field_micro >/dev/null

grep -m1 "model name" /proc/cpuinfo
for round in $(seq "$rounds"); do
  echo "== round $round"
  "$build/src/field/sm2_field_micro" 5 | tail -n 4
  "$work/nistz256_field_micro" 5 | tail -n 2
  "$build/src/scheme/sm2_micro" 5 | tail -n 3
  "$work/gmssl_sm2_micro" 5
done
