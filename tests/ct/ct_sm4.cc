// Runs the SM4 key expansion, encryption and decryption on every kernel the
// CPU offers, the modes, GHASH on every kernel, and GCM, with the key and
// the plaintext marked undefined (see core/secure.h). Under valgrind
// (KS_CTGRIND) or built with MemorySanitizer (KS_CT_MSAN), any branch or
// address that depends on them is an error. Prints "N passed, 0 failed"
// when the operations themselves succeed (the checker's exit code carries
// the verdict on timing).
//
// Public by design, and declassified where they are produced: the verdict
// of a tag or padding check. IVs and lengths are public. GCM runs with
// 96-bit IVs here: with other lengths the counter derives from the key
// (src/cipher/gcm.cc says what follows from that). valgrind emulates a CPU
// without AVX-512 and GFNI, so it checks the portable, AES-NI (AVX2) and
// PCLMUL paths; the MSan build checks the others.
#include <stdio.h>
#include <string.h>

#include <initializer_list>

#include "cipher/gcm.h"
#include "cipher/ghash.h"
#include "cipher/modes.h"
#include "sm4/sm4.h"
#include "core/os_random.h"
#include "core/secure.h"
#include "kuaisuo.h"
#include "ct_tally.h"

namespace {

using ks_ct::expect;

constexpr size_t kBlocks = 150;  // every group size and a tail in each kernel

void kernels() {
  size_t count = 0;
  const ks::sm4::Variant* table = ks::sm4::variants(&count);
  for (size_t i = 0; i < count; ++i) {
    if (!table[i].usable) continue;
    uint8_t key[16], pt[16 * kBlocks], ct[16 * kBlocks], back[16 * kBlocks], counter[16] = {};
    ks_ct::secret_random(key, sizeof key);
    ks_ct::secret_random(pt, sizeof pt);
    ks::sm4::Key k;
    ks::sm4::set_key(&k, key, table[i]);
    for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(5), kBlocks}) {
      ks::sm4::encrypt_blocks(k, pt, ct, n);
      ks::sm4::decrypt_blocks(k, ct, back, n);
      ks::sm4::ctr_blocks(k, counter, pt, ct, n);
    }
    // The serial modes one block at a time, and many messages one per lane
    // (each its own secret key and data).
    for (ks::ChainMode mode : {ks::ChainMode::kCbc, ks::ChainMode::kCfb, ks::ChainMode::kOfb}) {
      uint8_t iv[16] = {7};
      table[i].chain(k.enc, mode, iv, pt, ct, 9);
      uint8_t raw[3][16], ivs[3][16] = {};
      ks::sm4::ChainJob jobs[3];
      for (size_t m = 0; m < 3; ++m) {
        ks_ct::secret_random(raw[m], sizeof raw[m]);
        jobs[m] = {raw[m], ivs[m], pt + 48 * m, ct + 48 * m, m + 1};
      }
      table[i].chain_lanes(mode, jobs, 3);
    }
    ks::ct_declassify(back, sizeof back);
    ks::ct_declassify(pt, sizeof pt);
    expect(memcmp(back, pt, sizeof pt) == 0, table[i].name);
    ks::sm4::wipe_key(&k);
  }
}

void modes_of_operation() {
  uint8_t key[16], pt[1000], out[1000 + 16], iv[16] = {1, 2, 3};
  ks_ct::secret_random(key, sizeof key);
  ks_ct::secret_random(pt, sizeof pt);
  const ks::BlockCipher& bc = ks::sm4::block_cipher();
  ks::sm4::Key k;
  ks::sm4::set_key(&k, key);
  uint8_t chain[16];
  memcpy(chain, iv, 16);
  ks::modes::cbc_encrypt(bc, &k, chain, pt, out, 992);
  memcpy(chain, iv, 16);
  ks::modes::cbc_decrypt(bc, &k, chain, out, out, 992);
  ks::modes::StreamState st;
  ks::modes::stream_init(&st, iv);
  ks::modes::cfb_encrypt(bc, &k, &st, pt, out, 1000);
  ks::modes::stream_init(&st, iv);
  ks::modes::cfb_decrypt(bc, &k, &st, out, out, 1000);
  ks::modes::stream_init(&st, iv);
  ks::modes::ofb_crypt(bc, &k, &st, pt, out, 1000);
  ks::modes::stream_init(&st, iv);
  ks::modes::ctr_crypt(bc, &k, &st, pt, out, 1000);
  // PKCS#7 through the stream: padding checked on secret plaintext.
  ks::modes::Stream s;
  s.init(ks::modes::Mode::kCbc, true, true, iv);
  size_t n = s.update(bc, &k, pt, 999, out), last = 0;
  expect(s.finish(bc, &k, out + n, &last) == ks::modes::Status::kOk, "cbc pkcs7 encrypt");
  s.init(ks::modes::Mode::kCbc, false, true, iv);
  uint8_t dec[1016];
  n = s.update(bc, &k, out, 1008, dec);
  expect(s.finish(bc, &k, dec + n, &last) == ks::modes::Status::kOk, "cbc pkcs7 decrypt");
  ks::sm4::wipe_key(&k);
}

// An expanded key reused across calls (ks_sm4_schedule).
void schedule() {
  uint8_t key[16], pt[80], out[96], iv[16] = {4};
  ks_ct::secret_random(key, sizeof key);
  ks_ct::secret_random(pt, sizeof pt);
  ks_sm4_schedule s;
  expect(ks_sm4_schedule_init(&s, key) == KS_OK, "schedule init");
  size_t n = 0;
  for (int mode : {KS_SM4_CBC, KS_SM4_CFB, KS_SM4_OFB, KS_SM4_CTR})
    expect(ks_sm4_schedule_crypt(&s, mode, KS_ENCRYPT, 0, iv, 16, pt, 80, out, 96, &n) == KS_OK,
           "schedule crypt");
  ks_sm4_schedule_cleanse(&s);
}

void ghash_kernels() {
  size_t count = 0;
  const ks::ghash::Variant* table = ks::ghash::variants(&count);
  for (size_t i = 0; i < count; ++i) {
    if (!table[i].usable) continue;
    uint8_t h[16], data[16 * 40], y[16] = {};
    ks_ct::secret_random(h, sizeof h);
    ks_ct::secret_random(data, sizeof data);
    ks::ghash::Key key;
    ks::ghash::init(&key, h, table[i]);
    for (size_t n : {size_t(1), size_t(7), size_t(16), size_t(40)}) ks::ghash::blocks(key, y, data, n);
    ks::ct_declassify(y, sizeof y);
    expect(true, table[i].name);
  }
}

void gcm() {
  uint8_t key[16], pt[777], ct[777], back[777], aad[33], tag[16], iv[12] = {9, 8, 7};
  ks_ct::secret_random(key, sizeof key);
  ks_ct::secret_random(pt, sizeof pt);
  ks_ct::secret_random(aad, sizeof aad);
  expect(ks_sm4_gcm_seal(key, iv, 12, aad, sizeof aad, pt, sizeof pt, ct, tag, 16) == KS_OK,
         "gcm seal");
  ks::ct_declassify(ct, sizeof ct);  // what goes on the wire
  ks::ct_declassify(tag, sizeof tag);
  expect(ks_sm4_gcm_open(key, iv, 12, aad, sizeof aad, ct, sizeof ct, tag, 16, back) == KS_OK,
         "gcm open");
  tag[0] ^= 1;
  expect(ks_sm4_gcm_open(key, iv, 12, aad, sizeof aad, ct, sizeof ct, tag, 16, back) ==
             KS_ERR_TAG_MISMATCH,
         "gcm open rejects a bad tag");
  // The C API's one-shot CBC with padding, both ways.
  const uint8_t iv16[16] = {5};
  size_t n = 0, m = 0;
  uint8_t out[800], dec[800];
  expect(ks_sm4_crypt(KS_SM4_CBC, KS_ENCRYPT, KS_SM4_PAD_PKCS7, key, iv16, 16, pt, 500, out,
                      sizeof out, &n) == KS_OK &&
             n == 512,
         "C API cbc encrypt");
  expect(ks_sm4_crypt(KS_SM4_CBC, KS_DECRYPT, KS_SM4_PAD_PKCS7, key, iv16, 16, out, n, dec,
                      sizeof dec, &m) == KS_OK &&
             m == 500,
         "C API cbc decrypt");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--leak") == 0) return ks_ct::leak_on_purpose();
  kernels();
  modes_of_operation();
  schedule();
  ghash_kernels();
  gcm();
  const ks_ct::Tally& t = ks_ct::tally();
  printf("%d passed, %d failed (cpu: %s; sm4 %s, ghash %s)\n", t.passes, t.failures,
         ks_cpu_features(), ks::sm4::chosen_variant().name, ks::ghash::chosen_variant().name);
  return t.failures == 0 ? 0 : 1;
}
