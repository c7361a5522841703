// The GPU entry points of a build without CUDA.
#include <stdlib.h>

#include "gpu/gpu.h"
#include "kuaisuo/common.h"

namespace ks {
namespace gpu {

bool built() { return false; }
int device_count() { return 0; }

int host_alloc(size_t bytes, void** out) {
  *out = malloc(bytes > 0 ? bytes : 1);
  return *out != nullptr ? KS_OK : KS_ERR_NO_MEMORY;
}

void host_free(void* p) { free(p); }
bool host_pinned(const void*) { return false; }
bool device_memory(const void*, int*) { return false; }
int stream_wait(void*, void*) { return KS_ERR_BACKEND_UNAVAILABLE; }
DeviceScope::DeviceScope(int) : status_(KS_ERR_BACKEND_UNAVAILABLE) {}
DeviceScope::~DeviceScope() = default;
bool device_info(int, DeviceInfo*) { return false; }

std::unique_ptr<Engine> open_engine(int, ThreadPool*, int* status) {
  *status = KS_ERR_BACKEND_UNAVAILABLE;
  return nullptr;
}

}  // namespace gpu
}  // namespace ks
