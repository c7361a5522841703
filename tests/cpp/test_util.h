// Helpers shared by the GoogleTest files.
#ifndef KS_TESTS_TEST_UTIL_H_
#define KS_TESTS_TEST_UTIL_H_

#include <stdint.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "core/os_random.h"
#include "kuaisuo.h"

namespace ks_test {

// Whether this build runs under AddressSanitizer or MemorySanitizer
// (scripts/sanitize builds at -O0, where long differential loops take
// minutes). Such loops run a fraction of their items there (scaled()); the
// sanitizer looks for memory errors, which the short cases and every tail
// reach as well, and the optimized build runs every item.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// n items, or n / divisor (at least 1) under a sanitizer.
inline size_t scaled(size_t n, size_t divisor = 16) {
  return kSanitized ? std::max<size_t>(1, n / divisor) : n;
}

// f(i) for every i < count on all cores (CPU oracles of GPU batches are
// the slow side of those tests).
template <class F>
void parallel_for(size_t count, F f) {
  const size_t workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (size_t w = 0; w < workers; ++w)
    pool.emplace_back([=] {
      for (size_t i = w; i < count; i += workers) f(i);
    });
  for (auto& t : pool) t.join();
}

// Messages of a batch call, one by one and in the flat layout (data and
// offsets, offsets[i + 1] - offsets[i] bytes each).
struct FlatMessages {
  std::vector<std::vector<uint8_t>> items;
  std::vector<uint8_t> data;
  std::vector<uint64_t> offsets{0};
  void add(const std::vector<uint8_t>& b) {
    items.push_back(b);
    data.insert(data.end(), b.begin(), b.end());
    offsets.push_back(data.size());
  }
  size_t count() const { return items.size(); }
};

// A context on one backend with `threads` CPU threads, freed on scope exit;
// rc is ks_ctx_new's answer (tests assert on it where a backend may be
// missing).
struct Context {
  ks_ctx* ctx = nullptr;
  int rc;
  explicit Context(int backend = KS_BACKEND_CPU, uint32_t threads = 2, uint32_t gpu_flags = 0) {
    ks_ctx_config cfg;
    ks_ctx_config_init(&cfg);
    cfg.backend = backend;
    cfg.cpu_threads = threads;
    cfg.gpu_flags = gpu_flags;
    rc = ks_ctx_new(&cfg, &ctx);
  }
  ~Context() { ks_ctx_free(ctx); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
};

// Fresh random bytes from the OS for every call (tests use new inputs each run).
// A caller's buffer of len bytes: ordinary memory, or page-locked from
// ks_host_alloc (which GPU contexts copy directly); freed on scope exit.
class CallerBuffer {
 public:
  CallerBuffer(size_t len, bool pinned) : plain_(pinned ? 0 : len) {
    if (pinned) rc = ks_host_alloc(len, &pinned_);
  }
  ~CallerBuffer() {
    if (pinned_ != nullptr) ks_host_free(pinned_);
  }
  CallerBuffer(const CallerBuffer&) = delete;
  CallerBuffer& operator=(const CallerBuffer&) = delete;
  uint8_t* data() { return pinned_ != nullptr ? static_cast<uint8_t*>(pinned_) : plain_.data(); }
  int rc = KS_OK;

 private:
  std::vector<uint8_t> plain_;
  void* pinned_ = nullptr;
};

inline std::vector<uint8_t> random_bytes(size_t n) {
  std::vector<uint8_t> v(n);
  if (n > 0 && !ks::os_random(v.data(), n)) abort();
  return v;
}

// Bytes from a seeded generator (reproducible cases).
template <class Rng>
std::vector<uint8_t> random_bytes(Rng& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = uint8_t(rng());
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
