// Throughput of Curve25519 on the GPU (curve25519/gpu/curve25519_gpu.h) in both
// GF(2^255 - 19) fields, FP64 ([DPFECC20]'s DPF arithmetic) and integer:
// the field multiplication and squaring rates, X25519 kernel-only (CUDA
// events, after a warm-up, median of runs) at several batch sizes, and
// X25519 end to end from ordinary host buffers (allocation, copies in and
// out, kernel; steady clock). Inputs are random: per-item keys and u
// (x25519_per_item_key) and one key for the batch (x25519_one_key). The
// first 256 results of every batch are checked against the CPU. Then
// Ed25519 verification kernel-only and end to end (flat layout: public
// keys, signatures, 64-byte messages) for each field and code layout, on
// distinct valid signatures made on the CPU under 4096 keys; every status
// must be kOk (at the largest size also through ks_ed25519_verify_batch on
// device memory, "ed25519_verify_device_c_api"); Ed25519 and X25519 public keys (the comb) and one-key
// Ed25519 signatures kernel-only. Prints JSON.
//   curve25519_gpu_bench [max_batch_log2 [x25519|verify|sign]]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "field/fe25519_dpf.cuh"
#include "field/fe25519_gpu.cuh"
#include "gpu_bench_util.cuh"
#include "kuaisuo.h"
#include "curve25519/gpu/curve25519_gpu.h"
#include "testing/curve25519_gpu_testing.h"
#include "curve25519/ed25519.h"
#include "curve25519/x25519.h"

namespace {

namespace c25519 = ks::curve25519::gpu;
using ks_bench::DeviceVector;
using ks_bench::Row;
using ks_bench::Timer;
using ks_bench::field_rate;
using ks_bench::median_wall;
using ks_bench::print_rows;

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(rng());
  return v;
}

// 256 results spread over the batch (the first and the last among them)
// against the CPU's X25519.
void check_against_cpu(const std::vector<uint8_t>& k, size_t k_stride,
                       const std::vector<uint8_t>& u, const std::vector<uint8_t>& out, size_t n,
                       const char* what) {
  const size_t samples = n < 256 ? n : 256;
  for (size_t s = 0; s < samples; ++s) {
    const size_t i = samples > 1 ? s * (n - 1) / (samples - 1) : 0;
    uint8_t want[32];
    ks::x25519::shared_secret(want, &k[32 * k_stride * i], &u[32 * i]);
    if (memcmp(want, &out[32 * i], 32) != 0) {
      fprintf(stderr, "%s: item %zu differs from the CPU\n", what, i);
      exit(1);
    }
  }
}

struct FieldCase {
  c25519::Field field;
  const char* name;  // "dpf" or "int"
};

// Kernel-only X25519 at one batch size, then one end-to-end run at the
// largest size.
void bench_x25519(Timer& timer, std::mt19937_64& rng, const FieldCase& fc, size_t n,
                  bool end_to_end, std::vector<Row>& rows, std::vector<std::string>& names) {
  const std::vector<uint8_t> k = random_bytes(rng, 32 * n), u = random_bytes(rng, 32 * n);
  const int reps = n >= (1u << 20) ? 3 : 5;
  {  // kernel only (device buffers freed before the end-to-end runs)
    const DeviceVector<uint8_t> dk(k), du(u), dout(32 * n);
    const DeviceVector<int> dst(n);
    // Items a thread: the launcher's choice (up to 4 sharing an inversion),
    // and 1 beside it.
    for (int per_thread : {0, 1})
      for (size_t stride : {size_t(1), size_t(0)}) {
        const double s = timer.median(
            [&] {
              CHECK(c25519::launch_x25519(fc.field, dk, stride, du, dout, dst, n, 0, per_thread));
            },
            reps);
        std::vector<uint8_t> out(32 * n);
        CHECK(cudaMemcpy(out.data(), dout, out.size(), cudaMemcpyDeviceToHost));
        names.push_back(std::string("x25519_") + (stride ? "per_item_key_" : "one_key_") + fc.name +
                        (per_thread == 1 ? "_1_per_thread" : ""));
        check_against_cpu(k, stride, u, out, n, names.back().c_str());
        rows.push_back({names.back().c_str(), n, s});
      }
  }
  if (!end_to_end) return;
  std::vector<uint8_t> out(32 * n);
  std::vector<int> status(n);
  std::vector<double> t;
  for (int r = 0; r < reps + 1; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = c25519::run_x25519(fc.field, k.data(), 1, u.data(), out.data(), status.data(), n);
    if (rc != 0) {
      fprintf(stderr, "run_x25519: %s\n", cudaGetErrorString(cudaError_t(rc)));
      exit(1);
    }
    if (r > 0) t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  names.push_back(std::string("x25519_end_to_end_") + fc.name);
  check_against_cpu(k, 1, u, out, n, names.back().c_str());
  rows.push_back({names.back().c_str(), n, t[t.size() / 2]});
}

// n valid signatures over distinct random 64-byte messages, made on every
// CPU core.
struct SignedItems {
  std::vector<uint8_t> pubs, sigs, data;
  std::vector<uint64_t> offsets;
};

SignedItems signed_items(size_t n) {
  constexpr size_t kKeys = 4096, kMsg = 64;
  std::mt19937_64 rng(8032);
  std::vector<ks::ed25519::PrivateKey> keys(kKeys);
  for (auto& k : keys) ks::ed25519::key_from_seed(k, random_bytes(rng, 32).data());
  SignedItems s{std::vector<uint8_t>(32 * n), std::vector<uint8_t>(64 * n),
                random_bytes(rng, kMsg * n), std::vector<uint64_t>(n + 1)};
  for (size_t i = 0; i <= n; ++i) s.offsets[i] = kMsg * i;
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      for (size_t i = w; i < n; i += workers) {
        const ks::ed25519::PrivateKey& key = keys[i % kKeys];
        memcpy(&s.pubs[32 * i], key.pub.bytes, 32);
        ks::ed25519::sign(&s.sigs[64 * i], key, ks::ed25519::Domain(), &s.data[kMsg * i], kMsg);
      }
    });
  for (auto& t : pool) t.join();
  return s;
}

void expect_all_ok(const std::vector<int>& status, const char* what) {
  for (size_t i = 0; i < status.size(); ++i)
    if (status[i] != 0) {
      fprintf(stderr, "%s: item %zu has status %d\n", what, i, status[i]);
      exit(1);
    }
}

struct LayoutCase {
  c25519::Layout layout;
  const char* name;
};

// ks_ed25519_verify_batch on a GPU context with every buffer in device
// memory (kuaisuo/common.h, "Device memory"): from the call to the end of
// the work it queued on the default stream, statuses mapped on the device.
void bench_verify_device(const uint8_t* pubs, const uint8_t* sigs, const uint8_t* data,
                         size_t data_len, const uint64_t* offsets, int* status, size_t n,
                         std::vector<Row>& rows, std::vector<std::string>& names) {
  static ks_ctx* ctx = ks_bench::new_context(KS_BACKEND_GPU);
  const double s = median_wall(
      [&] {
        if (ks_ed25519_verify_batch(ctx, pubs, data, data_len, offsets, n, sigs, status) != KS_OK)
          exit(1);
        CHECK(cudaDeviceSynchronize());
      },
      3);
  std::vector<int> got(n, -1);
  CHECK(cudaMemcpy(got.data(), status, sizeof(int) * n, cudaMemcpyDeviceToHost));
  names.push_back("ed25519_verify_device_c_api");
  expect_all_ok(got, names.back().c_str());
  rows.push_back({names.back().c_str(), n, s});
}

// Kernel-only verification at n items for one field and layout; end to end
// (allocation, copies, kernel: run_ed25519_verify) where asked.
void bench_verify(Timer& timer, const SignedItems& items, const FieldCase& fc,
                  const LayoutCase& lc, size_t n, bool end_to_end, std::vector<Row>& rows,
                  std::vector<std::string>& names) {
  const std::vector<uint8_t> pubs(items.pubs.begin(), items.pubs.begin() + 32 * n),
      sigs(items.sigs.begin(), items.sigs.begin() + 64 * n),
      data(items.data.begin(), items.data.begin() + items.offsets[n]);
  const std::vector<uint64_t> offsets(items.offsets.begin(), items.offsets.begin() + n + 1);
  std::vector<int> status(n);
  {  // kernel only (device buffers freed before the end-to-end runs)
    const DeviceVector<uint8_t> dpub(pubs), dsig(sigs), ddata(data);
    const DeviceVector<uint64_t> doff(offsets);
    const DeviceVector<int> dst(n);
    const double s = timer.median(
        [&] {
          CHECK(c25519::launch_ed25519_verify(fc.field, lc.layout, dpub, dsig, ddata,
                                              data.size(), doff, dst, n, 0));
        },
        n >= (1u << 20) ? 3 : 5);
    CHECK(cudaMemcpy(status.data(), dst, sizeof(int) * n, cudaMemcpyDeviceToHost));
    names.push_back(std::string("ed25519_verify_") + fc.name + "_" + lc.name);
    expect_all_ok(status, names.back().c_str());
    rows.push_back({names.back().c_str(), n, s});
    if (end_to_end && fc.field == c25519::Field::kDpf &&
        lc.layout == c25519::Layout::kOutOfLineFourBlocks)  // the library's kernel
      bench_verify_device(dpub, dsig, ddata, data.size(), doff, dst, n, rows, names);
  }
  if (!end_to_end) return;
  std::vector<double> t;
  for (int r = 0; r < 4; ++r) {
    std::fill(status.begin(), status.end(), -1);
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(cudaError_t(c25519::run_ed25519_verify(fc.field, lc.layout, pubs.data(), sigs.data(),
                                                 data.data(), offsets.data(), status.data(), n)));
    if (r > 0) t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  names.push_back(std::string("ed25519_verify_end_to_end_") + fc.name + "_" + lc.name);
  expect_all_ok(status, names.back().c_str());
  rows.push_back({names.back().c_str(), n, t[t.size() / 2]});
}

// Which fixed-base table keys and signatures read (curve25519_gpu_host.h);
// rows of the wide one are named with "_wide".
struct BaseCase {
  c25519::BaseTable table;
  const char* suffix;
};

// Kernel-only public keys (from random seeds) and signatures (one key,
// 64-byte messages) at n items for one field, layout and table; the first
// 256 against the CPU.
void bench_sign(Timer& timer, const SignedItems& items, const FieldCase& fc,
                const LayoutCase& lc, const BaseCase& bc, size_t n, std::vector<Row>& rows,
                std::vector<std::string>& names) {
  std::mt19937_64 rng(n);
  const std::vector<uint8_t> seeds = random_bytes(rng, 32 * n);
  ks::ed25519::PrivateKey key;
  ks::ed25519::key_from_seed(key, seeds.data());
  std::vector<uint8_t> key96(ks::ed25519::kDeviceKeyBytes);
  ks::ed25519::device_key_bytes(key96.data(), key);
  const std::vector<uint8_t> data(items.data.begin(), items.data.begin() + items.offsets[n]);
  const DeviceVector<uint8_t> dseed(seeds), dkey(key96), ddata(data);
  const DeviceVector<uint64_t> doff(
      std::vector<uint64_t>(items.offsets.begin(), items.offsets.begin() + n + 1));
  const DeviceVector<uint8_t> dpub(32 * n), dsig(64 * n);
  const int reps = n >= (1u << 20) ? 3 : 5;
  const double s_keys = timer.median(
      [&] { CHECK(c25519::launch_ed25519_public_keys(fc.field, lc.layout, dseed, dpub, n, 0, bc.table)); },
      reps);
  const DeviceVector<uint8_t> dxpub(32 * n);
  const double s_xkeys = timer.median(
      [&] { CHECK(c25519::launch_x25519_public_keys(fc.field, lc.layout, dseed, dxpub, n, 0, bc.table)); },
      reps);
  const double s_sign = timer.median(
      [&] {
        CHECK(c25519::launch_ed25519_sign(fc.field, lc.layout, dkey, nullptr, ddata, doff, dsig, n,
                                          0, bc.table));
      },
      reps);
  std::vector<uint8_t> pubs(32 * n), sigs(64 * n), xpubs(32 * n);
  CHECK(cudaMemcpy(pubs.data(), dpub, pubs.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(xpubs.data(), dxpub, xpubs.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sigs.data(), dsig, sigs.size(), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < 256 && i < n; ++i) {
    ks::ed25519::PrivateKey k;
    ks::ed25519::key_from_seed(k, &seeds[32 * i]);
    uint8_t want[64];
    ks::ed25519::sign(want, key, ks::ed25519::Domain(), &data[items.offsets[i]], 64);
    uint8_t want_u[32];
    ks::x25519::public_key(want_u, &seeds[32 * i]);
    if (memcmp(k.pub.bytes, &pubs[32 * i], 32) != 0 || memcmp(want, &sigs[64 * i], 64) != 0 ||
        memcmp(want_u, &xpubs[32 * i], 32) != 0) {
      fprintf(stderr, "ed25519%s %s %s: item %zu differs from the CPU\n", bc.suffix, fc.name,
              lc.name, i);
      exit(1);
    }
  }
  const std::string tail = std::string(bc.suffix) + "_" + fc.name + "_" + lc.name;
  names.push_back("ed25519_public_key" + tail);
  rows.push_back({names.back().c_str(), n, s_keys});
  names.push_back("x25519_public_key" + tail);
  rows.push_back({names.back().c_str(), n, s_xkeys});
  names.push_back("ed25519_sign_one_key" + tail);
  rows.push_back({names.back().c_str(), n, s_sign});
}

}  // namespace

int main(int argc, char** argv) {
  const int max_log2 = argc > 1 ? atoi(argv[1]) : 20;
  // Optional: only one group of rows ("x25519", "verify" or "sign").
  const std::string only = argc > 2 ? argv[2] : "";
  const auto want = [&](const char* group) { return only.empty() || only == group; };
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  Timer timer;
  const int sms = prop.multiProcessorCount;
  const double rates[4] = {
      field_rate<ks::field::Fe25519Dpf, false>(timer, sms),
      field_rate<ks::field::Fe25519Dpf, true>(timer, sms),
      field_rate<ks::field::Fe25519Gpu, false>(timer, sms),
      field_rate<ks::field::Fe25519Gpu, true>(timer, sms),
  };
  std::mt19937_64 rng(25519);
  std::vector<Row> rows;
  std::vector<std::string> names;
  names.reserve(256);  // rows keep pointers into names
  const FieldCase fields[] = {{c25519::Field::kDpf, "dpf"}, {c25519::Field::kInteger, "int"}};
  for (const FieldCase& fc : fields)
    for (int lg = 14; lg <= max_log2 && want("x25519"); lg += 2)
      bench_x25519(timer, rng, fc, size_t(1) << lg, lg + 2 > max_log2, rows, names);
  const SignedItems items = signed_items(size_t(1) << max_log2);
  const LayoutCase layouts[] = {{c25519::Layout::kInline, "inline"},
                                {c25519::Layout::kOutOfLine, "calls"},
                                {c25519::Layout::kOutOfLineFourBlocks, "calls_4blocks"}};
  for (const FieldCase& fc : fields)
    for (const LayoutCase& lc : layouts)
      for (int lg = 16; lg <= max_log2 && want("verify"); lg += 2)
        bench_verify(timer, items, fc, lc, size_t(1) << lg, lg + 2 > max_log2, rows, names);
  const BaseCase bases[] = {{c25519::BaseTable::kComb, ""}, {c25519::BaseTable::kWide, "_wide"}};
  for (const BaseCase& bc : bases)
    for (const FieldCase& fc : fields)
      for (const LayoutCase& lc : layouts)
        for (int lg = 16; lg <= max_log2 && want("sign"); lg += 2)
          bench_sign(timer, items, fc, lc, bc, size_t(1) << lg, rows, names);

  printf("{\n  \"device\": \"%s\",\n  \"sms\": %d,\n", prop.name, sms);
  printf("  \"fe_mul_per_s_dpf\": %.4e,\n  \"fe_sqr_per_s_dpf\": %.4e,\n", rates[0], rates[1]);
  printf("  \"fe_mul_per_s_int\": %.4e,\n  \"fe_sqr_per_s_int\": %.4e,\n", rates[2], rates[3]);
  print_rows(rows);
  printf("}\n");
  return 0;
}
