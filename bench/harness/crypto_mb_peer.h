// Intel's crypto_mb ([CRYPTO-MB]: the multi-buffer library of the Intel Cryptography
// Primitives Library, formerly IPP Cryptography), loaded at run time from
// the path in KS_CRYPTO_MB, as the peer for SM4 over 16 buffers at once.
// It is never linked: it is not packaged anywhere, so it is built by hand
// from source when a comparison is wanted.
#ifndef KS_BENCH_CRYPTO_MB_PEER_H_
#define KS_BENCH_CRYPTO_MB_PEER_H_

#include <stddef.h>
#include <stdint.h>

#include <string>

namespace ks {
namespace bench {

class CryptoMbPeer {
 public:
  static constexpr size_t kLanes = 16;  // crypto_mb's SM4 works on 16 buffers

  // Loads the library once; error() says why it cannot be used, "" if it can.
  static const CryptoMbPeer& get();
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // mbx_getversion's string, which names the code path: "crypto_mb (k1) (ver: 1.0.0 ...".
  const std::string& version() const { return version_; }

  // The round keys of 16 SM4 keys in crypto_mb's layout (mbx_sm4_key_schedule:
  // round r of lane i at rk[r][i]), 2 KiB. Kept by the caller so that one
  // thread's schedules are neither allocated per call nor shared.
  struct Sm4Schedule {
    alignas(64) uint32_t rk[32][kLanes];
  };

  // Makes *s from keys[16 * i .. 16 * i + 15], the key of lane i.
  bool sm4_set_keys(const uint8_t keys[16 * kLanes], Sm4Schedule* s) const;

  // 16 independent SM4-CBC encryptions without padding: lane i encrypts
  // in[i] (len bytes, a multiple of 16, the same for every lane) into
  // out[i] from the IV ivs[16 * i ..]. With with_key_schedule the call
  // first makes *s from keys (what a request with fresh keys pays); without
  // it *s is reused as sm4_set_keys left it and keys may be null. False on
  // any lane's non-success status.
  bool sm4_cbc_encrypt16(const uint8_t* keys, bool with_key_schedule, Sm4Schedule* s,
                         const uint8_t ivs[16 * kLanes], const uint8_t* const in[kLanes],
                         size_t len, uint8_t* const out[kLanes]) const;

 private:
  CryptoMbPeer();

  std::string error_, version_;
  void* lib_ = nullptr;
  // crypto_mb's entry points; the status (mbx_status16) holds 4 bits a lane,
  // all zero when every lane succeeded.
  uint64_t (*set_key_)(void* sched, const uint8_t* const* keys) = nullptr;
  uint64_t (*cbc_encrypt_)(uint8_t* const* out, const uint8_t* const* in, const int* len,
                           const void* sched, const uint8_t* const* iv) = nullptr;
};

}  // namespace bench
}  // namespace ks

#endif  // KS_BENCH_CRYPTO_MB_PEER_H_
