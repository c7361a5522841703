// Version, error strings and build/machine queries.
#include <string>

#include "core/cpu_features.h"
#include "engine/gpu.h"
#include "kuaisuo.h"

#define KS_STR2(x) #x
#define KS_STR(x) KS_STR2(x)

uint32_t ks_version(void) {
  return (uint32_t(KS_VERSION_MAJOR) << 16) | (uint32_t(KS_VERSION_MINOR) << 8) |
         uint32_t(KS_VERSION_PATCH);
}

const char* ks_version_string(void) {
  return KS_STR(KS_VERSION_MAJOR) "." KS_STR(KS_VERSION_MINOR) "." KS_STR(KS_VERSION_PATCH);
}

const char* ks_strerror(int code) {
  switch (code) {
    case KS_OK: return "success";
    case KS_ERR_NULL_POINTER: return "a required pointer argument is NULL";
    case KS_ERR_INVALID_ARGUMENT: return "an argument value is out of range";
    case KS_ERR_LENGTH: return "a buffer length is wrong for this input or output";
    case KS_ERR_OVERFLOW: return "sizes overflow when combined";
    case KS_ERR_OFFSETS: return "batch offsets decrease or point past the end of the data";
    case KS_ERR_NO_MEMORY: return "out of memory";
    case KS_ERR_BACKEND_UNAVAILABLE:
      return "the GPU backend is not available (built without CUDA, or no such device)";
    case KS_ERR_DEVICE: return "the GPU runtime reported an error";
    case KS_ERR_RANDOM: return "the operating system's random generator failed";
    case KS_ERR_BATCH_ITEMS: return "one or more batch items failed; see the status array";
    case KS_ERR_UNSUPPORTED: return "this operation is not implemented on the chosen backend";
    case KS_ERR_INTERNAL: return "internal error";
    default: return "unknown error code";
  }
}

int ks_gpu_built(void) { return ks::gpu::built() ? 1 : 0; }

int ks_gpu_device_count(void) { return ks::gpu::device_count(); }

const char* ks_cpu_features(void) {
  static const std::string features = ks::cpu_feature_string(ks::cpu_features());
  return features.c_str();
}
