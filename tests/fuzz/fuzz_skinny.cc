// fuzz_skinny: the SKINNY-128-256 C API with modes, lengths, cut points,
// offsets and NULL pointers taken from the input.
//
// Input layout (fields past the end of the input read as zeros):
//   op        1 byte: even = one shot / stream / tweaked blocks, odd = batch
//   single:   mode byte (even: ECB, odd: CTR, >= 0xF0: an invalid mode),
//             iv_len byte (mod 20), tweakey (32), IV (16), then the text as
//             records: 1 byte c, then c bytes (the stream's cut points)
//   batch:    mode byte, encrypt flag, count (mod 9), control byte (bit 0:
//             status NULL, bit 1: tweakeys NULL, bit 2: offsets NULL, bit 3:
//             out one byte short, bit 4: ivs NULL), count + 1 offsets (u16
//             each), then the data
//
// Every buffer is an exactly-sized heap allocation (fuzz_util.h), so a read
// or write past what a call was given is an AddressSanitizer report.
// Properties checked:
//  - single: the one-shot call answers the code the header gives for the
//    arguments; when it succeeds, the streamed CTR over the pieces, the
//    threaded buffer call and decryption agree with it, and tweak-per-block
//    encryption of the whole blocks inverts;
//  - batch: bad arguments get a bad-argument code, no status and no output
//    byte written; good ones get KS_OK or KS_ERR_BATCH_ITEMS and every item
//    equals the one-item call.
#include <string.h>

#include <vector>

#include "fuzz_util.h"

using ks_fuzz::HeapArray;
using ks_fuzz::HeapBytes;
using ks_fuzz::Reader;
using Bytes = std::vector<uint8_t>;

namespace {

int mode_of(uint8_t b) { return b >= 0xF0 ? 7 : (b & 1) ? KS_SKINNY_CTR : KS_SKINNY_ECB; }

ks_ctx* cpu_ctx(uint32_t threads) {
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  cfg.backend = KS_BACKEND_CPU;
  cfg.cpu_threads = threads;
  ks_ctx* ctx = nullptr;
  KS_FUZZ_OK(ks_ctx_new(&cfg, &ctx));
  return ctx;
}

void single_case(Reader& r) {
  const int mode = mode_of(r.u8());
  const size_t iv_len = r.u8() % 20;
  const HeapBytes tweakey(r.fixed(32)), iv(r.fixed(16));
  std::vector<Bytes> pieces;
  while (r.left() > 0) pieces.push_back(r.bytes(r.u8()));
  Bytes text_v;
  for (const Bytes& p : pieces) text_v.insert(text_v.end(), p.begin(), p.end());
  const HeapBytes text(text_v);
  const size_t n = text.size();
  HeapBytes one(n);
  const int rc = ks_skinny128_256_crypt(mode, 1, tweakey.data(), iv.data(), iv_len, text.data(),
                                        n, one.data());
  int want = KS_OK;
  if (mode != KS_SKINNY_ECB && mode != KS_SKINNY_CTR) {
    want = KS_ERR_INVALID_ARGUMENT;
  } else if (iv_len != (mode == KS_SKINNY_ECB ? 0u : 16u) || (mode == KS_SKINNY_ECB && n % 16)) {
    want = KS_ERR_LENGTH;
  }
  KS_FUZZ_CHECK(rc == want, "one shot answered %d, the header says %d", rc, want);
  if (rc != KS_OK) return;
  // The same bytes threaded, and decrypted back.
  ks_ctx* ctx = cpu_ctx(2);
  HeapBytes buf(n), back(n);
  KS_FUZZ_OK(ks_skinny128_256_crypt_buffer(ctx, mode, 1, tweakey.data(), iv.data(), iv_len,
                                           text.data(), n, buf.data()));
  ks_ctx_free(ctx);
  KS_FUZZ_CHECK(n == 0 || memcmp(buf.data(), one.data(), n) == 0, "buffer call differs");
  KS_FUZZ_OK(ks_skinny128_256_crypt(mode, 0, tweakey.data(), iv.data(), iv_len, one.data(), n,
                                    back.data()));
  KS_FUZZ_CHECK(n == 0 || memcmp(back.data(), text.data(), n) == 0, "decrypt(encrypt(x)) != x");
  if (mode == KS_SKINNY_CTR) {  // streamed over the input's cut points
    ks_skinny_ctr_ctx s;
    KS_FUZZ_OK(ks_skinny128_256_ctr_init(&s, tweakey.data(), iv.data()));
    size_t at = 0;
    for (const Bytes& p : pieces) {
      const HeapBytes in(p);
      HeapBytes out(p.size());
      KS_FUZZ_OK(ks_skinny128_256_ctr_update(&s, in.data(), in.size(), out.data()));
      KS_FUZZ_CHECK(p.empty() || memcmp(out.data(), one.data() + at, p.size()) == 0,
                    "stream differs at %zu", at);
      at += p.size();
    }
    ks_skinny128_256_ctr_cleanse(&s);
  }
  // Tweak per block over the whole blocks: TK2 the tweakey's first half.
  const size_t blocks = n / 16;
  HeapBytes tweaks(16 * blocks), ct(16 * blocks), dec(16 * blocks);
  for (size_t i = 0; i < tweaks.size(); ++i) tweaks[i] = uint8_t(i * 13 + text[0 % (n ? n : 1)]);
  KS_FUZZ_OK(ks_skinny128_256_tweaked_blocks(1, tweakey.data(), tweaks.data(), text.data(),
                                             ct.data(), blocks));
  KS_FUZZ_OK(ks_skinny128_256_tweaked_blocks(0, tweakey.data(), tweaks.data(), ct.data(),
                                             dec.data(), blocks));
  KS_FUZZ_CHECK(blocks == 0 || memcmp(dec.data(), text.data(), 16 * blocks) == 0,
                "tweaked blocks do not invert");
}

void batch_case(Reader& r) {
  const int mode = mode_of(r.u8());
  const int encrypt = r.u8() & 1;
  const size_t count = r.u8() % 9;
  const uint8_t control = r.u8();
  HeapArray<uint64_t> offsets(count + 1);
  for (size_t i = 0; i <= count; ++i) offsets[i] = r.u16() % 600;
  const HeapBytes data(r.remainder());
  Bytes tk_v(32 * count), iv_v(16 * count);
  for (size_t i = 0; i < tk_v.size(); ++i) tk_v[i] = uint8_t(i * 29 + 3);
  for (size_t i = 0; i < iv_v.size(); ++i) iv_v[i] = uint8_t(0xF0 + i);  // counters that carry
  const HeapBytes tweakeys(tk_v), ivs(iv_v);
  bool offsets_ok = (control & 4) == 0;
  for (size_t i = 0; offsets_ok && i < count; ++i) offsets_ok = offsets[i] <= offsets[i + 1];
  offsets_ok = offsets_ok && offsets[count] <= data.size();
  const size_t need = offsets_ok && count > 0 ? size_t(offsets[count]) : 0;
  const size_t out_len = (control & 8) && need > 0 ? need - 1 : need;
  const bool mode_ok = mode == KS_SKINNY_ECB || mode == KS_SKINNY_CTR;
  const bool tk_ok = (control & 2) == 0 || count == 0;
  const bool ivs_ok = mode != KS_SKINNY_CTR || (control & 16) == 0 || count == 0;
  const bool valid = mode_ok && tk_ok && ivs_ok && offsets_ok && out_len >= need;
  HeapBytes out(out_len);
  HeapArray<int> status(count);
  for (size_t i = 0; i < count; ++i) status[i] = 12345;
  const Bytes out_before(out.data(), out.data() + out.size());
  ks_ctx* ctx = cpu_ctx(2);
  const int rc = ks_skinny128_256_batch(
      ctx, mode, encrypt, (control & 2) ? nullptr : tweakeys.data(),
      (control & 16) ? nullptr : ivs.data(), data.data(), data.size(),
      (control & 4) ? nullptr : offsets.data(), count, out.data(), out.size(),
      (control & 1) ? nullptr : status.data());
  ks_ctx_free(ctx);
  if (!valid) {
    ks_fuzz::expect_rejected("ks_skinny128_256_batch", rc, status, 12345, out, out_before);
    return;
  }
  KS_FUZZ_CHECK(rc == KS_OK || rc == KS_ERR_BATCH_ITEMS, "good arguments answered %d", rc);
  if (control & 1) return;
  for (size_t i = 0; i < count; ++i) {
    const size_t b = size_t(offsets[i]), len = size_t(offsets[i + 1] - offsets[i]);
    const HeapBytes in(data.data() + b, len);
    HeapBytes expect(len);
    const bool ctr = mode == KS_SKINNY_CTR;
    const int item = ks_skinny128_256_crypt(mode, encrypt, tweakeys.data() + 32 * i,
                                            ctr ? ivs.data() + 16 * i : nullptr, ctr ? 16 : 0,
                                            in.data(), len, expect.data());
    KS_FUZZ_CHECK(status[i] == item, "item %zu: batch %d, one-item %d", i, status[i], item);
    if (item == KS_OK)
      KS_FUZZ_CHECK(len == 0 || memcmp(out.data() + b, expect.data(), len) == 0, "item %zu", i);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r(data, size);
  if (r.u8() & 1) {
    batch_case(r);
  } else {
    single_case(r);
  }
  return 0;
}
