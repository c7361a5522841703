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
namespace gpu {

bool built();
// Devices the CUDA runtime sees; 0 without a driver or device.
int device_count();

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
};

// Opens device `device`; on failure returns null and sets *status.
std::unique_ptr<Engine> open_engine(int device, int* status);

}  // namespace gpu
}  // namespace ks

#endif  // KS_ENGINE_GPU_H_
