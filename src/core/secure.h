// Helpers for code that handles secrets: wiping memory the compiler may not
// elide, and constant-time masks and selects (no secret-dependent branches).
#ifndef KS_CORE_SECURE_H_
#define KS_CORE_SECURE_H_

#include <stddef.h>
#include <stdint.h>

#if defined(KS_CTGRIND)
#include <valgrind/memcheck.h>
#endif
#if defined(KS_CT_MSAN)
#include <sanitizer/msan_interface.h>
#endif

namespace ks {

// The ctgrind technique (Langley): in a constant-time check build every
// secret (everything os_random returns, and what the check marks) is
// marked undefined, and the checker reports any branch or memory index
// that depends on it: valgrind's memcheck (KS_CTGRIND), or
// MemorySanitizer (KS_CT_MSAN), which instruments the code the compiler
// emits for this CPU's paths (ADX, AVX-512 IFMA) where valgrind only
// emulates a CPU without them. Values that are public by design (a
// signature, a public key, the verdict of a rejection-sampling test) are
// declassified where they are produced. Both are no-ops in normal builds.
inline void ct_poison(const void* p, size_t len) {
#if defined(KS_CTGRIND)
  VALGRIND_MAKE_MEM_UNDEFINED(p, len);
#elif defined(KS_CT_MSAN)
  __msan_poison(p, len);
#else
  (void)p;
  (void)len;
#endif
}

inline void ct_declassify(const void* p, size_t len) {
#if defined(KS_CTGRIND)
  VALGRIND_MAKE_MEM_DEFINED(p, len);
#elif defined(KS_CT_MSAN)
  __msan_unpoison(p, len);
#else
  (void)p;
  (void)len;
#endif
}

#if defined(KS_CT_MSAN)
// MemorySanitizer does not look inside inline assembly: it reports any
// register input that holds a secret (although the assembly is
// branch-free: that is what the statistical test, tests/ct/dudect, checks)
// and drops the taint of memory operands. So in KS_CT_MSAN builds every
// function built on inline assembly begins with KS_CT_ASM_GUARD: when an
// input is secret, the function runs on declassified copies and its
// result is marked secret, which carries taint through the assembly the
// way it flows through C.
inline bool ct_is_secret(const void* p, size_t len) { return __msan_test_shadow(p, len) != -1; }
template <class... T>
bool ct_any_secret(const T&... v) {
  return (ct_is_secret(&v, sizeof v) || ...);
}
template <class T>
T ct_public_copy(const T& v) {
  T copy = v;
  ct_declassify(&copy, sizeof copy);
  return copy;
}
template <class F, class... A>
auto ct_through_asm(F f, const A&... a) {
  const bool secret = ct_any_secret(a...);
  auto r = f(ct_public_copy(a)...);
  if (secret) ct_poison(&r, sizeof r);
  return r;
}
#define KS_CT_ASM_GUARD(fn, ...)                                                      \
  do {                                                                                \
    if (::ks::ct_any_secret(__VA_ARGS__))                                             \
      return ::ks::ct_through_asm([](const auto&... x) { return fn(x...); }, __VA_ARGS__); \
  } while (0)
// The same for a function of n 64-bit words given by pointer (a wide
// product to reduce).
#define KS_CT_ASM_GUARD_WORDS(fn, t, n)         \
  do {                                          \
    if (::ks::ct_is_secret(t, 8 * (n))) {       \
      uint64_t ks_copy_[n];                     \
      for (int i = 0; i < (n); ++i) ks_copy_[i] = (t)[i]; \
      ::ks::ct_declassify(ks_copy_, sizeof ks_copy_);     \
      auto ks_r_ = fn(ks_copy_);                \
      ::ks::ct_poison(&ks_r_, sizeof ks_r_);    \
      return ks_r_;                             \
    }                                           \
  } while (0)
#else
#define KS_CT_ASM_GUARD(fn, ...) \
  do {                           \
  } while (0)
#define KS_CT_ASM_GUARD_WORDS(fn, t, n) \
  do {                                  \
  } while (0)
#endif

// Declassifies and returns a value (for verdicts used in a branch).
template <class T>
inline T ct_public(T v) {
  ct_declassify(&v, sizeof v);
  return v;
}

// Overwrites len bytes with zeros; not removed as a dead store.
void secure_wipe(void* p, size_t len);

// Wipes a buffer that holds secrets when its scope ends, however it ends
// (an error return or an exception as well as success):
//   uint8_t d[32];
//   const WipeOnExit wipe_d(d, sizeof d);
class WipeOnExit {
 public:
  WipeOnExit(void* p, size_t len) : p_(p), len_(len) {}
  ~WipeOnExit() { secure_wipe(p_, len_); }
  WipeOnExit(const WipeOnExit&) = delete;
  WipeOnExit& operator=(const WipeOnExit&) = delete;

 private:
  void* p_;
  size_t len_;
};

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
#if defined(KS_CT_MSAN)
  const bool secret = ct_is_secret(&x, sizeof x);  // see KS_CT_ASM_GUARD
  ct_declassify(&x, sizeof x);
  __asm__("" : "+r"(x));
  if (secret) ct_poison(&x, sizeof x);
#else
  __asm__("" : "+r"(x));
#endif
  return x;
}

}  // namespace ks

#endif  // KS_CORE_SECURE_H_
