// SM2 encryption and decryption on the GPU after the point
// multiplications (sm2_gpu.h): the SM3 KDF, C2, C3 and the ciphertext
// forms, one thread per item (GB/T 32918.4 clauses 6.1 A5-A8 and 7.1
// B4-B7; the CPU's sm2/sm2_encrypt.cc is the oracle the tests hold these
// to). Constant time in the plaintext and the shared point: addresses
// depend on lengths and offsets only, and the verdicts (t all zero, C3
// equal) are formed without branches and acted on once.
#include "gpu/launch.cuh"
#include "sm2/gpu/sm2_gpu.h"
#include "sm3/sm3_compress.h"

namespace ks {
namespace sm2 {
namespace gpu {
namespace {

constexpr unsigned kThreads = 128;
constexpr int kC1C3C2 = 0, kDer = 2;  // sm2::CipherForm (C1C2C3 is 1)

// One copy of the (fully unrolled) compression function per kernel.
__device__ __noinline__ void compress(uint32_t state[8], const uint8_t block[64]) {
  sm3::compress_block(state, block);
}

// SM3 fed a byte at a time (GB/T 32905 clause 5): the buffer's index
// depends on the count of bytes fed, never on their values.
struct Sm3Stream {
  uint32_t state[8];
  uint8_t block[64];
  unsigned used = 0;
  uint64_t total = 0;

  __device__ Sm3Stream() { sm3::load_iv(state); }
  __device__ void put(uint8_t b) {
    block[used++] = b;
    ++total;
    if (used == 64) {
      compress(state, block);
      used = 0;
    }
  }
  __device__ void put(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) put(p[i]);
  }
  __device__ void finish(uint8_t out[32]) {
    const uint64_t bits = total * 8;
    put(0x80);
    while (used != 56) put(0);
    for (int i = 7; i >= 0; --i) put(uint8_t(bits >> (8 * i)));
    for (int i = 0; i < 8; ++i) sm3::store_be32(out + 4 * i, state[i]);
  }
};

// t = KDF(x2 || y2, klen) (GB/T 32918.4 clause 5.4.3), 32 bytes at a time:
// x2 || y2 is one whole block, compressed once; each counter's block is
// then Ct || padding for 68 bytes.
struct KeyStream {
  uint32_t base[8];
  uint32_t counter = 1;

  __device__ explicit KeyStream(const uint8_t xy[64]) {
    sm3::load_iv(base);
    compress(base, xy);
  }
  __device__ void next(uint8_t t[32]) {
    uint8_t block[64] = {};
    sm3::store_be32(block, counter++);
    block[4] = 0x80;
    block[62] = (68 * 8) >> 8;
    block[63] = uint8_t(68 * 8);
    uint32_t state[8];
    for (int i = 0; i < 8; ++i) state[i] = base[i];
    compress(state, block);
    for (int i = 0; i < 8; ++i) sm3::store_be32(t + 4 * i, state[i]);
  }
};

// out[i] = in[i] ^ t for i < len (t the key stream), hashing x2 || plain ||
// y2 into c3, where plain is in (encrypting) or out (decrypting). Returns
// nonzero if t had a nonzero byte, or len is 0 (clause 6.1 A5: only a
// nonempty all-zero t is refused).
__device__ uint32_t mask_and_hash(const uint8_t xy[64], const uint8_t* in, uint8_t* out,
                                  uint64_t len, bool decrypting, uint8_t c3[32]) {
  KeyStream kdf(xy);
  Sm3Stream h;
  h.put(xy, 32);
  uint32_t any = len == 0;
  uint8_t t[32];
  for (uint64_t off = 0; off < len; off += 32) {
    kdf.next(t);
    const unsigned n = len - off < 32 ? unsigned(len - off) : 32;
    for (unsigned j = 0; j < n; ++j) {
      const uint8_t m = in[off + j];
      const uint8_t c = m ^ t[j];
      any |= t[j];
      out[off + j] = c;
      h.put(decrypting ? c : m);
    }
  }
  h.put(xy + 32, 32);
  h.finish(c3);
  return any;
}

__device__ void zero(uint8_t* p, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) p[i] = 0;
}

// DER length octets of len at p (X.690 8.1.3, definite form); the count.
__device__ unsigned der_length(uint8_t* p, uint64_t len) {
  if (len < 0x80) {
    p[0] = uint8_t(len);
    return 1;
  }
  unsigned n = 0;
  for (uint64_t v = len; v != 0; v >>= 8) ++n;
  p[0] = uint8_t(0x80 | n);
  for (unsigned i = 0; i < n; ++i) p[1 + i] = uint8_t(len >> (8 * (n - 1 - i)));
  return 1 + n;
}

// INTEGER of the unsigned big-endian 32 bytes v at p (minimal, a zero
// byte before a set top bit); the bytes written, or only counted with p
// null. C1's coordinates are public: the branches are on public data.
__device__ unsigned der_unsigned(uint8_t* p, const uint8_t v[32]) {
  unsigned skip = 0;
  while (skip < 31 && v[skip] == 0) ++skip;
  const unsigned pad = v[skip] >> 7, len = 32 - skip + pad;
  if (p != nullptr) {
    p[0] = 0x02;
    p[1] = uint8_t(len);
    if (pad) p[2] = 0;
    for (unsigned i = skip; i < 32; ++i) p[2 + pad + i - skip] = v[i];
  }
  return 2 + len;
}

// Where C3 and C2 go in item i's slot, with its header (C1, or the DER
// prefix) written; the ciphertext's length.
__device__ uint64_t encrypt_layout(int form, const uint8_t c1[64], uint64_t len, uint8_t* slot,
                                   uint64_t* c3_at, uint64_t* c2_at) {
  if (form != kDer) {
    slot[0] = 0x04;
    for (int j = 0; j < 64; ++j) slot[1 + j] = c1[j];
    *c3_at = form == kC1C3C2 ? 65 : 65 + len;
    *c2_at = form == kC1C3C2 ? 97 : 65;
    return len + 97;
  }
  // SEQUENCE { INTEGER x, INTEGER y, OCTET STRING C3, OCTET STRING C2 }
  uint8_t len_octets[9];
  const unsigned c2_header = 1 + der_length(len_octets, len);
  const uint64_t inner = der_unsigned(nullptr, c1) + der_unsigned(nullptr, c1 + 32) + 34 +
                         c2_header + len;
  uint64_t at = 0;
  slot[at++] = 0x30;
  at += der_length(slot + at, inner);
  at += der_unsigned(slot + at, c1);
  at += der_unsigned(slot + at, c1 + 32);
  slot[at++] = 0x04;
  slot[at++] = 32;
  *c3_at = at;
  at += 32;
  slot[at++] = 0x04;
  at += der_length(slot + at, len);
  *c2_at = at;
  return at + len;
}

__global__ void __launch_bounds__(kThreads)
    encrypt_finish_kernel(CryptItems items, const uint8_t* points) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= items.count) return;
  const uint64_t len = items.offsets[i + 1] - items.offsets[i];
  uint8_t* slot = items.out + items.offsets[i] + i * items.extra;
  const uint64_t slot_len = len + items.extra;
  int status = items.status[i];
  if (status == kOk && len > kGpuMaxItemBytes) status = kRedoOnHost;
  uint64_t total = 0;
  if (status == kOk) {
    const uint8_t* p = points + 128 * i;  // x1 || y1 || x2 || y2
    uint64_t c3_at, c2_at;
    total = encrypt_layout(items.form, p, len, slot, &c3_at, &c2_at);
    uint8_t c3[32];
    const uint32_t t_nonzero =
        mask_and_hash(p + 64, items.data + items.offsets[i], slot + c2_at, len, false, c3);
    for (int j = 0; j < 32; ++j) slot[c3_at + j] = c3[j];
    if (!t_nonzero) status = kRedoOnHost;  // A5: a new k (on the host)
  }
  if (status != kOk) total = 0;
  zero(slot + total, slot_len - total);
  items.lengths[i] = total;
  items.status[i] = status;
}

__global__ void __launch_bounds__(kThreads)
    decrypt_finish_kernel(CryptItems items, const CiphertextLayout* layouts, const uint8_t* xy) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= items.count) return;
  const CiphertextLayout& l = layouts[i];
  const uint8_t* ct = items.data + items.offsets[i];
  const uint64_t ct_len = items.offsets[i + 1] - items.offsets[i];
  uint8_t* slot = items.out + items.offsets[i];
  int status = items.status[i];
  uint64_t plain = 0;
  if (status == kOk) {
    uint8_t u[32];
    const uint32_t t_nonzero = mask_and_hash(xy + 64 * i, ct + l.c2_at, slot, l.c2_len, true, u);
    uint32_t diff = 0;  // B6: every byte compared
    for (int j = 0; j < 32; ++j) diff |= u[j] ^ ct[l.c3_at + j];
    status = !t_nonzero ? kBadCiphertext : diff != 0 ? kCiphertextMismatch : kOk;
    plain = status == kOk ? l.c2_len : 0;  // B7: nothing released on failure
  }
  zero(slot + plain, ct_len - plain);
  items.lengths[i] = plain;
  items.status[i] = status;
}

}  // namespace

cudaError_t launch_encrypt_finish(const CryptItems& items, const uint8_t* points,
                                  cudaStream_t stream) {
  if (items.count == 0) return cudaSuccess;
  encrypt_finish_kernel<<<ks::gpu::blocks_for(items.count, kThreads), kThreads, 0, stream>>>(
      items, points);
  return cudaGetLastError();
}

cudaError_t launch_decrypt_finish(const CryptItems& items, const CiphertextLayout* layouts,
                                  const uint8_t* xy, cudaStream_t stream) {
  if (items.count == 0) return cudaSuccess;
  decrypt_finish_kernel<<<ks::gpu::blocks_for(items.count, kThreads), kThreads, 0, stream>>>(
      items, layouts, xy);
  return cudaGetLastError();
}

}  // namespace gpu
}  // namespace sm2
}  // namespace ks
