#!/usr/bin/env bash
# Copies kuaisuo-grpcd and kuaisuo-grpc-load with the shared libraries they
# need beyond a stock Ubuntu 24.04 / Debian 12 (gRPC, protobuf, abseil,
# re2, c-ares, upb) into OUT/{bin,lib}, for a machine without gRPC C++ and
# without a package registry (the lent GPU machines: pass OUT as a carried
# path). libkuaisuo is left out on purpose: the binaries use only the C
# API, so there they run against that machine's own (CUDA) build of it:
#   LD_LIBRARY_PATH=build/gpu:OUT/lib OUT/bin/kuaisuo-grpcd ...
# Usage: bench/grpcd_bundle.sh BUILD_DIR OUT
set -euo pipefail
build=$1 out=$2
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
for exe in kuaisuo-grpcd kuaisuo-grpc-load; do
  cp "$build/bin/$exe" "$out/bin/"
  ldd "$build/bin/$exe" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case $(basename "$lib") in
      libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|ld-linux*|libpthread.so.*|libdl.so.*|\
      librt.so.*|libkuaisuo.so*|libssl.so.*|libcrypto.so.*|libz.so.*) ;;
      *) cp -L "$lib" "$out/lib/" ;;
    esac
  done
done
du -sh "$out"
