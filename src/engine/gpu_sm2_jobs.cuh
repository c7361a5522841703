// SM2 work on the shared GPU pipeline (gpu_pipeline.cuh): keygen, signing
// of digests and verification, over the device launchers of
// scheme/sm2_gpu.h. Secrets drawn on the device (private keys, nonces) come
// from the ChaCha20 DRBG (core/chacha20_gpu.h) under a key fresh from
// getrandom for every batch. Per-item results are ks::sm2::Error values;
// the C API maps them and redoes, on the CPU, the rare items the GPU
// reports unusable (a random scalar out of range: probability ~2^-32).
#ifndef KS_ENGINE_GPU_SM2_JOBS_CUH_
#define KS_ENGINE_GPU_SM2_JOBS_CUH_

#include <string.h>

#include <algorithm>

#include "core/chacha20_gpu.h"
#include "core/secure.h"
#include "engine/gpu_pipeline.cuh"
#include "scheme/sm2_gpu.h"

namespace ks {
namespace gpu {

// Tags that separate the DRBG streams of different uses under one key.
enum DrbgTag : uint32_t { kTagPrivateKeys = 1, kTagNonces = 2 };

// Fixed-size items: each input array contributes in_item bytes per item and
// each output array out_item bytes; stage/deliver copy the slices. Caller
// arrays in pinned memory (ks_host_alloc) skip staging: the device copies
// their slices directly, which takes two host memcpy passes off the batch.
class FixedSizeJob : public ChunkJob {
 public:
  size_t chunk_items(size_t, size_t remaining) const override {
    const size_t per_item = std::max<size_t>(1, in_item_bytes() + scratch_item_bytes() + out_item_bytes());
    return std::min({remaining, kChunkMaxItems, std::max<size_t>(1, kChunkMaxBytes / per_item)});
  }
  // Device layout: [header][input 0 .. input k][scratch]; only the header
  // and the inputs cross the bus.
  size_t in_bytes(size_t first, size_t n) const override {
    return staged_bytes(first, n) + n * scratch_item_bytes();
  }
  size_t staged_bytes(size_t, size_t n) const override {
    return header_bytes() + n * in_item_bytes();
  }
  size_t out_bytes(size_t n) const override { return n * out_item_bytes(); }
  // Staging and device memory share one layout: [header][input 0 ..].
  void stage(size_t first, size_t n, uint8_t* staging, const Copier& copy) const override {
    write_header(staging);
    for (int i = 0; i < n_in_; ++i) {
      const Part& in = inputs_[i];
      if (!in.pinned) copy(staging + in_at(n, i), in.host + first * in.item, n * in.item);
    }
  }
  cudaError_t copy_in(size_t first, size_t n, const uint8_t* staging, uint8_t* dev_in,
                      cudaStream_t stream) const override {
    size_t at = 0, len = header_bytes();  // a run of staged bytes not yet copied
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < n_in_ && err == cudaSuccess; ++i) {
      const Part& in = inputs_[i];
      if (!in.pinned) {
        len += n * in.item;
        continue;
      }
      err = copy_h2d(dev_in + at, staging + at, len, stream);
      if (err == cudaSuccess)
        err = copy_h2d(dev_in + in_at(n, i), in.host + first * in.item, n * in.item, stream);
      at = in_at(n, i + 1);
      len = 0;
    }
    return err == cudaSuccess ? copy_h2d(dev_in + at, staging + at, len, stream) : err;
  }
  cudaError_t copy_out(size_t first, size_t n, const uint8_t* dev_out, uint8_t* results,
                       cudaStream_t stream) const override {
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < n_out_ && err == cudaSuccess; ++i) {
      const Part& out = outputs_[i];
      const size_t at = out_at(n, i), bytes = n * out.item;
      uint8_t* dst = out.pinned ? out.host_out + first * out.item : results + at;
      if (bytes > 0)
        err = cudaMemcpyAsync(dst, dev_out + at, bytes, cudaMemcpyDeviceToHost, stream);
    }
    return err;
  }
  void deliver(size_t first, size_t n, const uint8_t* results, const Copier& copy) const override {
    for (int i = 0; i < n_out_; ++i) {
      const Part& out = outputs_[i];
      if (!out.pinned) copy(out.host_out + first * out.item, results + out_at(n, i), n * out.item);
    }
  }

 protected:
  struct Part {
    const uint8_t* host = nullptr;  // inputs
    uint8_t* host_out = nullptr;    // outputs
    size_t item = 0;
    bool pinned = false;  // copied by the device directly
  };
  void add_input(const void* host, size_t item) {
    inputs_[n_in_++] = Part{static_cast<const uint8_t*>(host), nullptr, item, is_pinned(host)};
  }
  void add_output(void* host, size_t item) {
    outputs_[n_out_++] = Part{nullptr, static_cast<uint8_t*>(host), item, is_pinned(host)};
  }
  // Per-chunk bytes staged before the inputs (e.g. one signing key).
  virtual size_t header_bytes() const { return 0; }
  virtual void write_header(uint8_t*) const {}
  // Device-side scratch per item after the inputs (e.g. nonces, keys).
  virtual size_t scratch_item_bytes() const { return 0; }
  // Device addresses of input j and of the scratch area for a chunk of n.
  const uint8_t* in_part(const uint8_t* dev_in, size_t n, int j) const {
    return dev_in + in_at(n, j);
  }
  uint8_t* scratch(const uint8_t* dev_in, size_t n) const {
    return const_cast<uint8_t*>(in_part(dev_in, n, n_in_));
  }
  uint8_t* out_part(uint8_t* dev_out, size_t n, int j) const { return dev_out + out_at(n, j); }

 private:
  static cudaError_t copy_h2d(uint8_t* dst, const uint8_t* src, size_t bytes,
                              cudaStream_t stream) {
    return bytes == 0 ? cudaSuccess
                      : cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream);
  }
  size_t in_at(size_t n, int j) const {  // offset of input j in a chunk of n
    size_t at = header_bytes();
    for (int i = 0; i < j; ++i) at += n * inputs_[i].item;
    return at;
  }
  size_t out_at(size_t n, int j) const {
    size_t at = 0;
    for (int i = 0; i < j; ++i) at += n * outputs_[i].item;
    return at;
  }
  size_t in_item_bytes() const {
    size_t s = 0;
    for (int i = 0; i < n_in_; ++i) s += inputs_[i].item;
    return s;
  }
  size_t out_item_bytes() const {
    size_t s = 0;
    for (int i = 0; i < n_out_; ++i) s += outputs_[i].item;
    return s;
  }
  Part inputs_[4], outputs_[4];
  int n_in_ = 0, n_out_ = 0;
};

// Private keys from the DRBG, public keys [d]G. Outputs: d (32), 04||x||y
// (65), status (int: kBadPrivateKey for a d outside [1, n-2], which the
// caller draws again).
class Sm2KeygenJob final : public FixedSizeJob {
 public:
  Sm2KeygenJob(const chacha20::Key& drbg, uint8_t* priv, uint8_t* pub, int* status)
      : drbg_(drbg) {
    add_output(priv, 32);
    add_output(pub, 65);
    add_output(status, sizeof(int));
  }
  ~Sm2KeygenJob() override { secure_wipe(&drbg_, sizeof drbg_); }
  cudaError_t launch(size_t first, size_t n, const uint8_t*, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    uint8_t* d = out_part(dev_out, n, 0);
    cudaError_t err = chacha20::launch_random_bytes32(drbg_, first, kTagPrivateKeys, n, d, stream);
    if (err == cudaSuccess)
      err = sm2::gpu::launch_keygen(d, out_part(dev_out, n, 1),
                                    reinterpret_cast<int*>(out_part(dev_out, n, 2)), n, stream);
    return err;
  }

 private:
  chacha20::Key drbg_;
};

// Signatures of digests. One prepared key for the batch (staged once per
// chunk as a header), or raw per-item private keys prepared on the device.
// Outputs: r||s (64), status (int). Nonces are drawn on the device.
class Sm2SignJob final : public FixedSizeJob {
 public:
  Sm2SignJob(const chacha20::Key& drbg, const sm2::gpu::SignKey* one_key,
             const uint8_t* per_item_keys, const uint8_t* digests, uint8_t* sigs, int* status)
      : drbg_(drbg), one_key_(one_key), per_item_(per_item_keys != nullptr) {
    add_input(digests, 32);
    if (per_item_) add_input(per_item_keys, 32);
    add_output(sigs, 64);
    add_output(status, sizeof(int));
  }
  ~Sm2SignJob() override { secure_wipe(&drbg_, sizeof drbg_); }
  // The prepared key header, or the per-item private keys after the digests.
  size_t secret_staged_bytes(size_t first, size_t n) const override {
    return staged_bytes(first, n);
  }
  cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    uint8_t* nonces = scratch(dev_in, n);
    auto* prepared = reinterpret_cast<sm2::gpu::SignKey*>(nonces + 32 * n);
    cudaError_t err = chacha20::launch_random_bytes32(drbg_, first, kTagNonces, n, nonces, stream);
    if (err == cudaSuccess && per_item_)
      err = sm2::gpu::launch_prepare_sign_keys(in_part(dev_in, n, 1), prepared, n, stream);
    if (err != cudaSuccess) return err;
    const auto* keys = per_item_ ? prepared : reinterpret_cast<const sm2::gpu::SignKey*>(dev_in);
    return sm2::gpu::launch_sign_digest(in_part(dev_in, n, 0), keys, per_item_ ? 1 : 0, nonces,
                                        out_part(dev_out, n, 0),
                                        reinterpret_cast<int*>(out_part(dev_out, n, 1)), n, stream);
  }

 private:
  size_t header_bytes() const override { return per_item_ ? 0 : sizeof(sm2::gpu::SignKey); }
  void write_header(uint8_t* staging) const override {
    if (!per_item_) memcpy(staging, one_key_, sizeof(*one_key_));
  }
  size_t scratch_item_bytes() const override {  // nonce (+ prepared key)
    return 32 + (per_item_ ? sizeof(sm2::gpu::SignKey) : 0);
  }
  chacha20::Key drbg_;
  const sm2::gpu::SignKey* one_key_;
  bool per_item_;
};

// Verification of (public key 65, digest 32, r||s 64) triples -> status.
class Sm2VerifyJob final : public FixedSizeJob {
 public:
  Sm2VerifyJob(const uint8_t* pubs, const uint8_t* digests, const uint8_t* sigs, int* status) {
    add_input(pubs, 65);
    add_input(digests, 32);
    add_input(sigs, 64);
    add_output(status, sizeof(int));
  }
  cudaError_t launch(size_t, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    return sm2::gpu::launch_verify_digest(in_part(dev_in, n, 0), in_part(dev_in, n, 1),
                                          in_part(dev_in, n, 2), reinterpret_cast<int*>(dev_out),
                                          n, stream);
  }
};

}  // namespace gpu
}  // namespace ks

#endif  // KS_ENGINE_GPU_SM2_JOBS_CUH_
