// Containers for secrets: an allocator that zeroes memory before giving it
// back, so that a buffer holding a private key (a PKCS#8 encoding, a PEM
// body, base64 scratch) leaves no copy behind when it grows, shrinks or is
// destroyed, on success and on every error path. A std::vector that grows
// frees its old block: with the plain allocator that block keeps the
// secret until the heap reuses it.
#ifndef KS_CORE_WIPING_ALLOCATOR_H_
#define KS_CORE_WIPING_ALLOCATOR_H_

#include <stddef.h>
#include <stdint.h>

#include <new>
#include <string>
#include <vector>

#include "core/secure.h"

namespace ks {

template <class T>
struct WipingAllocator {
  using value_type = T;
  WipingAllocator() = default;
  template <class U>
  WipingAllocator(const WipingAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > size_t(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    secure_wipe(p, n * sizeof(T));
    ::operator delete(p);
  }
  template <class U>
  bool operator==(const WipingAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const WipingAllocator<U>&) const noexcept { return false; }
};

// Byte strings that may hold secrets. Encoders use them for public data too:
// keys and signatures are small, and one type keeps the DER writers simple.
using Bytes = std::vector<uint8_t, WipingAllocator<uint8_t>>;
// Text that may hold secrets (PEM of a private key). Its short-string
// buffer lives inside the object, outside the allocator's reach: callers
// wipe the object's own bytes too (secure_wipe of data(), size()).
using SecretString = std::basic_string<char, std::char_traits<char>, WipingAllocator<char>>;

}  // namespace ks

#endif  // KS_CORE_WIPING_ALLOCATOR_H_
