// The CUDA backend as the rest of the library sees it. Implemented in
// gpu_runtime.cu when the build has CUDA, and by gpu_absent.cc otherwise
// (every entry point then reports that no GPU backend exists).
#ifndef KS_ENGINE_GPU_H_
#define KS_ENGINE_GPU_H_

#include <stddef.h>
#include <stdint.h>

#include <memory>
#include <string>

namespace ks {
class ThreadPool;
namespace sm2 {
struct PrivateKey;
}
namespace gpu {

bool built();
// Devices the CUDA runtime sees; 0 without a driver or device.
int device_count();

// ks_host_alloc / ks_host_free: page-locked memory when a device is there
// (batches in it skip the engine's staging copies), ordinary otherwise.
int host_alloc(size_t bytes, void** out);
void host_free(void* p);

struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  size_t global_mem_bytes = 0;
  int l2_bytes = 0;
  int clock_khz = 0;
};
bool device_info(int device, DeviceInfo* info);

// Per-context GPU state: the device, a stream and reusable buffers. Not
// shared between threads; the context serialises access.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual int device() const = 0;
  // SM3 of count messages (data, offsets as in ks_sm3_batch, offsets already
  // validated). Returns a ks_status.
  virtual int sm3_batch(const uint8_t* data, const uint64_t* offsets, size_t count,
                        uint8_t* digests) = 0;

  // SM2 (engine/gpu_sm2_jobs.cuh). Private keys are drawn on the device;
  // status[i] holds ks::sm2::Error values; items the device could not use
  // (kBadPrivateKey for keygen, kBadNonce for sign) are left to the caller
  // to redo on the CPU. Each returns a ks_status for the call itself.
  virtual int sm2_keygen(size_t count, uint8_t* priv, uint8_t* pub, int* status) = 0;
  // One prepared key for the batch, or null with per_item_keys (32-byte d
  // each, already checked to be in [1, n-2]).
  virtual int sm2_sign_digest(const sm2::PrivateKey* key, const uint8_t* per_item_keys,
                              const uint8_t* digests, size_t count, uint8_t* sigs,
                              int* status) = 0;
  // Messages (flat layout, offsets validated) under one key: e = SM3(Z_A ||
  // M) and the signature on the device.
  virtual int sm2_sign_messages(const sm2::PrivateKey& key, const uint8_t za[32],
                                const uint8_t* data, const uint64_t* offsets, size_t count,
                                uint8_t* sigs, int* status) = 0;
  // Public keys 04||x||y (65 bytes each, checked on the device).
  virtual int sm2_verify_digest(const uint8_t* pubs, const uint8_t* digests,
                                const uint8_t* sigs, size_t count, int* status) = 0;
  // Messages under per-item keys and one ID: za_prefix is ENTL || ID || a
  // || b || x_G || y_G (sm2::za_prefix); Z_A, e and the verification run on
  // the device.
  virtual int sm2_verify_messages(const uint8_t* pubs, const uint8_t* za_prefix,
                                  size_t za_prefix_len, const uint8_t* data,
                                  const uint64_t* offsets, size_t count, const uint8_t* sigs,
                                  int* status) = 0;
};

// Opens device `device`; on failure returns null and sets *status. The
// engine uses `pool` (the context's CPU threads, which outlive it) to stage
// and deliver large chunks.
std::unique_ptr<Engine> open_engine(int device, ThreadPool* pool, int* status);

}  // namespace gpu
}  // namespace ks

#endif  // KS_ENGINE_GPU_H_
