// Jobs over variable-length messages (flat data + offsets) on the GPU
// pipeline: SM3 digests, SM2 signatures and verifications of messages
// (Z_A and e = SM3(Z_A || M) hashed on the device). A chunk stages
// [header][offsets rebased to the chunk][fixed-size inputs][message bytes];
// per-item device scratch follows.
#ifndef KS_ENGINE_GPU_MESSAGE_JOBS_CUH_
#define KS_ENGINE_GPU_MESSAGE_JOBS_CUH_

#include <string.h>

#include <algorithm>

#include "core/chacha20_gpu.h"
#include "core/secure.h"
#include "engine/gpu_pipeline.cuh"
#include "engine/gpu_sm2_jobs.cuh"
#include "hash/sm3_gpu.h"
#include "scheme/sm2_gpu.h"

namespace ks {
namespace gpu {

class MessagesJob : public ChunkJob {
 public:
  MessagesJob(const uint8_t* data, const uint64_t* offsets) : data_(data), offsets_(offsets) {}

  size_t chunk_items(size_t first, size_t remaining) const override {
    const uint64_t base = offsets_[first];
    size_t lo = 1, hi = std::min(remaining, kChunkMaxItems);
    while (lo < hi) {  // largest n whose bytes fit, at least one message
      const size_t mid = lo + (hi - lo + 1) / 2;
      if (offsets_[first + mid] - base + mid * fixed_item_bytes() <= kChunkMaxBytes) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  size_t staged_bytes(size_t first, size_t n) const override {
    return messages_at(n) + message_bytes(first, n);
  }
  size_t in_bytes(size_t first, size_t n) const override {
    return round16(staged_bytes(first, n)) + n * scratch_item_bytes();
  }
  void stage(size_t first, size_t n, uint8_t* staging, const Copier& copy) const override {
    write_header(staging);
    uint64_t* rebased = reinterpret_cast<uint64_t*>(staging + header_bytes());
    const uint64_t base = offsets_[first];
    for (size_t i = 0; i <= n; ++i) rebased[i] = offsets_[first + i] - base;
    for (int j = 0; j < n_fixed_; ++j)
      copy(staging + fixed_at(n, j), fixed_[j].host + first * fixed_[j].item, n * fixed_[j].item);
    copy(staging + messages_at(n), data_ + base, message_bytes(first, n));
  }

 protected:
  // Per-item inputs of fixed size (e.g. public keys), staged after the
  // offsets.
  void add_fixed_input(const void* host, size_t item) {
    fixed_[n_fixed_++] = Fixed{static_cast<const uint8_t*>(host), item};
  }
  virtual size_t header_bytes() const { return 0; }  // a multiple of 8
  virtual void write_header(uint8_t*) const {}
  virtual size_t scratch_item_bytes() const { return 0; }
  const uint64_t* dev_offsets(const uint8_t* dev_in) const {
    return reinterpret_cast<const uint64_t*>(dev_in + header_bytes());
  }
  const uint8_t* dev_fixed(const uint8_t* dev_in, size_t n, int j) const {
    return dev_in + fixed_at(n, j);
  }
  const uint8_t* dev_messages(const uint8_t* dev_in, size_t n) const {
    return dev_in + messages_at(n);
  }
  uint8_t* dev_scratch(const uint8_t* dev_in, size_t first, size_t n) const {
    return const_cast<uint8_t*>(dev_in) + round16(staged_bytes(first, n));
  }

 private:
  struct Fixed {
    const uint8_t* host = nullptr;
    size_t item = 0;
  };
  static size_t round16(size_t x) { return (x + 15) & ~size_t(15); }
  size_t message_bytes(size_t first, size_t n) const {
    return size_t(offsets_[first + n] - offsets_[first]);
  }
  size_t fixed_item_bytes() const {
    size_t s = 0;
    for (int j = 0; j < n_fixed_; ++j) s += fixed_[j].item;
    return s;
  }
  // Staged layout: [header][offsets, n + 1][fixed input 0] .. [messages].
  size_t fixed_at(size_t n, int j) const {
    size_t at = header_bytes() + (n + 1) * sizeof(uint64_t);
    for (int i = 0; i < j; ++i) at += n * fixed_[i].item;
    return at;
  }
  size_t messages_at(size_t n) const { return fixed_at(n, n_fixed_); }

  const uint8_t* data_;
  const uint64_t* offsets_;
  Fixed fixed_[2];
  int n_fixed_ = 0;
};

// SM3 of each message -> 32-byte digests.
class Sm3Job final : public MessagesJob {
 public:
  Sm3Job(const uint8_t* data, const uint64_t* offsets, uint8_t* digests)
      : MessagesJob(data, offsets), digests_(digests) {}
  size_t out_bytes(size_t n) const override { return 32 * n; }
  cudaError_t launch(size_t, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    sm3::DeviceItems items;
    items.data = dev_messages(dev_in, n);
    items.offsets = dev_offsets(dev_in);
    return sm3::launch_digests(items, n, dev_out, stream);
  }
  void deliver(size_t first, size_t n, const uint8_t* results, const Copier& copy) const override {
    copy(digests_ + 32 * first, results, 32 * n);
  }

 private:
  uint8_t* digests_;
};

// SM2 signatures of messages under one key: the header carries the prepared
// key and Z_A; e_i = SM3(Z_A || M_i) and the nonces live in device scratch.
// Outputs: r||s (64) and status (int) per item, as Sm2SignJob.
class Sm2SignMessagesJob final : public MessagesJob {
 public:
  struct Header {
    sm2::gpu::SignKey key;
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
    sm3::DeviceItems items;  // Z_A || M_i
    items.prefix = header->za;
    items.prefix_len = 32;
    items.data = dev_messages(dev_in, n);
    items.offsets = dev_offsets(dev_in);
    cudaError_t err = sm3::launch_digests(items, n, e, stream);
    if (err == cudaSuccess)
      err = chacha20::launch_random_bytes32(drbg_, first, kTagNonces, n, nonces, stream);
    if (err != cudaSuccess) return err;
    return sm2::gpu::launch_sign_digest(e, &header->key, 0, nonces, dev_out,
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
    sm3::DeviceItems za_items;  // key-independent part || x_i || y_i
    za_items.prefix = dev_in;
    za_items.prefix_len = unsigned(prefix_len_);
    za_items.data = pubs + 1;
    za_items.data_stride = 65;
    za_items.data_len = 64;
    cudaError_t err = sm3::launch_digests(za_items, n, za, stream);
    sm3::DeviceItems e_items;  // Z_A_i || M_i
    e_items.prefix = za;
    e_items.prefix_len = 32;
    e_items.prefix_stride = 32;
    e_items.data = dev_messages(dev_in, n);
    e_items.offsets = dev_offsets(dev_in);
    if (err == cudaSuccess) err = sm3::launch_digests(e_items, n, e, stream);
    if (err != cudaSuccess) return err;
    return sm2::gpu::launch_verify_digest(pubs, e, dev_fixed(dev_in, n, 1),
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

}  // namespace gpu
}  // namespace ks

#endif  // KS_ENGINE_GPU_MESSAGE_JOBS_CUH_
