// The device-memory rule of the buffer calls (kuaisuo/common.h, "Device
// memory"; docs/design/0013-device-memory.md): on a context with a GPU a
// call's data buffers are either all host memory (staged through the
// pipeline) or all device memory of the context's device (used in place
// on the context's stream). CPU contexts never query pointers.
#ifndef KS_API_DEVICE_MEMORY_H_
#define KS_API_DEVICE_MEMORY_H_

#include <stddef.h>
#include <stdint.h>

#include <initializer_list>

#include "api/context.h"
#include "gpu/gpu.h"
#include "kuaisuo/common.h"

namespace ks {
namespace api {

// KS_OK, with *on_device telling whether the non-null `buffers` are all
// device memory of ctx's device; KS_ERR_MEMORY_MIX where host and device
// memory are mixed or the device memory is another device's;
// KS_ERR_ALIGNMENT where a device buffer is not 16-byte aligned.
inline int device_buffers(const ks_ctx* ctx, std::initializer_list<const void*> buffers,
                          bool* on_device) {
  *on_device = false;
  if (ctx->gpu == nullptr) return KS_OK;
  size_t host = 0, device = 0;
  bool foreign = false, misaligned = false;
  for (const void* p : buffers) {
    int ordinal = -1;
    if (p == nullptr) continue;
    if (!gpu::device_memory(p, &ordinal)) {
      ++host;
      continue;
    }
    ++device;
    foreign |= ordinal != ctx->gpu->device();
    misaligned |= (reinterpret_cast<uintptr_t>(p) & 15) != 0;
  }
  if (device == 0) return KS_OK;
  if (host != 0 || foreign) return KS_ERR_MEMORY_MIX;
  if (misaligned) return KS_ERR_ALIGNMENT;
  *on_device = true;
  return KS_OK;
}

// The StatusMap (gpu.h) of a scheme whose kernels write its Error values:
// each of `codes` to to_status(code), any other value KS_ERR_INTERNAL.
template <class Error, class ToStatus>
gpu::StatusMap status_map(std::initializer_list<Error> codes, const ToStatus& to_status) {
  gpu::StatusMap map;
  for (int& code : map.codes) code = KS_ERR_INTERNAL;
  for (Error e : codes) map.codes[int(e)] = to_status(e);
  map.other = KS_ERR_INTERNAL;
  return map;
}

// The checks a batch call on device memory makes before run() queues it,
// those the host can make without reading device memory: statuses given
// (the call reports per item); an empty batch queues nothing.
template <class Run>
int device_batch(size_t count, const int* status, const Run& run) {
  if (status == nullptr) return KS_ERR_NULL_POINTER;
  return count == 0 ? KS_OK : run();
}

// The same for flat messages: offsets given, data given unless empty, and
// a count whose offsets fit in memory. The offsets are read by the kernels
// only, which report a range outside data_len per item (KS_ERR_OFFSETS).
template <class Run>
int device_messages_batch(const void* data, size_t data_len, const uint64_t* offsets,
                          size_t count, const int* status, const Run& run) {
  if (offsets == nullptr || (data == nullptr && data_len != 0)) return KS_ERR_NULL_POINTER;
  if (count >= SIZE_MAX / sizeof(uint64_t)) return KS_ERR_OVERFLOW;
  return device_batch(count, status, run);
}

}  // namespace api
}  // namespace ks

#endif  // KS_API_DEVICE_MEMORY_H_
