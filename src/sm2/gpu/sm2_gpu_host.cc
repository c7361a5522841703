// Host side of SM2 on the GPU (see sm2_gpu_host.h): the fixed-base table,
// computed with the CPU field and point formulas (the oracle), and the
// signing-key layout.
#include "sm2/gpu/sm2_gpu_host.h"

#include <string.h>

#include <thread>
#include <vector>

#include "sm2/sm2_curve.h"
#include "sm2/sm2.h"

namespace ks {
namespace sm2 {
namespace gpu {

static_assert(int(Status::kOk) == int(Error::kOk) &&
                  int(Status::kBadPrivateKey) == int(Error::kBadPrivateKey) &&
                  int(Status::kBadPublicKey) == int(Error::kBadPublicKey) &&
                  int(Status::kSignatureOutOfRange) == int(Error::kSignatureOutOfRange) &&
                  int(Status::kVerifyFailed) == int(Error::kVerifyFailed) &&
                  int(Status::kBadIdLength) == int(Error::kBadIdLength) &&
                  int(Status::kBadNonce) == int(Error::kBadNonce) &&
                  int(Status::kBadCiphertext) == int(Error::kBadCiphertext) &&
                  int(Status::kCiphertextMismatch) == int(Error::kCiphertextMismatch),
              "GPU status words are ks::sm2::Error values");

namespace {

using curve::Affine;
using curve::Jacobian;
using field::Fp;
using field::U256;

void put_words(uint32_t* out, const U256& a) {
  for (int i = 0; i < 4; ++i) {
    out[2 * i] = uint32_t(a.w[i]);
    out[2 * i + 1] = uint32_t(a.w[i] >> 32);
  }
}

// Affine forms of pts[0..count) with one inversion (Montgomery's trick),
// written as 16 words each.
void store_affine_batch(uint32_t* out, const std::vector<Jacobian>& pts) {
  const size_t count = pts.size();
  std::vector<U256> prefix(count);  // prefix[j] = z_0 ... z_j
  prefix[0] = pts[0].z;
  for (size_t j = 1; j < count; ++j) prefix[j] = Fp::mul(prefix[j - 1], pts[j].z);
  U256 inv = Fp::inv(prefix[count - 1]);  // (z_0 ... z_j)^-1, j from the top
  for (size_t j = count; j-- > 0;) {
    const U256 zinv = j == 0 ? inv : Fp::mul(inv, prefix[j - 1]);
    if (j > 0) inv = Fp::mul(inv, pts[j].z);
    const U256 zinv2 = Fp::sqr(zinv);
    put_words(out + 16 * j, Fp::mul(pts[j].x, zinv2));
    put_words(out + 16 * j + 8, Fp::mul(pts[j].y, Fp::mul(zinv2, zinv)));
  }
}

// Window i: j 2^(16i) G for j = 1..kBaseEntries (public data: variable-time
// formulas).
void build_window(uint32_t* out, int window) {
  Jacobian base = Jacobian::from_affine(curve::kG);
  for (int b = 0; b < kBaseWindowBits * window; ++b) base = curve::dbl(base);
  const Affine base_affine = curve::affine_of(base);
  std::vector<Jacobian> pts(kBaseEntries);
  pts[0] = Jacobian::from_affine(base_affine);
  for (int j = 1; j < kBaseEntries; ++j) pts[j] = curve::add_mixed_vartime(pts[j - 1], base_affine);
  store_affine_batch(out, pts);
}

}  // namespace

void build_base_table(uint32_t* out) {
  std::vector<std::thread> workers;
  for (int i = 0; i < kBaseWindows; ++i)
    workers.emplace_back(build_window, out + size_t(i) * kBaseEntries * 16, i);
  for (auto& w : workers) w.join();
}

void key_table_bases(const PublicKey& key, int bits, uint32_t* out) {
  std::vector<Jacobian> bases(key_windows(bits));
  Jacobian base = Jacobian::from_affine(key.point);
  for (Jacobian& b : bases) {
    b = base;
    for (int i = 0; i < bits; ++i) base = curve::dbl(base);
  }
  store_affine_batch(out, bases);
}

SignKey sign_key_from(const PrivateKey& key) {
  SignKey k;
  put_words(k.d_mont, key.d_mont);
  put_words(k.inv_one_plus_d_mont, key.inv_one_plus_d_mont);
  return k;
}

}  // namespace gpu
}  // namespace sm2
}  // namespace ks
