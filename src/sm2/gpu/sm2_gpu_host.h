// SM2 on the GPU, the parts that need no CUDA header: status codes, the
// signing-key layout, the fixed-base table layout and its CPU builder (the
// engine uses the device-pointer launchers of sm2/gpu/sm2_gpu.h; tests
// reach them through testing/sm2_gpu_testing.h).
#ifndef KS_SCHEME_SM2_GPU_HOST_H_
#define KS_SCHEME_SM2_GPU_HOST_H_

#include <stddef.h>
#include <stdint.h>

#include "core/hd.h"
#include "sm2/sm2_encrypt.h"

namespace ks {
namespace sm2 {

namespace gpu {

// Per-item status words the kernels write: the values of ks::sm2::Error
// (sm2_gpu_host.cc checks that they agree).
enum Status : int {
  kOk = 0,
  kBadPrivateKey = 1,         // keygen: the device drew d outside [1, n-2]
  kBadPublicKey = 2,          // verify: not 04||x||y with x, y < p on the curve
  kSignatureOutOfRange = 4,   // verify: r or s outside [1, n-1], or r + s = n
  kVerifyFailed = 5,          // verify: well formed, does not verify
  kBadIdLength = 7,           // Z_A: an ID over kMaxIdBytes
  kBadNonce = 8,              // sign: k outside [1, n-1], or r = 0, r + k = n, s = 0
  kBadCiphertext = 9,         // decrypt: malformed, C1 not on the curve, or t all zero
  kCiphertextMismatch = 10,   // decrypt: C3 does not match
  // Not an sm2::Error: offsets outside the data: encryption batches in
  // device memory whose offsets do not ascend within the data (every
  // item; nothing written), or an item's ID range (ks_sm2_digest_batch).
  kBadItemOffsets = 13,
  // Not an sm2::Error: the host does this item itself (encryption: k out
  // of range or t all zero, a new k; a message or ciphertext longer than
  // kGpuMaxItemBytes).
  kRedoOnHost = 100,
};

// The longest message (or C2) an encryption or decryption batch item has
// on the device: one thread hashes it, so a long one would hold its whole
// batch back; the host does longer ones.
constexpr uint64_t kGpuMaxItemBytes = 64 << 10;

// A ciphertext's parts as parsed (GB/T 32918.4 clause 7.1 B1), for the
// device: status kOk, kBadCiphertext (malformed) or kRedoOnHost; C3 and C2
// at these offsets in the item. A multiple of 16 bytes: arrays of layouts
// sit before 16-byte-aligned data in scratch.
struct alignas(16) CiphertextLayout {
  uint8_t c1[64];      // x1 || y1, big-endian (not yet checked on the curve);
                       // compressed: x1 || zeros
  uint32_t c1_prefix;  // 04 (uncompressed), or 02 / 03: y1's parity (clause 4.2.10)
  uint32_t c3_at, c2_at, c2_len;
  int32_t status;
};

// The layout of ciphertext ct (ct_len bytes) in form (clause 7.1 B1's
// parse, sm2_encrypt.h's parse_ciphertext): kBadCiphertext where it is
// malformed (a C1 whose first byte is none of 04, 02, 03 included: the
// host's decoder refuses it), kRedoOnHost for a C2 longer than max_c2. A
// compressed C1 is recovered by the kernel (decrypt_point_item). Host and
// device code (the host stages layouts for batches from its memory; a
// kernel makes them for batches in device memory).
KS_HD CiphertextLayout layout_of(const uint8_t* ct, size_t ct_len, CipherForm form,
                                 uint64_t max_c2) {
  CiphertextLayout l = {};
  CiphertextParts parts;
  if (parse_ciphertext(ct, ct_len, form, &parts) != Error::kOk ||
      (parts.c1_len != kPublicKeyBytes && parts.c1[0] != 0x02 && parts.c1[0] != 0x03)) {
    l.status = kBadCiphertext;
  } else if (parts.c2_len > max_c2) {
    l.status = kRedoOnHost;
  } else {
    const int c1_bytes = parts.c1_len == kPublicKeyBytes ? 64 : 32;
    for (int j = 0; j < c1_bytes; ++j) l.c1[j] = parts.c1[1 + j];
    l.c1_prefix = parts.c1[0];
    l.c3_at = uint32_t(parts.c3 - ct);
    l.c2_at = uint32_t(parts.c2 - ct);
    l.c2_len = uint32_t(parts.c2_len);
    l.status = kOk;
  }
  return l;
}

// A private key prepared for signing, as the kernels read it: d and
// (1 + d)^-1 mod n in Montgomery form (times 2^256 mod n), little-endian
// 32-bit limbs: PrivateKey::d_mont and inv_one_plus_d_mont.
struct SignKey {
  uint32_t d_mont[8];
  uint32_t inv_one_plus_d_mont[8];
};
SignKey sign_key_from(const PrivateKey& key);

// Fixed-base table (device global memory, built once on the CPU): window i
// (bits [16i, 16i+16) of the scalar, Booth-recoded into a signed digit in
// [-2^15, 2^15]) has entries j 2^(16i) G for j = 1..2^15, affine, as 16
// little-endian 32-bit words (x then y). [k]G costs 15 mixed additions and
// no doubling: scalars are first replaced by min(k, n - k) < 2^255, so no
// 17th window for the Booth carry is needed. 16 * 32768 * 64 B = 32 MiB.
constexpr int kBaseWindowBits = 16;
constexpr int kBaseWindows = 16;
constexpr int kBaseEntries = 1 << (kBaseWindowBits - 1);
constexpr size_t kBaseTableWords = size_t(kBaseWindows) * kBaseEntries * 16;
// out[kBaseTableWords], on the CPU (a thread per window; about 0.1 s).
void build_base_table(uint32_t* out);

// One public key P for a whole verification batch: P's table in the same
// layout with windows of `bits` bits (8, 12 or 16, kKeyTableBits): window
// i has entries j 2^(bits i) P for j = 1..2^(bits-1), affine, 16 words
// each. [s]G + [t]P then costs key_windows(bits) + 16 mixed additions and
// no doubling, t first replaced by min(t, n - t) < 2^255 as k is for G
// (hence ceil(256 / bits) windows). 16 bits: 16 windows, 32 MiB; 12 bits:
// 22 windows, 2.75 MiB; 8 bits: 32 windows, 256 KiB. The entries are
// computed on the device (sm2_gpu.h's launch_build_key_table) from the
// windows' bases, which the CPU computes.
constexpr int kKeyTableBits[] = {8, 12, 16};
KS_HD constexpr int key_windows(int bits) { return (256 + bits - 1) / bits; }
KS_HD constexpr size_t key_table_entries(int bits) {
  return size_t(key_windows(bits)) << (bits - 1);
}
// out[16 key_windows(bits)]: 2^(bits i) P, affine, for i < key_windows(bits).
void key_table_bases(const PublicKey& key, int bits, uint32_t* out);

}  // namespace gpu
}  // namespace sm2
}  // namespace ks

#endif  // KS_SCHEME_SM2_GPU_HOST_H_
