#!/usr/bin/env bash
# Installs the build in BUILD_DIR to a temporary prefix and builds and runs
# tests/consumer/main.c against it through pkg-config (shared, static) and
# CMake's find_package (shared, static; and static from a C-only project),
# as a user would; then the Go (cgo) and Rust examples where those
# toolchains are installed.
# Usage: tests/consumer/run.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: tests/consumer/run.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > /dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib64/pkgconfig"
libdir=$(pkg-config --variable=libdir kuaisuo)
cc=${CC:-cc}
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
"$cc" "$here/main.c" -o "$work/pc_shared" $(pkg-config --cflags --libs kuaisuo)
LD_LIBRARY_PATH="$libdir" "$work/pc_shared"
# The archive by name (the shared library would win -lkuaisuo), then the
# private libraries pkg-config --static lists.
static_libs=$(pkg-config --static --libs kuaisuo | sed 's/-lkuaisuo\b//')
# shellcheck disable=SC2046,SC2086
"$cc" "$here/main.c" -o "$work/pc_static" $(pkg-config --cflags kuaisuo) "$libdir/libkuaisuo.a" \
  $static_libs
"$work/pc_static"
# README.md's C program (its first ```c block), built and run by the README's
# own commands: the ```sh block after "<!-- test: run by tests/consumer/run.sh -->"
# (tests/python/test_readme.py checks that both are there).
readme="$here/../../README.md"
mkdir "$work/readme"
awk '/^```c$/ { inside = 1; next } inside && /^```/ { exit } inside' "$readme" > "$work/readme/app.c"
awk '/<!-- test: run by tests\/consumer\/run.sh -->/ { marked = 1; next }
     marked && /^```sh$/ { inside = 1; next } inside && /^```/ { exit } inside' "$readme" \
  > "$work/readme/build.sh"
[ -s "$work/readme/app.c" ] && [ -s "$work/readme/build.sh" ] ||
  { echo "README.md: the C program or its build commands are missing" >&2; exit 1; }
(cd "$work/readme" && CC="$cc" bash -euo pipefail build.sh)
cmake -S "$here" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > /dev/null
cmake --build "$work/cmake" > /dev/null
LD_LIBRARY_PATH="$libdir" "$work/cmake/consumer_shared"
"$work/cmake/consumer_static"
# A C-only CMake project (LANGUAGES C) against the static library: what the
# exported target carries must be enough for the C driver to link it.
cmake -S "$here/c_only" -B "$work/cmake_c" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > /dev/null
cmake --build "$work/cmake_c" > /dev/null
"$work/cmake_c/consumer_c_static"
# Go (cgo, pkg-config) and Rust (rustc against the shared library), where
# their toolchains are installed (scripts/test installs them from the
# distribution's packages when it can).
if command -v go > /dev/null; then
  (cd "$here/go" && GOCACHE="$work/gocache" GOPATH="$work/gopath" GO111MODULE=off \
     CGO_ENABLED=1 go build -o "$work/go_consumer" main.go)
  LD_LIBRARY_PATH="$libdir" "$work/go_consumer"
else
  echo "go not installed: the cgo example is skipped"
fi
if command -v rustc > /dev/null; then
  rustc --edition 2018 -O "$here/rust/main.rs" -o "$work/rust_consumer" -L "native=$libdir"
  LD_LIBRARY_PATH="$libdir" "$work/rust_consumer"
else
  echo "rustc not installed: the Rust example is skipped"
fi
