// The kinds of work every scheme's GPU batches are made of, on the shared
// pipeline (gpu_pipeline.cuh): fixed-size items (keys, digests,
// signatures: caller arrays in pinned memory are copied directly), and
// variable-length messages (flat data + offsets, staged as
// [header][offsets rebased to the chunk][fixed-size inputs][message
// bytes], per-item device scratch after them). A scheme derives its jobs
// from these beside its kernels (sm3/gpu/sm3_gpu_jobs.cu,
// sm2/gpu/sm2_gpu_jobs.cu).
#ifndef KS_ENGINE_GPU_JOBS_CUH_
#define KS_ENGINE_GPU_JOBS_CUH_

#include <string.h>

#include <algorithm>

#include "gpu/gpu_pipeline.cuh"

namespace ks {
namespace gpu {

// Tags that separate the DRBG streams (core/chacha20_gpu.h) of different
// uses under one key.
enum DrbgTag : uint32_t { kTagPrivateKeys = 1, kTagNonces = 2, kTagEncryptNonces = 3 };

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
  size_t out_bytes(size_t, size_t n) const override { return n * out_item_bytes(); }
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
  // Whether input / output j is copied to or from the caller's pinned
  // memory directly (its staging or result bytes then hold nothing to wipe).
  bool input_pinned(int j) const { return inputs_[j].pinned; }
  bool output_pinned(int j) const { return outputs_[j].pinned; }

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

// Variable-length messages (flat data and validated offsets): a chunk
// takes as many whole messages as fit kChunkMaxBytes (at least one).
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
    copy.for_ranges(n + 1, kFillMinItems, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) rebased[i] = offsets_[first + i] - base;
    });
    for (int j = 0; j < n_fixed_; ++j) {
      uint8_t* dst = staging + fixed_at(n, j);
      const size_t item = fixed_[j].item;
      if (fixed_[j].host != nullptr) {
        copy(dst, fixed_[j].host + first * item, n * item);
      } else {  // derived per item (parsing SM2 ciphertexts): on every thread
        copy.for_ranges(n, kFillMinItems, [&](size_t b, size_t e) {
          fill_fixed(j, first + b, e - b, dst + b * item);
        });
      }
    }
    copy(staging + messages_at(n), data_ + base, message_bytes(first, n));
  }

 protected:
  // Per-item inputs of fixed size (e.g. public keys), staged after the
  // offsets: copied from host, or, with host null, written by fill_fixed
  // (called on ranges of the chunk's items from several threads).
  void add_fixed_input(const void* host, size_t item) {
    fixed_[n_fixed_++] = Fixed{static_cast<const uint8_t*>(host), item};
  }
  // Fixed input j of items [first, first + n) into staging at dst (one
  // that add_fixed_input gave no host array: derived from the messages).
  virtual void fill_fixed(int j, size_t first, size_t n, uint8_t* dst) const {}
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
  // Staged bytes before the messages: header, offsets and fixed inputs
  // (the leading bytes a job with secret fixed inputs, e.g. seeds, wipes).
  size_t messages_at(size_t n) const { return fixed_at(n, n_fixed_); }
  // Message bytes of items [first, first + n).
  size_t message_bytes(size_t first, size_t n) const {
    return size_t(offsets_[first + n] - offsets_[first]);
  }

 private:
  // Below this many items a chunk's offsets and fill_fixed are staged by
  // one thread.
  static constexpr size_t kFillMinItems = 4096;
  struct Fixed {
    const uint8_t* host = nullptr;
    size_t item = 0;
  };
  static size_t round16(size_t x) { return (x + 15) & ~size_t(15); }
  size_t fixed_item_bytes() const {
    size_t s = 0;
    for (int j = 0; j < n_fixed_; ++j) s += fixed_[j].item;
    return s;
  }
  // Staged layout: [header][offsets, n + 1][fixed input 0] .. [messages],
  // each fixed input and the messages from a 16-byte boundary: a record
  // may be alignas(16) (sm2's CiphertextLayout), and n + 1 offsets end 8
  // bytes past one when n is even.
  size_t fixed_at(size_t n, int j) const {
    size_t at = round16(header_bytes() + (n + 1) * sizeof(uint64_t));
    for (int i = 0; i < j; ++i) at = round16(at + n * fixed_[i].item);
    return at;
  }

  const uint8_t* data_;
  const uint64_t* offsets_;
  Fixed fixed_[2];
  int n_fixed_ = 0;
};

}  // namespace gpu
}  // namespace ks

#endif  // KS_ENGINE_GPU_JOBS_CUH_
