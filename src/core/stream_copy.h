// memcpy for large buffers that the copying thread will not read again
// (GPU staging and delivery): non-temporal stores where the CPU has AVX2, so
// the destination's cache lines are not read first (a plain memcpy moves
// each destination byte through DRAM twice, a streaming one once).
#ifndef KS_CORE_STREAM_COPY_H_
#define KS_CORE_STREAM_COPY_H_

#include <stddef.h>

namespace ks {

void stream_copy(void* dst, const void* src, size_t bytes);

}  // namespace ks

#endif  // KS_CORE_STREAM_COPY_H_
