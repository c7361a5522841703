// Kernel-only throughput of SM2 on the GPU (sm2/gpu/sm2_gpu.h): keygen, sign
// (per-item keys and one key) and verify at several batch sizes, of digests
// and of 64-byte messages (SM3 of Z_A || M, and for verify Z_A per key, on
// the device: sm3/gpu/sm3_gpu.h), plus the field multiplication rates (the
// integer field and the DPF one side by side), timed with CUDA events after
// a warm-up, inputs random (valid keys, distinct nonces, valid
// signatures). Prints JSON.
//   sm2_gpu_bench [max_batch_log2] [sweep | one_key [min_batch_log2] | crypt [min_batch_log2]]
// With "crypt", only encryption and decryption (bench_crypt says what).
// With "sweep", also keygen and sign (one key) with 1, 2, 4 and 8 items per
// thread forced (ops keygen_m1 .. sign_one_key_m8), batches 2^14 up.
// With "one_key", only verification, under one public key against
// per-item keys (issue 44), batches 2^16 (or 2^min_batch_log2) up in
// steps of 4x: the key table's build (wall
// clock, CPU part included; batch 1), the one-key kernel for each window
// width and register cap beside the per-item kernel (kernel-only, CUDA
// events), and ks_sm2_verify_digest_batch / ks_sm2_verify_batch (64-byte
// messages) on a GPU context from ordinary host buffers, end to end (wall
// clock, ops *_e2e; its kernel_ms is then the call's time): one key with
// its table kept from the previous call, one key with the table built in
// the call (two keys alternating), per-item keys; and the same two calls
// with every buffer in device memory, per-item keys (ops *_device: from
// the call to the end of its stream), beside the kernels alone
// (verify_per_item_key, verify_msg64_per_item_key).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "field/fp_dpf.cuh"
#include "field/fp_gpu.cuh"
#include "kuaisuo.h"
#include "sm3/gpu/sm3_gpu.h"
#include "sm2/sm2.h"
#include "sm2/gpu/sm2_gpu.h"
#include "gpu/gpu_pipeline.cuh"
#include "gpu_bench_util.cuh"

namespace {

using ks::field::FpGpu;
using ks::field::U32x8;
namespace gpu = ks::sm2::gpu;
using ks_bench::DeviceVector;
using ks_bench::Row;
using ks_bench::Timer;
using ks_bench::median_wall;
using ks_bench::field_rate;
using ks_bench::print_rows;

// --- Field multiplication rate --------------------------------------------------
// The integer field with the mul_small the shared rate kernel
// (gpu_bench_util.cuh) takes, so that it and the DPF field run the same
// kernel.
struct FpGpuWords : FpGpu {
  __device__ static U32x8 mul_small(const U32x8& a, uint32_t k) {
    return FpGpu::mul(a, U32x8{{k, 0, 0, 0, 0, 0, 0, 0}});
  }
};

// --- Inputs ------------------------------------------------------------------------
// count random 32-byte big-endian scalars in [1, n-2] (top word below n's).
std::vector<uint8_t> random_scalars(std::mt19937_64& rng, size_t count) {
  std::vector<uint8_t> v(32 * count);
  for (size_t i = 0; i < v.size(); i += 8) {
    const uint64_t w = rng();
    for (int b = 0; b < 8; ++b) v[i + b] = uint8_t(w >> (8 * b));
  }
  for (size_t i = 0; i < count; ++i) {
    v[32 * i] = std::min<uint8_t>(v[32 * i], 0xFE);  // < 0xFF..: below n - 1
    v[32 * i + 31] |= 1;                              // nonzero
  }
  return v;
}

// Z_A's key-independent part (ENTL || ID || a || b || x_G || y_G) for the
// default ID.
std::vector<uint8_t> za_prefix_bytes() {
  std::vector<uint8_t> prefix(ks::sm2::kZaPrefixMaxBytes);
  static const uint8_t kId[] = "1234567812345678";
  prefix.resize(ks::sm2::za_prefix(prefix.data(), kId, 16));
  return prefix;
}

// Device inputs and outputs for one batch: random private keys (and their
// SignKeys), nonces and digests; freed on scope exit.
struct Batch {
  size_t n;
  const DeviceVector<uint8_t> priv, nonce, digest, pub, sig;
  const DeviceVector<uint8_t> msg, za, e, za_prefix;  // 64-byte messages; per-item Z_A and e
  unsigned za_prefix_len;
  const DeviceVector<int> status;
  const DeviceVector<gpu::SignKey> keys;
  int reps;  // timed runs per measurement

  Batch(std::mt19937_64& rng, size_t batch)
      : n(batch),
        priv(random_scalars(rng, batch)),
        nonce(random_scalars(rng, batch)),
        digest(random_scalars(rng, batch)),
        pub(65 * batch),
        sig(64 * batch),
        msg(random_scalars(rng, 2 * batch)),
        za(32 * batch),
        e(32 * batch),
        za_prefix(za_prefix_bytes()),
        za_prefix_len(unsigned(za_prefix_bytes().size())),
        status(batch),
        keys(batch),
        reps(batch >= (1u << 20) ? 3 : 5) {
    CHECK(gpu::launch_prepare_sign_keys(priv, keys, batch, 0));
  }
  // e_i = SM3(Z || M_i) with one Z (per_item_za false: the signer's Z_A,
  // here the first item's) or with each item's Z_A, computed first from
  // its public key.
  void message_digests(bool per_item_za) const {
    ks::sm3::gpu::DeviceItems items;
    if (per_item_za) {
      items.prefix = za_prefix;
      items.prefix_len = za_prefix_len;
      items.data = pub + 1;
      items.data_stride = 65;
      items.data_len = 64;
      CHECK(ks::sm3::gpu::launch_digests(items, n, za, 0));
    }
    items = ks::sm3::gpu::DeviceItems();
    items.prefix = za;
    items.prefix_len = 32;
    items.prefix_stride = per_item_za ? 32 : 0;
    items.data = msg;
    items.data_stride = 64;
    items.data_len = 64;
    CHECK(ks::sm3::gpu::launch_digests(items, n, e, 0));
  }
  double sign_messages(Timer& timer) const {
    return timer.median(
        [&] {
          message_digests(false);
          CHECK(gpu::launch_sign_digest(e, keys, 0, nonce, sig, status, n, 0));
        },
        reps);
  }
  // Signs each message under its item's key (untimed), then times Z_A, e
  // and the verification.
  double verify_messages(Timer& timer) const {
    CHECK(gpu::launch_keygen(priv, pub, status, n, 0));
    message_digests(true);
    CHECK(gpu::launch_sign_digest(e, keys, 1, nonce, sig, status, n, 0));
    return timer.median(
        [&] {
          message_digests(true);
          CHECK(gpu::launch_verify_digest(pub, e, sig, status, n, 0));
        },
        reps);
  }
  // per_thread: items a thread (1, 2, 4 or 8), or 0 for the launchers' choice.
  double keygen(Timer& timer, int per_thread = 0) const {
    return timer.median(
        [&] { CHECK(gpu::launch_keygen(priv, pub, status, n, 0, per_thread)); }, reps);
  }
  double sign(Timer& timer, size_t key_stride, int per_thread = 0) const {
    return timer.median(
        [&] {
          CHECK(gpu::launch_sign_digest(digest, keys, key_stride, nonce, sig, status, n, 0,
                                        per_thread));
        },
        reps);
  }
  double verify(Timer& timer) const {
    return timer.median([&] { CHECK(gpu::launch_verify_digest(pub, digest, sig, status, n, 0)); },
                        reps);
  }
};

// Every status of the last verification must be kOk (the signatures come
// from the sign kernel).
void check_verified(const Batch& b, const char* what) {
  std::vector<int> status(b.n);
  CHECK(cudaMemcpy(status.data(), b.status, b.n * sizeof(int), cudaMemcpyDeviceToHost));
  const size_t failed = b.n - std::count(status.begin(), status.end(), 0);
  if (failed != 0) {
    fprintf(stderr, "batch %zu: %zu %s signatures did not verify\n", b.n, failed, what);
    exit(1);
  }
}

// Keygen, sign and verify, of digests and of messages, at one batch size.
void bench_batch(Timer& timer, std::mt19937_64& rng, size_t batch, std::vector<Row>& rows) {
  const Batch b(rng, batch);
  rows.push_back({"keygen", batch, b.keygen(timer)});
  rows.push_back({"sign_one_key", batch, b.sign(timer, 0)});
  rows.push_back({"sign_per_item_key", batch, b.sign(timer, 1)});
  rows.push_back({"verify", batch, b.verify(timer)});
  check_verified(b, "digest");
  rows.push_back({"sign_msg64_one_key", batch, b.sign_messages(timer)});
  rows.push_back({"verify_msg64", batch, b.verify_messages(timer)});
  check_verified(b, "message");
}

// Keygen and sign (one key) with M items per thread forced, M = 1, 2, 4, 8.
void sweep_items(Timer& timer, std::mt19937_64& rng, size_t batch, std::vector<Row>& rows) {
  static const char* const kKeygen[] = {"keygen_m1", "keygen_m2", "keygen_m4", "keygen_m8"};
  static const char* const kSign[] = {"sign_one_key_m1", "sign_one_key_m2", "sign_one_key_m4",
                                      "sign_one_key_m8"};
  const Batch b(rng, batch);
  for (int k = 0; k < 4; ++k) {
    rows.push_back({kKeygen[k], batch, b.keygen(timer, 1 << k)});
    rows.push_back({kSign[k], batch, b.sign(timer, 0, 1 << k)});
  }
}

// --- One public key for the batch (issue 44) -------------------------------------------
template <class T>
std::vector<T> to_host(const T* dev, size_t count) {
  std::vector<T> h(count);
  CHECK(cudaMemcpy(h.data(), dev, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// The statuses of the last launch: all kOk, or exit.
void check_all_ok(const int* status, size_t n, const char* what) {
  const std::vector<int> s = to_host(status, n);
  const size_t failed = n - std::count(s.begin(), s.end(), 0);
  if (failed != 0) {
    fprintf(stderr, "batch %zu: %zu items of %s did not verify\n", n, failed, what);
    exit(1);
  }
}

ks::sm2::PublicKey decoded_key(const uint8_t* pub) {
  ks::sm2::PublicKey key;
  if (ks::sm2::public_key_from_bytes(key, pub, 65) != ks::sm2::Error::kOk) {
    fprintf(stderr, "a generated public key does not decode\n");
    exit(1);
  }
  return key;
}

// The key table's build for each window width (wall clock: the bases on
// the CPU, their copy and the kernel), for the public key pub.
void bench_key_tables(const uint8_t* pub, std::vector<Row>& rows) {
  static const char* const kNames[] = {"key_table_build_w8", "key_table_build_w12",
                                       "key_table_build_w16"};
  const ks::sm2::PublicKey key = decoded_key(pub);
  for (int k = 0; k < 3; ++k) {
    const int bits = gpu::kKeyTableBits[k];
    const DeviceVector<uint8_t> table(gpu::key_table_bytes(bits));
    const double t = median_wall(
        [&] {
          CHECK(gpu::launch_build_key_table(key, bits, table, 0));
          CHECK(cudaDeviceSynchronize());
        },
        5);
    rows.push_back({kNames[k], 1, t});
  }
}

// The C API on device memory (kuaisuo/common.h, "Device memory"): call()
// on ctx with every buffer on the device, from the call to the end of the
// work it queued on the default stream; its statuses must all be KS_OK.
template <class Call>
void device_row(const char* name, size_t n, int reps, const int* status, const Call& call,
                std::vector<Row>& rows) {
  const double t = median_wall(
      [&] {
        if (call() != KS_OK) exit(1);
        CHECK(cudaDeviceSynchronize());
      },
      reps);
  check_all_ok(status, n, name);
  rows.push_back({name, n, t});
}

void bench_one_key(Timer& timer, std::mt19937_64& rng, size_t n, ks_ctx* ctx,
                   std::vector<Row>& rows) {
  const Batch b(rng, n);
  static const uint8_t kId[] = "1234567812345678";
  const int reps = n >= (1u << 20) ? 3 : 5;
  CHECK(gpu::launch_keygen(b.priv, b.pub, b.status, n, 0));
  const gpu::SignKey* keys = b.keys;
  // Signatures on the digests: per-item keys, key 0 for all, key 1 for all.
  const DeviceVector<uint8_t> sig_one(64 * n), sig_other(64 * n);
  CHECK(gpu::launch_sign_digest(b.digest, keys, 1, b.nonce, b.sig, b.status, n, 0));
  CHECK(gpu::launch_sign_digest(b.digest, keys, 0, b.nonce, sig_one, b.status, n, 0));
  CHECK(gpu::launch_sign_digest(b.digest, keys + 1, 0, b.nonce, sig_other, b.status, n, 0));
  const std::vector<uint8_t> pubs = to_host<uint8_t>(b.pub, 65 * n);
  const ks::sm2::PublicKey key0 = decoded_key(&pubs[0]);
  if (rows.empty()) bench_key_tables(&pubs[0], rows);

  // Kernel-only: the per-item kernel, then the one-key kernel at each width.
  rows.push_back({"verify_per_item_key", n, b.verify(timer)});
  check_all_ok(b.status, n, "verify_per_item_key");
  struct Variant {
    const char* name;
    int bits;
  };
  for (const Variant v : {Variant{"verify_one_key_w16", 16}, Variant{"verify_one_key_w12", 12},
                          Variant{"verify_one_key_w8", 8}}) {
    const DeviceVector<uint8_t> table(gpu::key_table_bytes(v.bits));
    CHECK(gpu::launch_build_key_table(key0, v.bits, table, 0));
    const double t = timer.median(
        [&] {
          CHECK(gpu::launch_verify_digest_one_key(table, v.bits, b.digest, sig_one, b.status, n,
                                                  0));
        },
        reps);
    check_all_ok(b.status, n, v.name);
    rows.push_back({v.name, n, t});
  }

  // End to end through the C API from ordinary (pageable) host buffers.
  const std::vector<uint8_t> digests = to_host<uint8_t>(b.digest, 32 * n);
  const std::vector<uint8_t> sigs = to_host<uint8_t>(b.sig, 64 * n);
  const std::vector<uint8_t> sigs_one = to_host<uint8_t>(sig_one, 64 * n);
  const std::vector<uint8_t> sigs_other = to_host<uint8_t>(sig_other, 64 * n);
  std::vector<uint8_t> pubs_one(65 * n), pubs_other(65 * n);
  for (size_t i = 0; i < n; ++i) {
    memcpy(&pubs_one[65 * i], &pubs[0], 65);
    memcpy(&pubs_other[65 * i], &pubs[65], 65);
  }
  std::vector<int> status(n);
  int rc = KS_OK;
  auto verify = [&](const std::vector<uint8_t>& p, const std::vector<uint8_t>& s) {
    rc |= ks_sm2_verify_digest_batch(ctx, p.data(), digests.data(), n, s.data(), status.data());
  };
  auto check = [&](const char* what) {
    if (rc != KS_OK || std::count(status.begin(), status.end(), KS_OK) != ptrdiff_t(n)) {
      fprintf(stderr, "batch %zu: %s failed (rc %d)\n", n, what, rc);
      exit(1);
    }
  };
  rows.push_back({"verify_one_key_e2e", n, median_wall([&] { verify(pubs_one, sigs_one); }, reps)});
  check("verify_one_key_e2e");
  std::vector<double> fresh;  // the other key first: the table is built in the timed call
  for (int r = 0; r < reps; ++r) {
    verify(pubs_other, sigs_other);
    const auto t0 = std::chrono::steady_clock::now();
    verify(pubs_one, sigs_one);
    fresh.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(fresh.begin(), fresh.end());
  check("verify_one_key_e2e_new_key");
  rows.push_back({"verify_one_key_e2e_new_key", n, fresh[fresh.size() / 2]});
  rows.push_back({"verify_per_item_key_e2e", n, median_wall([&] { verify(pubs, sigs); }, reps)});
  check("verify_per_item_key_e2e");
  const DeviceVector<int> device_status(n);
  device_row("verify_per_item_key_device", n, reps, device_status, [&] {
    return ks_sm2_verify_digest_batch(ctx, b.pub, b.digest, n, b.sig, device_status);
  }, rows);

  // 64-byte messages, end to end: e = SM3(Z_A || M) signed on the device
  // under key 0, and under each item's key.
  uint8_t za0[32];
  ks::sm2::compute_za(za0, key0, kId, 16);
  CHECK(cudaMemcpy(b.za, za0, 32, cudaMemcpyHostToDevice));
  ks::sm3::gpu::DeviceItems items;
  items.prefix = b.za;
  items.prefix_len = 32;
  items.data = b.msg;
  items.data_stride = 64;
  items.data_len = 64;
  CHECK(ks::sm3::gpu::launch_digests(items, n, b.e, 0));
  CHECK(gpu::launch_sign_digest(b.e, keys, 0, b.nonce, sig_one, b.status, n, 0));
  b.message_digests(true);
  CHECK(gpu::launch_sign_digest(b.e, keys, 1, b.nonce, b.sig, b.status, n, 0));
  const std::vector<uint8_t> msgs = to_host<uint8_t>(b.msg, 64 * n);
  const std::vector<uint8_t> msg_sigs = to_host<uint8_t>(b.sig, 64 * n);
  const std::vector<uint8_t> msg_sigs_one = to_host<uint8_t>(sig_one, 64 * n);
  std::vector<uint64_t> offsets(n + 1);
  for (size_t i = 0; i <= n; ++i) offsets[i] = 64 * i;
  auto verify_msgs = [&](const std::vector<uint8_t>& p, const std::vector<uint8_t>& s) {
    rc |= ks_sm2_verify_batch(ctx, p.data(), kId, 16, msgs.data(), msgs.size(), offsets.data(), n,
                              s.data(), status.data());
  };
  rows.push_back({"verify_msg64_one_key_e2e", n,
                  median_wall([&] { verify_msgs(pubs_one, msg_sigs_one); }, reps)});
  check("verify_msg64_one_key_e2e");
  rows.push_back({"verify_msg64_per_item_key_e2e", n,
                  median_wall([&] { verify_msgs(pubs, msg_sigs); }, reps)});
  check("verify_msg64_per_item_key_e2e");

  // Messages under per-item keys: the kernels alone (Z_A, e, verify; new
  // keys and signatures), then the C API on those device buffers.
  rows.push_back({"verify_msg64_per_item_key", n, b.verify_messages(timer)});
  check_all_ok(b.status, n, "verify_msg64_per_item_key");
  const DeviceVector<uint64_t> device_offsets(offsets);
  device_row("verify_msg64_per_item_key_device", n, reps, device_status, [&] {
    return ks_sm2_verify_batch(ctx, b.pub, kId, 16, b.msg, 64 * n, device_offsets, n, b.sig,
                               device_status);
  }, rows);

  // Signing under one key and keygen: the kernels alone (nonces and keys
  // given), then the C API on device memory (drawn there, 64 bytes each).
  rows.push_back({"sign_one_key", n, timer.median([&] {
                    CHECK(gpu::launch_sign_digest(b.digest, keys, 0, b.nonce, sig_one, b.status,
                                                  n, 0));
                  }, reps)});
  check_all_ok(b.status, n, "sign_one_key");
  const std::vector<uint8_t> priv0 = to_host<uint8_t>(b.priv, 32);
  ks_sm2_key* key = nullptr;
  if (ks_sm2_key_from_bytes(priv0.data(), 32, &key) != KS_OK) exit(1);
  device_row("sign_one_key_device", n, reps, device_status, [&] {
    return ks_sm2_sign_digest_batch(ctx, key, b.digest, n, KS_SM2_NONCE_RANDOM, sig_one, 64 * n,
                                    device_status);
  }, rows);
  ks_sm2_key_free(key);
  rows.push_back({"keygen", n, timer.median([&] {
                    CHECK(gpu::launch_keygen(b.priv, b.pub, b.status, n, 0));
                  }, reps)});
  device_row("keygen_device", n, reps, device_status, [&] {
    return ks_sm2_keygen_batch(ctx, n, b.priv, 32 * n, b.pub, 65 * n, device_status);
  }, rows);
}

// Beside an end-to-end row: the host seconds per call that the engine's
// pipeline spent staging, waiting for its streams, delivering and wiping
// over the `calls` calls since `before` (rows name_host_stage, ..).
void host_time_rows(const char* name, size_t n, const ks::gpu::PipelineHostTimes& before,
                    int calls, std::vector<Row>& rows) {
  static std::deque<std::string> names;  // the rows keep pointers to these
  const ks::gpu::PipelineHostTimes after = ks::gpu::pipeline_host_times();
  const std::pair<const char*, double> parts[] = {{"stage", after.stage - before.stage},
                                                  {"wait", after.wait - before.wait},
                                                  {"deliver", after.deliver - before.deliver},
                                                  {"wipe", after.wipe - before.wipe}};
  for (const auto& [part, seconds] : parts) {
    if (seconds == 0) continue;  // a CPU context's call
    names.push_back(std::string(name) + "_host_" + part);
    rows.push_back({names.back().c_str(), n, seconds / calls});
  }
}

// --- Encryption and decryption (issue 44) ------------------------------------------
// 64-byte messages, C1C3C2. Kernel-only (CUDA events): the point kernel and
// the KDF/C3 kernel of encryption to per-item keys and to one recipient
// (its 16-bit table built first), and of decryption under one key. End to
// end from ordinary host buffers (wall clock, *_e2e): ks_sm2_encrypt_batch,
// ks_sm2_encrypt_batch_keys and ks_sm2_decrypt_batch on the GPU context
// and, up to 2^20 items, on the CPU context beside it (the AUTO
// crossover: api/auto_gpu.h).
void bench_crypt(Timer& timer, std::mt19937_64& rng, size_t n, ks_ctx* gpu_ctx, ks_ctx* cpu_ctx,
                 std::vector<Row>& rows) {
  const Batch b(rng, n);
  CHECK(gpu::launch_keygen(b.priv, b.pub, b.status, n, 0));
  const std::vector<uint8_t> pubs = to_host<uint8_t>(b.pub, 65 * n);
  const std::vector<uint8_t> privs = to_host<uint8_t>(b.priv, 32 * n);
  const ks::sm2::PublicKey key0 = decoded_key(&pubs[0]);
  const DeviceVector<uint8_t> table(gpu::key_table_bytes(16)), points(128 * n), out(161 * n);
  const DeviceVector<uint64_t> offsets_dev(n + 1), lengths(n);
  CHECK(gpu::launch_build_key_table(key0, 16, table, 0));
  std::vector<uint64_t> offsets(n + 1);
  for (size_t i = 0; i <= n; ++i) offsets[i] = 64 * i;
  CHECK(cudaMemcpy(offsets_dev, offsets.data(), 8 * (n + 1), cudaMemcpyHostToDevice));
  gpu::CryptItems items;
  items.data = b.msg;
  items.offsets = offsets_dev;
  items.count = n;
  items.form = KS_SM2_C1C3C2;
  items.out = out;
  items.extra = 97;
  items.lengths = lengths;
  items.status = b.status;
  auto check_ok = [&](const char* what) { check_all_ok(b.status, n, what); };
  auto encrypt = [&](const uint8_t* per_item, const uint8_t* key_table) {
    CHECK(gpu::launch_encrypt_points(per_item, key_table, b.nonce, points, b.status, n, 0));
    CHECK(gpu::launch_encrypt_finish(items, points, 0));
  };
  rows.push_back({"encrypt_per_item_key", n,
                  timer.median([&] { encrypt(b.pub, nullptr); }, b.reps)});
  check_ok("encrypt_per_item_key");
  rows.push_back({"encrypt_one_key", n, timer.median([&] { encrypt(nullptr, table); }, b.reps)});
  check_ok("encrypt_one_key");
  if (n >= (size_t(1) << 22)) {  // items per thread forced, and the point kernel alone
    static const char* const kNames[] = {"encrypt_one_key_m1", "encrypt_one_key_m2", nullptr,
                                         "encrypt_one_key_m4", nullptr, nullptr, nullptr,
                                         "encrypt_one_key_m8"};
    for (int m : {1, 2, 4, 8})
      rows.push_back({kNames[m - 1], n, timer.median([&] {
                        CHECK(gpu::launch_encrypt_points(nullptr, table, b.nonce, points, b.status,
                                                         n, 0, m));
                      }, b.reps)});
    rows.push_back({"encrypt_finish", n, timer.median([&] {
                      CHECK(gpu::launch_encrypt_finish(items, points, 0));
                    }, b.reps)});
  }

  // Decryption of those ciphertexts (all to key 0) under private key 0.
  const std::vector<uint8_t> cts = to_host<uint8_t>(out, 161 * n);
  std::vector<gpu::CiphertextLayout> layouts(n);
  for (size_t i = 0; i < n; ++i)  // as the library stages them
    layouts[i] = gpu::layout_of(&cts[161 * i], 161, ks::sm2::CipherForm::kC1C3C2,
                                gpu::kGpuMaxItemBytes);
  const DeviceVector<gpu::CiphertextLayout> layouts_dev(layouts);
  const DeviceVector<uint8_t> ct_dev(cts), plain(161 * n), xy(64 * n), d0(std::vector<uint8_t>(privs.begin(), privs.begin() + 32));
  std::vector<uint64_t> ct_offsets(n + 1);
  for (size_t i = 0; i <= n; ++i) ct_offsets[i] = 161 * i;
  const DeviceVector<uint64_t> ct_offsets_dev(ct_offsets);
  gpu::CryptItems dec = items;
  dec.data = ct_dev;
  dec.offsets = ct_offsets_dev;
  dec.out = plain;
  dec.extra = 0;
  rows.push_back({"decrypt", n, timer.median([&] {
                    CHECK(gpu::launch_decrypt_points(d0, layouts_dev, xy, b.status, n, 0));
                    CHECK(gpu::launch_decrypt_finish(dec, layouts_dev, xy, 0));
                  }, b.reps)});
  check_ok("decrypt");

  // End to end through the C API from ordinary host buffers.
  const std::vector<uint8_t> msgs = to_host<uint8_t>(b.msg, 64 * n);
  ks_sm2_key* key = nullptr;
  ks_sm2_pubkey* pub = nullptr;
  if (ks_sm2_key_from_bytes(privs.data(), 32, &key) != KS_OK || ks_sm2_key_public(key, &pub) != KS_OK) {
    fprintf(stderr, "key 0 does not load\n");
    exit(1);
  }
  // The C API on device memory (the same batches, every array on the
  // device: ciphertexts parsed and nonces drawn there).
  const int reps = n >= (1u << 20) ? 3 : 5;
  device_row("encrypt_one_key_device", n, reps, b.status, [&] {
    return ks_sm2_encrypt_batch(gpu_ctx, pub, KS_SM2_C1C3C2, b.msg, 64 * n, offsets_dev, n, out,
                                161 * n, lengths, b.status);
  }, rows);
  device_row("encrypt_per_item_key_device", n, reps, b.status, [&] {
    return ks_sm2_encrypt_batch_keys(gpu_ctx, b.pub, KS_SM2_C1C3C2, b.msg, 64 * n, offsets_dev,
                                     n, out, 161 * n, lengths, b.status);
  }, rows);
  device_row("decrypt_device", n, reps, b.status, [&] {
    return ks_sm2_decrypt_batch(gpu_ctx, key, KS_SM2_C1C3C2, ct_dev, 161 * n, ct_offsets_dev, n,
                                plain, 161 * n, lengths, b.status);
  }, rows);

  std::vector<uint8_t> ct_host(161 * n), plain_host(161 * n);
  std::vector<uint64_t> lens(n);
  std::vector<int> status(n);
  int rc = KS_OK;
  auto run = [&](const char* name, const std::function<int()>& call) {
    const int reps = n >= (1u << 20) ? 3 : 5;
    const ks::gpu::PipelineHostTimes before = ks::gpu::pipeline_host_times();
    rows.push_back({name, n, median_wall([&] { rc |= call(); }, reps)});
    host_time_rows(name, n, before, reps + 1, rows);
    if (rc != KS_OK || std::count(status.begin(), status.end(), KS_OK) != ptrdiff_t(n)) {
      fprintf(stderr, "batch %zu: %s failed (rc %d)\n", n, name, rc);
      exit(1);
    }
  };
  for (const bool on_gpu : {true, false}) {
    if (!on_gpu && n > (size_t(1) << 20)) break;
    ks_ctx* ctx = on_gpu ? gpu_ctx : cpu_ctx;
    run(on_gpu ? "encrypt_one_key_e2e" : "encrypt_one_key_e2e_cpu", [&] {
      return ks_sm2_encrypt_batch(ctx, pub, KS_SM2_C1C3C2, msgs.data(), msgs.size(),
                                  offsets.data(), n, ct_host.data(), ct_host.size(), lens.data(),
                                  status.data());
    });
    run(on_gpu ? "decrypt_e2e" : "decrypt_e2e_cpu", [&] {
      return ks_sm2_decrypt_batch(ctx, key, KS_SM2_C1C3C2, ct_host.data(), ct_host.size(),
                                  ct_offsets.data(), n, plain_host.data(), plain_host.size(),
                                  lens.data(), status.data());
    });
    if (memcmp(plain_host.data() + 161 * (n - 1), msgs.data() + 64 * (n - 1), 64) != 0) {
      fprintf(stderr, "batch %zu: a decryption differs\n", n);
      exit(1);
    }
    run(on_gpu ? "encrypt_per_item_key_e2e" : "encrypt_per_item_key_e2e_cpu", [&] {
      return ks_sm2_encrypt_batch_keys(ctx, pubs.data(), KS_SM2_C1C3C2, msgs.data(), msgs.size(),
                                       offsets.data(), n, ct_host.data(), ct_host.size(),
                                       lens.data(), status.data());
    });
  }
  ks_sm2_key_free(key);
  ks_sm2_pubkey_free(pub);
}

}  // namespace

int main(int argc, char** argv) {
  const int max_log2 = argc > 1 ? atoi(argv[1]) : 22;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  Timer timer;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(gpu::init_tables());
  const double init_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const int sms = prop.multiProcessorCount;
  const double mul_rate = field_rate<FpGpuWords, false>(timer, sms),
               sqr_rate = field_rate<FpGpuWords, true>(timer, sms),
               dpf_mul_rate = field_rate<ks::field::FpDpf, false>(timer, sms),
               dpf_sqr_rate = field_rate<ks::field::FpDpf, true>(timer, sms);
  std::mt19937_64 rng(12345);
  std::vector<Row> rows;
  const std::string mode = argc > 2 ? argv[2] : "";
  if (mode == "crypt") {
    ks_ctx_config cfg;
    ks_ctx_config_init(&cfg);
    cfg.backend = KS_BACKEND_GPU;
    ks_ctx *gpu_ctx = nullptr, *cpu_ctx = nullptr;
    const int rc = ks_ctx_new(&cfg, &gpu_ctx);
    cfg.backend = KS_BACKEND_CPU;
    if (rc != KS_OK || ks_ctx_new(&cfg, &cpu_ctx) != KS_OK) {
      fprintf(stderr, "no GPU or CPU context\n");
      return 1;
    }
    const int min_log2 = argc > 3 ? atoi(argv[3]) : 10;
    for (int lg = min_log2; lg <= max_log2; lg += 2)
      bench_crypt(timer, rng, size_t(1) << lg, gpu_ctx, cpu_ctx, rows);
    ks_ctx_free(gpu_ctx);
    ks_ctx_free(cpu_ctx);
  } else if (mode == "one_key") {
    ks_ctx_config cfg;
    ks_ctx_config_init(&cfg);
    cfg.backend = KS_BACKEND_GPU;
    ks_ctx* ctx = nullptr;
    if (ks_ctx_new(&cfg, &ctx) != KS_OK) {
      fprintf(stderr, "no GPU context\n");
      return 1;
    }
    const int min_log2 = argc > 3 ? atoi(argv[3]) : 16;
    for (int lg = min_log2; lg <= max_log2; lg += 2)
      bench_one_key(timer, rng, size_t(1) << lg, ctx, rows);
    ks_ctx_free(ctx);
  } else {
    for (int lg = 16; lg <= max_log2; lg += 2) bench_batch(timer, rng, size_t(1) << lg, rows);
  }
  if (mode == "sweep")
    for (int lg = 14; lg <= max_log2; ++lg) sweep_items(timer, rng, size_t(1) << lg, rows);

  printf("{\n  \"device\": \"%s\",\n  \"sms\": %d,\n  \"table_init_s\": %.3f,\n", prop.name,
         prop.multiProcessorCount, init_s);
  printf("  \"fp_mul_per_s\": %.4e,\n  \"fp_sqr_per_s\": %.4e,\n", mul_rate, sqr_rate);
  printf("  \"fp_dpf_mul_per_s\": %.4e,\n  \"fp_dpf_sqr_per_s\": %.4e,\n", dpf_mul_rate,
         dpf_sqr_rate);
  print_rows(rows);
  printf("}\n");
  return 0;
}
