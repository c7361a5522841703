// Runs the SKINNY-128-256 tweakey schedule, encryption, decryption, CTR
// (block function, modes.h streaming and the C API's buffer and tweak-per-
// block calls) with the tweakey, the tweaks and the plaintext marked
// undefined (see core/secure.h). Under valgrind (KS_CTGRIND) or built
// with MemorySanitizer (KS_CT_MSAN), any branch or address that depends on
// them is an error. The table-based baseline is not run: it indexes a
// table with secret bytes by design (benchmarks only). Prints "N passed, 0
// failed" when the operations themselves succeed.
#include <stdio.h>
#include <string.h>

#include "cipher/modes.h"
#include "skinny/skinny128_256.h"
#include "core/secure.h"
#include "kuaisuo.h"
#include "ct_tally.h"

namespace {

using ks_ct::expect;

// 57 blocks: two groups of 16 side by side, one group of 16, 8 (AVX2
// kernels) and a tail, so that every kernel the CPU (or valgrind's
// emulated CPU) offers runs on secret data.
constexpr size_t kBlocks = 57;

void blocks_and_modes() {
  uint8_t tweakey[32], pt[16 * kBlocks], ct[16 * kBlocks], back[16 * kBlocks];
  uint8_t counter[16] = {9, 9};
  ks_ct::secret_random(tweakey, sizeof tweakey);
  ks_ct::secret_random(pt, sizeof pt);
  ks::skinny::Key k;
  ks::skinny::set_key(&k, tweakey);
  ks::skinny::encrypt_blocks(k, pt, ct, kBlocks);
  ks::skinny::decrypt_blocks(k, ct, back, kBlocks);
  ks::skinny::ctr_blocks(k, counter, pt, ct, kBlocks);
  ks::modes::StreamState st;
  ks::modes::stream_init(&st, counter);
  ks::modes::ctr_crypt(ks::skinny::block_cipher(), &k, &st, pt, ct, 100);
  ks::ct_declassify(back, sizeof back);
  ks::ct_declassify(pt, sizeof pt);
  expect(memcmp(back, pt, sizeof pt) == 0, "decrypt(encrypt(x))");
  ks::skinny::wipe_key(&k);
}

void c_api() {
  // 19 tweaked blocks: a whole group of 16 (each lane its own round
  // tweakeys) and a zero-padded one.
  constexpr size_t kTweaked = 19;
  uint8_t tweakey[32], key[16], tweaks[16 * kTweaked], pt[16 * kTweaked], ct[16 * kTweaked],
      back[16 * kTweaked];
  const uint8_t iv[16] = {1};
  ks_ct::secret_random(tweakey, sizeof tweakey);
  ks_ct::secret_random(key, sizeof key);
  ks_ct::secret_random(tweaks, sizeof tweaks);
  ks_ct::secret_random(pt, sizeof pt);
  expect(ks_skinny128_256_crypt(KS_SKINNY_CTR, 1, tweakey, iv, 16, pt, 40, ct) == KS_OK, "ctr");
  expect(ks_skinny128_256_tweaked_blocks(1, key, tweaks, pt, ct, kTweaked) == KS_OK, "tweaked");
  expect(ks_skinny128_256_tweaked_blocks(0, key, tweaks, ct, back, kTweaked) == KS_OK,
         "untweaked");
  ks::ct_declassify(back, sizeof back);
  ks::ct_declassify(pt, sizeof pt);
  expect(memcmp(back, pt, sizeof pt) == 0, "tweaked round trip");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--leak") == 0) return ks_ct::leak_on_purpose();
  blocks_and_modes();
  c_api();
  const ks_ct::Tally& t = ks_ct::tally();
  printf("%d passed, %d failed (skinny kernel: %s)\n", t.passes, t.failures,
         ks::skinny::kernel_name());
  return t.failures == 0 ? 0 : 1;
}
