// SM2 batches on the GPU engine: keygen, signing and verification of
// digests and messages, the device side of the SM2 batch calls. Private
// keys and nonces are drawn on the device (ChaCha20 DRBG under a key fresh
// from getrandom per call); status[i] holds ks::sm2::Error values, and the
// items the device could not use (kBadPrivateKey for keygen, kBadNonce for
// sign: a random scalar out of range, ~2^-32) are left to the caller to
// redo on the CPU. Each returns a ks_status for the call itself. Built with
// the CUDA backend (sm2/gpu/sm2_gpu_jobs.cu); without it,
// sm2/gpu/sm2_gpu_absent.cc answers KS_ERR_BACKEND_UNAVAILABLE.
#ifndef KS_SCHEME_SM2_GPU_BATCH_H_
#define KS_SCHEME_SM2_GPU_BATCH_H_

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "sm2/sm2.h"

namespace ks {
namespace sm2 {
namespace gpu {

int keygen_batch(ks::gpu::Engine& engine, size_t count, uint8_t* priv, uint8_t* pub, int* status);
// One prepared key for the batch, or null with per_item_keys (32-byte d
// each, already checked to be in [1, n-2]).
int sign_digest_batch(ks::gpu::Engine& engine, const PrivateKey* key, const uint8_t* per_item_keys,
                      const uint8_t* digests, size_t count, uint8_t* sigs, int* status);
// Messages (flat layout, offsets validated) under one key: e = SM3(Z_A ||
// M) and the signature on the device.
int sign_messages_batch(ks::gpu::Engine& engine, const PrivateKey& key, const uint8_t za[32],
                        const uint8_t* data, const uint64_t* offsets, size_t count, uint8_t* sigs,
                        int* status);
// How a verification batch's public keys (04||x||y, 65 bytes each) come.
// kPerItem: pubs holds one per item, checked on the device. kRepeated: one
// per item, and the caller found them all the same bytes as pubs[0..65):
// that key is checked once on the CPU (kBadPublicKey for every item if it
// fails) and the batch runs over its table ([s]G + [t]P with no doubling;
// sm2_gpu.h's launch_verify_digest_one_key), built on the device for this
// batch or kept from the previous one under the same key (one table per
// device: 32 MiB, or 2.75 MiB for a batch below 2^18 items), except for a
// small batch under a key not kept (below 4096 items), which takes the
// per-item path. kOne: pubs holds one valid key (a key object's) and
// nothing more: the batch always runs over its table, whatever its size.
// Same statuses every way.
enum class BatchKeys { kPerItem, kRepeated, kOne };
int verify_digest_batch(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* digests,
                        const uint8_t* sigs, size_t count, int* status,
                        BatchKeys keys = BatchKeys::kPerItem);
// Messages under one ID: za_prefix is ENTL || ID || a || b || x_G || y_G
// (sm2::za_prefix); Z_A, e and the verification run on the device. keys
// as above (over a table, Z_A is hashed once, on the CPU).
int verify_messages_batch(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* za_prefix,
                          size_t za_prefix_len, const uint8_t* data, const uint64_t* offsets,
                          size_t count, const uint8_t* sigs, int* status,
                          BatchKeys keys = BatchKeys::kPerItem);
// The same two on buffers in device memory of the engine's device, queued
// on `stream` (a cudaStream_t) without waiting: every item under its own
// key, pubs (the host does not read them), or with one_pub (65 bytes on
// the host, a valid key) all under that key, over its table as kOne above
// (built, or found kept, before the kernels are queued). Offsets
// unchecked by the host (a range outside data_len gets KS_ERR_OFFSETS),
// statuses made ks_status values on the device through `map`.
int verify_digest_device(ks::gpu::Engine& engine, const uint8_t* one_pub, const uint8_t* pubs,
                         const uint8_t* digests, const uint8_t* sigs, size_t count, int* status,
                         const ks::gpu::StatusMap& map, void* stream);
int verify_messages_device(ks::gpu::Engine& engine, const uint8_t* one_pub, const uint8_t* pubs,
                           const uint8_t* za_prefix, size_t za_prefix_len, const uint8_t* data,
                           size_t data_len, const uint64_t* offsets, size_t count,
                           const uint8_t* sigs, int* status, const ks::gpu::StatusMap& map,
                           void* stream);
// ks_sm2_digest_batch on device memory: digests[32 i ..] = SM3(Z_A_i ||
// M_i), Z_A_i from item i's key (pubs[65 i ..]) and its ID
// (ids[id_offsets[i] .. id_offsets[i + 1])); statuses mapped through `map`
// (kernel codes kOk, kBadPublicKey, kBadIdLength, kBadItemOffsets for an
// ID range outside ids_len), a message range outside data_len
// KS_ERR_OFFSETS, a failed item's digest zeroed. Queued on `stream` without waiting.
int digests_device(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* ids,
                   size_t ids_len, const uint64_t* id_offsets,
                   const uint8_t* data, size_t data_len, const uint64_t* offsets, size_t count,
                   uint8_t* digests, int* status, const ks::gpu::StatusMap& map, void* stream);
// Keygen and signing on buffers in device memory of the engine's device,
// queued on `stream` without waiting; statuses made ks_status values on
// the device through `map` (kernel codes kOk, kBadPrivateKey for a drawn
// key and kBadNonce for a drawn nonce), the outputs of a failed item
// zeroed. Keys and nonces are drawn on the device as 64 bytes reduced mod
// n (sm2_gpu.h's launch_random_scalars): no item goes back to the host, and
// a drawn value outside its range (probability about 2^-255) fails its
// item. Per-item private keys are checked on the device
// (KS_ERR_BAD_PRIVATE_KEY); the one key's prepared form, and Z_A, reach
// the device as a kernel parameter into wiped stream-ordered scratch.
// Offsets are unchecked by the host (a range outside data_len gets
// KS_ERR_OFFSETS).
int keygen_device(ks::gpu::Engine& engine, size_t count, uint8_t* priv, uint8_t* pub,
                  int* status, const ks::gpu::StatusMap& map, void* stream);
int sign_digest_device(ks::gpu::Engine& engine, const PrivateKey* key,
                       const uint8_t* per_item_keys, const uint8_t* digests, size_t count,
                       uint8_t* sigs, int* status, const ks::gpu::StatusMap& map, void* stream);
int sign_messages_device(ks::gpu::Engine& engine, const PrivateKey& key, const uint8_t za[32],
                         const uint8_t* data, size_t data_len, const uint64_t* offsets,
                         size_t count, uint8_t* sigs, int* status, const ks::gpu::StatusMap& map,
                         void* stream);
// Encryption (GB/T 32918.4) of messages (flat layout, offsets validated)
// in form (sm2::CipherForm's values) to one recipient one_pub (65 bytes,
// 04 || x || y: its 16-bit table built on the device, or kept from the
// previous batch under that key, one per device as for verification) or,
// with one_pub null, to pubs[65 i ..] each. Item i's ciphertext goes to out
// + offsets[i] + i * ks_sm2_ciphertext_bound(0, form), its length to
// lengths[i], its status (sm2::Error, or sm2_gpu_host.h's kRedoOnHost for
// the items the host must encrypt itself) to status[i]. A bad one_pub is
// KS_ERR_BAD_PUBLIC_KEY for the call.
int encrypt_batch(ks::gpu::Engine& engine, const uint8_t* one_pub, const uint8_t* pubs, int form,
                  const uint8_t* data, const uint64_t* offsets, size_t count, uint8_t* out,
                  uint64_t* lengths, int* status);
// Decryption under key of ciphertexts in form: item i's plaintext to out +
// offsets[i] (the rest of its slot zeroed), statuses as above
// (kRedoOnHost: a C2 past kGpuMaxItemBytes).
int decrypt_batch(ks::gpu::Engine& engine, const PrivateKey& key, int form, const uint8_t* data,
                  const uint64_t* offsets, size_t count, uint8_t* out, uint64_t* lengths,
                  int* status);
// The same two on buffers in device memory of the engine's device, queued
// on `stream` without waiting; statuses made ks_status values there
// through `map` (kernel codes: sm2_gpu_host.h's Status, kRedoOnHost for an
// item that could not be done there: for encryption, one whose t stayed
// all zero through every redraw (probability 2^-72 at worst), for
// decryption, a C2 of 4 GiB or more). The ciphertexts' parts are parsed on the
// device (sm2_gpu_host.h's layout_of, the host's parser); messages of any
// length are done there. Offsets unchecked by the host: where they do not
// ascend within data_len, every item gets kBadItemOffsets and nothing is
// written (the output slots are laid out from them). Nonces are drawn on
// the device as for signing; the private key reaches the device as a
// kernel parameter into wiped stream-ordered scratch. one_pub stays a host
// argument (its table built once as above, blocking for about half a
// millisecond the first time).
int encrypt_device(ks::gpu::Engine& engine, const uint8_t* one_pub, const uint8_t* pubs,
                   int form, const uint8_t* data, size_t data_len, const uint64_t* offsets,
                   size_t count, uint8_t* out, uint64_t* lengths, int* status,
                   const ks::gpu::StatusMap& map, void* stream);
int decrypt_device(ks::gpu::Engine& engine, const PrivateKey& key, int form, const uint8_t* data,
                   size_t data_len, const uint64_t* offsets, size_t count, uint8_t* out,
                   uint64_t* lengths, int* status, const ks::gpu::StatusMap& map, void* stream);
// Batches that ran over a key's table since the process started (tests
// check which path a batch took).
uint64_t one_key_batches();

}  // namespace gpu
}  // namespace sm2
}  // namespace ks

#endif  // KS_SCHEME_SM2_GPU_BATCH_H_
