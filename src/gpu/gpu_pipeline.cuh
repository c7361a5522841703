// The batch pipeline every GPU scheme shares. A batch is cut into chunks;
// each chunk's inputs are staged through pinned host memory, copied, run
// and copied back on one of kSlots non-default streams, so that transfers
// overlap kernels and the host stages and delivers chunks while up to
// kSlots - 1 others are on the device. A ChunkJob says how to stage, launch
// and deliver one kind of work.
#ifndef KS_ENGINE_GPU_PIPELINE_CUH_
#define KS_ENGINE_GPU_PIPELINE_CUH_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <functional>

namespace ks {
class ThreadPool;
namespace gpu {

// Bounds of one chunk: staging memory stays bounded for any batch size, and
// a large batch makes several chunks so that the two streams overlap.
constexpr size_t kChunkMaxItems = size_t(1) << 18;
constexpr size_t kChunkMaxBytes = size_t(32) << 20;

// memcpy between caller and pinned memory, spread over the context's CPU
// threads when large: one core's copy bandwidth would otherwise cap the
// pipeline well below what the bus and the kernels sustain.
class Copier {
 public:
  explicit Copier(ThreadPool* pool) : pool_(pool) {}
  void operator()(void* dst, const void* src, size_t bytes) const;
  // secure_wipe, spread over the threads the same way.
  void wipe(void* p, size_t bytes) const;
  // fn(begin, end) over [0, n) on the threads (ThreadPool::parallel_for:
  // ranges of min_items or more but the last; one when n <= min_items):
  // a chunk's per-item staging.
  void for_ranges(size_t n, size_t min_items,
                  const std::function<void(size_t, size_t)>& fn) const;

 private:
  ThreadPool* pool_;
};

class ChunkJob {
 public:
  virtual ~ChunkJob() = default;
  // Items from `first` (of `remaining`) that make one chunk; at least 1.
  virtual size_t chunk_items(size_t first, size_t remaining) const = 0;
  // Device bytes for the chunk's inputs; the first staged_bytes of them are
  // copied from staging, the rest is device scratch.
  virtual size_t in_bytes(size_t first, size_t n) const = 0;
  virtual size_t staged_bytes(size_t first, size_t n) const { return in_bytes(first, n); }
  // Result bytes of items [first, first + n).
  virtual size_t out_bytes(size_t first, size_t n) const = 0;
  // Writes the inputs of items [first, first + n) to pinned staging memory.
  virtual void stage(size_t first, size_t n, uint8_t* staging, const Copier& copy) const = 0;
  // Enqueues the work of those items on `stream`; dev_in holds what stage
  // wrote, results go to dev_out.
  virtual cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                             cudaStream_t stream) const = 0;
  // Leading staged bytes that hold secrets (private keys, plaintexts): the
  // pipeline wipes them from pinned memory before its run returns.
  virtual size_t secret_staged_bytes(size_t first, size_t n) const { return 0; }
  // Leading result bytes that hold secrets (private keys, shared secrets,
  // plaintexts): wiped from pinned memory the same way.
  virtual size_t secret_result_bytes(size_t first, size_t n) const { return 0; }
  // Hands the results (pinned host memory, out_bytes(first, n)) to the caller.
  virtual void deliver(size_t first, size_t n, const uint8_t* results,
                       const Copier& copy) const = 0;
  // Enqueue the chunk's copies: by default staging -> dev_in whole, and
  // dev_out -> results whole. Jobs whose caller buffers are pinned copy
  // those parts directly instead (FixedSizeJob).
  virtual cudaError_t copy_in(size_t first, size_t n, const uint8_t* staging, uint8_t* dev_in,
                              cudaStream_t stream) const {
    return cudaMemcpyAsync(dev_in, staging, staged_bytes(first, n), cudaMemcpyHostToDevice,
                           stream);
  }
  virtual cudaError_t copy_out(size_t first, size_t n, const uint8_t* dev_out, uint8_t* results,
                               cudaStream_t stream) const {
    return cudaMemcpyAsync(results, dev_out, out_bytes(first, n), cudaMemcpyDeviceToHost,
                           stream);
  }
};

// True if [p, p + 1) is page-locked host memory the device can copy to and
// from directly (ks_host_alloc, cudaHostAlloc, cudaHostRegister).
bool is_pinned(const void* p);

// Grow-only scratch buffers.
class DeviceBuffer {
 public:
  ~DeviceBuffer() { cudaFree(ptr_); }
  cudaError_t reserve(size_t bytes);
  uint8_t* get() const { return static_cast<uint8_t*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

class PinnedBuffer {
 public:
  ~PinnedBuffer() { cudaFreeHost(ptr_); }
  cudaError_t reserve(size_t bytes);  // frees what it held if it must grow
  uint8_t* get() const { return static_cast<uint8_t*>(ptr_); }
  size_t size() const { return size_; }

 private:
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

class Pipeline {
 public:
  explicit Pipeline(ThreadPool* pool) : copy_(pool) {}
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  cudaError_t open();  // on the current device
  // Runs job over count items; returns the first error.
  cudaError_t run(const ChunkJob& job, size_t count);

 private:
  struct Slot {
    cudaStream_t stream = nullptr;
    PinnedBuffer host_in, host_out;
    DeviceBuffer dev_in, dev_out;
    const ChunkJob* pending = nullptr;  // results not yet delivered
    bool enqueued_ok = false;
    size_t first = 0, n = 0;
    // Leading bytes of host_in and host_out that held secrets in this run.
    size_t secret_in = 0, secret_out = 0;
  };
  cudaError_t enqueue(Slot& slot, const ChunkJob& job, size_t first, size_t n);
  cudaError_t finish(Slot& slot);
  // Wipes what slot's pinned buffers held of secrets. Once per run, not
  // once per chunk: the next chunk's staging overwrites the last, and a
  // wipe per chunk was about a tenth of SM2 encryption's host memory
  // traffic (the gain end to end was within noise: design/0005).
  void wipe_secrets(Slot& slot);

  // With two slots the host had to deliver chunk c - 2 and stage chunk c
  // in the time between chunk c - 2's copy back and the end of chunk c -
  // 1's kernel, which it could not: end to end ran at 45% of kernel speed
  // on an H100. Four give it a whole chunk's kernel time.
  static constexpr int kSlots = 4;
  Copier copy_;
  Slot slots_[kSlots];
};

// Host seconds that every Pipeline of the process has spent, by part, since
// it started: staging chunks, waiting for their streams, delivering and
// wiping. A benchmark reads the difference around its calls to say what
// bounds a batch end to end besides the kernels (sm2_gpu_bench's *_host_*
// rows).
struct PipelineHostTimes {
  double stage = 0, wait = 0, deliver = 0, wipe = 0;
};
PipelineHostTimes pipeline_host_times();

}  // namespace gpu
}  // namespace ks

#endif  // KS_ENGINE_GPU_PIPELINE_CUH_
