#include "core/os_random.h"

#include "core/secure.h"

#include <errno.h>
#include <sys/random.h>

namespace ks {

bool os_random(uint8_t* buf, size_t len) {
  uint8_t* const start = buf;
  const size_t total = len;
  while (len > 0) {
    // getrandom returns at most 32 MiB per call and may be interrupted.
    const ssize_t got = getrandom(buf, len, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    buf += got;
    len -= size_t(got);
  }
  ct_poison(start, total);  // every random byte is a secret (ctgrind builds)
  return true;
}

}  // namespace ks
