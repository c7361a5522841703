// ks_ctx: the backend choice, the CPU worker pool and, when a GPU is in use,
// its engine. Batch entry points ask the context where to run.
#ifndef KS_ENGINE_CONTEXT_H_
#define KS_ENGINE_CONTEXT_H_

#include <memory>
#include <mutex>

#include "core/thread_pool.h"
#include "gpu/gpu.h"
#include "kuaisuo/common.h"

struct ks_ctx {
  ks_ctx(ks_backend requested, unsigned threads) : requested(requested), pool(threads) {}

  // Whether a batch of `items` runs on the GPU: always for GPU contexts;
  // for AUTO when a GPU is open and the batch is at least `auto_gpu_min`
  // (the crossovers of api/auto_gpu.h).
  bool use_gpu(size_t items, size_t auto_gpu_min) const {
    if (gpu == nullptr) return false;
    return requested == KS_BACKEND_GPU || items >= auto_gpu_min;
  }

  const ks_backend requested;
  ks::ThreadPool pool;
  std::unique_ptr<ks::gpu::Engine> gpu;  // null on CPU contexts
  std::mutex gpu_mutex;                  // one batch at a time on the engine
  uint32_t gpu_flags = 0;                // ks_ctx_config.gpu_flags
  void* stream = nullptr;                // device-memory calls' cudaStream_t (ks_ctx_set_stream)
};

#endif  // KS_ENGINE_CONTEXT_H_
