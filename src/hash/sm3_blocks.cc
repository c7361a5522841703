// Run-time dispatch of SM3 compression (single stream and multi-buffer) and
// the multi-buffer message scheduler behind digest_many.
#include "hash/sm3_blocks.h"

#include <string.h>

#include "core/cpu_features.h"
#include "core/secure.h"
#include "hash/sm3_compress.h"
#include "hash/sm3_x86_kernels.h"

namespace ks {
namespace sm3 {

using CompressFn = void (*)(uint32_t state[8], const uint8_t* blocks, size_t nblocks);
using DigestManyFn = void (*)(const uint8_t* const* msgs, const size_t* lens, size_t n,
                              uint8_t (*out)[32], Prefixes prefixes);

void compress_blocks_portable(uint32_t state[8], const uint8_t* blocks, size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i) compress_block(state, blocks + 64 * i);
}

namespace {

// What the x86 kernels need (sm3_x86_kernels.h).
bool cpu_has_avx2_kernels() {
  const CpuFeatures& f = cpu_features();
  return f.avx2 && f.bmi2;
}

bool cpu_has_avx512_kernels() {
  const CpuFeatures& f = cpu_features();
  return cpu_has_avx2_kernels() && f.avx512f && f.avx512vl && f.avx512bw;
}

// The first usable entry of a variant table (the last one always is).
template <class Variant>
const Variant& first_usable(const Variant* (*table_of)(size_t*)) {
  size_t count = 0;
  const Variant* table = table_of(&count);
  size_t i = 0;
  while (!table[i].usable) ++i;
  return table[i];
}

const CompressVariant& chosen_compress() {
  static const CompressVariant& chosen = first_usable(compress_variants);
  return chosen;
}

// The padded tail of a message (section 5.2): its last bytes, given as
// a[0..alen) || b[0..blen) (fewer than 64 in all), the bit 1 (0x80), zeros
// up to 56 mod 64, and the bit length of the whole message (total bytes)
// as a 64-bit big-endian integer. Returns the number of 64-byte blocks, 1
// or 2.
size_t pad_tail(const uint8_t* a, size_t alen, const uint8_t* b, size_t blen, uint64_t total,
                uint8_t out[128]) {
  const size_t rest = alen + blen;
  const size_t blocks = rest < 56 ? 1 : 2;
  memset(out, 0, 128);  // fixed size: a few vector stores, no library call
  if (alen > 0) memcpy(out, a, alen);
  if (blen > 0) memcpy(out + alen, b, blen);
  out[rest] = 0x80;
  const uint64_t bits = total * 8;
  store_be32(out + 64 * blocks - 8, uint32_t(bits >> 32));
  store_be32(out + 64 * blocks - 4, uint32_t(bits));
  return blocks;
}

void store_digest(const uint32_t state[8], uint8_t out[32]) {
  for (int i = 0; i < 8; ++i) store_be32(out + 4 * i, state[i]);
}

// One item's progress through prefix || message, a block at a time: the
// head block (the prefix and the message's first bytes) when the item
// reaches a whole block, then whole blocks straight from the message, then
// the padded tail blocks.
struct LaneJob {
  size_t msg;              // index in the batch
  const uint8_t* next;     // next whole block
  size_t head_left;        // 1 while the head block is not yet compressed
  size_t whole_left;       // whole blocks not yet compressed
  size_t tail_blocks;      // 1 or 2
  size_t tail_left;        // tail blocks not yet compressed
  uint8_t head[64];
  uint8_t tail[128];

  void start(size_t index, const uint8_t* prefix, size_t plen, const uint8_t* m, size_t len) {
    msg = index;
    const uint64_t total = uint64_t(plen) + len;
    head_left = plen > 0 && total >= 64 ? 1 : 0;
    if (plen > 0 && head_left == 0) {  // everything fits the tail
      next = m;
      whole_left = 0;
      tail_blocks = tail_left = pad_tail(prefix, plen, m, len, total, tail);
      return;
    }
    const size_t skip = head_left ? 64 - plen : 0;  // message bytes in the head
    if (head_left) {
      memcpy(head, prefix, plen);
      memcpy(head + plen, m, skip);
    }
    next = m + skip;
    whole_left = (len - skip) / 64;
    const size_t rest = (len - skip) % 64;
    tail_blocks = tail_left = pad_tail(nullptr, 0, m + (len - rest), rest, total, tail);
  }
  const uint8_t* block() const {
    if (head_left > 0) return head;
    return whole_left > 0 ? next : tail + 64 * (tail_blocks - tail_left);
  }
  // Returns true when the message is done.
  bool advance() {
    if (head_left > 0) {
      head_left = 0;
    } else if (whole_left > 0) {
      --whole_left;
      next += 64;
    } else {
      --tail_left;
    }
    return head_left == 0 && whole_left == 0 && tail_left == 0;
  }
  // Compresses what is left on a single-stream compressor.
  void finish(CompressFn compress, uint32_t state[8]) {
    compress(state, head, head_left);
    compress(state, next, whole_left);
    compress(state, tail + 64 * (tail_blocks - tail_left), tail_left);
  }
};

const uint8_t* prefix_of(const Prefixes& p, size_t i) {
  return p.len > 0 ? p.bytes[i] : nullptr;
}

// One item, start to end, on a single-stream compressor.
void digest_one(CompressFn compress, const Prefixes& prefixes, size_t i, const uint8_t* msg,
                size_t len, uint8_t out[32]) {
  LaneJob job;
  job.start(i, prefix_of(prefixes, i), prefixes.len, msg, len);
  uint32_t state[8];
  load_iv(state);
  job.finish(compress, state);
  store_digest(state, out);
  secure_wipe(&job, sizeof(job));  // as Sm3 does: no message bytes left behind
}

void digest_many_serial(const uint8_t* const* msgs, const size_t* lens, size_t n,
                        uint8_t (*out)[32], Prefixes prefixes) {
  const CompressFn compress = chosen_compress().compress_blocks;
  for (size_t i = 0; i < n; ++i) digest_one(compress, prefixes, i, msgs[i], lens[i], out[i]);
}

// Multi-buffer hashing of a batch: each of the L lanes takes the next
// message of the batch as soon as its own is done, so lanes stay busy
// whatever the mix of lengths. A kernel call costs the same however many
// lanes are busy; once no message is waiting and at most `serial` lanes are
// still busy, those few are finished one by one on the single-stream
// compressor, which is then cheaper.
template <int L>
class LaneBatch {
 public:
  using Kernel = void (*)(uint32_t state[8][L], const uint8_t* const blocks[L]);

  LaneBatch(const uint8_t* const* msgs, const size_t* lens, size_t n, uint8_t (*out)[32],
            Prefixes prefixes)
      : msgs_(msgs), lens_(lens), n_(n), out_(out), prefixes_(prefixes) {}
  ~LaneBatch() {
    secure_wipe(state_, sizeof(state_));
    secure_wipe(jobs_, sizeof(jobs_));
  }

  void run(Kernel kernel, int serial) {
    for (int l = 0; l < L; ++l) refill(l);
    while (nbusy_ > serial) step(kernel);
    const CompressFn compress = chosen_compress().compress_blocks;
    for (int l = 0; l < L; ++l) {
      if (!busy_[l]) continue;
      uint32_t column[8];
      lane_state(l, column);
      jobs_[l].finish(compress, column);
      store_digest(column, out_[jobs_[l].msg]);
    }
  }

 private:
  // Starts the next waiting message in lane l (from the IV), if any.
  void refill(int l) {
    busy_[l] = waiting_ < n_;
    if (!busy_[l]) return;
    jobs_[l].start(waiting_, prefix_of(prefixes_, waiting_), prefixes_.len, msgs_[waiting_],
                   lens_[waiting_]);
    ++waiting_;
    for (int i = 0; i < 8; ++i) state_[i][l] = kIV[i];
    ++nbusy_;
  }

  // One block in every lane; finished messages are written out and their
  // lanes refilled.
  void step(Kernel kernel) {
    static const uint8_t kIdleBlock[64] = {0};  // fed to idle lanes, result unused
    const uint8_t* blocks[L];
    for (int l = 0; l < L; ++l) blocks[l] = busy_[l] ? jobs_[l].block() : kIdleBlock;
    kernel(state_, blocks);
    for (int l = 0; l < L; ++l) {
      if (!busy_[l] || !jobs_[l].advance()) continue;
      uint32_t column[8];
      lane_state(l, column);
      store_digest(column, out_[jobs_[l].msg]);
      --nbusy_;
      refill(l);
    }
  }

  void lane_state(int l, uint32_t column[8]) const {
    for (int i = 0; i < 8; ++i) column[i] = state_[i][l];
  }

  const uint8_t* const* msgs_;
  const size_t* lens_;
  size_t n_;
  uint8_t (*out_)[32];
  Prefixes prefixes_;
  alignas(64) uint32_t state_[8][L];  // word-major: state_[i][l] is word i of lane l
  LaneJob jobs_[L];
  bool busy_[L];
  size_t waiting_ = 0;  // next message to start
  int nbusy_ = 0;
};

// compress_x16/x8 without the kernel: lane by lane.
template <int L>
void compress_lanes_serial(uint32_t state[8][L], const uint8_t* const blocks[L]) {
  const CompressFn compress = chosen_compress().compress_blocks;
  for (int l = 0; l < L; ++l) {
    uint32_t column[8];
    for (int i = 0; i < 8; ++i) column[i] = state[i][l];
    compress(column, blocks[l], 1);
    for (int i = 0; i < 8; ++i) state[i][l] = column[i];
  }
}

#if KS_SM3_X86
// On Zen 4 one x16 (AVX-512) or x8 (AVX2) kernel call costs a little more
// than two single-stream blocks (tools/sm3_micro.cc), so two busy lanes are
// already cheaper one at a time.
constexpr int kSerialLanes = 2;

void digest_many_x16(const uint8_t* const* msgs, const size_t* lens, size_t n,
                     uint8_t (*out)[32], Prefixes prefixes) {
  LaneBatch<16>(msgs, lens, n, out, prefixes).run(compress_x16_avx512, kSerialLanes);
}

void digest_many_x8(const uint8_t* const* msgs, const size_t* lens, size_t n,
                    uint8_t (*out)[32], Prefixes prefixes) {
  LaneBatch<8>(msgs, lens, n, out, prefixes).run(compress_x8_avx2, kSerialLanes);
}
#endif

}  // namespace

// Preferred first, portable last (and always usable).
const CompressVariant* compress_variants(size_t* count) {
  static const CompressVariant kTable[] = {
#if KS_SM3_X86
      {"avx512-bmi2", cpu_has_avx512_kernels(), compress_blocks_avx512},
      {"avx2-bmi2", cpu_has_avx2_kernels(), compress_blocks_avx2},
#endif
      {"portable", true, compress_blocks_portable},
  };
  *count = sizeof(kTable) / sizeof(kTable[0]);
  return kTable;
}

const DigestManyVariant* digest_many_variants(size_t* count) {
  static const DigestManyVariant kTable[] = {
#if KS_SM3_X86
      {"x16-avx512", cpu_has_avx512_kernels(), digest_many_x16},
      {"x8-avx2", cpu_has_avx2_kernels(), digest_many_x8},
#endif
      {"serial", true, digest_many_serial},
      {"portable", true, digest_many_portable},
  };
  *count = sizeof(kTable) / sizeof(kTable[0]);
  return kTable;
}

void compress_blocks(uint32_t state[8], const uint8_t* blocks, size_t nblocks) {
  static const CompressFn fn = chosen_compress().compress_blocks;
  fn(state, blocks, nblocks);
}

const char* compress_variant_name() { return chosen_compress().name; }

void digest_many(const uint8_t* const* msgs, const size_t* lens, size_t n, uint8_t (*out)[32],
                 Prefixes prefixes) {
  static const DigestManyFn fn = first_usable(digest_many_variants).digest_many;
  fn(msgs, lens, n, out, prefixes);
}

void digest_many_portable(const uint8_t* const* msgs, const size_t* lens, size_t n,
                          uint8_t (*out)[32], Prefixes prefixes) {
  for (size_t i = 0; i < n; ++i)
    digest_one(compress_blocks_portable, prefixes, i, msgs[i], lens[i], out[i]);
}

void compress_x16(uint32_t state[8][16], const uint8_t* const blocks[16]) {
#if KS_SM3_X86
  static const bool fast = cpu_has_avx512_kernels();
  if (fast) return compress_x16_avx512(state, blocks);
#endif
  compress_lanes_serial<16>(state, blocks);
}

void compress_x8(uint32_t state[8][8], const uint8_t* const blocks[8]) {
#if KS_SM3_X86
  static const bool fast = cpu_has_avx2_kernels();
  if (fast) return compress_x8_avx2(state, blocks);
#endif
  compress_lanes_serial<8>(state, blocks);
}

}  // namespace sm3
}  // namespace ks
