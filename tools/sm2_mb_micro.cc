// One-thread throughput of the 8-lane AVX-512 IFMA SM2 path
// (sm2/sm2_mb.h) against the scalar path (sm2/sm2.h) and OpenSSL's
// EVP SM2, all in the same process: keygen (d, P), sign (digest, random
// nonces from the OS, as in production; and deterministic nonces), verify
// (digest), and the constant-time variable-base multiplication [k]P to
// affine (curve::mb::mul_point_x8 against curve::mul_point + affine_of and
// OpenSSL's EC_POINT_mul + EC_POINT_get_affine_coordinates on SM2), the
// core of decryption and encryption. Each measurement runs ~0.25 s of this
// thread's CPU time; the three alternate, and the median of the
// repetitions is reported.
//   sm2_mb_micro [repetitions]
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <stdio.h>
#include <stdlib.h>

#include <functional>
#include <vector>

#include "core/cpu_features.h"
#include "field/u256.h"
#include "micro_timing.h"
#include "sm2/sm2.h"
#include "sm2/sm2_curve.h"
#include "sm2/sm2_curve_mb.h"
#include "sm2/sm2_mb.h"

namespace {

using namespace ks::sm2;
constexpr size_t kLanes = mb::kLanes;

using ks_micro::median;

// Items per second of op, which handles `items` items per call.
double items_per_second(const std::function<void()>& op, int items) {
  return ks_micro::calls_per_second(op, 0.25, 8) * items;
}

void check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "sm2_mb_micro: %s failed\n", what);
    exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 5;
  check(mb::available(), "AVX-512 IFMA (the 8-lane path would fall back to scalar)");

  uint8_t e[kLanes][kDigestBytes];
  for (size_t l = 0; l < kLanes; ++l)
    for (size_t i = 0; i < kDigestBytes; ++i) e[l][i] = uint8_t(i * 37 + l * 11 + 1);
  PrivateKey keys[kLanes];
  const PrivateKey* key_ptrs[kLanes];
  const PublicKey* pubs[kLanes];
  for (size_t l = 0; l < kLanes; ++l) {
    check(generate_key(keys[l]) == Error::kOk, "generate_key");
    key_ptrs[l] = &keys[l];
    pubs[l] = &keys[l].pub;
  }
  uint8_t sig[kLanes][kSignatureBytes];
  Error status[kLanes];
  mb::sign_digests_x8(sig, key_ptrs, e, Nonce::kRandom, status);
  for (size_t l = 0; l < kLanes; ++l) check(status[l] == Error::kOk, "sign x8");
  mb::verify_digests_x8(pubs, e, sig, status);
  for (size_t l = 0; l < kLanes; ++l) check(status[l] == Error::kOk, "verify x8");
  // One signer for every lane, verified from its comb tables (built here,
  // outside the timing).
  uint8_t sig_one[kLanes][kSignatureBytes];
  for (size_t l = 0; l < kLanes; ++l)
    check(sign_digest(sig_one[l], keys[0], e[l], Nonce::kRandom) == Error::kOk, "sign one key");
  const ks::curve::PointTablePtr table = ks::curve::make_point_table(keys[0].pub.point);
  const ks::curve::mb::LaneTablePtr lanes = ks::curve::mb::make_lane_table(*table);
  const mb::OneKey one = {&keys[0].pub, table.get(), lanes.get()};
  mb::verify_digests_one_key_x8(one, e, sig_one, status);
  for (size_t l = 0; l < kLanes; ++l) check(status[l] == Error::kOk, "verify one key x8");

  EVP_PKEY* okey = EVP_PKEY_Q_keygen(nullptr, nullptr, "SM2");
  EVP_PKEY_CTX* sign_ctx = EVP_PKEY_CTX_new(okey, nullptr);
  EVP_PKEY_CTX* verify_ctx = EVP_PKEY_CTX_new(okey, nullptr);
  check(okey && EVP_PKEY_sign_init(sign_ctx) == 1 && EVP_PKEY_verify_init(verify_ctx) == 1,
        "OpenSSL setup");
  unsigned char der[80];
  size_t der_len = sizeof der;
  check(EVP_PKEY_sign(sign_ctx, der, &der_len, e[0], kDigestBytes) == 1, "OpenSSL sign");
  check(EVP_PKEY_verify(verify_ctx, der, der_len, e[0], kDigestBytes) == 1, "OpenSSL verify");

  // [k]P: a key's point per lane, scalars below 2^255 < n
  ks::field::U256 k[kLanes];
  ks::curve::Affine points[kLanes], kp[kLanes];
  for (size_t l = 0; l < kLanes; ++l) {
    for (int j = 0; j < 4; ++j) k[l].w[j] = 0x9E3779B97F4A7C15ull * (4 * l + j + 1);
    k[l].w[3] >>= 1;
    points[l] = pubs[l]->point;
  }
  ks::curve::mb::mul_point_x8(kp, k, points);
  for (size_t l = 0; l < kLanes; ++l) {
    const ks::curve::Affine want = ks::curve::affine_of(ks::curve::mul_point(k[l], points[l]));
    check(ks::field::eq_mask(kp[l].x, want.x) && ks::field::eq_mask(kp[l].y, want.y),
          "mul_point x8");
  }
  const ks::curve::Affine kp0 = kp[0];
  EC_GROUP* group = EC_GROUP_new_by_curve_name(NID_sm2);
  EC_POINT* ossl_p = EC_POINT_new(group);
  EC_POINT* ossl_kp = EC_POINT_new(group);
  BN_CTX* bn_ctx = BN_CTX_new();
  BIGNUM *ossl_k = BN_new(), *bx = BN_new(), *by = BN_new();
  {
    uint8_t be[3][32];
    ks::field::to_be_bytes(be[0], k[0]);
    ks::field::to_be_bytes(be[1], points[0].x);
    ks::field::to_be_bytes(be[2], points[0].y);
    BN_bin2bn(be[0], 32, ossl_k);
    BN_bin2bn(be[1], 32, bx);
    BN_bin2bn(be[2], 32, by);
  }
  check(group && EC_POINT_set_affine_coordinates(group, ossl_p, bx, by, bn_ctx) == 1,
        "OpenSSL point");
  const std::function<void()> ossl_mul_point = [&] {
    EC_POINT_mul(group, ossl_kp, nullptr, ossl_p, ossl_k, bn_ctx);
    EC_POINT_get_affine_coordinates(group, ossl_kp, bx, by, bn_ctx);
  };
  ossl_mul_point();
  {
    uint8_t be[32];
    ks::field::to_be_bytes(be, kp0.x);
    BIGNUM* want = BN_bin2bn(be, 32, nullptr);
    check(want != nullptr && BN_cmp(want, bx) == 0, "OpenSSL mul_point");
    BN_free(want);
  }

  struct Row {
    const char* name;
    std::function<void()> x8, scalar, openssl;
  };
  const std::function<void()> ossl_sign = [&] {
    unsigned char out[80];
    size_t len = sizeof out;
    EVP_PKEY_sign(sign_ctx, out, &len, e[0], kDigestBytes);
  };
  const Row rows[] = {
      {"keygen (d, P)",
       [&] {
         uint8_t d[kLanes][kScalarBytes];
         PublicKey pub[kLanes];
         mb::keygen_x8(d, pub, status);
       },
       [&] {
         uint8_t d[kScalarBytes];
         PublicKey pub;
         generate_keypair(d, pub);
       },
       [&] { EVP_PKEY_free(EVP_PKEY_Q_keygen(nullptr, nullptr, "SM2")); }},
      {"sign (random k)", [&] { mb::sign_digests_x8(sig, key_ptrs, e, Nonce::kRandom, status); },
       [&] { sign_digest(sig[0], keys[0], e[0], Nonce::kRandom); }, ossl_sign},
      {"sign (RFC 6979)",
       [&] { mb::sign_digests_x8(sig, key_ptrs, e, Nonce::kDeterministic, status); },
       [&] { sign_digest(sig[0], keys[0], e[0], Nonce::kDeterministic); }, ossl_sign},
      {"verify", [&] { mb::verify_digests_x8(pubs, e, sig, status); },
       [&] { verify_digest(keys[0].pub, e[0], sig[0]); },
       [&] { EVP_PKEY_verify(verify_ctx, der, der_len, e[0], kDigestBytes); }},
      {"verify (one key)", [&] { mb::verify_digests_one_key_x8(one, e, sig_one, status); },
       [&] { verify_digest(keys[0].pub, e[0], sig_one[0], table.get()); },
       [&] { EVP_PKEY_verify(verify_ctx, der, der_len, e[0], kDigestBytes); }},
      {"mul_point", [&] { ks::curve::mb::mul_point_x8(kp, k, points); },
       [&] { kp[0] = ks::curve::affine_of(ks::curve::mul_point(k[0], points[0])); },
       ossl_mul_point},
  };
  printf("CPU: %s [%s], one thread, median of %d runs of 0.25 s CPU time, ops/s\n",
         ks::cpu_model_name().c_str(), ks::cpu_feature_string(ks::cpu_features()).c_str(), reps);
  printf("%-17s %11s %11s %11s %9s %9s\n", "op", "x8 (IFMA)", "scalar", "OpenSSL", "x8/OSSL",
         "x8/scalar");
  for (const Row& row : rows) {
    std::vector<double> a, b, c;
    for (int i = 0; i < reps; ++i) {
      a.push_back(items_per_second(row.x8, int(kLanes)));
      b.push_back(items_per_second(row.scalar, 1));
      c.push_back(items_per_second(row.openssl, 1));
    }
    const double x8 = median(a), scalar = median(b), ossl = median(c);
    printf("%-17s %11.0f %11.0f %11.0f %8.1fx %8.2fx\n", row.name, x8, scalar, ossl, x8 / ossl,
           x8 / scalar);
  }
  BN_free(ossl_k);
  BN_free(bx);
  BN_free(by);
  BN_CTX_free(bn_ctx);
  EC_POINT_free(ossl_kp);
  EC_POINT_free(ossl_p);
  EC_GROUP_free(group);
  EVP_PKEY_CTX_free(sign_ctx);
  EVP_PKEY_CTX_free(verify_ctx);
  EVP_PKEY_free(okey);
  return 0;
}
