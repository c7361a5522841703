// Hashing batches of messages with a Merkle-Damgard compression function,
// shared by SM3 and SHA-512 (sm3_blocks.cc, sha512_blocks.cc): the padded
// tail, the walk of one item (an optional prefix, then the message) block
// by block without copying the message, the multi-buffer scheduler that
// keeps SIMD lanes busy with unrelated messages, and the run-time choice
// among a hash's variants.
//
// A hash is described by a traits class H:
//   using Word;                    // chaining-value word (8 of them)
//   using Prefixes;                // { const uint8_t* const* bytes; size_t len; }
//   static constexpr size_t kBlockBytes, kDigestBytes;
//   static constexpr int kSerialLanes;  // see LaneBatch
//   static void load_iv(Word state[8]);
//   static void store_digest(const Word state[8], uint8_t* out);
//   static void store_bit_length(uint8_t* end, uint64_t total_bytes);
//     // the length field that ends the padding, ending at `end`
//   static constexpr size_t kLengthBytes;  // its size: 8 (SM3), 16 (SHA-512)
//   static constexpr auto compress_variants;  // the hash's variant table
#ifndef KS_HASH_LANE_JOBS_H_
#define KS_HASH_LANE_JOBS_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/cpu_features.h"
#include "core/secure.h"

namespace ks {
namespace hash {

template <class H>
using CompressFn = void (*)(typename H::Word state[8], const uint8_t* blocks, size_t nblocks);

template <class H>
using DigestOut = uint8_t (*)[H::kDigestBytes];

template <class H, int L>
using LaneKernel = void (*)(typename H::Word state[8][L], const uint8_t* const blocks[L]);

// --- Variants -----------------------------------------------------------------

// What the x86 kernels of both hashes need (sm3_x86_kernels.h,
// sha512_x86_kernels.h): AVX2 with BMI2 (rorx in the single-stream rounds),
// and AVX-512 F/VL/BW on top for the AVX-512 ones.
inline bool cpu_has_avx2_kernels() {
  const CpuFeatures& f = cpu_features();
  return f.avx2 && f.bmi2;
}

inline bool cpu_has_avx512_kernels() {
  const CpuFeatures& f = cpu_features();
  return cpu_has_avx2_kernels() && f.avx512f && f.avx512vl && f.avx512bw;
}

// The single-stream compressor of H's first usable variant, chosen once.
template <class H>
CompressFn<H> chosen_compress() {
  static const CompressFn<H> fn = first_usable(H::compress_variants).compress_blocks;
  return fn;
}

// Clearing and copying the few bytes of a head or tail block. GCC 12's
// generic tuning inlines a memset of 128 bytes or more, and a memcpy whose
// length it can bound (below a block, here), as rep stosq / rep movsq,
// whose start-up costs more than the stores: on Zen 4 they took a third of
// SHA-512 digest_many's time outside the kernel for 64-byte messages.
// 64-byte memsets become four vector stores, and a length the compiler
// cannot bound makes memcpy a call to the C library's (vector) one: 15%
// more digests/s, x8 and serial alike.
inline void clear_bytes(uint8_t* p, size_t n) {  // n: a multiple of 64
  for (size_t i = 0; i < n; i += 64) memset(p + i, 0, 64);
}

inline void copy_bytes(uint8_t* to, const uint8_t* from, size_t n) {
  if (n == 0) return;         // from may be null then
  __asm__("" : "+r"(n));      // hides the bound; n is a length, never secret
  memcpy(to, from, n);
}

// The padded tail of a message (SM3: GB/T 32905 section 5.2; SHA-512:
// FIPS 180-4 section 5.1.2): its last bytes, given as a[0..alen) ||
// b[0..blen) (less than a block in all), the bit 1 (0x80), zeros, and the
// bit length of the whole message (total bytes) as a big-endian integer
// in the last kLengthBytes bytes. Returns the number of blocks, 1 or 2.
template <class H>
size_t pad_tail(const uint8_t* a, size_t alen, const uint8_t* b, size_t blen, uint64_t total,
                uint8_t out[2 * H::kBlockBytes]) {
  constexpr size_t kBlock = H::kBlockBytes;
  const size_t rest = alen + blen;
  const size_t blocks = rest < kBlock - H::kLengthBytes ? 1 : 2;
  clear_bytes(out, kBlock * blocks);
  copy_bytes(out, a, alen);
  copy_bytes(out + alen, b, blen);
  out[rest] = 0x80;
  H::store_bit_length(out + kBlock * blocks, total);
  return blocks;
}

// One item's progress through prefix || message, a block at a time: the
// head block (the prefix and the message's first bytes) when the item
// reaches a whole block, then whole blocks straight from the message, then
// the padded tail blocks.
template <class H>
struct LaneJob {
  static constexpr size_t kBlock = H::kBlockBytes;

  size_t msg;              // index in the batch
  const uint8_t* next;     // next whole block
  size_t head_left;        // 1 while the head block is not yet compressed
  size_t whole_left;       // whole blocks not yet compressed
  size_t tail_blocks;      // 1 or 2
  size_t tail_left;        // tail blocks not yet compressed
  uint8_t head[kBlock];
  uint8_t tail[2 * kBlock];

  void start(size_t index, const uint8_t* prefix, size_t plen, const uint8_t* m, size_t len) {
    msg = index;
    const uint64_t total = uint64_t(plen) + len;
    head_left = plen > 0 && total >= kBlock ? 1 : 0;
    if (plen > 0 && head_left == 0) {  // everything fits the tail
      next = m;
      whole_left = 0;
      tail_blocks = tail_left = pad_tail<H>(prefix, plen, m, len, total, tail);
      return;
    }
    const size_t skip = head_left ? kBlock - plen : 0;  // message bytes in the head
    if (head_left) {
      copy_bytes(head, prefix, plen);
      copy_bytes(head + plen, m, skip);
    }
    next = m + skip;
    whole_left = (len - skip) / kBlock;
    const size_t rest = (len - skip) % kBlock;
    tail_blocks = tail_left = pad_tail<H>(nullptr, 0, m + (len - rest), rest, total, tail);
  }
  const uint8_t* block() const {
    if (head_left > 0) return head;
    return whole_left > 0 ? next : tail + kBlock * (tail_blocks - tail_left);
  }
  // Returns true when the message is done.
  bool advance() {
    if (head_left > 0) {
      head_left = 0;
    } else if (whole_left > 0) {
      --whole_left;
      next += kBlock;
    } else {
      --tail_left;
    }
    return head_left == 0 && whole_left == 0 && tail_left == 0;
  }
  // Compresses what is left on a single-stream compressor.
  void finish(CompressFn<H> compress, typename H::Word state[8]) {
    compress(state, head, head_left);
    compress(state, next, whole_left);
    compress(state, tail + kBlock * (tail_blocks - tail_left), tail_left);
  }
};

template <class H>
const uint8_t* prefix_of(const typename H::Prefixes& p, size_t i) {
  return p.len > 0 ? p.bytes[i] : nullptr;
}

// Item i (its prefix, then msg), start to end, on a single-stream
// compressor.
template <class H>
void digest_one(CompressFn<H> compress, const typename H::Prefixes& prefixes, size_t i,
                const uint8_t* msg, size_t len, uint8_t* out) {
  LaneJob<H> job;
  job.start(i, prefix_of<H>(prefixes, i), prefixes.len, msg, len);
  typename H::Word state[8];
  H::load_iv(state);
  job.finish(compress, state);
  H::store_digest(state, out);
  secure_wipe(&job, sizeof(job));  // as the streaming hashes do: no message bytes left behind
}

// The items of a batch one after the other on a single-stream compressor.
template <class H>
void digest_each(CompressFn<H> compress, const uint8_t* const* msgs, const size_t* lens,
                 size_t n, DigestOut<H> out, const typename H::Prefixes& prefixes) {
  for (size_t i = 0; i < n; ++i) digest_one<H>(compress, prefixes, i, msgs[i], lens[i], out[i]);
}

// Multi-buffer hashing of a batch: each of the L lanes takes the next
// message of the batch as soon as its own is done, so lanes stay busy
// whatever the mix of lengths. A kernel call costs the same however many
// lanes are busy; once no message is waiting and at most H::kSerialLanes
// lanes are still busy, those few are finished one by one on the
// single-stream compressor, which is then cheaper.
template <class H, int L>
class LaneBatch {
 public:
  using Word = typename H::Word;

  LaneBatch(const uint8_t* const* msgs, const size_t* lens, size_t n, DigestOut<H> out,
            const typename H::Prefixes& prefixes)
      : msgs_(msgs), lens_(lens), n_(n), out_(out), prefixes_(prefixes) {}
  ~LaneBatch() {
    secure_wipe(state_, sizeof(state_));
    secure_wipe(jobs_, sizeof(jobs_));
  }

  void run(LaneKernel<H, L> kernel) {
    for (int l = 0; l < L; ++l) refill(l);
    while (nbusy_ > H::kSerialLanes) step(kernel);
    const CompressFn<H> compress = chosen_compress<H>();
    for (int l = 0; l < L; ++l) {
      if (!busy_[l]) continue;
      Word column[8];
      lane_state(l, column);
      jobs_[l].finish(compress, column);
      H::store_digest(column, out_[jobs_[l].msg]);
    }
  }

 private:
  // Starts the next waiting message in lane l (from the IV), if any.
  void refill(int l) {
    busy_[l] = waiting_ < n_;
    if (!busy_[l]) return;
    jobs_[l].start(waiting_, prefix_of<H>(prefixes_, waiting_), prefixes_.len, msgs_[waiting_],
                   lens_[waiting_]);
    ++waiting_;
    Word iv[8];
    H::load_iv(iv);
    for (int i = 0; i < 8; ++i) state_[i][l] = iv[i];
    ++nbusy_;
  }

  // One block in every lane; finished messages are written out and their
  // lanes refilled.
  void step(LaneKernel<H, L> kernel) {
    static const uint8_t kIdleBlock[H::kBlockBytes] = {0};  // fed to idle lanes, result unused
    const uint8_t* blocks[L];
    for (int l = 0; l < L; ++l) blocks[l] = busy_[l] ? jobs_[l].block() : kIdleBlock;
    kernel(state_, blocks);
    for (int l = 0; l < L; ++l) {
      if (!busy_[l] || !jobs_[l].advance()) continue;
      Word column[8];
      lane_state(l, column);
      H::store_digest(column, out_[jobs_[l].msg]);
      --nbusy_;
      refill(l);
    }
  }

  void lane_state(int l, Word column[8]) const {
    for (int i = 0; i < 8; ++i) column[i] = state_[i][l];
  }

  const uint8_t* const* msgs_;
  const size_t* lens_;
  size_t n_;
  DigestOut<H> out_;
  typename H::Prefixes prefixes_;
  alignas(64) Word state_[8][L];  // word-major: state_[i][l] is word i of lane l
  LaneJob<H> jobs_[L];
  bool busy_[L];
  size_t waiting_ = 0;  // next message to start
  int nbusy_ = 0;
};

// digest_many on an L-lane kernel.
template <class H, int L, LaneKernel<H, L> kKernel>
void digest_many_lanes(const uint8_t* const* msgs, const size_t* lens, size_t n,
                       DigestOut<H> out, typename H::Prefixes prefixes) {
  LaneBatch<H, L>(msgs, lens, n, out, prefixes).run(kKernel);
}

// digest_many one item at a time on the chosen single-stream compressor.
template <class H>
void digest_many_serial(const uint8_t* const* msgs, const size_t* lens, size_t n,
                        DigestOut<H> out, typename H::Prefixes prefixes) {
  digest_each<H>(chosen_compress<H>(), msgs, lens, n, out, prefixes);
}

// A lane kernel's work (one block per lane, word-major state) done lane by
// lane on the chosen single-stream compressor: for CPUs without the kernel.
template <class H, int L>
void compress_lanes_serial(typename H::Word state[8][L], const uint8_t* const blocks[L]) {
  const CompressFn<H> compress = chosen_compress<H>();
  for (int l = 0; l < L; ++l) {
    typename H::Word column[8];
    for (int i = 0; i < 8; ++i) column[i] = state[i][l];
    compress(column, blocks[l], 1);
    for (int i = 0; i < 8; ++i) state[i][l] = column[i];
  }
}

}  // namespace hash
}  // namespace ks

#endif  // KS_HASH_LANE_JOBS_H_
