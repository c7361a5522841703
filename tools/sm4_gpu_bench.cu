// Throughput of SM4 on the GPU (sm4/gpu/sm4_gpu.h): both kernels (T-table,
// bitsliced) in ECB encryption, CTR and GCM seal, over random data of 1 MiB,
// 16 MiB, 256 MiB and 1 GiB (up to 2^max_log2 bytes):
//  - kernel only: device buffers, CUDA events around the launch(es), median
//    of runs after a warm-up (GCM: CTR kernel, GHASH kernels, tag);
//  - device memory through the C API (ks_sm4_crypt_buffer and
//    ks_sm4_gcm_seal_buffer on a GPU context, "device" rows): wall clock
//    from the call to the end of its stream;
//  - end to end: copy in + kernel + copy out timed together, from ordinary
//    pageable host memory, from pinned host memory on one stream, and from
//    pinned memory cut into pieces over kStreams streams so that copies
//    overlap the kernels (ECB and CTR; GCM's single tag needs the whole
//    text in one call);
//  - the copy bandwidth alone (pinned and pageable, in + out) at each size,
//    the bound for end to end;
//  - many messages (ks_sm4_batch on a GPU context): 1 KiB messages, each
//    its own key and IV, in ECB, CTR, CBC, CFB and OFB encryption (the
//    serial modes through the 32-messages-a-thread chains), CBC
//    decryption and GCM sealing, end to end from ordinary host memory (the
//    key schedules, copies and kernels of one call) and with every array
//    in device memory (the call to the end of its stream), checked
//    against a CPU context.
// Every result is checked against the CPU (ks::sm4, ks::gcm): the first
// and last 64 KiB of ECB/CTR output, GCM's whole ciphertext and tag.
// Prints one JSON object; exits non-zero on any mismatch.
//   sm4_gpu_bench [max_log2 (default 30)]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cipher/gcm.h"
#include "kuaisuo.h"
#include "sm4/sm4.h"
#include "sm4/gpu/sm4_gpu.h"
#include "gpu_bench_util.cuh"

namespace {

namespace sg = ks::sm4::gpu;
using ks_bench::fill_random;
using ks_bench::Timer;
using ks_bench::median_wall;

constexpr int kStreams = 4;
constexpr size_t kPieces = 16;  // pieces of an overlapped end-to-end run
constexpr size_t kCheckBytes = 64 * 1024;

enum class Mode { kEcb, kCtr, kGcm };
const char* mode_name(Mode m) { return m == Mode::kEcb ? "ecb" : m == Mode::kCtr ? "ctr" : "gcm"; }

struct Result {
  std::string kernel, mode, path;
  size_t bytes;
  double seconds;
};

struct Case {
  sg::Kernel kernel;
  Mode mode;
  const ks::sm4::Key* key;
  const uint8_t* key_bytes;  // the same key, for the C API
  const uint8_t* counter;  // CTR: the first counter block
  const uint8_t* iv;       // GCM
  const uint8_t* aad;
  size_t aad_len;
};

// Enqueues one operation over n bytes at byte offset `off` of the message
// (CTR: the counter advanced to it); GCM only with off = 0, whole message.
void enqueue(const Case& c, const uint8_t* d_in, uint8_t* d_out, uint8_t* d_tag, size_t off,
             size_t n, cudaStream_t s) {
  if (c.mode == Mode::kEcb) {
    CHECK(cudaError_t(sg::ecb(c.kernel, c.key->enc, d_in, d_out, n / 16, s)));
  } else if (c.mode == Mode::kCtr) {
    uint8_t counter[16];
    memcpy(counter, c.counter, 16);
    ks::sm4::ctr128_add(counter, off / 16);
    CHECK(cudaError_t(sg::ctr(c.kernel, c.key->enc, counter, d_in, d_out, n / 16, s)));
  } else {
    CHECK(cudaError_t(
        sg::gcm_seal(c.kernel, c.key->enc, c.iv, c.aad, c.aad_len, d_in, n, d_out, d_tag, s)));
  }
}

// The same operation over the whole message through the C API on device
// memory (kuaisuo/common.h, "Device memory"): queued on ctx's stream (the
// default stream here).
void api_device(const Case& c, ks_ctx* ctx, const uint8_t* d_in, uint8_t* d_out, uint8_t* d_tag,
                size_t n) {
  const uint32_t flags = c.kernel == sg::Kernel::kTable ? KS_SM4_GPU_TABLES : 0;
  const bool ctr = c.mode == Mode::kCtr;
  const int rc =
      c.mode == Mode::kGcm
          ? ks_sm4_gcm_seal_buffer(ctx, flags, c.key_bytes, c.iv, 12, c.aad, c.aad_len, d_in, n,
                                   d_out, d_tag, 16)
          : ks_sm4_crypt_buffer(ctx, ctr ? KS_SM4_CTR : KS_SM4_ECB, KS_ENCRYPT, flags,
                                c.key_bytes, ctr ? c.counter : nullptr, ctr ? 16 : 0, d_in, n,
                                d_out);
  if (rc != KS_OK) {
    fprintf(stderr, "ks_sm4 on device memory: %s\n", ks_strerror(rc));
    exit(1);
  }
}

// The CPU's output for bytes [off, off + n) of a message of `total` bytes
// (GCM: the whole message, and its tag).
void cpu_reference(const Case& c, const uint8_t* in, size_t total, size_t off, size_t n,
                   uint8_t* out, uint8_t* tag) {
  if (c.mode == Mode::kEcb) {
    ks::sm4::encrypt_blocks(*c.key, in + off, out, n / 16);
  } else if (c.mode == Mode::kCtr) {
    uint8_t counter[16];
    memcpy(counter, c.counter, 16);
    ks::sm4::ctr128_add(counter, off / 16);
    ks::sm4::ctr_blocks(*c.key, counter, in + off, out, n / 16);
  } else {
    ks::gcm::seal(ks::sm4::block_cipher(), c.key, c.iv, 12, c.aad, c.aad_len, in, total, out,
                  tag, 16);
  }
}

void fail(const char* what, const Case& c, size_t bytes) {
  fprintf(stderr, "MISMATCH: %s %s %s at %zu bytes differs from the CPU\n", what,
          sg::kernel_name(c.kernel), mode_name(c.mode), bytes);
  exit(1);
}

// out (host) against the CPU: GCM whole, ECB/CTR head and tail.
void check(const Case& c, const uint8_t* in, const uint8_t* out, const uint8_t* tag, size_t n,
           const char* what) {
  if (c.mode == Mode::kGcm) {
    // Every GCM case seals the same message (key, IV, AAD, data): one CPU
    // seal per size.
    static std::vector<uint8_t> want;
    static size_t want_n = 0;
    static uint8_t want_tag[16];
    if (want_n != n) {
      want.resize(n);
      cpu_reference(c, in, n, 0, n, want.data(), want_tag);
      want_n = n;
    }
    if (memcmp(want.data(), out, n) != 0 || memcmp(want_tag, tag, 16) != 0) fail(what, c, n);
    return;
  }
  std::vector<uint8_t> want(std::min(n, kCheckBytes));
  for (size_t off : {size_t(0), n - want.size()}) {
    cpu_reference(c, in, n, off, want.size(), want.data(), nullptr);
    if (memcmp(want.data(), out + off, want.size()) != 0) fail(what, c, n);
  }
}


struct Buffers {
  ks_ctx* gpu_ctx;  // for the C API on device memory
  uint8_t *d_in, *d_out, *d_tag;
  uint8_t *pin_in, *pin_out;
  std::vector<uint8_t> page_in, page_out;
  cudaStream_t streams[kStreams];
};

void bench_case(Timer& timer, Buffers& b, const Case& c, size_t n, std::vector<Result>& rows) {
  const std::string kn = sg::kernel_name(c.kernel), mn = mode_name(c.mode);
  const int reps = n >= (size_t(256) << 20) ? 3 : 7;
  uint8_t tag[16];
  // Kernel only (the input was copied to d_in once, from page_in).
  const double k = timer.median([&] { enqueue(c, b.d_in, b.d_out, b.d_tag, 0, n, 0); }, reps);
  CHECK(cudaMemcpy(b.page_out.data(), b.d_out, n, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(tag, b.d_tag, 16, cudaMemcpyDeviceToHost));
  check(c, b.page_in.data(), b.page_out.data(), tag, n, "kernel");
  rows.push_back({kn, mn, "kernel", n, k});
  // Device memory through the C API: wall clock from the call to the end
  // of its stream (key schedule, pointer checks, launches, GCM's host
  // GHASH of the AAD included).
  CHECK(cudaMemset(b.d_out, 0, n));
  const double dv = median_wall(
      [&] {
        api_device(c, b.gpu_ctx, b.d_in, b.d_out, b.d_tag, n);
        CHECK(cudaStreamSynchronize(0));
      },
      reps);
  CHECK(cudaMemcpy(b.page_out.data(), b.d_out, n, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(tag, b.d_tag, 16, cudaMemcpyDeviceToHost));
  check(c, b.page_in.data(), b.page_out.data(), tag, n, "device");
  rows.push_back({kn, mn, "device", n, dv});
  // End to end from pageable memory.
  const double pg = median_wall(
      [&] {
        CHECK(cudaMemcpyAsync(b.d_in, b.page_in.data(), n, cudaMemcpyHostToDevice, 0));
        enqueue(c, b.d_in, b.d_out, b.d_tag, 0, n, 0);
        CHECK(cudaMemcpyAsync(b.page_out.data(), b.d_out, n, cudaMemcpyDeviceToHost, 0));
        CHECK(cudaMemcpyAsync(tag, b.d_tag, 16, cudaMemcpyDeviceToHost, 0));
        CHECK(cudaStreamSynchronize(0));
      },
      reps);
  check(c, b.page_in.data(), b.page_out.data(), tag, n, "pageable");
  rows.push_back({kn, mn, "pageable", n, pg});
  // End to end from pinned memory, one stream.
  const double pn = median_wall(
      [&] {
        CHECK(cudaMemcpyAsync(b.d_in, b.pin_in, n, cudaMemcpyHostToDevice, b.streams[0]));
        enqueue(c, b.d_in, b.d_out, b.d_tag, 0, n, b.streams[0]);
        CHECK(cudaMemcpyAsync(b.pin_out, b.d_out, n, cudaMemcpyDeviceToHost, b.streams[0]));
        CHECK(cudaMemcpyAsync(tag, b.d_tag, 16, cudaMemcpyDeviceToHost, b.streams[0]));
        CHECK(cudaStreamSynchronize(b.streams[0]));
      },
      reps);
  check(c, b.pin_in, b.pin_out, tag, n, "pinned");
  rows.push_back({kn, mn, "pinned", n, pn});
  if (c.mode == Mode::kGcm) return;
  // Pinned, kPieces pieces round-robin over kStreams streams: piece i's
  // copy in overlaps piece i-1's kernel and piece i-2's copy out.
  const size_t piece = (n / kPieces + 15) / 16 * 16;
  memset(b.pin_out, 0, n);
  const double ov = median_wall(
      [&] {
        for (size_t i = 0, off = 0; off < n; ++i, off += piece) {
          const size_t len = std::min(piece, n - off);
          cudaStream_t s = b.streams[i % kStreams];
          CHECK(cudaMemcpyAsync(b.d_in + off, b.pin_in + off, len, cudaMemcpyHostToDevice, s));
          enqueue(c, b.d_in + off, b.d_out + off, b.d_tag, off, len, s);
          CHECK(cudaMemcpyAsync(b.pin_out + off, b.d_out + off, len, cudaMemcpyDeviceToHost, s));
        }
        CHECK(cudaDeviceSynchronize());
      },
      reps);
  check(c, b.pin_in, b.pin_out, tag, n, "pinned_overlap");
  rows.push_back({kn, mn, "pinned_overlap", n, ov});
}

// Copy in + copy out alone, pinned (overlapped over the streams, as the
// best end-to-end path can at most do) and pageable.
void bench_copies(Buffers& b, size_t n, std::vector<Result>& rows) {
  const size_t piece = (n / kPieces + 15) / 16 * 16;
  const double pinned = median_wall(
      [&] {
        for (size_t i = 0, off = 0; off < n; ++i, off += piece) {
          const size_t len = std::min(piece, n - off);
          cudaStream_t s = b.streams[i % kStreams];
          CHECK(cudaMemcpyAsync(b.d_in + off, b.pin_in + off, len, cudaMemcpyHostToDevice, s));
          CHECK(cudaMemcpyAsync(b.pin_out + off, b.d_out + off, len, cudaMemcpyDeviceToHost, s));
        }
        CHECK(cudaDeviceSynchronize());
      },
      5);
  rows.push_back({"none", "copy", "pinned_overlap", n, pinned});
  const double pageable = median_wall(
      [&] {
        CHECK(cudaMemcpy(b.d_in, b.page_in.data(), n, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(b.page_out.data(), b.d_out, n, cudaMemcpyDeviceToHost));
      },
      5);
  rows.push_back({"none", "copy", "pageable", n, pageable});
}

// ks_sm4_batch of `count` messages of 1 KiB on a GPU context against a CPU
// context's output (every byte); rows "messages" with the mode's name.
bool bench_messages(size_t count, uint64_t seed, std::vector<Result>& rows) {
  constexpr size_t kLen = 1024;
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  cfg.backend = KS_BACKEND_GPU;
  ks_ctx *gpu = nullptr, *cpu = nullptr;
  if (ks_ctx_new(&cfg, &gpu) != KS_OK) return false;
  cfg.backend = KS_BACKEND_CPU;
  if (ks_ctx_new(&cfg, &cpu) != KS_OK) return false;
  std::vector<uint8_t> keys(16 * count), ivs(16 * count), data(count * kLen), out(data.size()),
      want(data.size());
  fill_random(keys.data(), keys.size(), seed ^ 5);
  fill_random(ivs.data(), ivs.size(), seed ^ 6);
  fill_random(data.data(), data.size(), seed ^ 7);
  std::vector<uint64_t> offsets(count + 1);
  for (size_t i = 0; i <= count; ++i) offsets[i] = i * kLen;
  struct M {
    const char* name;
    int mode, encrypt;
  };
  // The same arrays in device memory: the call on the default stream,
  // timed to its end.
  uint8_t *d_keys = nullptr, *d_ivs = nullptr, *d_data = nullptr, *d_out = nullptr,
          *d_tags = nullptr;
  uint64_t* d_offsets = nullptr;
  int* d_status = nullptr;
  CHECK(cudaMalloc(&d_keys, keys.size()));
  CHECK(cudaMalloc(&d_ivs, ivs.size()));
  CHECK(cudaMalloc(&d_data, data.size()));
  CHECK(cudaMalloc(&d_out, data.size()));
  CHECK(cudaMalloc(&d_tags, 16 * count));
  CHECK(cudaMalloc(&d_offsets, 8 * (count + 1)));
  CHECK(cudaMalloc(&d_status, sizeof(int) * count));
  CHECK(cudaMemcpy(d_keys, keys.data(), keys.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_ivs, ivs.data(), ivs.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_data, data.data(), data.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_offsets, offsets.data(), 8 * (count + 1), cudaMemcpyHostToDevice));
  std::vector<uint8_t> tags(16 * count), want_tags(16 * count);
  bool ok = true;
  for (M m : {M{"ecb", KS_SM4_ECB, 1}, M{"ctr", KS_SM4_CTR, 1}, M{"cbc", KS_SM4_CBC, 1},
              M{"cfb", KS_SM4_CFB, 1}, M{"ofb", KS_SM4_OFB, 1}, M{"cbc-dec", KS_SM4_CBC, 0},
              M{"gcm", KS_SM4_GCM, 1}}) {
    const bool gcm = m.mode == KS_SM4_GCM;
    const size_t iv_len = m.mode == KS_SM4_ECB ? 0 : gcm ? 12 : 16;
    auto run = [&](ks_ctx* ctx, const uint8_t* k, const uint8_t* v, const uint8_t* in,
                   const uint64_t* off, uint8_t* dst, uint8_t* t, int* st) {
      return ks_sm4_batch(ctx, m.mode, m.encrypt, 0, k, iv_len ? v : nullptr, iv_len, in,
                          data.size(), off, count, dst, data.size(), nullptr, 0, nullptr,
                          gcm ? t : nullptr, gcm ? 16 : 0, st);
    };
    int rc = KS_OK;
    const double t = median_wall(
        [&] { rc |= run(gpu, keys.data(), ivs.data(), data.data(), offsets.data(), out.data(),
                        tags.data(), nullptr); }, 5);
    ok &= rc == KS_OK &&
          run(cpu, keys.data(), ivs.data(), data.data(), offsets.data(), want.data(),
              want_tags.data(), nullptr) == KS_OK &&
          out == want && (!gcm || tags == want_tags);
    rows.push_back({"bitsliced", m.name, "messages, pageable, end to end", data.size(), t});
    const double td = median_wall([&] {
      rc |= run(gpu, d_keys, d_ivs, d_data, d_offsets, d_out, d_tags, d_status);
      CHECK(cudaDeviceSynchronize());
    }, 5);
    std::vector<uint8_t> back(data.size());
    CHECK(cudaMemcpy(back.data(), d_out, back.size(), cudaMemcpyDeviceToHost));
    if (gcm) CHECK(cudaMemcpy(tags.data(), d_tags, tags.size(), cudaMemcpyDeviceToHost));
    ok &= rc == KS_OK && back == want && (!gcm || tags == want_tags);
    rows.push_back({"bitsliced", m.name, "messages, device memory", data.size(), td});
  }
  for (void* p : {(void*)d_keys, (void*)d_ivs, (void*)d_data, (void*)d_out, (void*)d_tags,
                  (void*)d_offsets, (void*)d_status})
    cudaFree(p);
  ks_ctx_free(gpu);
  ks_ctx_free(cpu);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const int max_log2 = argc > 1 ? atoi(argv[1]) : 30;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const size_t max_n = size_t(1) << max_log2;
  std::random_device rd;
  const uint64_t seed = uint64_t(rd()) << 32 | rd();

  Buffers b;
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  cfg.backend = KS_BACKEND_GPU;
  if (ks_ctx_new(&cfg, &b.gpu_ctx) != KS_OK) {
    fprintf(stderr, "sm4_gpu_bench: no GPU context\n");
    return 1;
  }
  b.page_in.resize(max_n);
  b.page_out.resize(max_n);
  fill_random(b.page_in.data(), max_n, seed);
  CHECK(cudaMalloc(&b.d_in, max_n));
  CHECK(cudaMalloc(&b.d_out, max_n));
  CHECK(cudaMalloc(&b.d_tag, 16));
  CHECK(cudaMallocHost(&b.pin_in, max_n));
  CHECK(cudaMallocHost(&b.pin_out, max_n));
  memcpy(b.pin_in, b.page_in.data(), max_n);
  for (cudaStream_t& s : b.streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  uint8_t key_bytes[16], counter[16], iv[12], aad[29];
  fill_random(key_bytes, 16, seed ^ 1);
  fill_random(counter, 16, seed ^ 2);
  memset(counter + 8, 0xff, 7);  // the 64-bit carry happens inside the runs
  fill_random(iv, 12, seed ^ 3);
  fill_random(aad, sizeof aad, seed ^ 4);
  ks::sm4::Key key;
  ks::sm4::set_key(&key, key_bytes);

  Timer timer;
  std::vector<Result> rows;
  std::vector<size_t> sizes;
  for (int lg : {4, 10, 16, 20, 22, 24, 26, 28, 30})
    if (lg <= max_log2) sizes.push_back(size_t(1) << lg);
  for (size_t n : sizes) {
    CHECK(cudaMemcpy(b.d_in, b.page_in.data(), n, cudaMemcpyHostToDevice));
    for (sg::Kernel k : {sg::Kernel::kTable, sg::Kernel::kBitsliced})
      for (Mode m : {Mode::kEcb, Mode::kCtr, Mode::kGcm}) {
        CHECK(cudaMemcpy(b.d_in, b.page_in.data(), n, cudaMemcpyHostToDevice));
        const Case c = {k, m, &key, key_bytes, counter, iv, aad, sizeof aad};
        bench_case(timer, b, c, n, rows);
      }
    bench_copies(b, n, rows);
  }
  const bool messages_ok = bench_messages(max_n / 1024, seed, rows);

  printf("{\n  \"device\": \"%s\",\n  \"sms\": %d,\n  \"seed\": %llu,\n", prop.name,
         prop.multiProcessorCount, (unsigned long long)seed);
  printf("  \"note\": \"GB/s = 1e9 bytes of plaintext per second; gbit_per_s = 8 x that; "
         "copy rows move the bytes in and out\",\n");
  printf("  \"results\": [\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Result& r = rows[i];
    const double gbs = r.bytes / r.seconds / 1e9;
    printf("    {\"kernel\": \"%s\", \"mode\": \"%s\", \"path\": \"%s\", \"bytes\": %zu, "
           "\"ms\": %.4f, \"gb_per_s\": %.2f, \"gbit_per_s\": %.1f}%s\n",
           r.kernel.c_str(), r.mode.c_str(), r.path.c_str(), r.bytes, r.seconds * 1e3, gbs,
           8 * gbs, i + 1 < rows.size() ? "," : "");
  }
  printf("  ]\n}\n");
  ks::sm4::wipe_key(&key);
  ks_ctx_free(b.gpu_ctx);
  for (cudaStream_t s : b.streams) cudaStreamDestroy(s);
  cudaFree(b.d_in);
  cudaFree(b.d_out);
  cudaFree(b.d_tag);
  cudaFreeHost(b.pin_in);
  cudaFreeHost(b.pin_out);
  if (!messages_ok) fprintf(stderr, "sm4_gpu_bench: the GPU's messages differ from the CPU's\n");
  return messages_ok ? 0 : 1;
}
