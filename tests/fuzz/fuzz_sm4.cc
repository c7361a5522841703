// fuzz_sm4: the SM4 C API with lengths, modes, cut points, offsets and
// NULL pointers taken from the input.
//
// Input layout (fields past the end of the input read as zeros):
//   op        1 byte: even = stream, odd = batch
//   stream:   mode (mod 6; 5 = GCM), flags byte, key (16), IV (16; GCM: an
//             IV-length byte, then that many bytes), for GCM an AAD length
//             byte and the AAD, then the text as records: 1 byte c, then
//             c bytes (c == 0: a (NULL, 0) piece)
//   batch:    mode (mod 6), encrypt flag, flags byte, count (mod 9),
//             iv_len byte, tag_len byte, control byte (bit 0: status NULL,
//             bit 1: keys NULL, bit 2: offsets NULL, bit 3: out one byte
//             short), count + 1 offsets (u16 each), then the data
//
// Every buffer is an exactly-sized heap allocation (fuzz_util.h), so a read
// or write past what a call was given is an AddressSanitizer report.
// Properties checked:
//  - streams: update never writes past the bound it documents (len + 16
//    for ECB/CBC, len otherwise; the output buffer is exactly that), and
//    the stream's output equals the one-shot call's (ks_sm4_crypt, or
//    ks_sm4_gcm_seal and its tag); decrypting it gives the text back; a
//    GCM tag with a flipped bit is refused and the one-shot open leaves its
//    output as it was;
//  - batch: arguments the header calls bad (this harness works out which
//    from the arguments themselves) get a bad-argument code, no status and
//    no output byte written; good ones get KS_OK or KS_ERR_BATCH_ITEMS, and
//    every item equals the one-item call.
#include <string.h>

#include <vector>

#include "fuzz_util.h"

using ks_fuzz::HeapArray;
using ks_fuzz::HeapBytes;
using ks_fuzz::Reader;
using Bytes = std::vector<uint8_t>;

namespace {

bool is_block_mode(int mode) { return mode == KS_SM4_ECB || mode == KS_SM4_CBC; }

size_t stream_bound(int mode, size_t len) { return is_block_mode(mode) ? len + 16 : len; }

// The text's pieces: the cut points of a stream.
std::vector<Bytes> pieces(Reader& r) {
  std::vector<Bytes> out;
  while (r.left() > 0) out.push_back(r.bytes(r.u8()));
  return out;
}

Bytes concat(const std::vector<Bytes>& ps) {
  Bytes all;
  for (const Bytes& p : ps) all.insert(all.end(), p.begin(), p.end());
  return all;
}

// Feeds the pieces through a ks_sm4_ctx; false if init refuses the mode.
bool run_stream(int mode, int encrypt, uint32_t flags, const Bytes& key, const Bytes& iv,
                const std::vector<Bytes>& ps, Bytes* out, int* final_rc) {
  ks_sm4_ctx c;
  const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
  if (ks_sm4_init(&c, mode, encrypt, flags, key.data(), iv.data(), iv_len) != KS_OK) return false;
  out->clear();
  for (const Bytes& p : ps) {
    const HeapBytes in(p);
    HeapBytes dst(stream_bound(mode, p.size()));
    size_t n = 0;
    KS_FUZZ_OK(ks_sm4_update(&c, p.empty() ? nullptr : in.data(), p.size(),
                             dst.size() == 0 ? nullptr : dst.data(), dst.size(), &n));
    KS_FUZZ_CHECK(n <= dst.size(), "update wrote %zu of %zu", n, dst.size());
    out->insert(out->end(), dst.data(), dst.data() + n);
  }
  HeapBytes last(16);
  size_t n = 0;
  *final_rc = ks_sm4_final(&c, last.data(), 16, &n);
  out->insert(out->end(), last.data(), last.data() + n);
  return true;
}

void stream_case(Reader& r) {
  const int mode = r.u8() % 6;
  const uint32_t flags = r.u8() & 1;
  const Bytes key = r.fixed(16);
  if (mode == KS_SM4_GCM) {
    const Bytes iv = r.fixed(1 + r.u8() % 64), aad = r.bytes(r.u8());
    const std::vector<Bytes> ps = pieces(r);
    const Bytes text = concat(ps);
    ks_sm4_gcm_ctx c;
    KS_FUZZ_OK(ks_sm4_gcm_init(&c, 1, key.data(), iv.data(), iv.size()));
    KS_FUZZ_OK(ks_sm4_gcm_aad(&c, aad.empty() ? nullptr : aad.data(), aad.size()));
    Bytes streamed;
    for (const Bytes& p : ps) {
      const HeapBytes in(p);
      HeapBytes dst(p.size());
      KS_FUZZ_OK(ks_sm4_gcm_update(&c, in.data(), p.size(), dst.data()));
      streamed.insert(streamed.end(), dst.data(), dst.data() + p.size());
    }
    uint8_t tag[16], tag2[16];
    KS_FUZZ_OK(ks_sm4_gcm_final(&c, tag, 16));
    const HeapBytes in(text), a(aad);
    HeapBytes ct(text.size()), back(text.size());
    KS_FUZZ_OK(ks_sm4_gcm_seal(key.data(), iv.data(), iv.size(), a.data(), a.size(), in.data(),
                               in.size(), ct.data(), tag2, 16));
    KS_FUZZ_CHECK(memcmp(tag, tag2, 16) == 0, "streamed tag != one-shot tag");
    KS_FUZZ_CHECK(text.empty() || memcmp(ct.data(), streamed.data(), text.size()) == 0,
                  "streamed GCM != one-shot");
    KS_FUZZ_OK(ks_sm4_gcm_open(key.data(), iv.data(), iv.size(), a.data(), a.size(), ct.data(),
                               ct.size(), tag, 16, back.data()));
    KS_FUZZ_CHECK(text.empty() || memcmp(back.data(), text.data(), text.size()) == 0,
                  "GCM open != text");
    tag[text.size() % 16] ^= uint8_t(1 << (text.size() % 8));
    memset(back.data(), 0xa5, back.size());
    KS_FUZZ_CHECK(ks_sm4_gcm_open(key.data(), iv.data(), iv.size(), a.data(), a.size(),
                                  ct.data(), ct.size(), tag, 16, back.data()) ==
                      KS_ERR_TAG_MISMATCH,
                  "a flipped tag bit was accepted");
    for (size_t i = 0; i < back.size(); ++i)
      KS_FUZZ_CHECK(back[i] == 0xa5, "open wrote output for a bad tag");
    return;
  }
  const Bytes iv = r.fixed(16);
  const std::vector<Bytes> ps = pieces(r);
  const Bytes text = concat(ps);
  Bytes streamed;
  int final_rc = KS_OK;
  if (!run_stream(mode, 1, flags, key, iv, ps, &streamed, &final_rc)) return;  // e.g. CTR + pad
  const HeapBytes in(text);
  size_t need = 0;
  const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
  const int probe = ks_sm4_crypt(mode, KS_ENCRYPT, flags, key.data(), iv.data(), iv_len,
                                 in.data(), in.size(), nullptr, 0, &need);
  if (final_rc != KS_OK) {  // a partial block without padding: the one-shot says so too
    KS_FUZZ_CHECK(probe == KS_ERR_LENGTH && text.size() % 16 != 0, "final %d, one-shot %d",
                  final_rc, probe);
    return;
  }
  HeapBytes ct(need);
  size_t n = 0;
  KS_FUZZ_OK(ks_sm4_crypt(mode, KS_ENCRYPT, flags, key.data(), iv.data(), iv_len, in.data(),
                          in.size(), ct.data(), ct.size(), &n));
  KS_FUZZ_CHECK(n == streamed.size() && (n == 0 || memcmp(ct.data(), streamed.data(), n) == 0),
                "streamed != one-shot");
  // Back through a decrypting stream cut at the same lengths.
  std::vector<Bytes> cps;
  size_t off = 0;
  for (const Bytes& p : ps) {
    const size_t take = p.size() < n - off ? p.size() : n - off;
    cps.emplace_back(ct.data() + off, ct.data() + off + take);
    off += take;
  }
  if (off < n) cps.emplace_back(ct.data() + off, ct.data() + n);
  Bytes back;
  KS_FUZZ_CHECK(run_stream(mode, 0, flags, key, iv, cps, &back, &final_rc), "decrypt init");
  KS_FUZZ_CHECK(final_rc == KS_OK && back == text, "decrypt(encrypt(x)) != x");
}

// --- batch ------------------------------------------------------------------

void batch_case(Reader& r) {
  const int mode = r.u8() % 6;
  const int encrypt = r.u8() & 1;
  const uint32_t flags = r.u8() % 3 == 0 ? 1 : 0;
  const size_t count = r.u8() % 9;
  const size_t iv_len = r.u8() % 20;
  const size_t tag_len = r.u8() % 18;
  const uint8_t control = r.u8();
  HeapArray<uint64_t> offsets(count + 1);
  for (size_t i = 0; i <= count; ++i) offsets[i] = r.u16() % 600;
  const Bytes data_v = r.remainder();
  const HeapBytes data(data_v);
  const HeapBytes keys(Bytes(16 * count, 0x3c));
  Bytes ivs_v(iv_len * count);
  for (size_t i = 0; i < ivs_v.size(); ++i) ivs_v[i] = uint8_t(i * 7);
  const HeapBytes ivs(ivs_v);
  // Valid arguments, worked out from the header's rules.
  bool offsets_ok = (control & 4) == 0;
  for (size_t i = 0; offsets_ok && i < count; ++i) offsets_ok = offsets[i] <= offsets[i + 1];
  offsets_ok = offsets_ok && offsets[count] <= data.size();
  const size_t need = offsets_ok && count > 0 ? size_t(offsets[count]) : 0;  // no items: no output
  const size_t out_len = (control & 8) && need > 0 ? need - 1 : need;
  const bool iv_ok = mode == KS_SM4_ECB ? iv_len == 0 : mode == KS_SM4_GCM ? iv_len >= 1 : iv_len == 16;
  const bool tag_ok = mode != KS_SM4_GCM || (tag_len >= 4 && tag_len <= 16);
  const bool keys_ok = (control & 2) == 0 || count == 0;
  const bool valid = flags == 0 && iv_ok && tag_ok && keys_ok && offsets_ok && out_len >= need;
  HeapBytes out(out_len), tags(mode == KS_SM4_GCM && tag_ok ? tag_len * count : 0);
  HeapArray<int> status(count);
  for (size_t i = 0; i < count; ++i) status[i] = 12345;
  Bytes out_before(out.data(), out.data() + out.size());
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  cfg.backend = KS_BACKEND_CPU;
  cfg.cpu_threads = 2;
  ks_ctx* ctx = nullptr;
  KS_FUZZ_OK(ks_ctx_new(&cfg, &ctx));
  const int rc = ks_sm4_batch(ctx, mode, encrypt, flags, (control & 2) ? nullptr : keys.data(),
                              ivs.data(), iv_len, data.data(), data.size(),
                              (control & 4) ? nullptr : offsets.data(), count, out.data(),
                              out.size(), nullptr, 0, nullptr, tags.data(), tag_len,
                              (control & 1) ? nullptr : status.data());
  ks_ctx_free(ctx);
  if (!valid) {
    ks_fuzz::expect_rejected("ks_sm4_batch", rc, status, 12345, out, out_before);
    return;
  }
  KS_FUZZ_CHECK(rc == KS_OK || rc == KS_ERR_BATCH_ITEMS, "good arguments answered %d", rc);
  if (control & 1) return;
  for (size_t i = 0; i < count; ++i) {
    const size_t b = size_t(offsets[i]), len = size_t(offsets[i + 1] - offsets[i]);
    const HeapBytes in(Bytes(data.data() + b, data.data() + b + len));
    HeapBytes expect(len + 16);
    int item;
    if (mode == KS_SM4_GCM) {
      if (encrypt) {
        uint8_t tag[16];
        item = ks_sm4_gcm_seal(keys.data(), ivs.data() + iv_len * i, iv_len, nullptr, 0, in.data(),
                               len, expect.data(), tag, tag_len);
        KS_FUZZ_CHECK(item != KS_OK || memcmp(tag, tags.data() + tag_len * i, tag_len) == 0,
                      "item %zu tag", i);
      } else {
        item = ks_sm4_gcm_open(keys.data(), ivs.data() + iv_len * i, iv_len, nullptr, 0, in.data(),
                               len, tags.data() + tag_len * i, tag_len, expect.data());
      }
    } else {
      size_t n = 0;
      item = ks_sm4_crypt(mode, encrypt, 0, keys.data() + 16 * i, ivs.data() + iv_len * i,
                          iv_len, in.data(), len, expect.data(), expect.size(), &n);
    }
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
    stream_case(r);
  }
  return 0;
}
