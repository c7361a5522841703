// Argument checks shared by every C entry point. Each returns KS_OK or the
// ks_status that names what is wrong; nothing here dereferences a pointer
// it has not checked.
#ifndef KS_API_CHECKS_H_
#define KS_API_CHECKS_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kuaisuo/common.h"

namespace ks {
namespace api {

// A buffer of len bytes: NULL is fine only when len == 0.
inline int check_buffer(const void* p, size_t len) {
  return (p == nullptr && len != 0) ? KS_ERR_NULL_POINTER : KS_OK;
}

// An output of count items of item_bytes each, in a buffer of out_len.
inline int check_output(const void* out, size_t out_len, size_t count, size_t item_bytes) {
  if (count == 0) return KS_OK;
  if (out == nullptr) return KS_ERR_NULL_POINTER;
  if (count > SIZE_MAX / item_bytes) return KS_ERR_OVERFLOW;
  return out_len < count * item_bytes ? KS_ERR_LENGTH : KS_OK;
}

// status[i] = value, for a caller's status array that need not be
// aligned (include/kuaisuo.h: batch layout).
inline void store_status(int* status, size_t i, int value) {
  memcpy(reinterpret_cast<unsigned char*>(status) + sizeof(int) * i, &value, sizeof value);
}

// Marks every item of a batch with the same status (status may be NULL).
inline void fill_status(int* status, size_t count, int value) {
  if (status == nullptr) return;
  for (size_t i = 0; i < count; ++i) store_status(status, i, value);
}

}  // namespace api
}  // namespace ks

#endif  // KS_API_CHECKS_H_
