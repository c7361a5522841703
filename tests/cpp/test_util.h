// Helpers shared by the GoogleTest files.
#ifndef KS_TESTS_TEST_UTIL_H_
#define KS_TESTS_TEST_UTIL_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "core/os_random.h"

namespace ks_test {

// Fresh random bytes from the OS for every call (tests use new inputs each run).
inline std::vector<uint8_t> random_bytes(size_t n) {
  std::vector<uint8_t> v(n);
  if (n > 0 && !ks::os_random(v.data(), n)) abort();
  return v;
}

inline uint32_t random_u32() {
  uint32_t x;
  if (!ks::os_random(reinterpret_cast<uint8_t*>(&x), sizeof(x))) abort();
  return x;
}

inline std::vector<uint8_t> from_hex(const std::string& hex) {
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

inline std::string to_hex(const uint8_t* p, size_t n) {
  static const char* digits = "0123456789ABCDEF";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

inline std::vector<uint8_t> bytes_of(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

}  // namespace ks_test

#endif  // KS_TESTS_TEST_UTIL_H_
