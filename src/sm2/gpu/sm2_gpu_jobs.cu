// SM2 on the shared GPU pipeline (gpu/gpu_pipeline.cuh): the jobs of
// the SM2 batch calls over the device launchers of sm2/gpu/sm2_gpu.h. Per-item
// results are ks::sm2::Error values; the C API maps them.
#include <string.h>

#include "core/chacha20_gpu.h"
#include "core/secure.h"
#include "gpu/gpu_engine.cuh"
#include "gpu/gpu_jobs.cuh"
#include "sm3/gpu/sm3_gpu.h"
#include "kuaisuo/sm2.h"
#include "sm2/gpu/sm2_gpu.h"
#include "sm2/gpu/sm2_gpu_batch.h"

namespace ks {
namespace sm2 {
namespace gpu {
namespace {

using ks::gpu::Copier;
using ks::gpu::FixedSizeJob;
using ks::gpu::kTagNonces;
using ks::gpu::kTagPrivateKeys;
using ks::gpu::MessagesJob;
using ks::gpu::run_with_drbg;

// The fixed-base table goes to every device when its engine opens.
const ks::gpu::WarmUp kTables(&init_tables);

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
  size_t secret_result_bytes(size_t n) const override { return 32 * n; }  // the keys d
  cudaError_t launch(size_t first, size_t n, const uint8_t*, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    uint8_t* d = out_part(dev_out, n, 0);
    cudaError_t err = chacha20::launch_random_bytes32(drbg_, first, kTagPrivateKeys, n, d, stream);
    if (err == cudaSuccess)
      err = launch_keygen(d, out_part(dev_out, n, 1),
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
  Sm2SignJob(const chacha20::Key& drbg, const SignKey* one_key,
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
    auto* prepared = reinterpret_cast<SignKey*>(nonces + 32 * n);
    cudaError_t err = chacha20::launch_random_bytes32(drbg_, first, kTagNonces, n, nonces, stream);
    if (err == cudaSuccess && per_item_)
      err = launch_prepare_sign_keys(in_part(dev_in, n, 1), prepared, n, stream);
    if (err != cudaSuccess) return err;
    const auto* keys = per_item_ ? prepared : reinterpret_cast<const SignKey*>(dev_in);
    return launch_sign_digest(in_part(dev_in, n, 0), keys, per_item_ ? 1 : 0, nonces,
                                        out_part(dev_out, n, 0),
                                        reinterpret_cast<int*>(out_part(dev_out, n, 1)), n, stream);
  }

 private:
  size_t header_bytes() const override { return per_item_ ? 0 : sizeof(SignKey); }
  void write_header(uint8_t* staging) const override {
    if (!per_item_) memcpy(staging, one_key_, sizeof(*one_key_));
  }
  size_t scratch_item_bytes() const override {  // nonce (+ prepared key)
    return 32 + (per_item_ ? sizeof(SignKey) : 0);
  }
  chacha20::Key drbg_;
  const SignKey* one_key_;
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
    return launch_verify_digest(in_part(dev_in, n, 0), in_part(dev_in, n, 1),
                                          in_part(dev_in, n, 2), reinterpret_cast<int*>(dev_out),
                                          n, stream);
  }
};

// SM2 signatures of messages under one key: the header carries the prepared
// key and Z_A; e_i = SM3(Z_A || M_i) and the nonces live in device scratch.
// Outputs: r||s (64) and status (int) per item, as Sm2SignJob.
class Sm2SignMessagesJob final : public MessagesJob {
 public:
  struct Header {
    SignKey key;
    uint8_t za[32];
  };
  Sm2SignMessagesJob(const chacha20::Key& drbg, const Header& header, const uint8_t* data,
                     const uint64_t* offsets, uint8_t* sigs, int* status)
      : MessagesJob(data, offsets), drbg_(drbg), header_(header), sigs_(sigs), status_(status) {}
  ~Sm2SignMessagesJob() override {
    secure_wipe(&drbg_, sizeof drbg_);
    secure_wipe(&header_, sizeof header_);
  }
  size_t secret_staged_bytes(size_t, size_t) const override { return sizeof(Header); }
  size_t out_bytes(size_t n) const override { return (64 + sizeof(int)) * n; }
  cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    const auto* header = reinterpret_cast<const Header*>(dev_in);
    uint8_t* e = dev_scratch(dev_in, first, n);
    uint8_t* nonces = e + 32 * n;
    sm3::gpu::DeviceItems items;  // Z_A || M_i
    items.prefix = header->za;
    items.prefix_len = 32;
    items.data = dev_messages(dev_in, n);
    items.offsets = dev_offsets(dev_in);
    cudaError_t err = sm3::gpu::launch_digests(items, n, e, stream);
    if (err == cudaSuccess)
      err = chacha20::launch_random_bytes32(drbg_, first, kTagNonces, n, nonces, stream);
    if (err != cudaSuccess) return err;
    return launch_sign_digest(e, &header->key, 0, nonces, dev_out,
                                        reinterpret_cast<int*>(dev_out + 64 * n), n, stream);
  }
  void deliver(size_t first, size_t n, const uint8_t* results, const Copier& copy) const override {
    copy(sigs_ + 64 * first, results, 64 * n);
    copy(status_ + first, results + 64 * n, sizeof(int) * n);
  }

 private:
  size_t header_bytes() const override { return sizeof(Header); }
  void write_header(uint8_t* staging) const override { memcpy(staging, &header_, sizeof header_); }
  size_t scratch_item_bytes() const override { return 64; }  // e and the nonce
  chacha20::Key drbg_;
  Header header_;
  uint8_t* sigs_;
  int* status_;
};

// SM2 verification of messages under per-item public keys and one ID
// (clause 7.1 B3-B4 on the device): Z_A_i = SM3(ENTL || ID || a || b || x_G
// || y_G || x_i || y_i) with the key-independent part as the staged header,
// then e_i = SM3(Z_A_i || M_i), then the digest verification. Inputs per
// item: public key 04||x||y (65), r||s (64), message. Output: status (int).
class Sm2VerifyMessagesJob final : public MessagesJob {
 public:
  Sm2VerifyMessagesJob(const uint8_t* za_prefix, size_t za_prefix_len, const uint8_t* pubs,
                       const uint8_t* data, const uint64_t* offsets, const uint8_t* sigs,
                       int* status)
      : MessagesJob(data, offsets), prefix_(za_prefix), prefix_len_(za_prefix_len),
        status_(status) {
    add_fixed_input(pubs, 65);
    add_fixed_input(sigs, 64);
  }
  size_t out_bytes(size_t n) const override { return sizeof(int) * n; }
  cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    const uint8_t* pubs = dev_fixed(dev_in, n, 0);
    uint8_t* za = dev_scratch(dev_in, first, n);
    uint8_t* e = za + 32 * n;
    sm3::gpu::DeviceItems za_items;  // key-independent part || x_i || y_i
    za_items.prefix = dev_in;
    za_items.prefix_len = unsigned(prefix_len_);
    za_items.data = pubs + 1;
    za_items.data_stride = 65;
    za_items.data_len = 64;
    cudaError_t err = sm3::gpu::launch_digests(za_items, n, za, stream);
    sm3::gpu::DeviceItems e_items;  // Z_A_i || M_i
    e_items.prefix = za;
    e_items.prefix_len = 32;
    e_items.prefix_stride = 32;
    e_items.data = dev_messages(dev_in, n);
    e_items.offsets = dev_offsets(dev_in);
    if (err == cudaSuccess) err = sm3::gpu::launch_digests(e_items, n, e, stream);
    if (err != cudaSuccess) return err;
    return launch_verify_digest(pubs, e, dev_fixed(dev_in, n, 1),
                                          reinterpret_cast<int*>(dev_out), n, stream);
  }
  void deliver(size_t first, size_t n, const uint8_t* results, const Copier& copy) const override {
    copy(status_ + first, results, sizeof(int) * n);
  }

 private:
  size_t header_bytes() const override { return (prefix_len_ + 7) & ~size_t(7); }
  void write_header(uint8_t* staging) const override { memcpy(staging, prefix_, prefix_len_); }
  size_t scratch_item_bytes() const override { return 64; }  // Z_A and e
  const uint8_t* prefix_;
  size_t prefix_len_;
  int* status_;
};

}  // namespace

int keygen_batch(ks::gpu::Engine& engine, size_t count, uint8_t* priv, uint8_t* pub, int* status) {
  return run_with_drbg(engine, count, [&](const chacha20::Key& drbg) {
    return Sm2KeygenJob(drbg, priv, pub, status);
  });
}

int sign_digest_batch(ks::gpu::Engine& engine, const PrivateKey* key, const uint8_t* per_item_keys,
                      const uint8_t* digests, size_t count, uint8_t* sigs, int* status) {
  SignKey prepared{};
  if (key != nullptr) prepared = sign_key_from(*key);
  const int rc = run_with_drbg(engine, count, [&](const chacha20::Key& drbg) {
    return Sm2SignJob(drbg, key != nullptr ? &prepared : nullptr, per_item_keys, digests, sigs,
                      status);
  });
  secure_wipe(&prepared, sizeof prepared);
  return rc;
}

int sign_messages_batch(ks::gpu::Engine& engine, const PrivateKey& key, const uint8_t za[32],
                        const uint8_t* data, const uint64_t* offsets, size_t count, uint8_t* sigs,
                        int* status) {
  Sm2SignMessagesJob::Header header;
  header.key = sign_key_from(key);
  memcpy(header.za, za, 32);
  const int rc = run_with_drbg(engine, count, [&](const chacha20::Key& drbg) {
    return Sm2SignMessagesJob(drbg, header, data, offsets, sigs, status);
  });
  secure_wipe(&header, sizeof header);
  return rc;
}

int verify_digest_batch(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* digests,
                        const uint8_t* sigs, size_t count, int* status) {
  return ks::gpu::CudaEngine::of(engine).run(Sm2VerifyJob(pubs, digests, sigs, status), count);
}

int verify_messages_batch(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* za_prefix,
                          size_t za_prefix_len, const uint8_t* data, const uint64_t* offsets,
                          size_t count, const uint8_t* sigs, int* status) {
  return ks::gpu::CudaEngine::of(engine).run(
      Sm2VerifyMessagesJob(za_prefix, za_prefix_len, pubs, data, offsets, sigs, status), count);
}

}  // namespace gpu
}  // namespace sm2
}  // namespace ks
