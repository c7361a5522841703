// What every scheme's kernel launchers share, written once: grid sizes,
// the device's SMs and resident blocks, the items a thread takes where a
// thread's items share work, device memory freed on scope exit, and the
// synchronous launch behind the host-memory wrappers (src/testing/ and the
// one-buffer GCM of sm4/gpu/sm4_gpu.cu). Host code; include from .cu files.
#ifndef KS_ENGINE_LAUNCH_CUH_
#define KS_ENGINE_LAUNCH_CUH_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <atomic>

#include "gpu/gpu.h"

namespace ks {
namespace gpu {

// --- Stream-ordered scratch -------------------------------------------------------
// Device scratch of a call queued on a caller's stream (GCM's GHASH
// partial sums, a verdict), from the library's own memory pool on the
// current device, freed with cudaFreeAsync. The pool keeps what it holds
// across synchronisations: the device's default pool returns freed memory
// at each one (release threshold 0), and a GCM call on device memory paid
// ~45 us to map it again.
cudaError_t scratch_alloc_async(void** p, size_t bytes, cudaStream_t stream);

// One call's stream-ordered scratch holding secrets (round keys, a signing
// key): zeroed and freed on the stream when the object goes, after the
// work queued on it, whatever path the call took.
class StreamScratch {
 public:
  explicit StreamScratch(cudaStream_t stream) : stream_(stream) {}
  ~StreamScratch() {
    if (p_ == nullptr) return;
    cudaMemsetAsync(p_, 0, bytes_, stream_);
    cudaFreeAsync(p_, stream_);
  }
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  cudaError_t allocate(size_t bytes) {
    bytes_ = bytes;
    return scratch_alloc_async(reinterpret_cast<void**>(&p_), bytes, stream_);
  }
  uint8_t* at(size_t offset) const { return p_ + offset; }
  // Copies `value` (a host secret) to at(offset) on the stream as a kernel
  // parameter: no pageable staging copy that outlives the call. The
  // caller wipes its own copy.
  template <class T>
  cudaError_t store(size_t offset, const T& value);

 private:
  cudaStream_t stream_;
  uint8_t* p_ = nullptr;
  size_t bytes_ = 0;
};

template <class T>
__global__ void store_value_kernel(const T value, uint8_t* dst) {
  const auto* src = reinterpret_cast<const uint8_t*>(&value);
  for (unsigned i = threadIdx.x; i < sizeof(T); i += blockDim.x) dst[i] = src[i];
}

template <class T>
cudaError_t StreamScratch::store(size_t offset, const T& value) {
  store_value_kernel<T><<<1, 128, 0, stream_>>>(value, p_ + offset);
  return cudaGetLastError();
}

// --- Offsets of device batches ---------------------------------------------------
// *bad = 0, then nonzero where offsets[0 .. count] do not ascend within
// [0, limit] (an item's range descends or passes the end), queued on
// stream. For batches whose outputs are laid out from the offsets (SM2
// encryption's slots), where one bad range could make two good items'
// outputs overlap: such a batch fails as a whole.
cudaError_t check_offsets_ascend(const uint64_t* offsets, size_t count, uint64_t limit,
                                 uint32_t* bad, cudaStream_t stream);

// --- Statuses of device batches ---------------------------------------------------
// Per-item outputs a failed item must not leave behind (a signature, a key
// pair): item i's out[k] + i * item_bytes[k] is zeroed where its mapped
// status is not KS_OK. Unused slots are null.
struct FailedItemOutputs {
  uint8_t* out[2] = {nullptr, nullptr};
  size_t item_bytes[2] = {0, 0};
};

// status[i] = map's ks_status for the kernel code in status[i], i < count,
// queued on stream (gpu.h's StatusMap); where `overrides` is given, a
// nonzero overrides[i] (a ks_status an earlier kernel found, e.g. a bad
// offsets range) is taken instead; `clear` names outputs zeroed for the
// items that failed.
cudaError_t map_statuses(int* status, size_t count, const StatusMap& map, cudaStream_t stream,
                         const int* overrides = nullptr, const FailedItemOutputs& clear = {});

// --- Once per device -------------------------------------------------------------
// Runs a setup step (a kernel attribute, which outlives the call) once on
// each device, the first time a call there succeeds; threads racing on
// the first call may each run it, which such steps allow.
class PerDeviceOnce {
 public:
  template <class Step>
  cudaError_t run(const Step& step) {
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess) return e;
    if (device < 0 || device >= kMaxDevices) return step();
    if (done_[device].load(std::memory_order_acquire)) return cudaSuccess;
    e = step();
    if (e == cudaSuccess) done_[device].store(true, std::memory_order_release);
    return e;
  }

 private:
  static constexpr int kMaxDevices = 64;
  std::atomic<bool> done_[kMaxDevices] = {};
};

// --- Grid sizes ----------------------------------------------------------------
// Blocks of `threads` threads for one thread per item.
inline unsigned blocks_for(size_t count, unsigned threads) {
  return unsigned((count + threads - 1) / threads);
}

// SMs of the current device (1 if it cannot be asked).
inline int sm_count() {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return 1;
  return sms;
}

// Blocks for `units` work units, per_block of them a block, capped at
// per_sm blocks on every SM: grid-stride kernels loop over the rest.
inline unsigned grid_for(size_t units, unsigned per_block, unsigned per_sm) {
  const size_t need = (units + per_block - 1) / per_block;
  const size_t cap = size_t(sm_count()) * per_sm;
  return unsigned(need < cap ? need : cap);
}

// --- Items per thread --------------------------------------------------------------
// Where a kernel's blocks run at once on the current device: its SMs and
// the blocks of one SM (0 and 0 where the runtime cannot say).
struct Residency {
  int sms = 0;
  int blocks_per_sm = 0;
};

// The current device's SMs with blocks_per_sm blocks each.
inline Residency residency(int blocks_per_sm) {
  int device = 0;
  Residency r;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&r.sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return Residency();
  r.blocks_per_sm = blocks_per_sm;
  return r;
}

// The same with the occupancy of `kernel` in blocks of `threads` (0
// blocks an SM where it is not known).
template <class Kernel>
Residency residency(Kernel* kernel, unsigned threads) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, int(threads), 0) !=
      cudaSuccess)
    blocks = 0;
  return residency(blocks);
}

// Items a thread takes where the items of a thread share one inversion
// (Montgomery's trick): more amortise it better, but leave a small batch
// too few threads to fill the SMs. Two rules, each measured on its
// kernels:
//
// By fill: max_items once the batch fills every resident thread (r's
// blocks of `threads`, at least one block an SM) max_items times over, 2
// once it fills them once, else 1 (Curve25519:
// curve25519/gpu/curve25519_gpu_launch.cuh).
inline int items_per_thread(size_t count, const Residency& r, unsigned threads, int max_items) {
  if (r.sms == 0) return 1;
  const size_t resident = size_t(r.sms) * size_t(std::max(r.blocks_per_sm, 1)) * threads;
  return count >= size_t(max_items) * resident ? max_items : count >= resident ? 2 : 1;
}

// By modelled time: M in {8, 4, 2, 1} minimising waves(M) x M x
// item_cost[M], item_cost[M] being the time an item takes at full
// occupancy with M items a thread, and waves(M) counting, for the busiest
// SM (b = ceil(blocks / SMs) blocks against R resident slots), floor(b /
// R) full waves plus a last partial one of b mod R blocks costing
// max(b mod R, R / 2) / R: blocks sharing an SM split its issue slots,
// but one or two alone do not run proportionally faster (SM2:
// sm2/gpu/sm2_gpu.cu). 8 where the residency is not known.
inline int items_per_thread(size_t count, const Residency& r, unsigned threads,
                            const double (&item_cost)[9]) {
  if (r.sms == 0 || r.blocks_per_sm == 0) return 8;
  int best = 8;
  double best_time = 0;
  for (int m = 8; m >= 1; m /= 2) {
    const size_t blocks = (count + size_t(threads) * m - 1) / (size_t(threads) * m);
    const size_t per_sm = (blocks + r.sms - 1) / r.sms;
    const size_t full = per_sm / r.blocks_per_sm, rest = per_sm % r.blocks_per_sm;
    const double waves =
        double(full) +
        (rest == 0 ? 0.0 : std::max(double(rest), r.blocks_per_sm / 2.0) / r.blocks_per_sm);
    const double time = waves * m * item_cost[m];
    if (m == 8 || time < best_time) {
      best = m;
      best_time = time;
    }
  }
  return best;
}

// --- Device memory ----------------------------------------------------------------
// count T's of device memory (at least one byte), copied from host `src`
// when it is given, freed on scope exit; error() is the allocation's or
// the copy's. Wipe::kYes zeroes it first (secrets: keys, plaintext),
// waiting for the device.
enum class Wipe { kNo, kYes };

template <class T = uint8_t>
class DeviceArray {
 public:
  explicit DeviceArray(size_t count, const T* src = nullptr, Wipe wipe = Wipe::kNo)
      : bytes_(count * sizeof(T)), wipe_(wipe) {
    err_ = cudaMalloc(&ptr_, bytes_ > 0 ? bytes_ : 1);
    if (err_ == cudaSuccess && src != nullptr && bytes_ > 0)
      err_ = cudaMemcpy(ptr_, src, bytes_, cudaMemcpyHostToDevice);
  }
  ~DeviceArray() {
    if (ptr_ == nullptr) return;
    if (wipe_ == Wipe::kYes) {
      cudaMemset(ptr_, 0, bytes_);
      cudaDeviceSynchronize();
    }
    cudaFree(ptr_);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  T* get() const { return static_cast<T*>(ptr_); }
  cudaError_t error() const { return err_; }
  // The first `count` T's (all by default) to host memory.
  cudaError_t copy_out(T* dst, size_t count = SIZE_MAX) const {
    const size_t bytes = std::min(bytes_, count == SIZE_MAX ? bytes_ : count * sizeof(T));
    return bytes == 0 ? cudaSuccess : cudaMemcpy(dst, ptr_, bytes, cudaMemcpyDeviceToHost);
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_;
  Wipe wipe_;
  cudaError_t err_;
};

// A host input's device copy and room for the output, one buffer when
// in == out (the kernel then runs in place).
class DeviceInOut {
 public:
  DeviceInOut(const uint8_t* in, const uint8_t* out, size_t bytes)
      : in_(bytes, in), out_(in == out ? 0 : bytes), in_place_(in == out) {}
  uint8_t* in() const { return in_.get(); }
  uint8_t* out() const { return in_place_ ? in_.get() : out_.get(); }
  cudaError_t error() const { return in_.error() != cudaSuccess ? in_.error() : out_.error(); }

 private:
  DeviceArray<uint8_t> in_, out_;
  bool in_place_;
};

// The first error of several device arrays (anything with error()), or
// cudaSuccess.
inline cudaError_t first_error() { return cudaSuccess; }
template <class First, class... Rest>
cudaError_t first_error(const First& first, const Rest&... rest) {
  return first.error() != cudaSuccess ? first.error() : first_error(rest...);
}

// --- Synchronous launches ----------------------------------------------------------
// launch() (a cudaError_t) on the current device, then a wait for the
// device: the first error of the two, as an int (0 on success), after the
// first error of `buffers` where one failed.
template <class Launch, class... Buffers>
int run_sync(const Launch& launch, const Buffers&... buffers) {
  cudaError_t err = first_error(buffers...);
  if (err == cudaSuccess) err = launch();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  return int(err);
}

}  // namespace gpu
}  // namespace ks

#endif  // KS_ENGINE_LAUNCH_CUH_
