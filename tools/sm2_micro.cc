// One-thread SM2 micro-benchmark: keygen, sign (digest), verify (digest),
// encryption and decryption of 64 bytes (DER form), verification and
// encryption under one key with its comb table (curve::make_point_table;
// the table built once, outside the timing), ours against OpenSSL's EVP
// SM2 in the same process. Each measurement runs
// for ~0.25 s of this thread's CPU time (CLOCK_THREAD_CPUTIME_ID, so that
// other processes on a shared machine do not count against either side);
// ours and OpenSSL's alternate, and the median of the repetitions is
// reported with the ratio.
//   sm2_micro [repetitions]
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

#include <functional>
#include <vector>

#include "core/cpu_features.h"
#include "micro_timing.h"
#include "sm2/sm2.h"
#include "sm2/sm2_curve.h"
#include "sm2/sm2_encrypt.h"

namespace {

using namespace ks::sm2;
using ks_micro::median;

// Operations per second over ~0.25 s.
double ops_per_second(const std::function<void()>& op) {
  return ks_micro::calls_per_second(op, 0.25, 16);
}

void check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "sm2_micro: %s failed\n", what);
    exit(1);
  }
}

struct OpenSsl {
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* sign_ctx = nullptr;
  EVP_PKEY_CTX* verify_ctx = nullptr;
  EVP_PKEY_CTX* encrypt_ctx = nullptr;
  EVP_PKEY_CTX* decrypt_ctx = nullptr;
  OpenSsl() {
    key = EVP_PKEY_Q_keygen(nullptr, nullptr, "SM2");
    sign_ctx = EVP_PKEY_CTX_new(key, nullptr);
    verify_ctx = EVP_PKEY_CTX_new(key, nullptr);
    encrypt_ctx = EVP_PKEY_CTX_new(key, nullptr);
    decrypt_ctx = EVP_PKEY_CTX_new(key, nullptr);
    check(key && EVP_PKEY_sign_init(sign_ctx) == 1 && EVP_PKEY_verify_init(verify_ctx) == 1 &&
              EVP_PKEY_encrypt_init(encrypt_ctx) == 1 && EVP_PKEY_decrypt_init(decrypt_ctx) == 1,
          "OpenSSL setup");
  }
  ~OpenSsl() {
    EVP_PKEY_CTX_free(sign_ctx);
    EVP_PKEY_CTX_free(verify_ctx);
    EVP_PKEY_CTX_free(encrypt_ctx);
    EVP_PKEY_CTX_free(decrypt_ctx);
    EVP_PKEY_free(key);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 5;
  uint8_t e[kDigestBytes];
  for (size_t i = 0; i < sizeof e; ++i) e[i] = uint8_t(i * 37 + 1);

  PrivateKey key;
  check(generate_key(key) == Error::kOk, "generate_key");
  uint8_t sig[kSignatureBytes];
  check(sign_digest(sig, key, e) == Error::kOk, "sign");
  check(verify_digest(key.pub, e, sig) == Error::kOk, "verify");

  const ks::curve::PointTablePtr table = ks::curve::make_point_table(key.pub.point);
  check(table != nullptr && verify_digest(key.pub, e, sig, table.get()) == Error::kOk,
        "verify with the key's table");
  uint8_t msg[64], ct[64 + kCiphertextOverhead + kDerExtraBytes], plain[64];
  for (size_t i = 0; i < sizeof msg; ++i) msg[i] = uint8_t(i);
  size_t ct_len = 0, plain_len = 0;
  check(encrypt(key.pub, msg, sizeof msg, CipherForm::kDer, ct, sizeof ct, &ct_len, nullptr,
                table.get()) == Error::kOk &&
            decrypt(key, ct, ct_len, CipherForm::kDer, plain, sizeof plain, &plain_len) ==
                Error::kOk &&
            plain_len == sizeof msg,
        "encrypt with the key's table");

  OpenSsl ossl;
  unsigned char der[80];
  size_t der_len = sizeof der;
  check(EVP_PKEY_sign(ossl.sign_ctx, der, &der_len, e, sizeof e) == 1, "OpenSSL sign");
  check(EVP_PKEY_verify(ossl.verify_ctx, der, der_len, e, sizeof e) == 1, "OpenSSL verify");

  unsigned char ossl_ct[sizeof ct];
  size_t ossl_ct_len = sizeof ossl_ct;
  check(EVP_PKEY_encrypt(ossl.encrypt_ctx, ossl_ct, &ossl_ct_len, msg, sizeof msg) == 1,
        "OpenSSL encrypt");
  const std::function<void()> ossl_verify = [&] {
    EVP_PKEY_verify(ossl.verify_ctx, der, der_len, e, sizeof e);
  };
  const std::function<void()> ossl_encrypt = [&] {
    unsigned char out[sizeof ct];
    size_t len = sizeof out;
    EVP_PKEY_encrypt(ossl.encrypt_ctx, out, &len, msg, sizeof msg);
  };
  struct Row {
    const char* name;
    std::function<void()> ours, theirs;
  };
  const Row rows[] = {
      {"keygen (d, P)",
       [&] {
         uint8_t d[kScalarBytes];
         PublicKey pub;
         generate_keypair(d, pub);
       },
       [&] { EVP_PKEY_free(EVP_PKEY_Q_keygen(nullptr, nullptr, "SM2")); }},
      {"sign (digest)", [&] { sign_digest(sig, key, e); },
       [&] {
         unsigned char out[80];
         size_t len = sizeof out;
         EVP_PKEY_sign(ossl.sign_ctx, out, &len, e, sizeof e);
       }},
      {"verify (digest)", [&] { verify_digest(key.pub, e, sig); }, ossl_verify},
      {"verify (table)", [&] { verify_digest(key.pub, e, sig, table.get()); }, ossl_verify},
      {"encrypt 64 B", [&] { encrypt(key.pub, msg, sizeof msg, CipherForm::kDer, ct, sizeof ct,
                                     &ct_len); }, ossl_encrypt},
      {"encrypt (table)", [&] { encrypt(key.pub, msg, sizeof msg, CipherForm::kDer, ct,
                                        sizeof ct, &ct_len, nullptr, table.get()); },
       ossl_encrypt},
      {"decrypt 64 B", [&] { decrypt(key, ct, ct_len, CipherForm::kDer, plain, sizeof plain,
                                     &plain_len); },
       [&] {
         unsigned char out[sizeof ct];
         size_t len = sizeof out;
         EVP_PKEY_decrypt(ossl.decrypt_ctx, out, &len, ossl_ct, ossl_ct_len);
       }},
  };
  printf("CPU: %s [%s], one thread, median of %d runs of 0.25 s CPU time\n",
         ks::cpu_model_name().c_str(), ks::cpu_feature_string(ks::cpu_features()).c_str(), reps);
  printf("%-16s %14s %14s %8s\n", "op", "kuaisuo ops/s", "OpenSSL ops/s", "ratio");
  for (const Row& row : rows) {
    std::vector<double> ours_runs, theirs_runs;
    for (int i = 0; i < reps; ++i) {
      ours_runs.push_back(ops_per_second(row.ours));
      theirs_runs.push_back(ops_per_second(row.theirs));
    }
    const double ours = median(ours_runs), theirs = median(theirs_runs);
    printf("%-16s %14.0f %14.0f %7.1fx\n", row.name, ours, theirs, ours / theirs);
  }
  return 0;
}
