// The fixture of the GPU tests that check a GPU context against a CPU one
// on fresh random inputs: both contexts, and a generator seeded from
// std::random_device whose seed trace_ names (SCOPED_TRACE(trace_) prints
// it on failure). Skips where no GPU is present.
#ifndef KS_TESTS_GPU_FIXTURE_H_
#define KS_TESTS_GPU_FIXTURE_H_

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "kuaisuo.h"
#include "test_util.h"

namespace ks_test {

class GpuAgainstCpu : public ::testing::Test {
 protected:
  GpuAgainstCpu(uint32_t gpu_threads, uint32_t cpu_threads)
      : gpu_ctx_(KS_BACKEND_GPU, gpu_threads), cpu_ctx_(KS_BACKEND_CPU, cpu_threads) {}
  void SetUp() override {
    if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    ASSERT_EQ(gpu_ctx_.rc, KS_OK);
    ASSERT_EQ(cpu_ctx_.rc, KS_OK);
    const uint64_t seed = std::random_device{}() * 0x100000000ull + std::random_device{}();
    rng_.seed(seed);
    trace_ = "seed " + std::to_string(seed);
  }
  std::vector<uint8_t> random(size_t n) { return random_bytes(rng_, n); }

  Context gpu_ctx_, cpu_ctx_;
  std::mt19937_64 rng_;
  std::string trace_;
};

}  // namespace ks_test

#endif  // KS_TESTS_GPU_FIXTURE_H_
