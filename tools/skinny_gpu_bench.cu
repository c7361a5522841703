// Throughput of SKINNY-128-256 on the GPU (skinny/gpu/skinny_gpu.h): each
// kernel (bitsliced, circuit, T-tables in constant memory as the seed,
// T-tables in shared memory, the S-box replicated per bank) in ECB and CTR
// over random data of 16 B, 1 KiB, 64 KiB, 1, 16, 64 and 1024 MiB (up to
// 2^max_log2 bytes):
//  - kernel only: device buffers, CUDA events around the launch, median of
//    runs after a warm-up;
//  - end to end from pinned host memory, cut (from 1 MiB) into 16 pieces
//    over kStreams streams so that copies overlap the kernels (copy in, kernel, copy out
//    timed together), next to the pinned copies alone: in then out, and
//    overlapped in the same pieces and streams (the bound for end to end);
//  - device memory through the C API (ks_skinny128_256_crypt_buffer on a
//    GPU context, "device, C API" rows): wall clock from the call to the
//    end of its stream.
// The seed's baseline is measured in the same run: the table-based CPU code
// (ks::skinny::table_*), one thread, over 16 MiB (the seed's size), median
// of 3; every GPU row carries its speedup over it ("x_cpu_table_x1", the
// seed's 671x ECB / 765x CTR figure, like for like).
// The first and last 64 KiB of every output are checked against the CPU
// (ks::skinny). Prints one JSON object; exits non-zero on any mismatch.
//   skinny_gpu_bench [max_log2 (default 30)]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "kuaisuo.h"
#include "skinny/skinny128_256.h"
#include "skinny/gpu/skinny_gpu.h"
#include "testing/skinny_gpu_testing.h"
#include "gpu_bench_util.cuh"

namespace {

namespace sg = ks::skinny::gpu;
using ks_bench::fill_random;
using ks_bench::Timer;

constexpr int kStreams = 4;
constexpr size_t kPieces = 16;
constexpr size_t kCheckBytes = 64 * 1024;
constexpr size_t kCpuBytes = size_t(16) << 20;

struct Result {
  std::string kernel, mode, path;
  size_t bytes;
  double seconds;
};

// Bytes per second of the one-thread table code (the seed's baseline) in
// ECB (counter null) or CTR, over 16 MiB of in.
double cpu_table_rate(const ks::skinny::Key& k, const uint8_t* counter, const uint8_t* in,
                      uint8_t* out) {
  std::vector<double> t;
  for (int r = 0; r < 4; ++r) {  // the first is a warm-up
    const auto start = std::chrono::steady_clock::now();
    if (counter == nullptr) {
      ks::skinny::table_encrypt_blocks(k, in, out, kCpuBytes / 16);
    } else {
      uint8_t c[16];
      memcpy(c, counter, 16);
      ks::skinny::table_ctr_blocks(k, c, in, out, kCpuBytes / 16);
    }
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
    if (r > 0) t.push_back(d.count());
  }
  std::sort(t.begin(), t.end());
  return double(kCpuBytes) / t[1];
}

// The CPU's output for blocks [first, first + count) of the buffer.
std::vector<uint8_t> cpu_part(const ks::skinny::Key& k, const uint8_t* counter0,
                              const uint8_t* in, size_t first, size_t count) {
  std::vector<uint8_t> out(16 * count);
  if (counter0 == nullptr) {
    ks::skinny::encrypt_blocks(k, in + 16 * first, out.data(), count);
  } else {
    uint8_t c[16];
    memcpy(c, counter0, 16);
    ks::modes::ctr128_add(c, first);
    ks::skinny::ctr_blocks(k, c, in + 16 * first, out.data(), count);
  }
  return out;
}

bool matches(const ks::skinny::Key& k, const uint8_t* counter0, const uint8_t* in,
             const uint8_t* out, size_t bytes) {
  const size_t n = bytes / 16, part = std::min(n, kCheckBytes / 16);
  for (size_t first : {size_t(0), n - part}) {
    const std::vector<uint8_t> want = cpu_part(k, counter0, in, first, part);
    if (memcmp(want.data(), out + 16 * first, want.size()) != 0) return false;
  }
  return true;
}

// ks_skinny128_256_batch of 65,536 messages of 1 KiB (64 MiB), each under
// its own tweakey and IV, in device memory on the GPU context (wall clock
// from the call to the end of its stream), checked against the CPU
// context's batch, which is timed too (the host's threads): rows
// "messages, device memory" and "messages, CPU threads".
bool bench_messages(ks_ctx* gpu, std::vector<Result>& rows) {
  constexpr size_t kCount = 65536, kLen = 1024;
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  cfg.backend = KS_BACKEND_CPU;
  ks_ctx* cpu = nullptr;
  if (ks_ctx_new(&cfg, &cpu) != KS_OK) return false;
  std::vector<uint8_t> tks(32 * kCount), ivs(16 * kCount), data(kCount * kLen), want(data.size()),
      back(data.size());
  fill_random(tks.data(), tks.size(), 5);
  fill_random(ivs.data(), ivs.size(), 6);
  fill_random(data.data(), data.size(), 7);
  std::vector<uint64_t> offsets(kCount + 1);
  for (size_t i = 0; i <= kCount; ++i) offsets[i] = i * kLen;
  uint8_t *d_tks = nullptr, *d_ivs = nullptr, *d_data = nullptr, *d_out = nullptr;
  uint64_t* d_offsets = nullptr;
  int* d_status = nullptr;
  CHECK(cudaMalloc(&d_tks, tks.size()));
  CHECK(cudaMalloc(&d_ivs, ivs.size()));
  CHECK(cudaMalloc(&d_data, data.size()));
  CHECK(cudaMalloc(&d_out, data.size()));
  CHECK(cudaMalloc(&d_offsets, 8 * (kCount + 1)));
  CHECK(cudaMalloc(&d_status, sizeof(int) * kCount));
  CHECK(cudaMemcpy(d_tks, tks.data(), tks.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_ivs, ivs.data(), ivs.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_data, data.data(), data.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_offsets, offsets.data(), 8 * (kCount + 1), cudaMemcpyHostToDevice));
  std::vector<int> status(kCount);
  bool ok = true;
  for (int mode : {KS_SKINNY_ECB, KS_SKINNY_CTR}) {
    const char* name = mode == KS_SKINNY_ECB ? "ecb" : "ctr";
    const uint8_t* v = mode == KS_SKINNY_CTR ? ivs.data() : nullptr;
    int rc = KS_OK;
    const double t_cpu = ks_bench::median_wall([&] {
      rc |= ks_skinny128_256_batch(cpu, mode, KS_ENCRYPT, tks.data(), v, data.data(), data.size(),
                                   offsets.data(), kCount, want.data(), want.size(),
                                   status.data());
    }, 3);
    const double t_dev = ks_bench::median_wall([&] {
      rc |= ks_skinny128_256_batch(gpu, mode, KS_ENCRYPT, d_tks, v != nullptr ? d_ivs : nullptr,
                                   d_data, data.size(), d_offsets, kCount, d_out, data.size(),
                                   d_status);
      CHECK(cudaStreamSynchronize(0));
    }, 5);
    CHECK(cudaMemcpy(back.data(), d_out, back.size(), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(status.data(), d_status, sizeof(int) * kCount, cudaMemcpyDeviceToHost));
    ok &= rc == KS_OK && back == want && status == std::vector<int>(kCount, KS_OK);
    rows.push_back({"bitsliced", name, "messages, device memory", data.size(), t_dev});
    rows.push_back({"cpu threads", name, "messages, CPU threads", data.size(), t_cpu});
  }
  for (void* p : {(void*)d_tks, (void*)d_ivs, (void*)d_data, (void*)d_out, (void*)d_offsets,
                  (void*)d_status})
    cudaFree(p);
  ks_ctx_free(cpu);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const int max_log2 = std::max(24, argc > 1 ? atoi(argv[1]) : 30);  // 16 MiB for the CPU baseline
  const size_t max_bytes = size_t(1) << max_log2;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  uint8_t tweakey[32], counter[16];
  fill_random(tweakey, 32, 1);
  fill_random(counter, 16, 2);
  counter[8] = 0xFF;  // counters that carry into the upper 64 bits inside the run
  ks::skinny::Key key;
  ks::skinny::set_key(&key, tweakey);
  uint8_t *h_in = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
  CHECK(cudaMallocHost(&h_in, max_bytes));
  CHECK(cudaMallocHost(&h_out, max_bytes));
  CHECK(cudaMalloc(&d_in, max_bytes));
  CHECK(cudaMalloc(&d_out, max_bytes));
  fill_random(h_in, max_bytes, 3);
  cudaStream_t streams[kStreams];
  for (cudaStream_t& s : streams) CHECK(cudaStreamCreate(&s));
  ks_ctx* ctx = nullptr;
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  cfg.backend = KS_BACKEND_GPU;
  if (ks_ctx_new(&cfg, &ctx) != KS_OK) return fprintf(stderr, "no GPU context\n"), 1;
  Timer timer;
  std::vector<Result> results;
  bool ok = true;
  const sg::Kernel kernels[] = {sg::Kernel::kBitsliced, sg::Kernel::kCircuit,
                                sg::Kernel::kTablesConstant, sg::Kernel::kTablesShared,
                                sg::Kernel::kTablesReplicated};
  const double cpu_rate[2] = {cpu_table_rate(key, nullptr, h_in, h_out),
                              cpu_table_rate(key, counter, h_in, h_out)};
  for (int log2 : {4, 10, 16, 20, 24, 26, 30}) {
    const size_t bytes = size_t(1) << log2;
    if (bytes > max_bytes) break;
    const size_t n = bytes / 16;
    CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    const double copies = timer.median([&] {
      CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice));
      CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    }, 5);
    results.push_back({"-", "-", "pinned copies in+out", bytes, copies});
    // Pieces over kStreams streams: copy in, kernel (unless with_kernel is
    // false: the copies alone, the bound), copy out.
    const size_t pieces = bytes >= (size_t(1) << 20) ? kPieces : 1;  // small: one of each
    const size_t piece = bytes / pieces;
    auto overlapped = [&](sg::Kernel k, const uint8_t* ctr, bool with_kernel = true) {
      return timer.median([&] {
        for (size_t p = 0; p < pieces; ++p) {
          cudaStream_t s = streams[p % kStreams];
          const size_t off = p * piece;
          uint8_t c[16];
          memcpy(c, ctr == nullptr ? counter : ctr, 16);
          ks::modes::ctr128_add(c, off / 16);
          CHECK(cudaMemcpyAsync(d_in + off, h_in + off, piece, cudaMemcpyHostToDevice, s));
          if (with_kernel)
            CHECK(cudaError_t(sg::crypt(k, key.rtk, ctr == nullptr ? nullptr : c, d_in + off,
                                        d_out + off, piece / 16, s)));
          CHECK(cudaMemcpyAsync(h_out + off, d_out + off, piece, cudaMemcpyDeviceToHost, s));
        }
        CHECK(cudaDeviceSynchronize());
      }, 5);
    };
    results.push_back({"-", "-", "pinned copies, overlapped as end to end", bytes,
                       overlapped(sg::kDefaultKernel, nullptr, false)});
    for (sg::Kernel k : kernels) {
      for (const uint8_t* ctr : {static_cast<const uint8_t*>(nullptr),
                                 static_cast<const uint8_t*>(counter)}) {
        const char* mode = ctr == nullptr ? "ecb" : "ctr";
        const double kernel = timer.median([&] {
          CHECK(cudaError_t(sg::crypt(k, key.rtk, ctr, d_in, d_out, n, nullptr)));
        }, 5);
        CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
        ok &= matches(key, ctr, h_in, h_out, bytes);
        memset(h_out, 0, bytes);
        const double e2e = overlapped(k, ctr);
        ok &= matches(key, ctr, h_in, h_out, bytes);
        results.push_back({sg::kernel_name(k), mode, "kernel", bytes, kernel});
        results.push_back({sg::kernel_name(k), mode, "end to end, pinned, overlapped", bytes, e2e});
      }
    }
    // Device memory through the C API (kuaisuo/common.h, "Device memory"),
    // the library's kernel: wall clock from the call to the end of its
    // stream.
    for (const uint8_t* ctr : {static_cast<const uint8_t*>(nullptr),
                               static_cast<const uint8_t*>(counter)}) {
      CHECK(cudaMemset(d_out, 0, bytes));
      const double device = ks_bench::median_wall([&] {
        const int rc = ks_skinny128_256_crypt_buffer(
            ctx, ctr == nullptr ? KS_SKINNY_ECB : KS_SKINNY_CTR, KS_ENCRYPT, tweakey, ctr,
            ctr == nullptr ? 0 : 16, d_in, bytes, d_out);
        if (rc != KS_OK) fprintf(stderr, "skinny on device memory: %s\n", ks_strerror(rc)), exit(1);
        CHECK(cudaStreamSynchronize(0));
      }, 5);
      CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
      ok &= matches(key, ctr, h_in, h_out, bytes);
      results.push_back({sg::kernel_name(sg::kDefaultKernel), ctr == nullptr ? "ecb" : "ctr",
                         "device, C API", bytes, device});
    }
    // ECB decryption (the inverse rounds) of the ECB ciphertext into d_in
    // (uploaded again for the next size): it must give the input back.
    CHECK(cudaError_t(sg::crypt(sg::kDefaultKernel, key.rtk, nullptr, d_in, d_out, n, nullptr)));
    CHECK(cudaMemset(d_in, 0, bytes));
    int dec_rc = KS_OK;
    const double dec = ks_bench::median_wall([&] {
      dec_rc |= ks_skinny128_256_crypt_buffer(ctx, KS_SKINNY_ECB, KS_DECRYPT, tweakey, nullptr, 0,
                                              d_out, bytes, d_in);
      CHECK(cudaStreamSynchronize(0));
    }, 5);
    CHECK(cudaMemcpy(h_out, d_in, bytes, cudaMemcpyDeviceToHost));
    ok &= dec_rc == KS_OK && memcmp(h_out, h_in, bytes) == 0;
    results.push_back({sg::kernel_name(sg::kDefaultKernel), "ecb-dec", "device, C API", bytes,
                       dec});
  }
  ok &= bench_messages(ctx, results);
  printf("{\n  \"benchmark\": \"skinny_gpu_bench\",\n  \"device\": \"%s\",\n"
         "  \"cpu_table_x1_gbit_per_s\": {\"ecb\": %.3f, \"ctr\": %.3f},\n  \"results\": [\n",
         prop.name, 8e-9 * cpu_rate[0], 8e-9 * cpu_rate[1]);
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    // The copy rows encrypt nothing: no speedup to give.
    char speedup[32] = "null";
    if (r.mode != "-")
      snprintf(speedup, sizeof speedup, "%.0f",
               double(r.bytes) / r.seconds / cpu_rate[r.mode == "ctr" ? 1 : 0]);
    printf("    {\"kernel\": \"%s\", \"mode\": \"%s\", \"path\": \"%s\", \"bytes\": %zu, "
           "\"ms\": %.4f, \"gbit_per_s\": %.1f, \"x_cpu_table_x1\": %s}%s\n",
           r.kernel.c_str(), r.mode.c_str(), r.path.c_str(), r.bytes, r.seconds * 1e3,
           8e-9 * double(r.bytes) / r.seconds, speedup, i + 1 < results.size() ? "," : "");
  }
  printf("  ],\n  \"checked_against_cpu\": %s\n}\n", ok ? "true" : "false");
  ks::skinny::wipe_key(&key);
  ks_ctx_free(ctx);
  return ok ? 0 : 1;
}
