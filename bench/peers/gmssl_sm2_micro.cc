// GmSSL's SM2 (its sm2_z256 x86-64 assembly, ENABLE_SM2_AMD64) timed the
// way tools/sm2_micro.cc times kuaisuo: ~0.25 s of this thread's CPU time a
// measurement, the median of the repetitions. Built and run by
// sm2_native_peers.sh, never by the project's build.
//
// Two keygen rows because GmSSL's sm2_key_generate stops at a Jacobian
// public key, looked up by the secret Booth digit (g_pre_comp[i][booth - 1]
// in sm2_z256_point_mul_generator: a secret-dependent index and branch);
// kuaisuo's keygen scans every table entry and returns the affine key, so
// "keygen + affine" (sm2_z256_point_to_bytes: the inversion) is the
// like-for-like row.
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "micro_timing.h"
extern "C" {
#include <gmssl/sm2.h>
}

namespace {

double rate(const std::function<void()>& op) { return ks_micro::calls_per_second(op, 0.25, 16); }

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 5;
  SM2_KEY key;
  uint8_t dgst[32];
  for (int i = 0; i < 32; ++i) dgst[i] = uint8_t(i * 7 + 1);
  SM2_SIGNATURE sig;
  if (sm2_key_generate(&key) != 1 || sm2_do_sign(&key, dgst, &sig) != 1 ||
      sm2_do_verify(&key, dgst, &sig) != 1) {
    fprintf(stderr, "gmssl_sm2_micro: GmSSL's own sign/verify round trip failed\n");
    return 1;
  }
  std::vector<double> keygen, keygen_affine, sign, verify;
  for (int r = 0; r < reps; ++r) {
    keygen.push_back(rate([] {
      SM2_KEY k;
      sm2_key_generate(&k);
    }));
    keygen_affine.push_back(rate([] {
      SM2_KEY k;
      uint8_t pub[64];
      sm2_key_generate(&k);
      sm2_z256_point_to_bytes(&k.public_key, pub);
    }));
    sign.push_back(rate([&] {
      SM2_SIGNATURE s;
      sm2_do_sign(&key, dgst, &s);
    }));
    verify.push_back(rate([&] { sm2_do_verify(&key, dgst, &sig); }));
  }
  using ks_micro::median;
  printf("GmSSL keygen (Jacobian key, secret-indexed table) %10.0f/s\n", median(keygen));
  printf("GmSSL keygen + affine public key                  %10.0f/s\n", median(keygen_affine));
  printf("GmSSL sign (digest, r and s)                      %10.0f/s\n", median(sign));
  printf("GmSSL verify (digest, r and s)                    %10.0f/s\n", median(verify));
  return 0;
}
