#include "core/secure.h"

#include <string.h>

namespace ks {

void secure_wipe(void* p, size_t len) {
  if (p == nullptr || len == 0) return;
  memset(p, 0, len);
  // The empty asm that reads p keeps the memset alive.
  __asm__ __volatile__("" : : "r"(p) : "memory");
}

}  // namespace ks
