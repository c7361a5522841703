// The GPU entry points of a build without CUDA.
#include "engine/gpu.h"
#include "kuaisuo.h"

namespace ks {
namespace gpu {

bool built() { return false; }
int device_count() { return 0; }
bool device_info(int, DeviceInfo*) { return false; }

std::unique_ptr<Engine> open_engine(int, ThreadPool*, int* status) {
  *status = KS_ERR_BACKEND_UNAVAILABLE;
  return nullptr;
}

}  // namespace gpu
}  // namespace ks
