// SM2 on the shared GPU pipeline (gpu/gpu_pipeline.cuh): the jobs of
// the SM2 batch calls over the device launchers of sm2/gpu/sm2_gpu.h. Per-item
// results are ks::sm2::Error values; the C API maps them.
#include <stddef.h>
#include <string.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "core/chacha20_gpu.h"
#include "core/secure.h"
#include "gpu/gpu_engine.cuh"
#include "gpu/gpu_jobs.cuh"
#include "gpu/launch.cuh"
#include "sm3/gpu/sm3_gpu.h"
#include "sm3/sm3.h"
#include "kuaisuo/sm2.h"
#include "sm2/gpu/sm2_gpu.h"
#include "sm2/gpu/sm2_gpu_batch.h"
#include "sm2/sm2_encrypt.h"

namespace ks {
namespace sm2 {
namespace gpu {
namespace {

using ks::gpu::Copier;
using ks::gpu::FixedSizeJob;
using ks::gpu::kTagEncryptNonces;
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
  size_t secret_result_bytes(size_t, size_t n) const override { return 32 * n; }  // the keys d
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
  size_t out_bytes(size_t, size_t n) const override { return (64 + sizeof(int)) * n; }
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

// e_i = SM3(Z_A_i || M_i) into e, Z_A_i at za[za_stride i ..] (clause 7.1
// B3-B4; stride 0: one key's Z_A for every item). Offsets that no host has
// checked come with offsets_status (sm3_gpu.h's DeviceItems).
cudaError_t launch_za_digests(const uint8_t* za, const uint8_t* data, const uint64_t* offsets,
                              size_t n, uint8_t* e, cudaStream_t stream, uint64_t data_bytes = 0,
                              int* offsets_status = nullptr, size_t za_stride = 32) {
  sm3::gpu::DeviceItems items;  // Z_A_i || M_i
  items.prefix = za;
  items.prefix_len = 32;
  items.prefix_stride = za_stride;
  items.data = data;
  items.offsets = offsets;
  items.data_bytes = data_bytes;
  items.offsets_status = offsets_status;
  return sm3::gpu::launch_digests(items, n, e, stream);
}

// e_i = SM3(Z_A_i || M_i) for n items under per-item public keys (04||x||y,
// 65 bytes) and one ID (clause 7.1 B3-B4 on the device): Z_A_i = SM3(ENTL ||
// ID || a || b || x_G || y_G || x_i || y_i), its key-independent part at
// dev_prefix, into za, then e into e. Offsets that no host has checked come
// with offsets_status (sm3_gpu.h's DeviceItems).
cudaError_t launch_message_digests(const uint8_t* dev_prefix, size_t prefix_len,
                                   const uint8_t* pubs, const uint8_t* data,
                                   const uint64_t* offsets, size_t n, uint8_t* za, uint8_t* e,
                                   cudaStream_t stream, uint64_t data_bytes = 0,
                                   int* offsets_status = nullptr) {
  sm3::gpu::DeviceItems za_items;  // key-independent part || x_i || y_i
  za_items.prefix = dev_prefix;
  za_items.prefix_len = unsigned(prefix_len);
  za_items.data = pubs + 1;
  za_items.data_stride = 65;
  za_items.data_len = 64;
  const cudaError_t err = sm3::gpu::launch_digests(za_items, n, za, stream);
  if (err != cudaSuccess) return err;
  return launch_za_digests(za, data, offsets, n, e, stream, data_bytes, offsets_status);
}

// SM2 verification of messages under per-item public keys and one ID:
// launch_message_digests with the key-independent part of Z_A as the
// staged header, then the digest verification. Inputs per item: public key
// 04||x||y (65), r||s (64), message. Output: status (int).
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
  size_t out_bytes(size_t, size_t n) const override { return sizeof(int) * n; }
  cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    const uint8_t* pubs = dev_fixed(dev_in, n, 0);
    uint8_t* za = dev_scratch(dev_in, first, n);
    uint8_t* e = za + 32 * n;
    const cudaError_t err = launch_message_digests(dev_in, prefix_len_, pubs,
                                                   dev_messages(dev_in, n), dev_offsets(dev_in),
                                                   n, za, e, stream);
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

// --- One public key for a whole verification batch ---------------------------------
// The key's table (sm2_gpu_host.h's key table) in device memory, with the
// key bytes it was built for.
struct KeyTable {
  uint8_t key[65];
  int bits = 0;
  uint8_t* table = nullptr;
  ~KeyTable() { cudaFree(table); }
};
using KeyTableRef = std::shared_ptr<const KeyTable>;

// The last key's table on each device, kept for the next batch under the
// same key (a server checking one signer's signatures batch after batch
// builds it once): one table per device at most, 32 MiB (16-bit windows)
// or 2.75 MiB (12-bit), until a batch under another key replaces it or the
// process ends. Thread-safe: lookups and builds under one mutex; a batch
// holds a reference to its table, so a replacement frees the old one only
// once no batch runs on it.
class KeyTableCache {
 public:
  static KeyTableCache& get() {
    static KeyTableCache* cache = new KeyTableCache;  // never destroyed (device memory at exit)
    return *cache;
  }
  // The cached table of `pub` on `device`, or null.
  KeyTableRef find(int device, const uint8_t pub[65]) {
    if (device < 0 || device >= kMaxDevices) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    const KeyTableRef& t = tables_[device];
    return t != nullptr && memcmp(t->key, pub, 65) == 0 ? t : nullptr;
  }
  // The table of `key` (whose bytes are pub) with `bits`-bit windows on
  // `device` (the current one): the cached one if it is that key's with at
  // least as many bits, else built now (about half a millisecond) and
  // cached for the next batch.
  cudaError_t build(int device, const uint8_t pub[65], const PublicKey& key, int bits,
                    KeyTableRef* out) {
    if (device < 0 || device >= kMaxDevices) return cudaErrorInvalidDevice;
    std::lock_guard<std::mutex> lock(mutex_);
    KeyTableRef& slot = tables_[device];
    if (slot != nullptr && slot->bits >= bits && memcmp(slot->key, pub, 65) == 0) {
      *out = slot;
      return cudaSuccess;
    }
    auto t = std::make_shared<KeyTable>();
    memcpy(t->key, pub, 65);
    t->bits = bits;
    cudaError_t err = cudaMalloc(&t->table, key_table_bytes(bits));
    cudaStream_t stream = nullptr;
    if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (err == cudaSuccess) err = launch_build_key_table(key, bits, t->table, stream);
    if (stream != nullptr) {
      const cudaError_t sync = cudaStreamSynchronize(stream);
      if (err == cudaSuccess) err = sync;
      cudaStreamDestroy(stream);
    }
    if (err != cudaSuccess) return err;
    slot = t;
    *out = std::move(t);
    return cudaSuccess;
  }

 private:
  static constexpr int kMaxDevices = 64;
  std::mutex mutex_;
  KeyTableRef tables_[kMaxDevices];
};

// Window width of a table built for a batch of `count` items. On an H200
// (bench/results/h200-2026-12-02-sm2-one-key-verify.json) the 12-bit
// table's build took 0.33 ms and the 16-bit one's 0.53 ms, and the kernel
// over 16 bits ran 1.1 ns an item faster: 16 bits pay from about 180,000
// items. A batch below kOneKeyMinItems under a key not kept takes the
// per-item path (a guess not yet measured: the per-item kernel's one wave
// of threads took 3.5 ms for 2^16 items, against 0.33 ms for a build and
// 0.55 ms for the one-key kernel, so the table likely pays for far smaller
// batches; `sm2_gpu_bench 22 one_key 10` measures down to 2^10 items).
// A key object's batch (BatchKeys::kOne) builds the table at any size: it
// has no per-item keys for that path to read, and by the same figures the
// build costs a tenth of the per-item kernel's one wave (each thread there
// verifies a whole item, so a smaller batch is not expected to take less
// than that wave; not measured below 2^16 items). The table is then kept
// for the key's next batch.
constexpr size_t kOneKeyMinItems = 4096;
constexpr size_t kKeyBits16MinItems = size_t(1) << 18;
int key_bits_for(size_t count) { return count >= kKeyBits16MinItems ? 16 : 12; }

std::atomic<uint64_t> g_one_key_batches{0};

// Verification of (digest 32, r||s 64) pairs under one key whose table is
// in device memory -> status (int).
class Sm2VerifyOneKeyJob final : public FixedSizeJob {
 public:
  Sm2VerifyOneKeyJob(const KeyTable& key, const uint8_t* digests, const uint8_t* sigs, int* status)
      : key_(key) {
    add_input(digests, 32);
    add_input(sigs, 64);
    add_output(status, sizeof(int));
  }
  cudaError_t launch(size_t, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    return launch_verify_digest_one_key(key_.table, key_.bits, in_part(dev_in, n, 0),
                                        in_part(dev_in, n, 1), reinterpret_cast<int*>(dev_out),
                                        n, stream);
  }

 private:
  const KeyTable& key_;
};

// Messages under one key and one ID: the header is Z_A (computed once on
// the CPU), e_i = SM3(Z_A || M_i) in device scratch, then the verification
// over the key's table. Input per item: r||s (64), message. Output: status.
class Sm2VerifyMessagesOneKeyJob final : public MessagesJob {
 public:
  Sm2VerifyMessagesOneKeyJob(const KeyTable& key, const uint8_t za[32], const uint8_t* data,
                             const uint64_t* offsets, const uint8_t* sigs, int* status)
      : MessagesJob(data, offsets), key_(key), status_(status) {
    memcpy(za_, za, 32);
    add_fixed_input(sigs, 64);
  }
  size_t out_bytes(size_t, size_t n) const override { return sizeof(int) * n; }
  cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    uint8_t* e = dev_scratch(dev_in, first, n);
    sm3::gpu::DeviceItems items;  // Z_A || M_i
    items.prefix = dev_in;
    items.prefix_len = 32;
    items.data = dev_messages(dev_in, n);
    items.offsets = dev_offsets(dev_in);
    const cudaError_t err = sm3::gpu::launch_digests(items, n, e, stream);
    if (err != cudaSuccess) return err;
    return launch_verify_digest_one_key(key_.table, key_.bits, e, dev_fixed(dev_in, n, 0),
                                        reinterpret_cast<int*>(dev_out), n, stream);
  }
  void deliver(size_t first, size_t n, const uint8_t* results, const Copier& copy) const override {
    copy(status_ + first, results, sizeof(int) * n);
  }

 private:
  size_t header_bytes() const override { return 32; }
  void write_header(uint8_t* staging) const override { memcpy(staging, za_, 32); }
  size_t scratch_item_bytes() const override { return 32; }  // e
  const KeyTable& key_;
  uint8_t za_[32];
  int* status_;
};

// Where a batch's items all carry pub[0..65): its table (kept from an
// earlier batch or built now) in *table, or null where the per-item path
// is taken (a batch below kOneKeyMinItems under a key not kept, unless
// always); or *bad_key where the key does not decode.
int one_key_table(ks::gpu::Engine& engine, const uint8_t* pub, size_t count, bool always,
                  KeyTableRef* table, bool* bad_key) {
  PublicKey key;
  *bad_key = public_key_from_bytes(key, pub, 65) != Error::kOk;
  if (*bad_key) return KS_OK;
  const int device = engine.device();
  const int bits = key_bits_for(count);
  *table = KeyTableCache::get().find(device, pub);
  if (*table != nullptr && (*table)->bits >= bits) return KS_OK;
  if (*table == nullptr && count < kOneKeyMinItems && !always) return KS_OK;
  table->reset();
  cudaError_t err = cudaSetDevice(device);
  if (err == cudaSuccess) err = KeyTableCache::get().build(device, pub, key, bits, table);
  return ks::gpu::to_status(err);
}

// --- Encryption and decryption (GB/T 32918.4) ------------------------------------
// What both jobs share: messages (or ciphertexts) in, and per chunk of n
// items from `first` the results [lengths, n uint64][status, n int][slots],
// the slots laid out as the caller's out from item first on (item i's at
// offsets[i] + i * extra).
class Sm2CryptJob : public MessagesJob {
 public:
  size_t out_bytes(size_t first, size_t n) const override {
    return n * (sizeof(uint64_t) + sizeof(int)) + slot_bytes(first, n);
  }
  void deliver(size_t first, size_t n, const uint8_t* results, const Copier& copy) const override {
    copy(lengths_ + first, results, sizeof(uint64_t) * n);
    copy(status_ + first, results + sizeof(uint64_t) * n, sizeof(int) * n);
    copy(out_ + offsets_[first] + first * extra_, results + slots_at(n), slot_bytes(first, n));
  }

 protected:
  Sm2CryptJob(int form, size_t extra, const uint8_t* data, const uint64_t* offsets, uint8_t* out,
              uint64_t* lengths, int* status)
      : MessagesJob(data, offsets), form_(form), extra_(extra), offsets_(offsets), out_(out),
        lengths_(lengths), status_(status) {}
  // The kernels' view of a chunk (sm2_gpu.h's CryptItems).
  CryptItems items(const uint8_t* dev_in, uint8_t* dev_out, size_t n) const {
    CryptItems c;
    c.data = dev_messages(dev_in, n);
    c.offsets = dev_offsets(dev_in);
    c.count = n;
    c.form = form_;
    c.out = dev_out + slots_at(n);
    c.extra = extra_;
    c.lengths = reinterpret_cast<uint64_t*>(dev_out);
    c.status = reinterpret_cast<int*>(dev_out + sizeof(uint64_t) * n);
    return c;
  }
  size_t slot_bytes(size_t first, size_t n) const {
    return size_t(offsets_[first + n] - offsets_[first]) + n * extra_;
  }
  static size_t slots_at(size_t n) { return n * (sizeof(uint64_t) + sizeof(int)); }
  const int form_;
  const size_t extra_;
  const uint64_t* offsets_;

 private:
  uint8_t* out_;
  uint64_t* lengths_;
  int* status_;
};

// Encryption to one recipient (key_table: its 16-bit table in device
// memory) or to per-item keys (pubs, 65 bytes each). Nonces from the
// device DRBG; scratch per item: k (32) and the points (128).
class Sm2EncryptJob final : public Sm2CryptJob {
 public:
  Sm2EncryptJob(const chacha20::Key& drbg, const uint8_t* key_table, const uint8_t* pubs,
                int form, const uint8_t* data, const uint64_t* offsets, uint8_t* out,
                uint64_t* lengths, int* status)
      : Sm2CryptJob(form, ciphertext_bound(0, CipherForm(form)), data, offsets, out, lengths,
                    status),
        drbg_(drbg), key_table_(key_table) {
    if (pubs != nullptr) add_fixed_input(pubs, 65);
  }
  ~Sm2EncryptJob() override { secure_wipe(&drbg_, sizeof drbg_); }
  // Every staged byte but the offsets and keys: the plaintexts.
  size_t secret_staged_bytes(size_t first, size_t n) const override {
    return staged_bytes(first, n);
  }
  cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    const CryptItems c = items(dev_in, dev_out, n);
    uint8_t* nonces = dev_scratch(dev_in, first, n);
    uint8_t* points = nonces + 32 * n;
    cudaError_t err =
        chacha20::launch_random_bytes32(drbg_, first, kTagEncryptNonces, n, nonces, stream);
    if (err == cudaSuccess)
      err = launch_encrypt_points(key_table_ == nullptr ? dev_fixed(dev_in, n, 0) : nullptr,
                                  key_table_, nonces, points, c.status, n, stream);
    return err == cudaSuccess ? launch_encrypt_finish(c, points, stream) : err;
  }

 private:
  size_t scratch_item_bytes() const override { return 32 + 128; }
  chacha20::Key drbg_;
  const uint8_t* key_table_;
};

// Decryption under one private key, staged as the header (32 bytes,
// wiped); each item's CiphertextLayout is made on the host while staging.
// Scratch per item: x2 || y2 (64). Results: plaintexts (wiped from pinned
// memory once delivered).
class Sm2DecryptJob final : public Sm2CryptJob {
 public:
  Sm2DecryptJob(const uint8_t d[32], int form, const uint8_t* data, const uint64_t* offsets,
                uint8_t* out, uint64_t* lengths, int* status)
      : Sm2CryptJob(form, 0, data, offsets, out, lengths, status), data_(data) {
    memcpy(d_, d, 32);
    add_fixed_input(nullptr, sizeof(CiphertextLayout));
  }
  ~Sm2DecryptJob() override { secure_wipe(d_, sizeof d_); }
  size_t secret_staged_bytes(size_t first, size_t n) const override {
    return staged_bytes(first, n);  // the key, and the C1 copies beside it
  }
  size_t secret_result_bytes(size_t first, size_t n) const override {
    return out_bytes(first, n);
  }
  void fill_fixed(int, size_t first, size_t n, uint8_t* dst) const override {
    auto* layouts = reinterpret_cast<CiphertextLayout*>(dst);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t at = offsets_[first + i];
      layouts[i] = layout_of(data_ + at, size_t(offsets_[first + i + 1] - at), CipherForm(form_),
                             kGpuMaxItemBytes);
    }
  }
  cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    const CryptItems c = items(dev_in, dev_out, n);
    const auto* layouts = reinterpret_cast<const CiphertextLayout*>(dev_fixed(dev_in, n, 0));
    uint8_t* xy = dev_scratch(dev_in, first, n);
    const cudaError_t err = launch_decrypt_points(dev_in, layouts, xy, c.status, n, stream);
    return err == cudaSuccess ? launch_decrypt_finish(c, layouts, xy, stream) : err;
  }

 private:
  size_t header_bytes() const override { return 32; }
  void write_header(uint8_t* staging) const override { memcpy(staging, d_, 32); }
  size_t scratch_item_bytes() const override { return 64; }
  const uint8_t* data_;
  uint8_t d_[32];
};

void fill_status(int* status, size_t count, int value) {
  for (size_t i = 0; i < count; ++i) status[i] = value;
}

}  // namespace

uint64_t one_key_batches() { return g_one_key_batches.load(std::memory_order_relaxed); }

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

namespace {

// Z_A = SM3(ENTL || ID || a || b || x_G || y_G || x_A || y_A) of the key
// pub (04 || x_A || y_A) from its key-independent part za_prefix.
void one_key_za(uint8_t za[32], const uint8_t* za_prefix, size_t za_prefix_len,
                const uint8_t pub[65]) {
  sm3::Sm3 h;
  h.update(za_prefix, za_prefix_len);
  h.update(pub + 1, 64);
  h.finish(za);
}

// A verification batch: over the key's table when every item carries the
// same key (keys kRepeated or kOne) and the table is there
// (over_table(table)), every item failed when that key is bad, else
// per_item().
template <class OverTable, class PerItem>
int verify_batch(ks::gpu::Engine& engine, const uint8_t* pubs, size_t count, int* status,
                 BatchKeys keys, const OverTable& over_table, const PerItem& per_item) {
  if (keys != BatchKeys::kPerItem && count > 0) {
    KeyTableRef table;
    bool bad_key = false;
    const int rc =
        one_key_table(engine, pubs, count, keys == BatchKeys::kOne, &table, &bad_key);
    if (rc != KS_OK) return rc;
    if (bad_key) {
      fill_status(status, count, kBadPublicKey);
      return KS_OK;
    }
    if (table != nullptr) {
      g_one_key_batches.fetch_add(1, std::memory_order_relaxed);
      return over_table(*table);
    }
  }
  // kOne always has its table (one_key_table builds it or fails): its pubs
  // hold one key, never the per-item path's count.
  if (keys == BatchKeys::kOne && count > 0) return KS_ERR_INTERNAL;
  return per_item();
}

}  // namespace

int verify_digest_batch(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* digests,
                        const uint8_t* sigs, size_t count, int* status, BatchKeys keys) {
  ks::gpu::CudaEngine& cuda = ks::gpu::CudaEngine::of(engine);
  return verify_batch(
      engine, pubs, count, status, keys,
      [&](const auto& table) {
        return cuda.run(Sm2VerifyOneKeyJob(table, digests, sigs, status), count);
      },
      [&] { return cuda.run(Sm2VerifyJob(pubs, digests, sigs, status), count); });
}

int verify_messages_batch(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* za_prefix,
                          size_t za_prefix_len, const uint8_t* data, const uint64_t* offsets,
                          size_t count, const uint8_t* sigs, int* status, BatchKeys keys) {
  ks::gpu::CudaEngine& cuda = ks::gpu::CudaEngine::of(engine);
  return verify_batch(
      engine, pubs, count, status, keys,
      [&](const auto& table) {
        uint8_t za[32];
        one_key_za(za, za_prefix, za_prefix_len, pubs);
        return cuda.run(Sm2VerifyMessagesOneKeyJob(table, za, data, offsets, sigs, status),
                        count);
      },
      [&] {
        return cuda.run(
            Sm2VerifyMessagesJob(za_prefix, za_prefix_len, pubs, data, offsets, sigs, status),
            count);
      });
}

namespace {

// The table of one_pub (a key object's, valid) for a device-memory batch
// of count items: built, or found kept, before any kernel is queued. Null
// without one_pub.
int device_key_table(ks::gpu::Engine& engine, const uint8_t* one_pub, size_t count,
                     KeyTableRef* table) {
  if (one_pub == nullptr) return KS_OK;
  bool bad_key = false;
  const int rc = one_key_table(engine, one_pub, count, true, table, &bad_key);
  if (rc != KS_OK) return rc;
  if (bad_key) return KS_ERR_BAD_PUBLIC_KEY;
  g_one_key_batches.fetch_add(1, std::memory_order_relaxed);
  return KS_OK;
}

// Verification of digests e over the key's table where there is one, else
// under the per-item keys pubs.
cudaError_t launch_verify(const KeyTable* table, const uint8_t* pubs, const uint8_t* e,
                          const uint8_t* sigs, int* status, size_t n, cudaStream_t stream) {
  return table != nullptr
             ? launch_verify_digest_one_key(table->table, table->bits, e, sigs, status, n, stream)
             : launch_verify_digest(pubs, e, sigs, status, n, stream);
}

}  // namespace

int verify_digest_device(ks::gpu::Engine& engine, const uint8_t* one_pub, const uint8_t* pubs,
                         const uint8_t* digests, const uint8_t* sigs, size_t count, int* status,
                         const ks::gpu::StatusMap& map, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK) return scope.status();
  KeyTableRef table;
  const int rc = device_key_table(engine, one_pub, count, &table);
  if (rc != KS_OK) return rc;
  const auto s = static_cast<cudaStream_t>(stream);
  cudaError_t err = launch_verify(table.get(), pubs, digests, sigs, status, count, s);
  if (err == cudaSuccess) err = ks::gpu::map_statuses(status, count, map, s);
  return ks::gpu::to_status(err);
}

int verify_messages_device(ks::gpu::Engine& engine, const uint8_t* one_pub, const uint8_t* pubs,
                           const uint8_t* za_prefix, size_t za_prefix_len, const uint8_t* data,
                           size_t data_len, const uint64_t* offsets, size_t count,
                           const uint8_t* sigs, int* status, const ks::gpu::StatusMap& map,
                           void* stream) {
  if (count > SIZE_MAX / 128) return KS_ERR_OVERFLOW;
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK) return scope.status();
  KeyTableRef table;
  const int rc = device_key_table(engine, one_pub, count, &table);
  if (rc != KS_OK) return rc;
  const auto s = static_cast<cudaStream_t>(stream);
  // What the scratch starts with: the key-independent part of Z_A, or
  // under one key its whole Z_A (hashed here once).
  uint8_t za[32];
  if (one_pub != nullptr) one_key_za(za, za_prefix, za_prefix_len, one_pub);
  const uint8_t* head = one_pub != nullptr ? za : za_prefix;
  const size_t head_len = one_pub != nullptr ? sizeof za : za_prefix_len;
  // Scratch from the stream's pool: [head][Z_A_i, per-item keys only][e_i]
  // [offsets statuses].
  const size_t head_bytes = (head_len + 15) & ~size_t(15);
  const size_t za_bytes = one_pub != nullptr ? 0 : 32 * count;
  uint8_t* scratch = nullptr;
  cudaError_t err = ks::gpu::scratch_alloc_async(
      reinterpret_cast<void**>(&scratch), head_bytes + za_bytes + (32 + sizeof(int)) * count, s);
  if (err != cudaSuccess) return ks::gpu::to_status(err);
  uint8_t* za_items = scratch + head_bytes;
  uint8_t* e = za_items + za_bytes;
  int* offsets_status = reinterpret_cast<int*>(e + 32 * count);
  // From pageable memory: staged before this returns (the head is ours).
  err = cudaMemcpyAsync(scratch, head, head_len, cudaMemcpyHostToDevice, s);
  if (err == cudaSuccess)
    err = one_pub != nullptr
              ? launch_za_digests(scratch, data, offsets, count, e, s, data_len, offsets_status, 0)
              : launch_message_digests(scratch, za_prefix_len, pubs, data, offsets, count,
                                       za_items, e, s, data_len, offsets_status);
  if (err == cudaSuccess) err = launch_verify(table.get(), pubs, e, sigs, status, count, s);
  if (err == cudaSuccess) err = ks::gpu::map_statuses(status, count, map, s, offsets_status);
  const cudaError_t freed = cudaFreeAsync(scratch, s);
  return ks::gpu::to_status(err != cudaSuccess ? err : freed);
}

int digests_device(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* ids,
                   size_t ids_len, const uint64_t* id_offsets,
                   const uint8_t* data, size_t data_len, const uint64_t* offsets, size_t count,
                   uint8_t* digests, int* status, const ks::gpu::StatusMap& map, void* stream) {
  if (count > SIZE_MAX / 64) return KS_ERR_OVERFLOW;
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK) return scope.status();
  const auto s = static_cast<cudaStream_t>(stream);
  // Scratch: [Z_A_i][the messages' offsets statuses]
  ks::gpu::StreamScratch scratch(s);
  cudaError_t err = scratch.allocate((32 + sizeof(int)) * count);
  uint8_t* za = scratch.at(0);
  int* offsets_status = reinterpret_cast<int*>(scratch.at(32 * count));
  ZaCurve za_curve;
  za_curve_part(za_curve.bytes);
  if (err == cudaSuccess)
    err = launch_za(pubs, ids, ids_len, id_offsets, za_curve, count, za, status, s);
  if (err == cudaSuccess)
    err = launch_za_digests(za, data, offsets, count, digests, s, data_len, offsets_status);
  ks::gpu::FailedItemOutputs clear;
  clear.out[0] = digests;
  clear.item_bytes[0] = 32;
  if (err == cudaSuccess) err = ks::gpu::map_statuses(status, count, map, s, offsets_status, clear);
  return ks::gpu::to_status(err);
}

// --- Keygen and signing on device memory --------------------------------------------
namespace {

constexpr size_t aligned16(size_t n) { return (n + 15) & ~size_t(15); }

// What every device-memory call here starts with: its device current and
// a count the DRBG's and the kernels' 32-bit counters cover; where it
// draws secrets, its DRBG ready (gpu_engine.cuh's StreamDrbg).
int device_call_status(const ks::gpu::DeviceScope& scope, size_t count,
                       const ks::gpu::StreamDrbg* drbg) {
  if (scope.status() != KS_OK) return scope.status();
  if (count >= (uint64_t(1) << 32)) return KS_ERR_OVERFLOW;
  return drbg != nullptr ? drbg->status() : KS_OK;
}

// Nonces for n items drawn into scratch at `at` (n 32-byte nonces), then
// the signatures of digests e under keys
// (stride 0: one, 1: per item), statuses mapped (overrides: a ks_status an
// earlier kernel found per item) and failed items' signatures zeroed.
cudaError_t sign_on_device(const ks::gpu::StreamDrbg& drbg,
                           const ks::gpu::StreamScratch& scratch, size_t at, const uint8_t* e,
                           const SignKey* keys, size_t key_stride, size_t n, uint8_t* sigs,
                           int* status, const int* overrides, const ks::gpu::StatusMap& map,
                           cudaStream_t s) {
  uint8_t* nonces = scratch.at(at);
  cudaError_t err = launch_random_scalars(drbg.key(), kTagNonces, 0, n, nonces, nullptr, s);
  if (err == cudaSuccess) err = launch_sign_digest(e, keys, key_stride, nonces, sigs, status, n, s);
  ks::gpu::FailedItemOutputs clear;
  clear.out[0] = sigs;
  clear.item_bytes[0] = 64;
  return err == cudaSuccess ? ks::gpu::map_statuses(status, n, map, s, overrides, clear) : err;
}

}  // namespace

int keygen_device(ks::gpu::Engine& engine, size_t count, uint8_t* priv, uint8_t* pub,
                  int* status, const ks::gpu::StatusMap& map, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  const auto s = static_cast<cudaStream_t>(stream);
  const ks::gpu::StreamDrbg drbg(s);
  const int rc = device_call_status(scope, count, &drbg);
  if (rc != KS_OK) return rc;
  cudaError_t err = launch_random_scalars(drbg.key(), kTagPrivateKeys, 0, count, priv, nullptr, s);
  if (err == cudaSuccess) err = launch_keygen(priv, pub, status, count, s);
  ks::gpu::FailedItemOutputs clear;
  clear.out[0] = priv;
  clear.item_bytes[0] = 32;
  clear.out[1] = pub;
  clear.item_bytes[1] = 65;
  if (err == cudaSuccess) err = ks::gpu::map_statuses(status, count, map, s, nullptr, clear);
  if (err != cudaSuccess) cudaMemsetAsync(priv, 0, 32 * count, s);  // no keys left behind
  return ks::gpu::to_status(err);
}

int sign_digest_device(ks::gpu::Engine& engine, const PrivateKey* key,
                       const uint8_t* per_item_keys, const uint8_t* digests, size_t count,
                       uint8_t* sigs, int* status, const ks::gpu::StatusMap& map, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  const auto s = static_cast<cudaStream_t>(stream);
  const ks::gpu::StreamDrbg drbg(s);
  const int rc = device_call_status(scope, count, &drbg);
  if (rc != KS_OK) return rc;
  // Scratch: [the one SignKey | per-item SignKeys, their statuses][nonces]
  const size_t keys_bytes = key != nullptr
                                ? sizeof(SignKey)
                                : count * sizeof(SignKey) + aligned16(count * sizeof(int));
  ks::gpu::StreamScratch scratch(s);
  cudaError_t err = scratch.allocate(keys_bytes + 32 * count);
  auto* keys = reinterpret_cast<SignKey*>(scratch.at(0));
  int* key_status = nullptr;
  if (err == cudaSuccess && key != nullptr) {
    SignKey prepared = sign_key_from(*key);
    err = scratch.store(0, prepared);
    secure_wipe(&prepared, sizeof prepared);
  } else if (err == cudaSuccess) {
    key_status = reinterpret_cast<int*>(scratch.at(count * sizeof(SignKey)));
    err = launch_prepare_sign_keys(per_item_keys, keys, count, s, key_status);
  }
  if (err == cudaSuccess)
    err = sign_on_device(drbg, scratch, keys_bytes, digests, keys, key != nullptr ? 0 : 1, count,
                         sigs, status, key_status, map, s);
  return ks::gpu::to_status(err);
}

int sign_messages_device(ks::gpu::Engine& engine, const PrivateKey& key, const uint8_t za[32],
                         const uint8_t* data, size_t data_len, const uint64_t* offsets,
                         size_t count, uint8_t* sigs, int* status, const ks::gpu::StatusMap& map,
                         void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  const auto s = static_cast<cudaStream_t>(stream);
  const ks::gpu::StreamDrbg drbg(s);
  const int rc = device_call_status(scope, count, &drbg);
  if (rc != KS_OK) return rc;
  // Scratch: [SignKey, Z_A][offsets statuses][e][nonces]
  const size_t statuses_at = sizeof(Sm2SignMessagesJob::Header);
  const size_t e_at = statuses_at + aligned16(count * sizeof(int));
  ks::gpu::StreamScratch scratch(s);
  cudaError_t err = scratch.allocate(e_at + 64 * count);
  Sm2SignMessagesJob::Header header;
  header.key = sign_key_from(key);
  memcpy(header.za, za, 32);
  if (err == cudaSuccess) err = scratch.store(0, header);
  secure_wipe(&header, sizeof header);
  auto* offsets_status = reinterpret_cast<int*>(scratch.at(statuses_at));
  uint8_t* e = scratch.at(e_at);
  sm3::gpu::DeviceItems items;  // Z_A || M_i, ranges checked here
  items.prefix = scratch.at(offsetof(Sm2SignMessagesJob::Header, za));
  items.prefix_len = 32;
  items.data = data;
  items.offsets = offsets;
  items.data_bytes = data_len;
  items.offsets_status = offsets_status;
  if (err == cudaSuccess) err = sm3::gpu::launch_digests(items, count, e, s);
  if (err == cudaSuccess)
    err = sign_on_device(drbg, scratch, e_at + 32 * count, e,
                         reinterpret_cast<const SignKey*>(scratch.at(0)), 0, count, sigs, status,
                         offsets_status, map, s);
  return ks::gpu::to_status(err);
}

// --- Encryption and decryption on device memory ----------------------------------
namespace {

// Redraws of k for the items whose t came out all zero (clause 6.1 A5):
// 2^-8klen a draw for a klen-byte message, so after the first draw and
// these a 1-byte message is left without a ciphertext (KS_ERR_RANDOM) with
// probability 2^-72.
// Each pass is three launches whose threads return at once unless their
// item is named.
constexpr int kRedrawPasses = 8;

// The kernels' view of a device-memory batch: all of it at once, items of
// any length, offsets checked by the device (*offsets_bad).
CryptItems device_items(const uint8_t* data, const uint64_t* offsets, size_t count, int form,
                        uint8_t* out, size_t extra, uint64_t* lengths, int* status,
                        const uint32_t* offsets_bad) {
  CryptItems c;
  c.data = data;
  c.offsets = offsets;
  c.count = count;
  c.form = form;
  c.out = out;
  c.extra = extra;
  c.lengths = lengths;
  c.status = status;
  c.max_item_bytes = UINT64_MAX;
  c.offsets_bad = offsets_bad;
  return c;
}

// Where a device-memory batch keeps its own copy of the offsets: scratch
// [verdict, 16 bytes][offsets]. Its kernels read the offsets many times,
// after writing statuses, lengths and outputs, any of which a caller may
// have placed over the offsets: the copy is checked once
// (gpu::check_offsets_ascend, verdict at scratch.at(0)) and then used
// alone, so what was checked is what is read.
constexpr size_t offsets_copy_at = 16;
cudaError_t own_offsets(const ks::gpu::StreamScratch& scratch, const uint64_t* offsets,
                        size_t count, uint64_t data_len, cudaStream_t s, const uint64_t** copy) {
  auto* own = reinterpret_cast<uint64_t*>(scratch.at(offsets_copy_at));
  *copy = own;
  const cudaError_t err =
      cudaMemcpyAsync(own, offsets, 8 * (count + 1), cudaMemcpyDeviceToDevice, s);
  return err == cudaSuccess
             ? ks::gpu::check_offsets_ascend(own, count, data_len,
                                             reinterpret_cast<uint32_t*>(scratch.at(0)), s)
             : err;
}

// A private key d as it reaches the device: a kernel parameter.
struct ScalarBytes {
  uint8_t bytes[32];
};

}  // namespace

int encrypt_device(ks::gpu::Engine& engine, const uint8_t* one_pub, const uint8_t* pubs,
                   int form, const uint8_t* data, size_t data_len, const uint64_t* offsets,
                   size_t count, uint8_t* out, uint64_t* lengths, int* status,
                   const ks::gpu::StatusMap& map, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  const auto s = static_cast<cudaStream_t>(stream);
  const ks::gpu::StreamDrbg drbg(s);
  const int rc = device_call_status(scope, count, &drbg);
  if (rc != KS_OK) return rc;
  // One recipient: its table, kept by the cache (a later key's replaces it
  // through cudaFree, which waits for the kernels queued here).
  KeyTableRef table;
  if (one_pub != nullptr) {
    PublicKey key;
    if (public_key_from_bytes(key, one_pub, 65) != Error::kOk) return KS_ERR_BAD_PUBLIC_KEY;
    const cudaError_t built =
        KeyTableCache::get().build(engine.device(), one_pub, key, 16, &table);
    if (built != cudaSuccess) return ks::gpu::to_status(built);
  }
  // Scratch: [offsets verdict][offsets][redraw flags][nonces][points]
  const size_t redo_at = offsets_copy_at + aligned16(8 * (count + 1));
  const size_t nonces_at = redo_at + aligned16(count * sizeof(int));
  ks::gpu::StreamScratch scratch(s);
  cudaError_t err = scratch.allocate(nonces_at + (32 + 128) * count);
  const uint64_t* offs = nullptr;
  if (err == cudaSuccess) err = own_offsets(scratch, offsets, count, data_len, s, &offs);
  int* redo = reinterpret_cast<int*>(scratch.at(redo_at));
  uint8_t* nonces = scratch.at(nonces_at);
  uint8_t* points = nonces + 32 * count;
  CryptItems c = device_items(data, offs, count, form, out, ciphertext_bound(0, CipherForm(form)),
                              lengths, status, reinterpret_cast<uint32_t*>(scratch.at(0)));
  c.redo = redo;
  for (int pass = 0; pass <= kRedrawPasses && err == cudaSuccess; ++pass) {
    const int* only = pass == 0 ? nullptr : redo;
    err = launch_random_scalars(drbg.key(), kTagEncryptNonces, uint64_t(pass), count, nonces,
                                only, s);
    if (err == cudaSuccess)
      err = launch_encrypt_points(table != nullptr ? nullptr : pubs,
                                  table != nullptr ? table->table : nullptr, nonces, points,
                                  status, count, s, 0, only);
    c.redo_only = pass > 0;
    if (err == cudaSuccess) err = launch_encrypt_finish(c, points, s);
  }
  if (err == cudaSuccess) err = ks::gpu::map_statuses(status, count, map, s);
  return ks::gpu::to_status(err);
}

int decrypt_device(ks::gpu::Engine& engine, const PrivateKey& key, int form, const uint8_t* data,
                   size_t data_len, const uint64_t* offsets, size_t count, uint8_t* out,
                   uint64_t* lengths, int* status, const ks::gpu::StatusMap& map, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  const int rc = device_call_status(scope, count, nullptr);
  if (rc != KS_OK) return rc;
  const auto s = static_cast<cudaStream_t>(stream);
  // Scratch: [offsets verdict][offsets][d][layouts][x2 || y2]
  const size_t d_at = offsets_copy_at + aligned16(8 * (count + 1));
  const size_t layouts_at = d_at + 32, xy_at = layouts_at + count * sizeof(CiphertextLayout);
  ks::gpu::StreamScratch scratch(s);
  cudaError_t err = scratch.allocate(xy_at + 64 * count);
  ScalarBytes d;
  field::to_be_bytes(d.bytes, key.d);
  if (err == cudaSuccess) err = scratch.store(d_at, d);
  secure_wipe(&d, sizeof d);
  const uint64_t* offs = nullptr;
  if (err == cudaSuccess) err = own_offsets(scratch, offsets, count, data_len, s, &offs);
  const auto* bad = reinterpret_cast<const uint32_t*>(scratch.at(0));
  auto* layouts = reinterpret_cast<CiphertextLayout*>(scratch.at(layouts_at));
  uint8_t* xy = scratch.at(xy_at);
  if (err == cudaSuccess) err = launch_parse_ciphertexts(data, offs, count, form, bad, layouts, s);
  if (err == cudaSuccess) err = launch_decrypt_points(scratch.at(d_at), layouts, xy, status, count, s);
  const CryptItems c = device_items(data, offs, count, form, out, 0, lengths, status, bad);
  if (err == cudaSuccess) err = launch_decrypt_finish(c, layouts, xy, s);
  if (err == cudaSuccess) err = ks::gpu::map_statuses(status, count, map, s);
  return ks::gpu::to_status(err);
}

int encrypt_batch(ks::gpu::Engine& engine, const uint8_t* one_pub, const uint8_t* pubs, int form,
                  const uint8_t* data, const uint64_t* offsets, size_t count, uint8_t* out,
                  uint64_t* lengths, int* status) {
  KeyTableRef table;
  if (one_pub != nullptr) {
    PublicKey key;
    if (public_key_from_bytes(key, one_pub, 65) != Error::kOk) return KS_ERR_BAD_PUBLIC_KEY;
    const int device = engine.device();
    cudaError_t err = cudaSetDevice(device);
    if (err == cudaSuccess) err = KeyTableCache::get().build(device, one_pub, key, 16, &table);
    if (err != cudaSuccess) return ks::gpu::to_status(err);
  }
  return run_with_drbg(engine, count, [&](const chacha20::Key& drbg) {
    return Sm2EncryptJob(drbg, table != nullptr ? table->table : nullptr,
                         table != nullptr ? nullptr : pubs, form, data, offsets, out, lengths,
                         status);
  });
}

int decrypt_batch(ks::gpu::Engine& engine, const PrivateKey& key, int form, const uint8_t* data,
                  const uint64_t* offsets, size_t count, uint8_t* out, uint64_t* lengths,
                  int* status) {
  uint8_t d[32];
  field::to_be_bytes(d, key.d);
  const int rc = ks::gpu::CudaEngine::of(engine).run(
      Sm2DecryptJob(d, form, data, offsets, out, lengths, status), count);
  secure_wipe(d, sizeof d);
  return rc;
}

}  // namespace gpu
}  // namespace sm2
}  // namespace ks
