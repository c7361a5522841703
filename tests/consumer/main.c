/* A C program built against the installed library, the way a user builds
 * one: through pkg-config (shared, and static with --static) and through
 * CMake's find_package (tests/consumer/run.sh). Checks the GB/T 32905 SM3
 * example and the GB/T 32907 SM4 example. */
#include <kuaisuo.h>
#include <stdio.h>
#include <string.h>

static const uint8_t kSm3Abc[32] = {
    0x66, 0xc7, 0xf0, 0xf4, 0x62, 0xee, 0xed, 0xd9, 0xd1, 0xf2, 0xd4, 0x6b, 0xdc, 0x10, 0xe4, 0xe2,
    0x41, 0x67, 0xc4, 0x87, 0x5c, 0xf2, 0xf7, 0xa2, 0x29, 0x7d, 0xa0, 0x2b, 0x8f, 0x4b, 0xa8, 0xe0};
static const uint8_t kSm4Key[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                    0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
static const uint8_t kSm4Ct[16] = {0x68, 0x1e, 0xdf, 0x34, 0xd2, 0x06, 0x96, 0x5e,
                                   0x86, 0xb3, 0xe9, 0x4f, 0x53, 0x6e, 0x42, 0x46};

int main(void) {
  uint8_t digest[KS_SM3_DIGEST_BYTES], ct[16];
  size_t ct_len = 0;
  if (ks_sm3((const uint8_t*)"abc", 3, digest) != KS_OK || memcmp(digest, kSm3Abc, 32) != 0) {
    fprintf(stderr, "SM3(\"abc\") is wrong\n");
    return 1;
  }
  if (ks_sm4_crypt(KS_SM4_ECB, KS_ENCRYPT, 0, kSm4Key, NULL, 0, kSm4Key, 16, ct, sizeof ct,
                   &ct_len) != KS_OK ||
      ct_len != 16 || memcmp(ct, kSm4Ct, 16) != 0) {
    fprintf(stderr, "SM4 is wrong\n");
    return 1;
  }
  printf("kuaisuo %s: SM3 and SM4 examples OK\n", ks_version_string());
  return 0;
}
