// Curve25519 on the shared GPU pipeline (gpu/gpu_pipeline.cuh): the jobs
// of the batch calls over the launchers of curve25519/gpu/curve25519_gpu.h.
#include <string.h>

#include "core/chacha20_gpu.h"
#include "core/secure.h"
#include "gpu/gpu_engine.cuh"
#include "gpu/gpu_jobs.cuh"
#include "gpu/launch.cuh"
#include "kuaisuo/curve25519.h"
#include "curve25519/gpu/curve25519_gpu.h"
#include "curve25519/gpu/curve25519_gpu_batch.h"
#include "curve25519/x25519.h"

namespace ks {
namespace curve25519 {
namespace gpu {
namespace {

using ks::gpu::FixedSizeJob;
using ks::gpu::MessagesJob;

// The kernel's status is 1 exactly where the result is zero.
static_assert(int(x25519::Error::kZeroSharedSecret) == 1, "X25519 kernel status mapping");

// X25519 of (key, peer u) pairs. One key for the batch rides in each
// chunk's header; per-item keys follow the peers. Keys and results are
// secrets: the pipeline wipes both from pinned memory. Outputs: shared
// secret (32), status (int).
class X25519Job final : public FixedSizeJob {
 public:
  X25519Job(const uint8_t* keys, bool per_item, const uint8_t* peers, uint8_t* shared,
            int* status)
      : one_key_(per_item ? nullptr : keys) {
    add_input(peers, 32);
    if (per_item) add_input(keys, 32);
    add_output(shared, 32);
    add_output(status, sizeof(int));
  }
  size_t secret_staged_bytes(size_t first, size_t n) const override {
    return staged_bytes(first, n);
  }
  size_t secret_result_bytes(size_t, size_t n) const override { return 32 * n; }
  cudaError_t launch(size_t, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    const uint8_t* keys = one_key_ != nullptr ? dev_in : in_part(dev_in, n, 1);
    return launch_x25519(Field::kDpf, keys, one_key_ != nullptr ? 0 : 1, in_part(dev_in, n, 0),
                         out_part(dev_out, n, 0), reinterpret_cast<int*>(out_part(dev_out, n, 1)),
                         n, stream);
  }

 private:
  size_t header_bytes() const override { return one_key_ != nullptr ? 32 : 0; }
  void write_header(uint8_t* staging) const override {
    if (one_key_ != nullptr) memcpy(staging, one_key_, 32);
  }
  const uint8_t* one_key_;
};

// The verification kernel: the DPF field's with products out of line and
// four blocks per SM, the fastest of the six measured
// (tools/curve25519_gpu_bench.cu).
constexpr Field kVerifyField = Field::kDpf;
constexpr Layout kVerifyLayout = Layout::kOutOfLineFourBlocks;

// Ed25519 verification of (public key, message, signature) triples in the
// flat layout: keys and signatures ride as fixed inputs beside the
// messages. Output: status (int: curve25519/ed25519.h's Error).
class Ed25519VerifyJob final : public MessagesJob {
 public:
  Ed25519VerifyJob(const uint8_t* pubs, const uint8_t* data, const uint64_t* offsets,
                   const uint8_t* sigs, int* status)
      : MessagesJob(data, offsets), status_(status) {
    add_fixed_input(pubs, 32);
    add_fixed_input(sigs, 64);
  }
  size_t out_bytes(size_t, size_t n) const override { return sizeof(int) * n; }
  cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    return launch_ed25519_verify(kVerifyField, kVerifyLayout, dev_fixed(dev_in, n, 0),
                                 dev_fixed(dev_in, n, 1), dev_messages(dev_in, n),
                                 message_bytes(first, n), dev_offsets(dev_in),
                                 reinterpret_cast<int*>(dev_out), n, stream);
  }
  void deliver(size_t first, size_t n, const uint8_t* results,
               const ks::gpu::Copier& copy) const override {
    copy(status_ + first, results, sizeof(int) * n);
  }

 private:
  int* status_;
};

// Public keys of 32-byte secrets (Ed25519 seeds, RFC 8032 5.1.5, or X25519
// private keys, RFC 7748 6.1) by the fixed-base comb. The secrets are
// wiped from pinned memory by the pipeline. The kernels are the DPF
// field's with products inline: the fastest at 2^20 Ed25519 and X25519
// keys since the comb reads its entries by warp shuffles, which convert
// one entry a window to FP64 limbs rather than 16 (bench/results/
// h100-curve25519-kernels-2026-11-27-s15-sign.json: every field and
// layout side by side), over the fixed-base table the context chose.
class PublicKeysJob final : public FixedSizeJob {
 public:
  using Launcher = cudaError_t (*)(Field, Layout, const uint8_t*, uint8_t*, size_t, cudaStream_t,
                                   BaseTable);
  PublicKeysJob(Launcher launcher, BaseTable base, const uint8_t* secrets, uint8_t* pubs)
      : launcher_(launcher), base_(base) {
    add_input(secrets, 32);
    add_output(pubs, 32);
  }
  size_t secret_staged_bytes(size_t first, size_t n) const override {
    return staged_bytes(first, n);
  }
  cudaError_t launch(size_t, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    return launcher_(Field::kDpf, Layout::kInline, in_part(dev_in, n, 0),
                     out_part(dev_out, n, 0), n, stream, base_);
  }

 private:
  Launcher launcher_;
  BaseTable base_;
};

// Key pairs: secrets (Ed25519 seeds or X25519 private keys) drawn on the
// device from the batch's DRBG (core/chacha20_gpu.h, as SM2's keygen), so
// that no host thread spends the batch's time in getrandom; then their
// public keys, as PublicKeysJob. Outputs: secret (32, wiped from pinned
// memory after delivery), public key (32).
class KeygenJob final : public FixedSizeJob {
 public:
  KeygenJob(const chacha20::Key& drbg, PublicKeysJob::Launcher launcher, BaseTable base,
            uint8_t* secrets, uint8_t* pubs)
      : drbg_(drbg), launcher_(launcher), base_(base) {
    add_output(secrets, 32);
    add_output(pubs, 32);
  }
  ~KeygenJob() override { secure_wipe(&drbg_, sizeof drbg_); }
  size_t secret_result_bytes(size_t, size_t n) const override { return 32 * n; }
  cudaError_t launch(size_t first, size_t n, const uint8_t*, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    uint8_t* secrets = out_part(dev_out, n, 0);
    const cudaError_t err =
        chacha20::launch_random_bytes32(drbg_, first, ks::gpu::kTagPrivateKeys, n, secrets, stream);
    if (err != cudaSuccess) return err;
    return launcher_(Field::kDpf, Layout::kInline, secrets, out_part(dev_out, n, 1), n, stream,
                     base_);
  }

 private:
  chacha20::Key drbg_;
  PublicKeysJob::Launcher launcher_;
  BaseTable base_;
};

// Ed25519 signatures of messages in the flat layout, under one key (its
// 96-byte expanded form in each chunk's header) or per-item seeds (a
// fixed input). Either is secret and sits before the messages, so the
// pipeline wipes the staged bytes up to them. DPF field inline, as for
// public keys (same file, 64-byte messages).
class Ed25519SignJob final : public MessagesJob {
 public:
  Ed25519SignJob(BaseTable base, const uint8_t one_key[96], const uint8_t* seeds,
                 const uint8_t* data, const uint64_t* offsets, uint8_t* sigs)
      : MessagesJob(data, offsets), base_(base), one_key_(one_key), sigs_(sigs) {
    if (one_key_ == nullptr) add_fixed_input(seeds, 32);
  }
  size_t secret_staged_bytes(size_t, size_t n) const override { return messages_at(n); }
  size_t out_bytes(size_t, size_t n) const override { return 64 * n; }
  cudaError_t launch(size_t, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    return launch_ed25519_sign(Field::kDpf, Layout::kInline,
                               one_key_ != nullptr ? dev_in : nullptr,
                               one_key_ != nullptr ? nullptr : dev_fixed(dev_in, n, 0),
                               dev_messages(dev_in, n), dev_offsets(dev_in), dev_out, n, stream,
                               base_);
  }
  void deliver(size_t first, size_t n, const uint8_t* results,
               const ks::gpu::Copier& copy) const override {
    copy(sigs_ + 64 * first, results, 64 * n);
  }

 private:
  size_t header_bytes() const override { return one_key_ != nullptr ? 96 : 0; }
  void write_header(uint8_t* staging) const override {
    if (one_key_ != nullptr) memcpy(staging, one_key_, 96);
  }
  BaseTable base_;
  const uint8_t* one_key_;
  uint8_t* sigs_;
};

}  // namespace

int ed25519_public_keys_batch(ks::gpu::Engine& engine, BaseTable base, const uint8_t* seeds,
                              size_t count, uint8_t* pubs) {
  return ks::gpu::CudaEngine::of(engine).run(
      PublicKeysJob(launch_ed25519_public_keys, base, seeds, pubs), count);
}

int x25519_public_keys_batch(ks::gpu::Engine& engine, BaseTable base, const uint8_t* keys,
                             size_t count, uint8_t* pubs) {
  return ks::gpu::CudaEngine::of(engine).run(
      PublicKeysJob(launch_x25519_public_keys, base, keys, pubs), count);
}

int ed25519_keygen_batch(ks::gpu::Engine& engine, BaseTable base, size_t count, uint8_t* seeds,
                         uint8_t* pubs) {
  return ks::gpu::run_with_drbg(engine, count, [&](const chacha20::Key& drbg) {
    return KeygenJob(drbg, launch_ed25519_public_keys, base, seeds, pubs);
  });
}

int x25519_keygen_batch(ks::gpu::Engine& engine, BaseTable base, size_t count, uint8_t* keys,
                        uint8_t* pubs) {
  return ks::gpu::run_with_drbg(engine, count, [&](const chacha20::Key& drbg) {
    return KeygenJob(drbg, launch_x25519_public_keys, base, keys, pubs);
  });
}

int ed25519_sign_batch(ks::gpu::Engine& engine, BaseTable base, const uint8_t one_key[96],
                       const uint8_t* seeds, const uint8_t* data, const uint64_t* offsets,
                       size_t count, uint8_t* sigs) {
  return ks::gpu::CudaEngine::of(engine).run(
      Ed25519SignJob(base, one_key, seeds, data, offsets, sigs), count);
}

namespace {

// The one signing key of a device-memory call, as a kernel parameter (no
// host buffer of the library holds it), stored into stream-ordered scratch.
struct SigningKey {
  uint8_t bytes[96];
};

}  // namespace

int keys_device(ks::gpu::Engine& engine, KeyAlg alg, BaseTable base, bool draw, uint8_t* secrets,
                size_t count, uint8_t* pubs, int* status, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK) return scope.status();
  if (count >= (uint64_t(1) << 32)) return KS_ERR_OVERFLOW;  // the DRBG's counters
  const auto s = static_cast<cudaStream_t>(stream);
  cudaError_t err = cudaSuccess;
  if (draw) {
    const ks::gpu::StreamDrbg drbg(s);
    if (drbg.status() != KS_OK) return drbg.status();
    err = chacha20::launch_random_bytes32(drbg.key(), 0, ks::gpu::kTagPrivateKeys, count,
                                          secrets, s);
  }
  const auto launcher =
      alg == KeyAlg::kEd25519 ? launch_ed25519_public_keys : launch_x25519_public_keys;
  if (err == cudaSuccess)
    err = launcher(Field::kDpf, Layout::kInline, secrets, pubs, count, s, base);
  if (err == cudaSuccess) err = cudaMemsetAsync(status, 0, sizeof(int) * count, s);  // KS_OK
  if (err != cudaSuccess && draw) cudaMemsetAsync(secrets, 0, 32 * count, s);  // none left behind
  return ks::gpu::to_status(err);
}

int ed25519_sign_device(ks::gpu::Engine& engine, BaseTable base, const uint8_t one_key[96],
                        const uint8_t* seeds, const uint8_t* data, size_t data_len,
                        const uint64_t* offsets, size_t count, uint8_t* sigs, int* status,
                        const ks::gpu::StatusMap& map, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK) return scope.status();
  const auto s = static_cast<cudaStream_t>(stream);
  ks::gpu::StreamScratch d_key(s);  // wiped and freed in stream order, after the kernel
  cudaError_t err = cudaSuccess;
  if (one_key != nullptr) {
    err = d_key.allocate(96);
    if (err == cudaSuccess) {
      SigningKey key;
      memcpy(key.bytes, one_key, sizeof key.bytes);
      err = d_key.store(0, key);
      secure_wipe(&key, sizeof key);
    }
  }
  if (err == cudaSuccess)
    err = launch_ed25519_sign(Field::kDpf, Layout::kInline,
                              one_key != nullptr ? d_key.at(0) : nullptr, seeds, data, offsets,
                              sigs, count, s, base, data_len, status);
  if (err == cudaSuccess) err = ks::gpu::map_statuses(status, count, map, s);
  return ks::gpu::to_status(err);
}

int ed25519_verify_batch(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* data,
                         const uint64_t* offsets, size_t count, const uint8_t* sigs,
                         int* status) {
  return ks::gpu::CudaEngine::of(engine).run(Ed25519VerifyJob(pubs, data, offsets, sigs, status),
                                             count);
}

int ed25519_verify_device(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* data,
                          size_t data_len, const uint64_t* offsets, size_t count,
                          const uint8_t* sigs, int* status, const ks::gpu::StatusMap& map,
                          void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK) return scope.status();
  const auto s = static_cast<cudaStream_t>(stream);
  cudaError_t err = launch_ed25519_verify(kVerifyField, kVerifyLayout, pubs, sigs, data, data_len,
                                          offsets, status, count, s);
  if (err == cudaSuccess) err = ks::gpu::map_statuses(status, count, map, s);
  return ks::gpu::to_status(err);
}

int x25519_device(ks::gpu::Engine& engine, const uint8_t* keys, bool per_item_keys,
                  const uint8_t* peers, size_t count, uint8_t* shared, int* status,
                  const ks::gpu::StatusMap& map, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK) return scope.status();
  const auto s = static_cast<cudaStream_t>(stream);
  cudaError_t err = launch_x25519(Field::kDpf, keys, per_item_keys ? 1 : 0, peers, shared, status,
                                  count, s);
  if (err == cudaSuccess) err = ks::gpu::map_statuses(status, count, map, s);
  return ks::gpu::to_status(err);
}

int x25519_batch(ks::gpu::Engine& engine, const uint8_t* keys, bool per_item_keys,
                 const uint8_t* peers, size_t count, uint8_t* shared, int* status) {
  return ks::gpu::CudaEngine::of(engine).run(
      X25519Job(keys, per_item_keys, peers, shared, status), count);
}

}  // namespace gpu
}  // namespace curve25519
}  // namespace ks
