#include "scheme/sm2_mb.h"

#include "core/cpu_features.h"
#include "core/os_random.h"
#include "core/secure.h"
#include "curve/sm2_mb.h"
#include "hash/sm3.h"

namespace ks {
namespace sm2 {
namespace mb {
namespace {

using field::Fn;
using field::Fp;
using field::U256;

// A verdict derived from secrets that is public by design (a rejected draw,
// a retried signing attempt): scheme/sm2.cc's declassify.
bool declassify(uint64_t mask) {
  mask = value_barrier(mask);
  ct_declassify(&mask, sizeof mask);
  return mask != 0;
}

U256 n_minus(uint64_t k) {
  U256 r;
  field::sub_borrow(r, Fn::kModulus, U256{{k, 0, 0, 0}});
  return r;
}

// Uniform in [1, max] by rejection (as scheme/sm2.cc's random_scalar).
Error random_scalar(U256& out, const U256& max) {
  uint8_t buf[kScalarBytes];
  for (;;) {
    if (!os_random(buf, sizeof buf)) return Error::kRngFailure;
    out = field::from_be_bytes(buf);
    if (declassify(~field::is_zero_mask(out) & ~field::lt_mask(max, out))) break;
  }
  secure_wipe(buf, sizeof buf);
  return Error::kOk;
}

// The first candidate of scheme/sm2.cc's DeterministicNonces (RFC 6979
// section 3.2 over HMAC-SM3): K, V from seed = d || (e mod n), then
// V = HMAC_K(V), k = V. Returns false if that k is not in [1, n-1]; the lane
// then goes to the scalar signer, which continues the same sequence.
bool first_deterministic_nonce(U256& k, const U256& d, const U256& e_mod_n) {
  uint8_t seed[2 * kScalarBytes], key[sm3::kDigestBytes], v[sm3::kDigestBytes];
  field::to_be_bytes(seed, d);
  field::to_be_bytes(seed + kScalarBytes, e_mod_n);
  for (size_t i = 0; i < sizeof v; ++i) v[i] = 0x01, key[i] = 0x00;
  auto hmac = [&](uint8_t out[sm3::kDigestBytes], const uint8_t* a, size_t a_len) {
    sm3::HmacSm3 mac(key, sizeof key);
    mac.update(v, sizeof v);
    mac.update(a, a_len);
    mac.finish(out);
  };
  for (uint8_t separator : {uint8_t(0x00), uint8_t(0x01)}) {
    uint8_t msg[1 + sizeof seed];
    msg[0] = separator;
    for (size_t i = 0; i < sizeof seed; ++i) msg[1 + i] = seed[i];
    hmac(key, msg, sizeof msg);
    hmac(v, nullptr, 0);
    secure_wipe(msg, sizeof msg);
  }
  hmac(v, nullptr, 0);
  k = field::from_be_bytes(v);
  secure_wipe(seed, sizeof seed);
  secure_wipe(key, sizeof key);
  secure_wipe(v, sizeof v);
  return declassify(Fn::in_range_nonzero(k));
}

U256 digest_mod_n(const uint8_t e[kDigestBytes]) {
  return Fn::reduce_once(field::from_be_bytes(e));
}

// Steps A5-A6 given x1 of [k]G (scheme/sm2.cc's sign_attempt after the
// point multiplication); all-ones when r != 0, r + k != n and s != 0.
uint64_t finish_signature(U256& r, U256& s, const PrivateKey& key, const U256& e_mod_n,
                          const U256& k, const U256& x1) {
  r = Fn::add(e_mod_n, Fn::reduce_once(x1));
  const uint64_t r_ok = ~field::is_zero_mask(r) & ~field::is_zero_mask(Fn::add(r, k));
  const U256 k_minus_rd = Fn::sub(k, Fn::mul_plain_mont(r, key.d_mont));
  s = Fn::mul_plain_mont(k_minus_rd, key.inv_one_plus_d_mont);
  return r_ok & ~field::is_zero_mask(s);
}

// How each lane's nonce is obtained.
enum class NonceMode { kRandom, kDeterministic, kFixed };

void sign_lanes(uint8_t sig[][kSignatureBytes], const PrivateKey* const keys[],
                const uint8_t e[][kDigestBytes], NonceMode mode, const uint8_t (*fixed)[kScalarBytes],
                Error status[], size_t count) {
#if defined(__x86_64__)
  U256 k[kLanes], e_mod_n[kLanes];
  bool active[kLanes] = {};
  for (size_t i = 0; i < kLanes; ++i) {
    k[i] = U256{{1, 0, 0, 0}};  // idle lanes compute G
    if (i >= count) continue;
    e_mod_n[i] = digest_mod_n(e[i]);
    status[i] = Error::kOk;
    if (mode == NonceMode::kRandom) {
      status[i] = random_scalar(k[i], n_minus(1));
    } else if (mode == NonceMode::kDeterministic) {
      if (!first_deterministic_nonce(k[i], keys[i]->d, e_mod_n[i])) {
        k[i] = U256{{1, 0, 0, 0}};
        status[i] = sign_digest(sig[i], *keys[i], e[i], Nonce::kDeterministic);
        continue;
      }
    } else {
      k[i] = field::from_be_bytes(fixed[i]);
      if (!declassify(Fn::in_range_nonzero(k[i]))) {
        k[i] = U256{{1, 0, 0, 0}};
        status[i] = Error::kBadNonce;
      }
    }
    active[i] = status[i] == Error::kOk;
  }
  curve::Affine p1[kLanes];
  curve::mb::mul_base_x8(p1, k);
  for (size_t i = 0; i < count; ++i) {
    if (!active[i]) continue;
    U256 r, s;
    if (declassify(finish_signature(r, s, *keys[i], e_mod_n[i], k[i], p1[i].x))) {
      field::to_be_bytes(sig[i], r);
      field::to_be_bytes(sig[i] + kScalarBytes, s);
      ct_declassify(sig[i], kSignatureBytes);
    } else if (mode == NonceMode::kFixed) {
      status[i] = Error::kBadNonce;
    } else {  // a fresh k (or the deterministic sequence's next one)
      status[i] = sign_digest(sig[i], *keys[i], e[i],
                              mode == NonceMode::kRandom ? Nonce::kRandom : Nonce::kDeterministic);
    }
  }
  secure_wipe(k, sizeof k);
  secure_wipe(p1, sizeof p1);
#else
  (void)sig, (void)keys, (void)e, (void)mode, (void)fixed, (void)status, (void)count;
#endif
}

}  // namespace

bool available() {
#if defined(__x86_64__)
  static const bool ifma = cpu_features().avx512ifma && cpu_features().avx512f &&
                           cpu_features().avx512vl && cpu_features().avx512bw;
  return ifma;
#else
  return false;
#endif
}

void sign_digests_x8(uint8_t sig[][kSignatureBytes], const PrivateKey* const keys[],
                     const uint8_t e[][kDigestBytes], Nonce nonce, Error status[], size_t count) {
  if (count > kLanes) count = kLanes;
  if (!available()) {
    for (size_t i = 0; i < count; ++i) status[i] = sign_digest(sig[i], *keys[i], e[i], nonce);
    return;
  }
  sign_lanes(sig, keys, e, nonce == Nonce::kRandom ? NonceMode::kRandom : NonceMode::kDeterministic,
             nullptr, status, count);
}

void sign_digests_x8(uint8_t sig[][kSignatureBytes], const PrivateKey& key,
                     const uint8_t e[][kDigestBytes], Nonce nonce, Error status[], size_t count) {
  const PrivateKey* keys[kLanes];
  for (size_t i = 0; i < kLanes; ++i) keys[i] = &key;
  sign_digests_x8(sig, keys, e, nonce, status, count);
}

void sign_digests_with_fixed_nonces_x8(uint8_t sig[][kSignatureBytes],
                                       const PrivateKey* const keys[],
                                       const uint8_t e[][kDigestBytes],
                                       const uint8_t k[][kScalarBytes], Error status[],
                                       size_t count) {
  if (count > kLanes) count = kLanes;
  if (!available()) {
    for (size_t i = 0; i < count; ++i)
      status[i] = sign_digest_with_fixed_nonce(sig[i], *keys[i], e[i], k[i]);
    return;
  }
  sign_lanes(sig, keys, e, NonceMode::kFixed, k, status, count);
}

void keygen_x8(uint8_t d[][kScalarBytes], PublicKey pub[], Error status[], size_t count) {
  if (count > kLanes) count = kLanes;
  if (!available()) {
    for (size_t i = 0; i < count; ++i) status[i] = generate_keypair(d[i], pub[i]);
    return;
  }
#if defined(__x86_64__)
  U256 dv[kLanes];
  for (size_t i = 0; i < kLanes; ++i) {
    dv[i] = U256{{1, 0, 0, 0}};
    if (i < count) {
      status[i] = random_scalar(dv[i], n_minus(2));
      if (status[i] != Error::kOk) dv[i] = U256{{1, 0, 0, 0}};
    }
  }
  curve::Affine p[kLanes];
  curve::mb::mul_base_x8(p, dv);
  for (size_t i = 0; i < count; ++i) {
    if (status[i] != Error::kOk) continue;
    pub[i].point = p[i];
    ct_declassify(&pub[i], sizeof pub[i]);
    field::to_be_bytes(d[i], dv[i]);
  }
  secure_wipe(dv, sizeof dv);
#endif
}

void verify_digests_x8(const PublicKey* const keys[], const uint8_t e[][kDigestBytes],
                       const uint8_t sig[][kSignatureBytes], Error status[], size_t count) {
  if (count > kLanes) count = kLanes;
  if (!available()) {
    for (size_t i = 0; i < count; ++i) status[i] = verify_digest(*keys[i], e[i], sig[i]);
    return;
  }
#if defined(__x86_64__)
  // Idle or rejected lanes compute [1]G + [2]G, a harmless finite sum.
  U256 s[kLanes], t[kLanes], c[kLanes], c2[kLanes];
  curve::Affine p[kLanes];
  unsigned active = 0, c2_valid = 0;
  for (size_t i = 0; i < kLanes; ++i) {
    s[i] = U256{{1, 0, 0, 0}};
    t[i] = U256{{2, 0, 0, 0}};
    c[i] = c2[i] = U256{{0, 0, 0, 0}};
    p[i] = curve::kG;
    if (i >= count) continue;
    const U256 r = field::from_be_bytes(sig[i]);
    const U256 si = field::from_be_bytes(sig[i] + kScalarBytes);
    const U256 ti = Fn::add(r, si);
    if (!Fn::in_range_nonzero(r) || !Fn::in_range_nonzero(si) || field::is_zero_mask(ti)) {
      status[i] = Error::kSignatureOutOfRange;  // B1, B2, B5
      continue;
    }
    s[i] = si;
    t[i] = ti;
    p[i] = keys[i]->point;
    // x1 == (r - e) mod n + {0, n} (see scheme/sm2.cc's x_matches)
    c[i] = Fn::sub(r, digest_mod_n(e[i]));
    if (!field::add_carry(c2[i], c[i], Fn::kModulus) && field::lt_mask(c2[i], Fp::kModulus))
      c2_valid |= 1u << i;
    else
      c2[i] = U256{{0, 0, 0, 0}};
    active |= 1u << i;
  }
  unsigned fallback = 0;
  const unsigned ok = curve::mb::verify_x8(s, t, p, c, c2, c2_valid, &fallback);
  for (size_t i = 0; i < count; ++i) {
    if (!(active >> i & 1)) continue;
    if (fallback >> i & 1)
      status[i] = verify_digest(*keys[i], e[i], sig[i]);
    else
      status[i] = (ok >> i & 1) ? Error::kOk : Error::kVerifyFailed;
  }
#endif
}

}  // namespace mb
}  // namespace sm2
}  // namespace ks
