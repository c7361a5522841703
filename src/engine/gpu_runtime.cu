// The CUDA backend's host engine: device discovery, and a batch pipeline
// that every GPU scheme shares. A batch is cut into chunks; each chunk is
// staged through pinned host memory and processed on one of two streams, so
// that the copies of one chunk overlap the kernel of the other.
#include <cuda_runtime.h>

#include <string.h>

#include <algorithm>

#include "engine/gpu.h"
#include "hash/sm3_gpu.h"
#include "kuaisuo.h"

namespace ks {
namespace gpu {
namespace {

int to_status(cudaError_t err) {
  if (err == cudaSuccess) return KS_OK;
  if (err == cudaErrorMemoryAllocation) return KS_ERR_NO_MEMORY;
  return KS_ERR_DEVICE;
}

// Grow-only buffers; contents are scratch.
class DeviceBuffer {
 public:
  ~DeviceBuffer() { cudaFree(ptr_); }
  cudaError_t reserve(size_t bytes) {
    if (bytes <= size_) return cudaSuccess;
    cudaFree(ptr_);
    ptr_ = nullptr;
    size_ = 0;
    cudaError_t err = cudaMalloc(&ptr_, bytes);
    if (err == cudaSuccess) size_ = bytes;
    return err;
  }
  uint8_t* get() const { return static_cast<uint8_t*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

class PinnedBuffer {
 public:
  ~PinnedBuffer() { cudaFreeHost(ptr_); }
  cudaError_t reserve(size_t bytes) {
    if (bytes <= size_) return cudaSuccess;
    cudaFreeHost(ptr_);
    ptr_ = nullptr;
    size_ = 0;
    cudaError_t err = cudaMallocHost(&ptr_, bytes);
    if (err == cudaSuccess) size_ = bytes;
    return err;
  }
  uint8_t* get() const { return static_cast<uint8_t*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

// One in-flight chunk: its stream, staging and device buffers, and where its
// results go once the stream is done.
struct Slot {
  cudaStream_t stream = nullptr;
  PinnedBuffer host_in, host_out;
  DeviceBuffer dev_in, dev_out;
  uint8_t* result_dst = nullptr;  // caller memory
  size_t result_bytes = 0;
};

// Limits of one chunk: keeps staging memory bounded for any batch size.
constexpr size_t kChunkMaxItems = size_t(1) << 20;
constexpr size_t kChunkMaxBytes = size_t(64) << 20;

class CudaEngine final : public Engine {
 public:
  explicit CudaEngine(int device) : device_(device) {}
  ~CudaEngine() override {
    cudaSetDevice(device_);
    for (Slot& s : slots_)
      if (s.stream != nullptr) cudaStreamDestroy(s.stream);
  }

  int open() {
    cudaError_t err = cudaSetDevice(device_);
    for (Slot& s : slots_)
      if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking);
    return to_status(err);
  }

  int device() const override { return device_; }

  int sm3_batch(const uint8_t* data, const uint64_t* offsets, size_t count,
                uint8_t* digests) override {
    cudaError_t err = cudaSetDevice(device_);
    size_t next = 0;
    unsigned turn = 0;
    while (err == cudaSuccess && next < count) {
      const size_t n = sm3_chunk_items(offsets, next, count);
      Slot& slot = slots_[turn++ % 2];
      err = finish(slot);
      if (err == cudaSuccess) err = sm3_enqueue(slot, data, offsets + next, n, digests + 32 * next);
      next += n;
    }
    for (Slot& s : slots_) {
      const cudaError_t e = finish(s);
      if (err == cudaSuccess) err = e;
    }
    return to_status(err);
  }

 private:
  // Items from `first` that fit one chunk (at least one, however long).
  static size_t sm3_chunk_items(const uint64_t* offsets, size_t first, size_t count) {
    size_t n = std::min(count - first, kChunkMaxItems);
    const uint64_t base = offsets[first];
    // Largest n with offsets[first + n] - base <= kChunkMaxBytes.
    size_t lo = 1, hi = n;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo + 1) / 2;
      if (offsets[first + mid] - base <= kChunkMaxBytes) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  cudaError_t sm3_enqueue(Slot& slot, const uint8_t* data, const uint64_t* offsets, size_t n,
                          uint8_t* dst) {
    const uint64_t base = offsets[0];
    const size_t bytes = size_t(offsets[n] - base);
    const size_t offsets_bytes = (n + 1) * sizeof(uint64_t);
    const size_t in_bytes = offsets_bytes + bytes;
    cudaError_t err = slot.host_in.reserve(in_bytes);
    if (err == cudaSuccess) err = slot.dev_in.reserve(in_bytes);
    if (err == cudaSuccess) err = slot.host_out.reserve(32 * n);
    if (err == cudaSuccess) err = slot.dev_out.reserve(32 * n);
    if (err != cudaSuccess) return err;
    // Offsets rebased to the chunk, then the message bytes.
    uint64_t* staged_offsets = reinterpret_cast<uint64_t*>(slot.host_in.get());
    for (size_t i = 0; i <= n; ++i) staged_offsets[i] = offsets[i] - base;
    if (bytes > 0) memcpy(slot.host_in.get() + offsets_bytes, data + base, bytes);
    err = cudaMemcpyAsync(slot.dev_in.get(), slot.host_in.get(), in_bytes,
                          cudaMemcpyHostToDevice, slot.stream);
    if (err == cudaSuccess)
      err = sm3::launch_digest_batch(slot.dev_in.get() + offsets_bytes,
                                     reinterpret_cast<const uint64_t*>(slot.dev_in.get()), n,
                                     slot.dev_out.get(), slot.stream);
    if (err == cudaSuccess)
      err = cudaMemcpyAsync(slot.host_out.get(), slot.dev_out.get(), 32 * n,
                            cudaMemcpyDeviceToHost, slot.stream);
    slot.result_dst = dst;
    slot.result_bytes = 32 * n;
    return err;
  }

  // Waits for the slot's chunk and hands its results to the caller.
  static cudaError_t finish(Slot& slot) {
    if (slot.result_dst == nullptr) return cudaSuccess;
    const cudaError_t err = cudaStreamSynchronize(slot.stream);
    if (err == cudaSuccess) memcpy(slot.result_dst, slot.host_out.get(), slot.result_bytes);
    slot.result_dst = nullptr;
    return err;
  }

  const int device_;
  Slot slots_[2];
};

}  // namespace

bool built() { return true; }

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

bool device_info(int device, DeviceInfo* info) {
  cudaDeviceProp prop;
  if (device < 0 || device >= device_count()) return false;
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) return false;
  info->name = prop.name;
  info->cc_major = prop.major;
  info->cc_minor = prop.minor;
  info->multiprocessors = prop.multiProcessorCount;
  info->global_mem_bytes = prop.totalGlobalMem;
  info->l2_bytes = prop.l2CacheSize;
  cudaDeviceGetAttribute(&info->clock_khz, cudaDevAttrClockRate, device);
  return true;
}

std::unique_ptr<Engine> open_engine(int device, int* status) {
  if (device < 0 || device >= device_count()) {
    *status = KS_ERR_BACKEND_UNAVAILABLE;
    return nullptr;
  }
  auto engine = std::make_unique<CudaEngine>(device);
  *status = engine->open();
  if (*status != KS_OK) return nullptr;
  return engine;
}

}  // namespace gpu
}  // namespace ks
