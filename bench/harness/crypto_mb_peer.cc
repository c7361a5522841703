#include "crypto_mb_peer.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

namespace ks {
namespace bench {

namespace {
// crypto_mb's mbxVersion, as mbx_getversion returns it.
struct MbxVersion {
  int major, minor, patch;
  char target_cpu[4];
  const char *name, *build_date, *str_version;
};
constexpr int kAlgoSm4 = 10;         // MBX_ALGO_SM4 in crypto_mb/cpu_features.h
constexpr uint64_t kWidthMb16 = 16;  // MBX_WIDTH_MB16
const char kHowToBuild[] =
    " (build crypto_mb from github.com/intel/cryptography-primitives: cmake -S "
    "sources/ippcp/crypto_mb -B /tmp/cryptomb -DARCH=intel64 -DCMAKE_BUILD_TYPE=Release && "
    "make -C /tmp/cryptomb crypto_mb, then KS_CRYPTO_MB=/tmp/cryptomb/bin/libcrypto_mb.so)";
}  // namespace

const CryptoMbPeer& CryptoMbPeer::get() {
  static const CryptoMbPeer peer;
  return peer;
}

CryptoMbPeer::CryptoMbPeer() {
  const char* path = getenv("KS_CRYPTO_MB");
  if (path == nullptr || *path == '\0') {
    error_ = std::string("KS_CRYPTO_MB is not set") + kHowToBuild;
    return;
  }
  lib_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib_ == nullptr) {
    const char* why = dlerror();
    error_ =
        std::string("cannot load KS_CRYPTO_MB=") + path + ": " + (why ? why : "?") + kHowToBuild;
    return;
  }
  auto sym = [&](const char* name) {
    void* p = dlsym(lib_, name);
    if (p == nullptr && error_.empty()) error_ = std::string(path) + " lacks " + name;
    return p;
  };
  auto version = reinterpret_cast<const MbxVersion* (*)()>(sym("mbx_getversion"));
  auto algo_info = reinterpret_cast<uint64_t (*)(int)>(sym("mbx_get_algo_info"));
  set_key_ = reinterpret_cast<decltype(set_key_)>(sym("mbx_sm4_set_key_mb16"));
  cbc_encrypt_ = reinterpret_cast<decltype(cbc_encrypt_)>(sym("mbx_sm4_encrypt_cbc_mb16"));
  if (!error_.empty()) return;
  const MbxVersion* v = version();
  if (v != nullptr && v->str_version != nullptr) version_ = v->str_version;
  // Without AVX-512 (IFMA, VBMI2) every SM4 call would fail with an
  // unsupported-ISA status; say so once instead.
  if ((algo_info(kAlgoSm4) & kWidthMb16) == 0)
    error_ = "crypto_mb has no 16-buffer SM4 on this CPU (it needs AVX-512 with IFMA and VBMI2)";
}

bool CryptoMbPeer::sm4_set_keys(const uint8_t keys[16 * kLanes], Sm4Schedule* s) const {
  const uint8_t* lane_keys[kLanes];
  for (size_t i = 0; i < kLanes; ++i) lane_keys[i] = keys + 16 * i;
  return ok() && set_key_(s->rk, lane_keys) == 0;
}

bool CryptoMbPeer::sm4_cbc_encrypt16(const uint8_t* keys, bool with_key_schedule, Sm4Schedule* s,
                                     const uint8_t ivs[16 * kLanes],
                                     const uint8_t* const in[kLanes], size_t len,
                                     uint8_t* const out[kLanes]) const {
  if (!ok() || len % 16 != 0 || len > size_t(INT_MAX)) return false;
  if (with_key_schedule && (keys == nullptr || !sm4_set_keys(keys, s))) return false;
  int lens[kLanes];
  const uint8_t* lane_ivs[kLanes];
  for (size_t i = 0; i < kLanes; ++i) {
    lens[i] = int(len);
    lane_ivs[i] = ivs + 16 * i;
  }
  return cbc_encrypt_(out, in, lens, s->rk, lane_ivs) == 0;
}

}  // namespace bench
}  // namespace ks
