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
namespace gpu {

bool built();
// Devices the CUDA runtime sees; 0 without a driver or device.
int device_count();

// ks_host_alloc / ks_host_free: page-locked memory when a device is there
// (batches in it skip the engine's staging copies), ordinary otherwise.
int host_alloc(size_t bytes, void** out);
void host_free(void* p);
// Whether p lies in page-locked memory the device copies directly.
bool host_pinned(const void* p);
// Whether p lies in device or managed memory (cudaPointerGetAttributes);
// if so, *device is its device.
bool device_memory(const void* p, int* device);
// Work queued on `consumer` (a cudaStream_t) from now on waits for the work
// already queued on `producer`: an event recorded there, waited on here,
// with no host synchronisation (the CUDA Array Interface's "stream" rule).
// A ks_status.
int stream_wait(void* consumer, void* producer);

// How the statuses a kernel wrote in device memory become ks_status
// values there (batches on device memory return before the host could map
// them): codes[c] for a scheme's kernel code c, `other` for any value
// outside 0 .. kCodes - 1.
struct StatusMap {
  static constexpr int kCodes = 16;
  int codes[kCodes];
  int other;
};

// Makes `device` current on this thread for the scope (the device-memory
// calls launch on the context's device) and restores the caller's.
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  int status() const { return status_; }  // a ks_status

 private:
  int previous_ = -1;
  int status_;
};

struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  size_t global_mem_bytes = 0;
  int l2_bytes = 0;
  int clock_khz = 0;
};
bool device_info(int device, DeviceInfo* info);

// Per-context GPU state: the device, its streams and reusable buffers
// (gpu/gpu_engine.cuh has the CUDA side). Scheme-agnostic: each scheme's
// batches run their own jobs on it (sm3/gpu/sm3_gpu_batch.h,
// sm2/gpu/sm2_gpu_batch.h, ...). Not shared between threads; the context
// serialises access.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual int device() const = 0;
};

// Opens device `device`; on failure returns null and sets *status. The
// engine uses `pool` (the context's CPU threads, which outlive it) to stage
// and deliver large chunks.
std::unique_ptr<Engine> open_engine(int device, ThreadPool* pool, int* status);

}  // namespace gpu
}  // namespace ks

#endif  // KS_ENGINE_GPU_H_
