#!/usr/bin/env bash
# Ray on a lent GPU machine, which has no registry and takes at most 64 MiB
# of carried files a call, while Ray's wheel alone is 79 MB. The wheel
# travels unchanged in two pieces over two calls to the same warm machine
# and is checked against its SHA-256 there before it is installed.
#
#   here:             bench/ray_on_device.sh prepare   (.raywhl-a, .raywhl-b,
#                     added to .git/info/exclude: they travel only when carried)
#   device, call 1:   carry [".raywhl-a"]: bench/ray_on_device.sh stage
#                     (puts the first piece in /tmp, which outlives the call;
#                     the carried folder does not)
#   device, call 2:   carry [".raywhl-b"]: bench/ray_on_device.sh install &&
#                     export PYTHONPATH=/tmp/site && python3 bench/ray_verify_bench.py ...
#
# The machine's image already holds Ray's other needs (pyarrow, pandas,
# fsspec, msgpack, aiohttp, ...) but jsonschema's family, which travels whole
# with the second piece. Its Python is 3.12 (docs KINDS.md).
set -euo pipefail
RAY_VERSION=${RAY_VERSION:-2.60.0}
WHEEL=ray-$RAY_VERSION-cp312-cp312-manylinux2014_x86_64.whl
FIRST_BYTES=56000000  # with the ~9 MB working tree, under 64 MiB

prepare() {
  local tmp
  tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$tmp" "ray==$RAY_VERSION" jsonschema jsonschema-specifications referencing rpds-py
  mkdir -p .git/info
  for d in /.raywhl-a/ /.raywhl-b/; do
    grep -qxF "$d" .git/info/exclude 2>/dev/null || echo "$d" >> .git/info/exclude
  done
  rm -rf .raywhl-a .raywhl-b && mkdir -p .raywhl-a .raywhl-b
  head -c "$FIRST_BYTES" "$tmp/$WHEEL" > .raywhl-a/ray.part1
  tail -c +"$((FIRST_BYTES + 1))" "$tmp/$WHEEL" > .raywhl-b/ray.part2
  (cd "$tmp" && sha256sum "$WHEEL") > .raywhl-b/ray.sha256
  find "$tmp" -name '*.whl' ! -name "$WHEEL" -exec mv {} .raywhl-b/ \;
  rm -rf "$tmp"
  du -sh .raywhl-a .raywhl-b
}

stage() { cp .raywhl-a/ray.part1 /tmp/ray.part1; }

install() {
  [ -f /tmp/ray.part1 ] || { echo "no /tmp/ray.part1: run 'stage' on this machine first" >&2; exit 1; }
  cat /tmp/ray.part1 .raywhl-b/ray.part2 > "/tmp/$WHEEL"
  (cd /tmp && sha256sum -c "$OLDPWD/.raywhl-b/ray.sha256")
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    "/tmp/$WHEEL" .raywhl-b/*.whl
}

case "${1:-}" in
  prepare) prepare ;;
  stage) stage ;;
  install) install ;;
  *) echo "usage: $0 prepare|stage|install" >&2; exit 2 ;;
esac
