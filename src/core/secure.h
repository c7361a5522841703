// Helpers for code that handles secrets: wiping memory the compiler may not
// elide, and constant-time masks and selects (no secret-dependent branches).
#ifndef KS_CORE_SECURE_H_
#define KS_CORE_SECURE_H_

#include <stddef.h>
#include <stdint.h>

#if defined(KS_CTGRIND)
#include <valgrind/memcheck.h>
#endif

namespace ks {

// The ctgrind technique (Langley): in a KS_CTGRIND build every secret
// (everything os_random returns) is marked undefined for valgrind's
// memcheck, which then reports any branch or memory index that depends on
// it. Values that are public by design (a signature, a public key, the
// verdict of a rejection-sampling test) are declassified where they are
// produced. Both are no-ops in normal builds.
inline void ct_poison(const void* p, size_t len) {
#if defined(KS_CTGRIND)
  VALGRIND_MAKE_MEM_UNDEFINED(p, len);
#else
  (void)p;
  (void)len;
#endif
}

inline void ct_declassify(const void* p, size_t len) {
#if defined(KS_CTGRIND)
  VALGRIND_MAKE_MEM_DEFINED(p, len);
#else
  (void)p;
  (void)len;
#endif
}

// Declassifies and returns a value (for verdicts used in a branch).
template <class T>
inline T ct_public(T v) {
  ct_declassify(&v, sizeof v);
  return v;
}

// Overwrites len bytes with zeros; not removed as a dead store.
void secure_wipe(void* p, size_t len);

// All ones if x == 0, else zero; no branch.
inline uint64_t ct_is_zero_mask(uint64_t x) {
  return uint64_t(0) - (((x | (uint64_t(0) - x)) >> 63) ^ 1);
}

// All ones if a == b, else zero; no branch.
inline uint64_t ct_eq_mask(uint64_t a, uint64_t b) { return ct_is_zero_mask(a ^ b); }

// mask ? a : b for mask all ones or zero.
inline uint64_t ct_select(uint64_t mask, uint64_t a, uint64_t b) {
  return (a & mask) | (b & ~mask);
}

// Hides a value from the optimizer so that it cannot turn masks back into
// branches.
inline uint64_t value_barrier(uint64_t x) {
  __asm__("" : "+r"(x));
  return x;
}

}  // namespace ks

#endif  // KS_CORE_SECURE_H_
