// Throughput of SM3 batches on the GPU over 64-byte messages in the flat
// layout (the shape of SM2's e = SM3(Z_A || M) inputs and of content
// hashes): the kernel alone (sm3/gpu/sm3_gpu.h, CUDA events, median of
// runs after a warm-up), ks_sm3_batch on device memory (kuaisuo/common.h,
// "Device memory": from the call to the end of its stream, per-item
// offsets checked on the device) and ks_sm3_batch from ordinary host
// buffers (the pipeline's copies included, steady clock). Random messages;
// the device digests are checked against the CPU's. Prints JSON.
//   sm3_gpu_bench [max_batch_log2]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include <random>
#include <vector>

#include "gpu_bench_util.cuh"
#include "kuaisuo.h"
#include "sm3/gpu/sm3_gpu.h"

namespace {

using ks_bench::DeviceVector;
using ks_bench::median_wall;
using ks_bench::Row;
using ks_bench::Timer;

void require(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "%s: results differ from the CPU's\n", what);
    exit(1);
  }
}

void bench(Timer& timer, ks_ctx* gpu, ks_ctx* cpu, size_t n, std::vector<Row>& rows) {
  std::vector<uint8_t> data(64 * n);
  std::mt19937_64 rng(n);
  for (auto& b : data) b = uint8_t(rng());
  std::vector<uint64_t> offsets(n + 1);
  for (size_t i = 0; i <= n; ++i) offsets[i] = 64 * i;
  std::vector<uint8_t> want(32 * n), got(32 * n);
  if (ks_sm3_batch(cpu, data.data(), data.size(), offsets.data(), n, want.data(), want.size(),
                   nullptr) != KS_OK)
    exit(1);
  const DeviceVector<uint8_t> ddata(data), ddig(32 * n);
  const DeviceVector<uint64_t> doff(offsets);
  const DeviceVector<int> dstatus(n);
  const int reps = 7;
  ks::sm3::gpu::DeviceItems items;
  items.data = ddata;
  items.offsets = doff;
  const double kernel = timer.median(
      [&] { CHECK(ks::sm3::gpu::launch_digests(items, n, ddig, 0)); }, reps);
  rows.push_back({"sm3_64B_kernel", n, kernel});
  CHECK(cudaMemset(ddig, 0, 32 * n));
  const double device = median_wall(
      [&] {
        if (ks_sm3_batch(gpu, ddata, data.size(), doff, n, ddig, 32 * n, dstatus) != KS_OK) exit(1);
        CHECK(cudaDeviceSynchronize());
      },
      reps);
  CHECK(cudaMemcpy(got.data(), ddig, got.size(), cudaMemcpyDeviceToHost));
  require(got == want, "device memory");
  rows.push_back({"sm3_64B_device_c_api", n, device});
  const double host = median_wall(
      [&] {
        if (ks_sm3_batch(gpu, data.data(), data.size(), offsets.data(), n, got.data(), got.size(),
                         nullptr) != KS_OK)
          exit(1);
      },
      reps);
  require(got == want, "host memory");
  rows.push_back({"sm3_64B_end_to_end_host", n, host});
}

}  // namespace

int main(int argc, char** argv) {
  const int max_log2 = argc > 1 ? atoi(argv[1]) : 24;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  ks_ctx* gpu = ks_bench::new_context(KS_BACKEND_GPU);
  ks_ctx* cpu = ks_bench::new_context(KS_BACKEND_CPU);
  Timer timer;
  std::vector<Row> rows;
  for (int lg = 16; lg <= max_log2; lg += 2) bench(timer, gpu, cpu, size_t(1) << lg, rows);
  printf("{\n  \"device\": \"%s\",\n  \"sms\": %d,\n", prop.name, prop.multiProcessorCount);
  ks_bench::print_rows(rows);
  printf("}\n");
  ks_ctx_free(gpu);
  ks_ctx_free(cpu);
  return 0;
}
