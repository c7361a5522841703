// The CUDA backend's host engine: device discovery, the Pipeline that every
// GPU scheme shares (gpu_pipeline.cuh) and the engine that runs the
// schemes' jobs on it (gpu_engine.cuh). Nothing scheme-specific.
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>

#include <vector>

#include "core/os_random.h"
#include "core/secure.h"
#include "core/stream_copy.h"
#include "core/thread_pool.h"
#include "gpu/gpu.h"
#include "gpu/launch.cuh"
#include "gpu/gpu_engine.cuh"
#include "gpu/gpu_pipeline.cuh"
#include "kuaisuo/common.h"

namespace ks {
namespace gpu {
namespace {

cudaError_t grow(void** ptr, size_t* size, size_t bytes, bool pinned) {
  if (bytes <= *size) return cudaSuccess;
  if (pinned) cudaFreeHost(*ptr); else cudaFree(*ptr);
  *ptr = nullptr;
  *size = 0;
  const cudaError_t err = pinned ? cudaMallocHost(ptr, bytes) : cudaMalloc(ptr, bytes);
  if (err == cudaSuccess) *size = bytes;
  return err;
}

std::vector<cudaError_t (*)()>& warm_ups() {
  static std::vector<cudaError_t (*)()> fns;
  return fns;
}

}  // namespace

int to_status(cudaError_t err) {
  if (err == cudaSuccess) return KS_OK;
  if (err == cudaErrorMemoryAllocation) return KS_ERR_NO_MEMORY;
  return KS_ERR_DEVICE;
}

bool fresh_drbg_key(chacha20::Key* key) {
  return os_random(reinterpret_cast<uint8_t*>(key->words), sizeof key->words);
}

WarmUp::WarmUp(cudaError_t (*fn)()) { warm_ups().push_back(fn); }

CudaEngine::CudaEngine(int device, ThreadPool* pool) : device_(device), pipeline_(pool) {}

int CudaEngine::open() {
  cudaError_t err = cudaSetDevice(device_);
  if (err == cudaSuccess) err = pipeline_.open();
  for (auto fn : warm_ups())  // e.g. device tables: kept out of the first batch
    if (err == cudaSuccess) err = fn();
  return to_status(err);
}

int CudaEngine::run(const ChunkJob& job, size_t count) {
  cudaError_t err = cudaSetDevice(device_);
  if (err == cudaSuccess) err = pipeline_.run(job, count);
  return to_status(err);
}

namespace {
constexpr size_t kSlice = size_t(1) << 20;  // below this one thread copies or wipes
}  // namespace

void Copier::operator()(void* dst, const void* src, size_t bytes) const {
  if (bytes == 0) return;
  if (pool_ == nullptr || bytes < 2 * kSlice) {
    memcpy(dst, src, bytes);
    return;
  }
  // Large copies stream (core/stream_copy.h): these megabytes are not read
  // again by this thread, and host memory bandwidth bounds a batch's
  // staging and delivery.
  const size_t slices = (bytes + kSlice - 1) / kSlice;
  pool_->parallel_for(slices, 1, [&](size_t b, size_t e) {
    const size_t lo = b * kSlice, hi = std::min(bytes, e * kSlice);
    stream_copy(static_cast<uint8_t*>(dst) + lo, static_cast<const uint8_t*>(src) + lo, hi - lo);
  });
}

void Copier::wipe(void* p, size_t bytes) const {
  if (pool_ == nullptr || bytes < 2 * kSlice) {
    secure_wipe(p, bytes);
    return;
  }
  // Megabytes of secrets (a cipher's plaintext) in one chunk: wiped by
  // every thread, or one core's memset would bound the pipeline.
  const size_t slices = (bytes + kSlice - 1) / kSlice;
  pool_->parallel_for(slices, 1, [&](size_t b, size_t e) {
    const size_t lo = b * kSlice, hi = std::min(bytes, e * kSlice);
    secure_wipe(static_cast<uint8_t*>(p) + lo, hi - lo);
  });
}

void Copier::for_ranges(size_t n, size_t min_items,
                        const std::function<void(size_t, size_t)>& fn) const {
  if (pool_ != nullptr) {
    pool_->parallel_for(n, min_items, fn);
  } else if (n > 0) {
    fn(0, n);
  }
}

cudaError_t DeviceBuffer::reserve(size_t bytes) { return grow(&ptr_, &size_, bytes, false); }
cudaError_t PinnedBuffer::reserve(size_t bytes) { return grow(&ptr_, &size_, bytes, true); }

namespace {

// PipelineHostTimes' sums, in nanoseconds.
enum HostPart { kStage, kWait, kDeliver, kWipe, kHostParts };
std::atomic<uint64_t> g_host_ns[kHostParts];

// Adds the wall time of its scope to part's sum.
class HostTime {
 public:
  explicit HostTime(HostPart part) : part_(part), t0_(std::chrono::steady_clock::now()) {}
  ~HostTime() {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now() - t0_);
    g_host_ns[part_].fetch_add(uint64_t(ns.count()), std::memory_order_relaxed);
  }

 private:
  const HostPart part_;
  const std::chrono::steady_clock::time_point t0_;
};

}  // namespace

PipelineHostTimes pipeline_host_times() {
  auto seconds = [](HostPart p) { return 1e-9 * double(g_host_ns[p].load()); };
  return {seconds(kStage), seconds(kWait), seconds(kDeliver), seconds(kWipe)};
}

Pipeline::~Pipeline() {
  for (Slot& s : slots_)
    if (s.stream != nullptr) cudaStreamDestroy(s.stream);
}

cudaError_t Pipeline::open() {
  cudaError_t err = cudaSuccess;
  for (Slot& s : slots_)
    if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking);
  return err;
}

cudaError_t Pipeline::run(const ChunkJob& job, size_t count) {
  cudaError_t err = cudaSuccess;
  unsigned turn = 0;
  for (size_t first = 0; err == cudaSuccess && first < count;) {
    const size_t n = job.chunk_items(first, count - first);
    Slot& slot = slots_[turn++ % kSlots];
    err = finish(slot);  // the slot's previous chunk, if any
    if (err == cudaSuccess) err = enqueue(slot, job, first, n);
    first += n;
  }
  for (Slot& s : slots_) {
    const cudaError_t e = finish(s);
    if (err == cudaSuccess) err = e;
    wipe_secrets(s);
  }
  return err;
}

void Pipeline::wipe_secrets(Slot& slot) {
  const HostTime time(kWipe);
  copy_.wipe(slot.host_in.get(), slot.secret_in);
  copy_.wipe(slot.host_out.get(), slot.secret_out);
  slot.secret_in = slot.secret_out = 0;
}

cudaError_t Pipeline::enqueue(Slot& slot, const ChunkJob& job, size_t first, size_t n) {
  const size_t in = job.in_bytes(first, n), out = job.out_bytes(first, n);
  const size_t staged = job.staged_bytes(first, n);
  if (staged > slot.host_in.size() || out > slot.host_out.size()) wipe_secrets(slot);  // regrown
  cudaError_t err = slot.host_in.reserve(staged);
  if (err == cudaSuccess) err = slot.dev_in.reserve(in);
  if (err == cudaSuccess) err = slot.host_out.reserve(out);
  if (err == cudaSuccess) err = slot.dev_out.reserve(out);
  if (err != cudaSuccess) return err;
  {
    const HostTime time(kStage);
    job.stage(first, n, slot.host_in.get(), copy_);
  }
  err = job.copy_in(first, n, slot.host_in.get(), slot.dev_in.get(), slot.stream);
  if (err == cudaSuccess) err = job.launch(first, n, slot.dev_in.get(), slot.dev_out.get(), slot.stream);
  if (err == cudaSuccess)
    err = job.copy_out(first, n, slot.dev_out.get(), slot.host_out.get(), slot.stream);
  slot.pending = &job;  // synchronised before reuse even if a step failed
  slot.enqueued_ok = err == cudaSuccess;
  slot.first = first;
  slot.n = n;
  return err;
}

// Waits for the slot's chunk and delivers its results.
cudaError_t Pipeline::finish(Slot& slot) {
  if (slot.pending == nullptr) return cudaSuccess;
  cudaError_t err;
  {
    const HostTime time(kWait);
    err = cudaStreamSynchronize(slot.stream);
  }
  if (err == cudaSuccess && slot.enqueued_ok) {
    const HostTime time(kDeliver);
    slot.pending->deliver(slot.first, slot.n, slot.host_out.get(), copy_);
  }
  slot.secret_in =
      std::max(slot.secret_in, slot.pending->secret_staged_bytes(slot.first, slot.n));
  slot.secret_out =
      std::max(slot.secret_out, slot.pending->secret_result_bytes(slot.first, slot.n));
  slot.pending = nullptr;
  return err;
}

namespace {

// What the runtime says of p: its memory type (cudaMemoryTypeUnregistered
// for ordinary host memory or a failed query) and device.
cudaPointerAttributes attributes_of(const void* p) {
  cudaPointerAttributes attr = {};
  attr.type = cudaMemoryTypeUnregistered;
  if (p == nullptr || cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();  // not an error to keep
    attr.type = cudaMemoryTypeUnregistered;
  }
  return attr;
}

}  // namespace

bool is_pinned(const void* p) { return attributes_of(p).type == cudaMemoryTypeHost; }

bool host_pinned(const void* p) { return is_pinned(p); }

cudaError_t scratch_alloc_async(void** p, size_t bytes, cudaStream_t stream) {
  static std::mutex mutex;
  static std::map<int, cudaMemPool_t> pools;  // never destroyed: kernels in flight use them
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  cudaMemPool_t pool = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = pools.find(device);
    if (it == pools.end()) {
      cudaMemPoolProps props = {};
      props.allocType = cudaMemAllocationTypePinned;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = device;
      err = cudaMemPoolCreate(&pool, &props);
      uint64_t keep = UINT64_MAX;
      if (err == cudaSuccess)
        err = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
      if (err != cudaSuccess) return err;
      it = pools.emplace(device, pool).first;
    }
    pool = it->second;
  }
  return cudaMallocFromPoolAsync(p, bytes > 0 ? bytes : 1, pool, stream);
}

namespace {

__global__ void map_statuses_kernel(int* status, size_t count, StatusMap map,
                                    const int* overrides, FailedItemOutputs clear) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    const int c = status[i];
    const int mapped = c >= 0 && c < StatusMap::kCodes ? map.codes[c] : map.other;
    const int s = overrides != nullptr && overrides[i] != 0 ? overrides[i] : mapped;
    status[i] = s;
    if (s == KS_OK) continue;
    for (int k = 0; k < 2; ++k) {
      if (clear.out[k] == nullptr) continue;
      uint8_t* p = clear.out[k] + i * clear.item_bytes[k];
      for (size_t b = 0; b < clear.item_bytes[k]; ++b) p[b] = 0;
    }
  }
}

__global__ void offsets_ascend_kernel(const uint64_t* offsets, size_t count, uint64_t limit,
                                      uint32_t* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    if (offsets[i] > offsets[i + 1] || offsets[i + 1] > limit) atomicOr(bad, 1u);
}

}  // namespace

bool stream_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    cudaGetLastError();  // not sticky; the call is refused instead
    return true;
  }
  return capture != cudaStreamCaptureStatusNone;
}

cudaError_t check_offsets_ascend(const uint64_t* offsets, size_t count, uint64_t limit,
                                 uint32_t* bad, cudaStream_t stream) {
  cudaError_t err = cudaMemsetAsync(bad, 0, sizeof *bad, stream);
  if (err != cudaSuccess || count == 0) return err;
  constexpr unsigned kThreads = 256;
  offsets_ascend_kernel<<<grid_for(count, kThreads, 8), kThreads, 0, stream>>>(offsets, count,
                                                                             limit, bad);
  return cudaGetLastError();
}

cudaError_t map_statuses(int* status, size_t count, const StatusMap& map, cudaStream_t stream,
                         const int* overrides, const FailedItemOutputs& clear) {
  if (count == 0) return cudaSuccess;
  constexpr unsigned kThreads = 256;
  map_statuses_kernel<<<grid_for(count, kThreads, 8), kThreads, 0, stream>>>(status, count, map,
                                                                           overrides, clear);
  return cudaGetLastError();
}

bool device_memory(const void* p, int* device) {
  const cudaPointerAttributes attr = attributes_of(p);
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged) return false;
  *device = attr.device;
  return true;
}

int stream_wait(void* consumer, void* producer) {
  if (consumer == producer) return KS_OK;
  cudaEvent_t event = nullptr;
  cudaError_t err = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  if (err == cudaSuccess) err = cudaEventRecord(event, static_cast<cudaStream_t>(producer));
  if (err == cudaSuccess) err = cudaStreamWaitEvent(static_cast<cudaStream_t>(consumer), event, 0);
  if (event != nullptr) cudaEventDestroy(event);  // released once the wait is done
  return to_status(err);
}

DeviceScope::DeviceScope(int device) {
  cudaError_t err = cudaGetDevice(&previous_);
  if (err == cudaSuccess && previous_ != device) err = cudaSetDevice(device);
  if (err != cudaSuccess) previous_ = -1;
  status_ = to_status(err);
}

DeviceScope::~DeviceScope() {
  int now = -1;
  if (previous_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != previous_)
    cudaSetDevice(previous_);
}

int host_alloc(size_t bytes, void** out) {
  *out = nullptr;
  if (device_count() > 0 && cudaMallocHost(out, bytes > 0 ? bytes : 1) == cudaSuccess)
    return KS_OK;
  cudaGetLastError();
  *out = malloc(bytes > 0 ? bytes : 1);  // no device: ordinary memory
  return *out != nullptr ? KS_OK : KS_ERR_NO_MEMORY;
}

void host_free(void* p) {
  if (p == nullptr) return;
  if (is_pinned(p)) {
    cudaFreeHost(p);
  } else {
    free(p);
  }
}

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

std::unique_ptr<Engine> open_engine(int device, ThreadPool* pool, int* status) {
  if (device < 0 || device >= device_count()) {
    *status = KS_ERR_BACKEND_UNAVAILABLE;
    return nullptr;
  }
  auto engine = std::make_unique<CudaEngine>(device, pool);
  *status = engine->open();
  if (*status != KS_OK) return nullptr;
  return engine;
}

}  // namespace gpu
}  // namespace ks
