// SM2 encryption and decryption on the GPU after the point
// multiplications (sm2_gpu.h): the SM3 KDF, C2, C3 and the ciphertext
// forms, one thread per item (GB/T 32918.4 clauses 6.1 A5-A8 and 7.1
// B4-B7; the CPU's sm2/sm2_encrypt.cc is the oracle the tests hold these
// to). Constant time in the plaintext and the shared point: addresses
// depend on lengths and offsets only, and the verdicts (t all zero, C3
// equal) are formed without branches and acted on once.
#include "core/endian.h"
#include "gpu/launch.cuh"
#include "sm2/gpu/sm2_gpu.h"
#include "sm3/sm3_compress.h"

namespace ks {
namespace sm2 {
namespace gpu {
namespace {

constexpr unsigned kThreads = 128;
constexpr int kC1C3C2 = 0, kDer = 2;  // sm2::CipherForm (C1C2C3 is 1)

// Each thread's SM3 words live in shared memory, by columns: its word j at
// [j * kThreads] from its own first word, so that a warp's accesses to one
// word fall in 32 different banks. Keeping them there, not in registers
// or local memory, lets one non-inlined copy of the unrolled rounds serve
// the KDF and the hash (registers cannot be passed by reference), and
// lets the hash take a byte at any position without a dynamic register
// index (which the compiler would turn into local memory).
struct Columns {
  uint32_t* first;
  __device__ uint32_t& operator[](unsigned j) const { return first[j * kThreads]; }
  __device__ Columns at(unsigned j) const { return {first + j * kThreads}; }
};
// Word offsets of the regions in a thread's columns.
constexpr unsigned kHashState = 0, kHashBlock = 8, kKdfBase = 24, kKdfState = 32,
                   kKdfBlock = 40, kColumnCount = 56;

// CF(V, B) (GB/T 32905 clause 5.3) on 8 state words and 16 block words in
// columns, in place: the kernel's one copy of the rounds.
__device__ __noinline__ void compress(Columns state, Columns block) {
  uint32_t v[8];
  sm3::RingSchedule<sm3::ScalarOps> w;
#pragma unroll
  for (int j = 0; j < 8; ++j) v[j] = state[j];
#pragma unroll
  for (int j = 0; j < 16; ++j) w.w[j] = block[j];
  sm3::compress_with<sm3::ScalarOps>(v, w);
#pragma unroll
  for (int j = 0; j < 8; ++j) state[j] = v[j];
}

// The big-endian word at p; p 4-aligned when `aligned`.
__device__ uint32_t load_word(const uint8_t* p, bool aligned) {
  if (aligned) return byte_swap32(*reinterpret_cast<const uint32_t*>(p));
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

// A byte string written at p in order, as aligned 32-bit stores where it
// can and single bytes at its two ends only: the items' slots lie apart,
// so each store of a warp is 32 transactions, for one byte or for four.
// What is stored, and where, depends on positions (public), not values.
struct ByteWriter {
  uint8_t* p;
  unsigned head;     // bytes still to store singly before p is 4-aligned
  unsigned fill = 0;  // bytes waiting in acc, first at the top
  uint32_t acc = 0;

  __device__ explicit ByteWriter(uint8_t* at)
      : p(at), head((4 - unsigned(reinterpret_cast<uintptr_t>(at) & 3)) & 3) {}
  __device__ void store(uint32_t big_endian) {
    *reinterpret_cast<uint32_t*>(p) = byte_swap32(big_endian);
    p += 4;
  }
  __device__ void byte(uint32_t b) {
    if (head != 0) {
      *p++ = uint8_t(b);
      --head;
      return;
    }
    acc |= b << (24 - 8 * fill);
    if (++fill == 4) {
      store(acc);
      acc = 0, fill = 0;
    }
  }
  __device__ void word(uint32_t w) {  // four bytes, big-endian
    if (head != 0) {
      for (int k = 0; k < 4; ++k) byte(w >> (24 - 8 * k) & 0xff);
    } else if (fill == 0) {
      store(w);
    } else {
      store(acc | w >> (8 * fill));
      acc = w << (32 - 8 * fill);
    }
  }
  __device__ void flush() {
    for (unsigned k = 0; k < fill; ++k) *p++ = uint8_t(acc >> (24 - 8 * k));
    acc = 0, fill = 0;
  }
};

// SM3 (GB/T 32905 clause 5) fed big-endian words or bytes. The block's
// position depends on the count of bytes fed (lengths, public), never on
// their values; the bytes of the current word past `used` are zero.
struct HashStream {
  Columns state, block;
  unsigned used = 0;
  uint64_t total = 0;

  __device__ explicit HashStream(Columns c) : state(c.at(kHashState)), block(c.at(kHashBlock)) {
    uint32_t iv[8];
    sm3::load_iv(iv);
#pragma unroll
    for (int j = 0; j < 8; ++j) state[j] = iv[j];
  }
  __device__ void advance(unsigned n) {
    used += n;
    if (used == 64) {
      compress(state, block);
      used = 0;
    }
  }
  __device__ void word(uint32_t w) {
    total += 4;
    const unsigned shift = 8 * (used & 3);
    if (shift == 0) {
      block[used >> 2] = w;
      advance(4);
      return;
    }
    block[used >> 2] |= w >> shift;
    advance(4 - shift / 8);
    block[used >> 2] = w << (32 - shift);
    used += shift / 8;
  }
  __device__ void byte(uint32_t b) {
    ++total;
    const unsigned shift = 24 - 8 * (used & 3);
    const uint32_t rest = shift == 24 ? 0 : block[used >> 2];
    block[used >> 2] = rest | b << shift;
    advance(1);
  }
  // Clause 5.2's padding; the digest is then in `state`.
  __device__ void finish() {
    const uint64_t bits = total * 8;
    byte(0x80);
    while (used & 3) byte(0);
    while (used != 56) word(0);
    word(uint32_t(bits >> 32));
    word(uint32_t(bits));
  }
};

// t = KDF(x2 || y2, klen) (GB/T 32918.4 clause 5.4.3), 32 bytes at a time:
// x2 || y2 is one whole block, compressed once; each counter's block is
// then Ct || padding for 68 bytes.
struct KeyStream {
  Columns base, state, block;
  uint32_t counter = 1;

  __device__ KeyStream(Columns c, const uint32_t xy[16])
      : base(c.at(kKdfBase)), state(c.at(kKdfState)), block(c.at(kKdfBlock)) {
    uint32_t iv[8];
    sm3::load_iv(iv);
#pragma unroll
    for (int j = 0; j < 8; ++j) base[j] = iv[j];
#pragma unroll
    for (int j = 0; j < 16; ++j) block[j] = xy[j];
    compress(base, block);
    block[1] = 0x80000000u;
#pragma unroll
    for (int j = 2; j < 15; ++j) block[j] = 0;
    block[15] = 68 * 8;
  }
  __device__ void next(uint32_t t[8]) {
    block[0] = counter++;
#pragma unroll
    for (int j = 0; j < 8; ++j) state[j] = base[j];
    compress(state, block);
#pragma unroll
    for (int j = 0; j < 8; ++j) t[j] = state[j];
  }
};

// The thread's columns in the kernel's shared memory.
__device__ Columns thread_columns(uint32_t* shared) { return {shared + threadIdx.x}; }

// out[i] = in[i] ^ t for i < len (t the key stream), hashing x2 || plain ||
// y2, where plain is in (encrypting) or out (decrypting); the digest is
// left in c's hash state. xy (x2 || y2) is 16-byte aligned. Returns
// nonzero if t had a nonzero byte, or len is 0 (clause 6.1 A5: only a
// nonempty all-zero t is refused).
__device__ uint32_t mask_and_hash(Columns c, const uint8_t* xy, const uint8_t* in, uint8_t* out,
                                  uint64_t len, bool decrypting) {
  uint32_t xyw[16];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const uint4 q = reinterpret_cast<const uint4*>(xy)[j];
    xyw[4 * j] = byte_swap32(q.x), xyw[4 * j + 1] = byte_swap32(q.y);
    xyw[4 * j + 2] = byte_swap32(q.z), xyw[4 * j + 3] = byte_swap32(q.w);
  }
  KeyStream kdf(c, xyw);
  HashStream h(c);
#pragma unroll
  for (int j = 0; j < 8; ++j) h.word(xyw[j]);
  const bool in_aligned = (reinterpret_cast<uintptr_t>(in) & 3) == 0;
  ByteWriter o(out);
  uint32_t any = len == 0;
  for (uint64_t off = 0; off < len; off += 32) {
    uint32_t t[8];
    kdf.next(t);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const uint64_t at = off + 4 * j;
      if (at + 4 <= len) {
        const uint32_t m = load_word(in + at, in_aligned), x = m ^ t[j];
        o.word(x);
        any |= t[j];
        h.word(decrypting ? x : m);
      } else {
        for (unsigned k = 0; at + k < len; ++k) {  // the last 1-3 bytes
          const uint32_t tk = t[j] >> (24 - 8 * k) & 0xff, m = in[at + k], x = m ^ tk;
          o.byte(x);
          any |= tk;
          h.byte(decrypting ? x : m);
        }
      }
    }
  }
  o.flush();
#pragma unroll
  for (int j = 8; j < 16; ++j) h.word(xyw[j]);
  h.finish();
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
    ByteWriter w(slot);
    w.byte(0x04);
    for (int j = 0; j < 4; ++j) {  // c1 is 16-byte aligned
      const uint4 q = reinterpret_cast<const uint4*>(c1)[j];
      w.word(byte_swap32(q.x)), w.word(byte_swap32(q.y));
      w.word(byte_swap32(q.z)), w.word(byte_swap32(q.w));
    }
    w.flush();
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

// Whether a device-memory batch's offsets were refused (CryptItems's
// offsets_bad): item i then gets kBadItemOffsets and no output.
__device__ bool offsets_refused(const CryptItems& items, size_t i) {
  if (items.offsets_bad == nullptr || *items.offsets_bad == 0) return false;
  items.lengths[i] = 0;
  items.status[i] = kBadItemOffsets;
  if (items.redo != nullptr) items.redo[i] = 0;
  return true;
}

__global__ void __launch_bounds__(kThreads)
    encrypt_finish_kernel(CryptItems items, const uint8_t* points) {
  __shared__ uint32_t shared[kColumnCount * kThreads];
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= items.count || (items.redo_only && items.redo[i] == 0)) return;
  if (offsets_refused(items, i)) return;
  const uint64_t len = items.offsets[i + 1] - items.offsets[i];
  uint8_t* slot = items.out + items.offsets[i] + i * items.extra;
  const uint64_t slot_len = len + items.extra;
  int status = items.status[i];
  if (status == kOk && len > items.max_item_bytes) status = kRedoOnHost;
  uint64_t total = 0;
  if (status == kOk) {
    const uint8_t* p = points + 128 * i;  // x1 || y1 || x2 || y2
    uint64_t c3_at, c2_at;
    total = encrypt_layout(items.form, p, len, slot, &c3_at, &c2_at);
    const Columns c = thread_columns(shared);
    const uint32_t t_nonzero =
        mask_and_hash(c, p + 64, items.data + items.offsets[i], slot + c2_at, len, false);
    ByteWriter w(slot + c3_at);
    for (int j = 0; j < 8; ++j) w.word(c[kHashState + j]);
    w.flush();
    if (!t_nonzero) status = kRedoOnHost;  // A5: a new k (on the host)
  }
  if (status != kOk) total = 0;
  zero(slot + total, slot_len - total);
  items.lengths[i] = total;
  items.status[i] = status;
  if (items.redo != nullptr) items.redo[i] = status == kRedoOnHost;
}

__global__ void __launch_bounds__(kThreads)
    decrypt_finish_kernel(CryptItems items, const CiphertextLayout* layouts, const uint8_t* xy) {
  __shared__ uint32_t shared[kColumnCount * kThreads];
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= items.count || offsets_refused(items, i)) return;
  const CiphertextLayout& l = layouts[i];
  const uint8_t* ct = items.data + items.offsets[i];
  const uint64_t ct_len = items.offsets[i + 1] - items.offsets[i];
  uint8_t* slot = items.out + items.offsets[i];
  int status = items.status[i];
  uint64_t plain = 0;
  if (status == kOk) {
    const Columns c = thread_columns(shared);
    const uint32_t t_nonzero = mask_and_hash(c, xy + 64 * i, ct + l.c2_at, slot, l.c2_len, true);
    uint32_t diff = 0;  // B6: every byte compared
    for (int j = 0; j < 8; ++j) diff |= c[kHashState + j] ^ sm3::load_be32(ct + l.c3_at + 4 * j);
    status = !t_nonzero ? kBadCiphertext : diff != 0 ? kCiphertextMismatch : kOk;
    plain = status == kOk ? l.c2_len : 0;  // B7: nothing released on failure
  }
  zero(slot + plain, ct_len - plain);
  items.lengths[i] = plain;
  items.status[i] = status;
}

__global__ void parse_kernel(const uint8_t* data, const uint64_t* offsets, size_t count, int form,
                             const uint32_t* offsets_bad, CiphertextLayout* layouts) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  if (*offsets_bad != 0) {
    layouts[i] = {};
    layouts[i].status = kBadItemOffsets;
    return;
  }
  layouts[i] = layout_of(data + offsets[i], offsets[i + 1] - offsets[i], CipherForm(form),
                         kDeviceMaxC2Bytes);
}

}  // namespace

cudaError_t launch_parse_ciphertexts(const uint8_t* data, const uint64_t* offsets, size_t count,
                                     int form, const uint32_t* offsets_bad,
                                     CiphertextLayout* layouts, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  parse_kernel<<<ks::gpu::blocks_for(count, kThreads), kThreads, 0, stream>>>(
      data, offsets, count, form, offsets_bad, layouts);
  return cudaGetLastError();
}

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
