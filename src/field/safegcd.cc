#include "field/safegcd.h"

#include "core/secure.h"

namespace ks {
namespace field {
namespace {

using safegcd_detail::kMask62;
using i128 = __int128;

constexpr int kLimbs = 5;  // 62-bit limbs: 310 bits, room for d and e below 11 M
// 10 x 59 = 590 divsteps, the bound for moduli below 2^256 with delta
// starting at 1/2; each batch's matrix starts at 2^3 times the identity, so
// that its entries end below 2^62 and the updates divide by 2^62 (whole
// limbs).
constexpr int kBatches = 10;
constexpr int kStepsPerBatch = 59;
constexpr int64_t kMatrixStart = int64_t(1) << (62 - kStepsPerBatch);

// A signed integer as sum v[i] 2^(62 i): limbs 0-3 in [0, 2^62) after
// normalization, limb 4 signed.
struct Signed62 {
  int64_t v[kLimbs];
};

// The transition matrix of a batch: [f'; g'] = [u v; q r] [f; g] / 2^62.
struct Matrix {
  int64_t u, v, q, r;
};

// 59 divsteps on the low 64 bits of f (odd) and g, with zeta = -(delta +
// 1/2) (delta starts at 1/2: zeta = -1). One divstep, as masks:
//   zeta < 0 and g odd: (zeta, f, g) <- (-zeta - 2, g, (g - f) / 2)
//   g odd otherwise:    (zeta, f, g) <- (zeta - 1, f, (g + f) / 2)
//   g even:             (zeta, f, g) <- (zeta - 1, f, g / 2)
// The matrix rows follow f and g with the halving deferred: the f row
// doubles instead of the g row halving, so that [f_k; g_k] 2^(k+3) = M
// [f; g] in integers; |u| + |v| and |q| + |r| at most double per divstep
// (2^62 after 59). 64 - 59 = 5 bits of g and f stay exact to the end.
int64_t divsteps(int64_t zeta, uint64_t f, uint64_t g, Matrix* t) {
  int64_t u = kMatrixStart, v = 0, q = 0, r = kMatrixStart;
  for (int i = 0; i < kStepsPerBatch; ++i) {
    // -f where zeta < 0, else f: from f and zeta alone, so that g's chain
    // is only "g odd? add it; halve" (five dependent instructions)
    const int64_t negative = zeta >> 63;
    const uint64_t x = (f ^ uint64_t(negative)) - uint64_t(negative);
    const int64_t y = (u ^ negative) - negative, z = (v ^ negative) - negative;
    const int64_t odd = -int64_t(g & 1);  // all ones if g is odd
    // g += f, or g -= f (the swap case), or nothing (g even); rows alike
    g += x & uint64_t(odd);
    q += y & odd;
    r += z & odd;
    // swap (zeta < 0 and g odd): f takes the old g (g - f + f), the f row
    // the old g row, and zeta = ~zeta - 1 = -zeta - 2; else zeta - 1
    const int64_t swap = negative & odd;
    f += g & uint64_t(swap);
    u += q & swap;
    v += r & swap;
    zeta = (zeta ^ swap) - 1;
    g >>= 1;
    u *= 2;
    v *= 2;
  }
  *t = {u, v, q, r};
  return zeta;
}

// [a; b] <- (t [a; b] + [ma; mb] M) / 2^62 with whole-limb carries. For
// f and g (kModular false) ma = mb = 0: the divsteps made the low 62 bits
// of both sums zero. For d and e, ma and mb in [0, 2^62) are chosen so
// that the divisions are exact, which keeps d x = f and e x = g mod M;
// |d|, |e| grow by at most M per batch: below 11 M < 2^260 at the end.
template <bool kModular>
void apply_matrix(Signed62* a, Signed62* b, const Matrix& t, const SafegcdModulus& mod) {
  i128 ca = i128(t.u) * a->v[0] + i128(t.v) * b->v[0];
  i128 cb = i128(t.q) * a->v[0] + i128(t.r) * b->v[0];
  int64_t ma = 0, mb = 0;
  if (kModular) {
    ma = int64_t((0 - uint64_t(ca) * mod.m_inv62) & kMask62);
    mb = int64_t((0 - uint64_t(cb) * mod.m_inv62) & kMask62);
    ca += i128(ma) * mod.m[0];
    cb += i128(mb) * mod.m[0];
  }
  ca >>= 62;
  cb >>= 62;
  for (int i = 1; i < kLimbs; ++i) {
    ca += i128(t.u) * a->v[i] + i128(t.v) * b->v[i];
    cb += i128(t.q) * a->v[i] + i128(t.r) * b->v[i];
    if (kModular) {
      ca += i128(ma) * mod.m[i];
      cb += i128(mb) * mod.m[i];
    }
    a->v[i - 1] = int64_t(uint64_t(ca) & kMask62);
    b->v[i - 1] = int64_t(uint64_t(cb) & kMask62);
    ca >>= 62;
    cb >>= 62;
  }
  a->v[kLimbs - 1] = int64_t(ca);
  b->v[kLimbs - 1] = int64_t(cb);
}

// a + sign * b (sign 0 or -1: add or subtract) with limbs 0-3 carried into
// [0, 2^62).
Signed62 add_signed(const Signed62& a, const Signed62& b, int64_t sign) {
  Signed62 r;
  int64_t carry = 0;
  for (int i = 0; i < kLimbs; ++i) {
    const int64_t s = a.v[i] + ((b.v[i] ^ sign) - sign) + carry;
    if (i + 1 < kLimbs) {
      r.v[i] = int64_t(uint64_t(s) & kMask62);
      carry = s >> 62;
    } else {
      r.v[i] = s;
    }
  }
  return r;
}

Signed62 times_pow2(const SafegcdModulus& mod, int k) {
  Signed62 r{};
  int64_t carry = 0;
  for (int i = 0; i < kLimbs; ++i) {
    const int64_t s = int64_t(uint64_t(mod.m[i]) << k) + carry;
    r.v[i] = i + 1 < kLimbs ? int64_t(uint64_t(s) & kMask62) : s;
    carry = mod.m[i] >> (62 - k);
  }
  return r;
}

// d mod M for |d| < 16 M: d + 16 M, then 16 M, 8 M, 4 M, 2 M and M taken
// off where the difference is not negative.
Signed62 reduce(Signed62 d, const SafegcdModulus& mod) {
  d = add_signed(d, times_pow2(mod, 4), 0);
  for (int k = 4; k >= 0; --k) {
    const Signed62 t = add_signed(d, times_pow2(mod, k), -1);
    const int64_t keep = t.v[kLimbs - 1] >> 63;  // negative: keep d
    for (int i = 0; i < kLimbs; ++i) d.v[i] = (d.v[i] & keep) | (t.v[i] & ~keep);
  }
  return d;
}

}  // namespace

U256 safegcd_invert(const U256& x, const SafegcdModulus& mod) {
  Signed62 f{}, g{}, d{}, e{};
  for (int i = 0; i < kLimbs; ++i) f.v[i] = mod.m[i];
  safegcd_detail::to_limbs62(g.v, x);
  e.v[0] = 1;  // d x = f = M = 0, e x = g = x (mod M)
  int64_t zeta = -1;
  for (int b = 0; b < kBatches; ++b) {
    Matrix t;
    zeta = divsteps(zeta, uint64_t(f.v[0]) | (uint64_t(f.v[1]) << 62),
                    uint64_t(g.v[0]) | (uint64_t(g.v[1]) << 62), &t);
    apply_matrix<true>(&d, &e, t, mod);
    apply_matrix<false>(&f, &g, t, mod);
  }
  // g = 0 and f = +-1 (x invertible) or f = +-M (x = 0, and then d = 0):
  // x^-1 = d f.
  const int64_t f_negative = f.v[kLimbs - 1] >> 63;
  const Signed62 zero{};
  d = reduce(add_signed(zero, d, f_negative), mod);
  U256 r;
  r.w[0] = uint64_t(d.v[0]) | (uint64_t(d.v[1]) << 62);
  r.w[1] = (uint64_t(d.v[1]) >> 2) | (uint64_t(d.v[2]) << 60);
  r.w[2] = (uint64_t(d.v[2]) >> 4) | (uint64_t(d.v[3]) << 58);
  r.w[3] = (uint64_t(d.v[3]) >> 6) | (uint64_t(d.v[4]) << 56);
  secure_wipe(&d, sizeof d);
  secure_wipe(&e, sizeof e);
  secure_wipe(&g, sizeof g);
  return r;
}

}  // namespace field
}  // namespace ks
