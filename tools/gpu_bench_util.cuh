// What the GPU benchmarks share: a checked CUDA call, a CUDA-event timer
// taking the median of repeated runs after a warm-up (and a wall clock for
// end-to-end rows), device buffers
// (gpu/launch.cuh's, exiting on failure), and the JSON rows every
// benchmark prints (bench/results/ keeps them).
#ifndef KS_TOOLS_GPU_BENCH_UTIL_CUH_
#define KS_TOOLS_GPU_BENCH_UTIL_CUH_

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "gpu/launch.cuh"
#include "kuaisuo.h"

#define CHECK(call)                                                                  \
  do {                                                                               \
    const cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
              cudaGetErrorString(err_));                                             \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

namespace ks_bench {

struct Timer {
  cudaEvent_t start, stop;
  Timer() {
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
  }
  ~Timer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  // Median seconds of `reps` runs of f after one warm-up run.
  template <class F>
  double median(F f, int reps) {
    f();
    CHECK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      CHECK(cudaEventRecord(start));
      f();
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      t.push_back(ms * 1e-3);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

// Median wall-clock seconds of `reps` runs of f after one warm-up run (f
// synchronizes: end-to-end rows, the host's part included).
inline double median_wall(const std::function<void()>& f, int reps) {
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Random bytes fast enough for a GiB (splitmix64).
inline void fill_random(uint8_t* p, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; i += 8) {
    uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    memcpy(p + i, &z, std::min<size_t>(8, n - i));
  }
}

// count T's of device memory (a copy of h), freed on scope exit; used
// where a T* is (a kernel or launcher argument).
template <class T>
class DeviceVector : public ks::gpu::DeviceArray<T> {
 public:
  explicit DeviceVector(size_t count) : ks::gpu::DeviceArray<T>(count) { CHECK(this->error()); }
  explicit DeviceVector(const std::vector<T>& h) : ks::gpu::DeviceArray<T>(h.size(), h.data()) {
    CHECK(this->error());
  }
  operator T*() const { return this->get(); }
};

// A context on `backend` with every CPU thread (the C API rows), or exit.
inline ks_ctx* new_context(int backend) {
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  cfg.backend = backend;
  ks_ctx* ctx = nullptr;
  if (ks_ctx_new(&cfg, &ctx) != KS_OK) {
    fprintf(stderr, "no context on backend %d\n", backend);
    exit(1);
  }
  return ctx;
}

// One measurement: `seconds` for `batch` operations named `op`.
struct Row {
  const char* op;
  size_t batch;
  double seconds;
};

// Field products per second over any GPU field policy with from_words /
// to_words / mul_small: kChains independent chains of kSteps dependent
// products (or squares) a thread, 16 blocks of 256 threads an SM.
constexpr int kFieldChains = 4;
constexpr int kFieldSteps = 512;

template <class F, bool kSquare>
__global__ void field_rate_kernel(uint64_t seed, uint64_t* out) {
  const uint64_t tid = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint64_t w[4];
  for (int j = 0; j < 4; ++j) w[j] = (seed ^ (tid + j)) * 0x9E3779B97F4A7C15ull;
  w[3] >>= 2;
  const typename F::Elem y = F::from_words(w);
  typename F::Elem x[kFieldChains];
#pragma unroll
  for (int c = 0; c < kFieldChains; ++c) x[c] = F::add(y, F::mul_small(y, c + 2));
#pragma unroll 1
  for (int s = 0; s < kFieldSteps; ++s)
#pragma unroll
    for (int c = 0; c < kFieldChains; ++c) x[c] = kSquare ? F::sqr(x[c]) : F::mul(x[c], y);
  for (int c = 1; c < kFieldChains; ++c) x[0] = F::add(x[0], x[c]);
  F::to_words(w, x[0]);
  out[tid] = w[0] ^ w[1] ^ w[2] ^ w[3];
}

template <class F, bool kSquare>
double field_rate(Timer& timer, int sms) {
  const unsigned threads = 256, blocks = unsigned(sms) * 16;
  const DeviceVector<uint64_t> out(size_t(threads) * blocks);
  const double s = timer.median(
      [&] {
        field_rate_kernel<F, kSquare><<<blocks, threads>>>(0x5A5A5A5Aull, out);
        CHECK(cudaGetLastError());
      },
      5);
  return double(threads) * blocks * kFieldChains * kFieldSteps / s;
}

void print_rows(const std::vector<Row>& rows) {
  printf("  \"results\": [\n");
  for (size_t i = 0; i < rows.size(); ++i)
    printf("    {\"op\": \"%s\", \"batch\": %zu, \"kernel_ms\": %.4f, \"ops_per_s\": %.4e}%s\n",
           rows[i].op, rows[i].batch, rows[i].seconds * 1e3, rows[i].batch / rows[i].seconds,
           i + 1 < rows.size() ? "," : "");
  printf("  ]\n");
}

}  // namespace ks_bench

#endif  // KS_TOOLS_GPU_BENCH_UTIL_CUH_
