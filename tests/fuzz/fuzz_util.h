// Helpers shared by the libFuzzer targets: a reader that splits the fuzz
// input into fields, exactly-sized heap copies (so that AddressSanitizer
// sees a read one byte past what the library was given), and a check that
// aborts with a message (libFuzzer then saves the input as a crash).
#ifndef KS_TESTS_FUZZ_UTIL_H_
#define KS_TESTS_FUZZ_UTIL_H_

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "kuaisuo.h"

// A property of the library that does not hold: say which and abort()
// (libFuzzer then saves the input). KS_FUZZ_CHECK(cond, fmt, ...) checks
// cond; KS_FUZZ_FAIL(fmt, ...) fails outright.
#define KS_FUZZ_CHECK(cond, ...) \
  do {                           \
    if (!(cond)) ks_fuzz::fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
  } while (0)
#define KS_FUZZ_FAIL(...) ks_fuzz::fail(__FILE__, __LINE__, nullptr, __VA_ARGS__)

// A call that must succeed.
#define KS_FUZZ_OK(expr)                                                     \
  do {                                                                       \
    const int ks_fuzz_rc_ = (expr);                                          \
    KS_FUZZ_CHECK(ks_fuzz_rc_ == KS_OK, "%s returned %d (%s)", #expr,        \
                  ks_fuzz_rc_, ks_strerror(ks_fuzz_rc_));                    \
  } while (0)

namespace ks_fuzz {

[[noreturn]] __attribute__((format(printf, 4, 5))) inline void fail(const char* file, int line,
                                                                    const char* cond,
                                                                    const char* fmt, ...) {
  fprintf(stderr, "\n%s:%d: property violated", file, line);
  if (cond != nullptr) fprintf(stderr, " (%s)", cond);
  fprintf(stderr, ": ");
  va_list args;
  va_start(args, fmt);
  vfprintf(stderr, fmt, args);
  va_end(args);
  fprintf(stderr, "\n");
  abort();
}

// n items of T on the heap, exactly, so that AddressSanitizer reports any
// access past them. For n == 0, data() points just past a one-item
// allocation (ASan gives malloc(0) one usable byte; this way a read of
// "the first byte" of an empty input is reported too).
template <class T>
class HeapArray {
 public:
  explicit HeapArray(size_t n) : n_(n) {
    base_ = static_cast<T*>(malloc((n == 0 ? 1 : n) * sizeof(T)));
    if (base_ == nullptr) abort();
    p_ = n == 0 ? base_ + 1 : base_;
  }
  ~HeapArray() { free(base_); }
  HeapArray(const HeapArray&) = delete;
  HeapArray& operator=(const HeapArray&) = delete;
  T* data() const { return p_; }
  size_t size() const { return n_; }
  T& operator[](size_t i) const { return p_[i]; }

 private:
  T* base_;
  T* p_;
  size_t n_;
};

// Bytes on the heap, exactly (see HeapArray), zeroed or copied.
class HeapBytes : public HeapArray<uint8_t> {
 public:
  explicit HeapBytes(size_t len) : HeapArray<uint8_t>(len) {
    if (len != 0) memset(data(), 0, len);
  }
  HeapBytes(const uint8_t* src, size_t len) : HeapArray<uint8_t>(len) {
    if (len != 0) memcpy(data(), src, len);
  }
  explicit HeapBytes(const std::vector<uint8_t>& v) : HeapBytes(v.data(), v.size()) {}
};

// A batch call that was given bad arguments: it answered a bad-argument
// code and wrote no status (statuses start as `unwritten`) and no output
// byte (out still equals out_before).
inline void expect_rejected(const char* call, int rc, const HeapArray<int>& status,
                            int unwritten, const HeapArray<uint8_t>& out,
                            const std::vector<uint8_t>& out_before) {
  KS_FUZZ_CHECK(rc == KS_ERR_NULL_POINTER || rc == KS_ERR_INVALID_ARGUMENT ||
                    rc == KS_ERR_LENGTH || rc == KS_ERR_OFFSETS || rc == KS_ERR_OVERFLOW,
                "%s: bad arguments answered %d", call, rc);
  for (size_t i = 0; i < status.size(); ++i)
    KS_FUZZ_CHECK(status[i] == unwritten, "%s: status %zu written", call, i);
  KS_FUZZ_CHECK(out.size() == 0 || memcmp(out.data(), out_before.data(), out.size()) == 0,
                "%s: output written for bad arguments", call);
}

// Consumes the fuzz input front to back; past its end every field reads
// as zero bytes (so that every input is a valid sequence of fields).
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), left_(size) {}
  size_t left() const { return left_; }
  const uint8_t* rest() const { return p_; }

  uint8_t u8() {
    if (left_ == 0) return 0;
    --left_;
    return *p_++;
  }
  uint16_t u16() { return uint16_t(u8() | (uint16_t(u8()) << 8)); }
  uint32_t u32() { return uint32_t(u16()) | (uint32_t(u16()) << 16); }
  uint64_t u64() { return uint64_t(u32()) | (uint64_t(u32()) << 32); }
  bool flag() { return (u8() & 1) != 0; }

  // Up to n bytes of the input (fewer at its end).
  std::vector<uint8_t> bytes(size_t n) {
    const size_t take = n < left_ ? n : left_;
    std::vector<uint8_t> out(p_, p_ + take);
    p_ += take;
    left_ -= take;
    return out;
  }
  // Exactly n bytes: the input's next bytes, zero-padded at its end.
  std::vector<uint8_t> fixed(size_t n) {
    std::vector<uint8_t> out = bytes(n);
    out.resize(n, 0);
    return out;
  }
  // Everything not read yet.
  std::vector<uint8_t> remainder() { return bytes(left_); }

 private:
  const uint8_t* p_;
  size_t left_;
};

// A public key's 65-byte 04||x||y form (or compressed 02/03||x, 33 bytes).
inline std::vector<uint8_t> pubkey_bytes(const ks_sm2_pubkey* key, int compressed) {
  uint8_t buf[KS_SM2_PUBLIC_KEY_BYTES];
  size_t len = 0;
  KS_FUZZ_OK(ks_sm2_pubkey_to_bytes(key, compressed, buf, sizeof buf, &len));
  KS_FUZZ_CHECK(len == (compressed ? 33u : 65u), "pubkey_to_bytes wrote %zu bytes", len);
  return std::vector<uint8_t>(buf, buf + len);
}

// The output of an encoder that follows the header's out/out_cap/out_len
// rule: asks for the size, checks that too small a buffer is refused with
// KS_ERR_LENGTH, then encodes into an exactly-sized buffer.
template <class Encode>
std::vector<uint8_t> encode_output(const Encode& encode, bool nul_terminated) {
  size_t need = 0;
  int rc = encode(nullptr, 0, &need);
  KS_FUZZ_CHECK(rc == KS_ERR_LENGTH, "size query returned %d, want KS_ERR_LENGTH", rc);
  const size_t cap = need + (nul_terminated ? 1 : 0);
  HeapBytes small(cap - 1);
  size_t got = 0;
  rc = encode(small.data(), small.size(), &got);
  KS_FUZZ_CHECK(rc == KS_ERR_LENGTH && got == need,
                "a %zu-byte buffer gave %d and out_len %zu (need %zu)", small.size(), rc, got,
                need);
  HeapBytes out(cap);
  rc = encode(out.data(), out.size(), &got);
  KS_FUZZ_CHECK(rc == KS_OK && got == need, "encode gave %d, %zu bytes, want %zu", rc, got,
                need);
  if (nul_terminated) KS_FUZZ_CHECK(out.data()[need] == 0, "PEM output not NUL-terminated");
  return std::vector<uint8_t>(out.data(), out.data() + need);
}

inline bool same(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  return a.size() == b.size() && (a.empty() || memcmp(a.data(), b.data(), a.size()) == 0);
}

inline void print_hex(const char* what, const std::vector<uint8_t>& v) {
  fprintf(stderr, "%s (%zu bytes): ", what, v.size());
  for (uint8_t b : v) fprintf(stderr, "%02x", b);
  fprintf(stderr, "\n");
}

}  // namespace ks_fuzz

#endif  // KS_TESTS_FUZZ_UTIL_H_
