// The CUDA side of gpu::Engine: the device and the Pipeline every scheme's
// jobs run on. Schemes reach it from their batch functions with
// CudaEngine::of(engine); what they need at open time (device tables)
// they register as warm-ups, so that it stays out of the first batch.
#ifndef KS_ENGINE_GPU_ENGINE_CUH_
#define KS_ENGINE_GPU_ENGINE_CUH_

#include <cuda_runtime.h>

#include "core/chacha20_gpu.h"
#include "core/secure.h"
#include "gpu/gpu.h"
#include "gpu/gpu_pipeline.cuh"
#include "kuaisuo/common.h"

namespace ks {
namespace gpu {

class CudaEngine final : public Engine {
 public:
  CudaEngine(int device, ThreadPool* pool);
  int open();  // a ks_status
  int device() const override { return device_; }
  // Runs job over count items on this engine's device; a ks_status.
  int run(const ChunkJob& job, size_t count);

  // Every Engine of a CUDA build is a CudaEngine.
  static CudaEngine& of(Engine& e) { return static_cast<CudaEngine&>(e); }

 private:
  const int device_;
  Pipeline pipeline_;
};

// A ks_status for a CUDA error.
int to_status(cudaError_t err);

// A DRBG key for one batch call (core/chacha20_gpu.h), fresh from getrandom.
bool fresh_drbg_key(chacha20::Key* key);

// Whether work queued on `stream` now would be captured into a CUDA graph
// (or the runtime cannot say).
bool stream_capturing(cudaStream_t stream);

// The DRBG key of one call on device memory that draws secrets (keys,
// nonces) on its caller's stream: fresh from getrandom, wiped with the
// object. status(): KS_OK; KS_ERR_RANDOM where getrandom failed;
// KS_ERR_UNSUPPORTED where the stream is being captured into a CUDA graph,
// since the key is a kernel parameter and every replay of the graph would
// draw the same keys and nonces again (two SM2 signatures under one nonce
// give away the private key).
class StreamDrbg {
 public:
  explicit StreamDrbg(cudaStream_t stream)
      : status_(stream_capturing(stream) ? KS_ERR_UNSUPPORTED
                : fresh_drbg_key(&key_)  ? KS_OK
                                         : KS_ERR_RANDOM) {}
  ~StreamDrbg() { secure_wipe(&key_, sizeof key_); }
  StreamDrbg(const StreamDrbg&) = delete;
  StreamDrbg& operator=(const StreamDrbg&) = delete;
  int status() const { return status_; }
  const chacha20::Key& key() const { return key_; }

 private:
  chacha20::Key key_ = {};  // before status_: its initialiser fills it
  int status_;
};

// Runs a job that draws secrets on the device under a fresh DRBG key:
// make(key) builds the job; the key is wiped afterwards. A ks_status.
template <class Make>
int run_with_drbg(Engine& engine, size_t count, const Make& make) {
  chacha20::Key drbg;
  if (!fresh_drbg_key(&drbg)) return KS_ERR_RANDOM;
  const int rc = CudaEngine::of(engine).run(make(drbg), count);
  secure_wipe(&drbg, sizeof drbg);
  return rc;
}

// Work done on the device of every engine that opens (e.g. building a
// scheme's tables in device memory), declared at namespace scope by the
// scheme's CUDA file: `static const gpu::WarmUp kTables(&init_tables);`.
struct WarmUp {
  explicit WarmUp(cudaError_t (*fn)());
};

}  // namespace gpu
}  // namespace ks

#endif  // KS_ENGINE_GPU_ENGINE_CUH_
