// SM2 on the GPU: launchers over device memory (GB/T 32918.2 on the
// recommended curve). Every pointer is a device pointer; every launcher
// enqueues on `stream` and returns the launch error (cudaSuccess or what
// cudaGetLastError reports). One thread per item.
//
// Layouts: scalars, digests and coordinates are 32-byte big-endian
// (GB/T 32918.1 clause 4.2); public keys 65-byte 04||x||y; signatures
// 64-byte r||s; status one int per item (Status in sm2_gpu_host.h).
//
// Side channels (no kernel branches on secret data; what remains): the
// fixed-base lookups of keygen and sign read table[window][|digit|] at an
// address that depends on the secret scalar (d or k). On a GPU shared with
// an attacker who can observe L2/DRAM access patterns or time contention
// (co-resident kernels, MPS), that leaks information on the digits; on a
// dedicated GPU it does not. Scanning all 2^15 entries per window is what
// closing it would cost. Encryption to one recipient reads that
// recipient's key table the same way; encryption to per-item keys and
// decryption multiply by a constant-time ladder (every table entry read).
// Verification handles public data only.
#ifndef KS_SCHEME_SM2_GPU_H_
#define KS_SCHEME_SM2_GPU_H_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "core/chacha20_gpu.h"
#include "sm2/gpu/sm2_gpu_host.h"

namespace ks {
namespace sm2 {
namespace gpu {

// Builds the fixed-base table on the CPU (once per process) and uploads it
// to the current device (once per device); blocking and thread-safe. The
// launchers below call it on first use; call it up front to keep that out
// of the first batch.
cudaError_t init_tables();

// pub = [d]G for each 32-byte d; status (may be null) kOk, or
// kBadPrivateKey for d outside [1, n-2] (whose pub is then meaningless;
// d = 0 gives 04 || 0 || 0). A thread takes per_thread items (1, 2, 4 or
// 8) sharing one inversion; any other value chooses by the batch size, so
// that small batches still fill the SMs (the same for signing).
cudaError_t launch_keygen(const uint8_t* priv, uint8_t* pub, int* status, size_t count,
                          cudaStream_t stream, int per_thread = 0);

// SignKey for each 32-byte d in [1, n-2] ((1 + d)^-1 by Fermat mod n).
// With key_status (keys no host has checked), key_status[i] is 0, or
// KS_ERR_BAD_PRIVATE_KEY for a d outside [1, n-2], whose SignKey is then
// that of d = 1 (the item's result is to be discarded).
cudaError_t launch_prepare_sign_keys(const uint8_t* priv, SignKey* keys, size_t count,
                                     cudaStream_t stream, int* key_status = nullptr);

// Scalars drawn on the device (FIPS 186-5 A.2.1, "extra random bits"):
// out[32 i ..] = (ChaCha20 block i under key, nonce (first, tag): 64
// bytes) mod n, big-endian, within 2^-256 of uniform on [0, n-1]; with
// `only`, just the items whose only[i] is nonzero. The device-memory
// batches draw keys and nonces so and need no second draw for a value out
// of range (the host path's rejection sampling redoes such items on the
// CPU). count < 2^32.
cudaError_t launch_random_scalars(const chacha20::Key& key, uint32_t tag, uint64_t first,
                                  size_t count, uint8_t* out, const int* only,
                                  cudaStream_t stream);

// sigs[i] = SM2 signature of digest e_i under keys[i * key_stride] (stride
// 0: one key for the batch, 1: per item) with nonce k_i (32 bytes each).
// The nonces are the caller's: fresh, secret, uniform in [1, n-1], never
// reused (a later CSPRNG kernel will write them on the device). status[i]
// is kOk, or kBadNonce where k_i is out of range or gives r = 0, r + k = n
// or s = 0; the caller then signs that item again with a new nonce (the
// signature bytes are zero).
cudaError_t launch_sign_digest(const uint8_t* digests, const SignKey* keys, size_t key_stride,
                               const uint8_t* nonces, uint8_t* sigs, int* status, size_t count,
                               cudaStream_t stream, int per_thread = 0);

// status[i] = verification of sig_i on digest e_i under public key pub_i
// (kOk, kBadPublicKey, kSignatureOutOfRange or kVerifyFailed).
cudaError_t launch_verify_digest(const uint8_t* pubs, const uint8_t* digests, const uint8_t* sigs,
                                 int* status, size_t count, cudaStream_t stream);

// One public key for a whole batch (sm2_gpu_host.h's key table): its
// table's bytes in device memory for window width `bits` (8, 12 or 16),
// then the table of `key` (a valid public key) written to `table` (that
// many bytes): the windows' bases on the CPU (copied from pageable memory
// before this returns), the entries by a kernel on `stream`.
size_t key_table_bytes(int bits);
cudaError_t launch_build_key_table(const PublicKey& key, int bits, uint8_t* table,
                                   cudaStream_t stream);
// status[i] = verification of sig_i on digest e_i under the key whose
// table (built as above with the same `bits`) is key_table: kOk,
// kSignatureOutOfRange or kVerifyFailed, as launch_verify_digest gives for
// that key. [s]G + [t]P costs 16 + key_windows(bits) mixed additions.
cudaError_t launch_verify_digest_one_key(const uint8_t* key_table, int bits,
                                         const uint8_t* digests, const uint8_t* sigs, int* status,
                                         size_t count, cudaStream_t stream);

// --- Encryption and decryption (GB/T 32918.4) ------------------------------------
// The point multiplications of encryption (clause 6.1 A1-A4): for nonce
// k_i (32 bytes, the caller's: fresh, secret, never reused), points[128 i
// ..] = x1 || y1 || x2 || y2 of C1 = [k_i]G and [k_i]P_B. P_B is one
// recipient's key through its 16-bit key table (key_table, built by
// launch_build_key_table), or, with key_table null, each item's pubs[65 i
// ..] (04 || x || y) by a constant-time ladder. status[i] kOk,
// kBadPublicKey (a key not on the curve) or kRedoOnHost (k outside [1,
// n-1]). per_thread as launch_keygen's (one recipient only).
// With `only` (a redraw pass), just the items whose only[i] is nonzero.
cudaError_t launch_encrypt_points(const uint8_t* pubs, const uint8_t* key_table,
                                  const uint8_t* nonces, uint8_t* points, int* status,
                                  size_t count, cudaStream_t stream, int per_thread = 0,
                                  const int* only = nullptr);
// Decryption's (clause 7.1 B1, B3): for each layout (status kOk), C1
// recovered where compressed and checked on the curve, then xy[64 i ..] = x2 || y2 of [d]C1 by
// the constant-time ladder; d is 32 bytes big-endian in [1, n-2]. status[i]
// kOk, kBadCiphertext (C1 not a point of the curve) or the layout's status.
cudaError_t launch_decrypt_points(const uint8_t* d, const CiphertextLayout* layouts, uint8_t* xy,
                                  int* status, size_t count, cudaStream_t stream);

// Z_A of items with their own key and ID (clause 5.5; ks_sm2_digest_batch
// on device memory): za[32 i ..] = SM3(ENTL || ID_i || curve || x_i || y_i)
// for the key pubs[65 i ..] (04 || x || y) and the ID ids[id_offsets[i] ..
// id_offsets[i + 1]) (offsets unchecked: ids_len bytes), curve = a || b ||
// x_G || y_G. status[i] kOk, kBadItemOffsets (the ID's range),
// kBadPublicKey or kBadIdLength (an ID over kMaxIdBytes); a failed item's
// Z_A is to be discarded.
struct ZaCurve {
  uint8_t bytes[128];
};
cudaError_t launch_za(const uint8_t* pubs, const uint8_t* ids, uint64_t ids_len,
                      const uint64_t* id_offsets, const ZaCurve& curve, size_t count, uint8_t* za,
                      int* status, cudaStream_t stream);

// The rest of both, one thread per item (sm2_gpu_crypt.cu). Item i's
// message or ciphertext is data[offsets[i] .. offsets[i + 1]); its result
// goes to out + offsets[i] + i * extra (extra: ks_sm2_ciphertext_bound(0,
// form) when encrypting, 0 when decrypting), its length to lengths[i] (0
// on failure, when the slot is zeroed). form: sm2::CipherForm's values.
struct CryptItems {
  const uint8_t* data;
  const uint64_t* offsets;
  size_t count;
  int form;
  uint8_t* out;
  size_t extra;
  uint64_t* lengths;
  int* status;  // in: the point kernel's verdicts; out: the item's
  // Device-memory batches set these (sm2_gpu_batch.h's *_device):
  uint64_t max_item_bytes = kGpuMaxItemBytes;  // a longer item: kRedoOnHost
  // Where *offsets_bad is nonzero (the offsets do not ascend within the
  // data), every item gets kBadItemOffsets and nothing is written.
  const uint32_t* offsets_bad = nullptr;
  // Encryption: redo[i] set to 1 where the item needs a new k (kRedoOnHost),
  // else 0; with redo_only (a redraw pass) only the items with redo[i] set
  // are done.
  int* redo = nullptr;
  bool redo_only = false;
};
// A5-A8 from points (launch_encrypt_points): t = KDF(x2 || y2, klen), C2,
// C3 and the ciphertext in its form; kRedoOnHost where t is all zero or
// the message is longer than kGpuMaxItemBytes.
cudaError_t launch_encrypt_finish(const CryptItems& items, const uint8_t* points,
                                  cudaStream_t stream);
// The layouts of ciphertexts already in device memory (offsets unchecked
// by the host: where *offsets_bad, from gpu/launch.cuh's
// check_offsets_ascend, is nonzero, every layout is kBadItemOffsets), as
// layout_of makes them with C2 up to kDeviceMaxC2Bytes.
constexpr uint64_t kDeviceMaxC2Bytes = 0xFFFFFF00u;  // CiphertextLayout's 32-bit offsets
cudaError_t launch_parse_ciphertexts(const uint8_t* data, const uint64_t* offsets, size_t count,
                                     int form, const uint32_t* offsets_bad,
                                     CiphertextLayout* layouts, cudaStream_t stream);
// B4-B7 from xy (launch_decrypt_points): M' = C2 ^ KDF(x2 || y2, klen), u
// = SM3(x2 || M' || y2) compared with C3 in constant time
// (kCiphertextMismatch; kBadCiphertext where t is all zero). A failed
// item's plaintext is zeroed; bytes of a slot past the plaintext too.
cudaError_t launch_decrypt_finish(const CryptItems& items, const CiphertextLayout* layouts,
                                  const uint8_t* xy, cudaStream_t stream);

}  // namespace gpu
}  // namespace sm2
}  // namespace ks

#endif  // KS_SCHEME_SM2_GPU_H_
