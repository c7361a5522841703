#include "sm2/sm2_mb.h"

#include <string.h>

#include <vector>

#include "core/cpu_features.h"
#include "core/os_random.h"
#include "core/secure.h"
#include "sm2/sm2_curve_mb.h"
#include "sm3/sm3.h"
#include "sm3/sm3_blocks.h"
#include "sm3/sm3_compress.h"
#include "sm2/sm2_detail.h"

namespace ks {
namespace sm2 {
namespace mb {
namespace {

using field::Fn;
using field::Fp;
using field::U256;

using detail::declassify;
using detail::n_minus;
using detail::random_scalar;

// HMAC-SM3 in eight lanes (sm3/sm3_blocks.h compress_x8): one 32-byte key
// and one `len`-byte message per lane, every lane the same length, so that
// every lane runs the same blocks. out may alias key or msg.
void hmac_sm3_x8(uint8_t out[][sm3::kDigestBytes], const uint8_t key[][sm3::kDigestBytes],
                 const uint8_t* const msg[], size_t len) {
  constexpr size_t kBlock = 64;
  uint8_t inner[kLanes][sm3::kDigestBytes];
  // inner: SM3((K ^ ipad) || msg); outer: SM3((K ^ opad) || inner)
  for (int pass = 0; pass < 2; ++pass) {
    const uint8_t pad = pass == 0 ? 0x36 : 0x5c;
    const uint8_t* body[kLanes];
    for (size_t l = 0; l < kLanes; ++l) body[l] = pass == 0 ? msg[l] : inner[l];
    const size_t body_len = pass == 0 ? len : sm3::kDigestBytes;
    const size_t total = kBlock + body_len;
    const size_t blocks = (total + 8) / kBlock + 1;  // with 0x80 and the 64-bit length
    uint8_t buf[kLanes][4 * kBlock];
    for (size_t l = 0; l < kLanes; ++l) {
      uint8_t* b = buf[l];
      memset(b, 0, blocks * kBlock);
      for (size_t i = 0; i < kBlock; ++i) b[i] = uint8_t((i < 32 ? key[l][i] : 0) ^ pad);
      memcpy(b + kBlock, body[l], body_len);
      b[total] = 0x80;
      const uint64_t bits = uint64_t(total) * 8;
      for (int i = 0; i < 8; ++i) b[blocks * kBlock - 1 - i] = uint8_t(bits >> (8 * i));
    }
    uint32_t state[8][8];
    for (int w = 0; w < 8; ++w)
      for (size_t l = 0; l < kLanes; ++l) state[w][l] = sm3::kIV[w];
    for (size_t blk = 0; blk < blocks; ++blk) {
      const uint8_t* ptrs[kLanes];
      for (size_t l = 0; l < kLanes; ++l) ptrs[l] = buf[l] + blk * kBlock;
      sm3::compress_x8(state, ptrs);
    }
    uint8_t(*dst)[sm3::kDigestBytes] = pass == 0 ? inner : out;
    for (size_t l = 0; l < kLanes; ++l)
      for (int w = 0; w < 8; ++w)
        for (int b = 0; b < 4; ++b) dst[l][4 * w + b] = uint8_t(state[w][l] >> (24 - 8 * b));
    secure_wipe(buf, sizeof buf);
  }
  secure_wipe(inner, sizeof inner);
}

// The first candidate of sm2/sm2.cc's DeterministicNonces (RFC 6979
// section 3.2 over HMAC-SM3) in every lane: K, V from seed = d || (e mod
// n), then V = HMAC_K(V), k = V. ok[i] is false where that k is not in
// [1, n-1]; such a lane goes to the scalar signer, which continues the same
// sequence.
void first_deterministic_nonces(U256 k[kLanes], bool ok[kLanes], const U256 d[kLanes],
                                const U256 e_mod_n[kLanes]) {
  constexpr size_t kSeed = 2 * kScalarBytes;
  uint8_t key[kLanes][sm3::kDigestBytes], v[kLanes][sm3::kDigestBytes];
  uint8_t msg[kLanes][sm3::kDigestBytes + 1 + kSeed];
  const uint8_t* msg_ptrs[kLanes];
  const uint8_t* v_ptrs[kLanes];
  for (size_t l = 0; l < kLanes; ++l) {
    memset(v[l], 0x01, sizeof v[l]);
    memset(key[l], 0x00, sizeof key[l]);
    field::to_be_bytes(msg[l] + sm3::kDigestBytes + 1, d[l]);
    field::to_be_bytes(msg[l] + sm3::kDigestBytes + 1 + kScalarBytes, e_mod_n[l]);
    msg_ptrs[l] = msg[l];
    v_ptrs[l] = v[l];
  }
  for (uint8_t separator : {uint8_t(0x00), uint8_t(0x01)}) {
    for (size_t l = 0; l < kLanes; ++l) {
      memcpy(msg[l], v[l], sm3::kDigestBytes);
      msg[l][sm3::kDigestBytes] = separator;
    }
    hmac_sm3_x8(key, key, msg_ptrs, sizeof msg[0]);  // K = HMAC_K(V || sep || seed)
    hmac_sm3_x8(v, key, v_ptrs, sizeof v[0]);        // V = HMAC_K(V)
  }
  hmac_sm3_x8(v, key, v_ptrs, sizeof v[0]);
  for (size_t l = 0; l < kLanes; ++l) {
    k[l] = field::from_be_bytes(v[l]);
    ok[l] = declassify(Fn::in_range_nonzero(k[l]));
  }
  secure_wipe(key, sizeof key);
  secure_wipe(v, sizeof v);
  secure_wipe(msg, sizeof msg);
}

// random_scalar for `count` lanes with one OS call (the syscall costs about
// as much as a lane's share of [k]G); a lane whose draw is rejected draws
// again alone. status[i] is set for every lane below count.
void random_scalars(U256 out[], size_t count, const U256& max, Error status[]) {
  uint8_t buf[kLanes * kScalarBytes];
  const bool ok = os_random(buf, count * kScalarBytes);
  for (size_t i = 0; i < count; ++i) {
    status[i] = Error::kOk;
    out[i] = field::from_be_bytes(buf + i * kScalarBytes);
    if (!ok || !declassify(~field::is_zero_mask(out[i]) & ~field::lt_mask(max, out[i])))
      status[i] = random_scalar(out[i], max);
  }
  secure_wipe(buf, sizeof buf);
}

U256 digest_mod_n(const uint8_t e[kDigestBytes]) {
  return Fn::reduce_once(field::from_be_bytes(e));
}

// Steps A5-A6 given x1 of [k]G (sm2/sm2.cc's sign_attempt after the
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
                const uint8_t e[][kDigestBytes], NonceMode mode,
                const uint8_t (*fixed)[kScalarBytes], Error status[], size_t count) {
#if defined(__x86_64__)
  U256 k[kLanes], e_mod_n[kLanes];
  bool active[kLanes] = {};
  bool nonce_ok[kLanes];
  if (mode == NonceMode::kRandom) random_scalars(k, count, n_minus(1), status);
  for (size_t i = 0; i < count; ++i) e_mod_n[i] = digest_mod_n(e[i]);
  if (mode == NonceMode::kDeterministic) {
    U256 d[kLanes];
    for (size_t i = 0; i < kLanes; ++i) {
      d[i] = keys[i < count ? i : 0]->d;
      if (i >= count) e_mod_n[i] = e_mod_n[0];
    }
    first_deterministic_nonces(k, nonce_ok, d, e_mod_n);
    secure_wipe(d, sizeof d);
  }
  for (size_t i = 0; i < kLanes; ++i) {
    if (i >= count) {
      k[i] = U256{{1, 0, 0, 0}};  // idle lanes compute G
      continue;
    }
    if (mode == NonceMode::kRandom) {
      if (status[i] != Error::kOk) k[i] = U256{{1, 0, 0, 0}};
    } else if (mode == NonceMode::kDeterministic) {
      status[i] = Error::kOk;
      if (!nonce_ok[i]) {
        k[i] = U256{{1, 0, 0, 0}};
        status[i] = sign_digest(sig[i], *keys[i], e[i], Nonce::kDeterministic);
        continue;
      }
    } else {
      status[i] = Error::kOk;
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

// One group of lanes costs what 1.4 (keygen, sign) to 1.5 (verify) scalar
// operations do (EPYC: 8-lane keygen 21.7 us, scalar 16 us; verify 112 us
// against 73 us), so a lone item takes the scalar path.
namespace {
bool lanes_pay(size_t count) { return count >= 2 && available(); }
}  // namespace

void sign_digests_x8(uint8_t sig[][kSignatureBytes], const PrivateKey* const keys[],
                     const uint8_t e[][kDigestBytes], Nonce nonce, Error status[], size_t count) {
  if (count > kLanes) count = kLanes;
  if (count == 0) return;
  if (!lanes_pay(count)) {
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
  if (count == 0) return;
  if (!available()) {
    for (size_t i = 0; i < count; ++i)
      status[i] = sign_digest_with_fixed_nonce(sig[i], *keys[i], e[i], k[i]);
    return;
  }
  sign_lanes(sig, keys, e, NonceMode::kFixed, k, status, count);
}

void keygen_x8(uint8_t d[][kScalarBytes], PublicKey pub[], Error status[], size_t count) {
  if (count > kLanes) count = kLanes;
  if (count == 0) return;
  if (!lanes_pay(count)) {
    for (size_t i = 0; i < count; ++i) status[i] = generate_keypair(d[i], pub[i]);
    return;
  }
#if defined(__x86_64__)
  U256 dv[kLanes];
  random_scalars(dv, count, n_minus(2), status);
  for (size_t i = 0; i < kLanes; ++i)
    if (i >= count || status[i] != Error::kOk) dv[i] = U256{{1, 0, 0, 0}};
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

namespace {

// Verification in lanes around core(s, t, p, c, c2, c2_valid, &fallback),
// which returns the lanes that verify: B1, B2 and B5 per item, c = (r - e)
// mod n and c2 = c + n when below p for the x check (sm2/sm2.cc's
// x_matches). Groups too small for lanes, and lanes the core reports in
// fallback, go to verify_one(i).
template <class Core, class One>
void verify_lanes(const PublicKey* const keys[], const uint8_t e[][kDigestBytes],
                  const uint8_t sig[][kSignatureBytes], Error status[], size_t count,
                  const Core& core, const One& verify_one) {
  if (count > kLanes) count = kLanes;
  if (count == 0) return;
  if (!lanes_pay(count)) {
    for (size_t i = 0; i < count; ++i) status[i] = verify_one(i);
    return;
  }
  // Idle or rejected lanes compute [1]G + [2]P, a harmless finite sum.
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
    c[i] = Fn::sub(r, digest_mod_n(e[i]));
    if (!field::add_carry(c2[i], c[i], Fn::kModulus) && field::lt_mask(c2[i], Fp::kModulus))
      c2_valid |= 1u << i;
    else
      c2[i] = U256{{0, 0, 0, 0}};
    active |= 1u << i;
  }
  unsigned fallback = 0;
  const unsigned ok = core(s, t, p, c, c2, c2_valid, &fallback);
  for (size_t i = 0; i < count; ++i) {
    if (!(active >> i & 1)) continue;
    if (fallback >> i & 1)
      status[i] = verify_one(i);
    else
      status[i] = (ok >> i & 1) ? Error::kOk : Error::kVerifyFailed;
  }
}

}  // namespace

void verify_digests_x8(const PublicKey* const keys[], const uint8_t e[][kDigestBytes],
                       const uint8_t sig[][kSignatureBytes], Error status[], size_t count) {
  verify_lanes(keys, e, sig, status, count,
               [](const U256* s, const U256* t, const curve::Affine* p, const U256* c,
                  const U256* c2, unsigned c2_valid, unsigned* fallback) {
#if defined(__x86_64__)
                 return curve::mb::verify_x8(s, t, p, c, c2, c2_valid, fallback);
#else
                 return 0u;
#endif
               },
               [&](size_t i) { return verify_digest(*keys[i], e[i], sig[i]); });
}

void verify_digests_one_key_x8(const OneKey& key, const uint8_t e[][kDigestBytes],
                               const uint8_t sig[][kSignatureBytes], Error status[],
                               size_t count) {
  const PublicKey* keys[kLanes];
  for (const PublicKey*& k : keys) k = key.key;
  verify_lanes(keys, e, sig, status, count,
               [&](const U256* s, const U256* t, const curve::Affine*, const U256* c,
                   const U256* c2, unsigned c2_valid, unsigned* fallback) {
#if defined(__x86_64__)
                 return curve::mb::verify_table_x8(s, t, *key.lanes, c, c2, c2_valid, fallback);
#else
                 return 0u;
#endif
               },
               [&](size_t i) { return verify_digest(*key.key, e[i], sig[i], key.table); });
}

Error message_digests(uint8_t e[][kDigestBytes], const PublicKey* const keys[], const uint8_t* id,
                      size_t id_len, const uint8_t* const msgs[], const size_t lens[], size_t n) {
  if (id_len > kMaxIdBytes) return Error::kBadIdLength;
  // Z_A per item (once per run of equal key pointers), hashed in front of
  // the message in place: the messages are never copied.
  std::vector<uint8_t> za(kDigestBytes * n);
  std::vector<const uint8_t*> prefix(n);
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) {
      const Error err = compute_za(&za[kDigestBytes * i], *keys[i], id, id_len);
      if (err != Error::kOk) return err;
      prefix[i] = &za[kDigestBytes * i];
    } else {
      prefix[i] = prefix[i - 1];
    }
  }
  sm3::Prefixes prefixes;
  prefixes.bytes = prefix.data();
  prefixes.len = kDigestBytes;
  sm3::digest_many(msgs, lens, n, e, prefixes);
  return Error::kOk;
}

void sign_messages_x8(uint8_t sig[][kSignatureBytes], const PrivateKey* const keys[],
                      const uint8_t* id, size_t id_len, const uint8_t* const msgs[],
                      const size_t lens[], Nonce nonce, Error status[], size_t count) {
  if (count > kLanes) count = kLanes;
  if (count == 0) return;
  const PublicKey* pubs[kLanes];
  for (size_t i = 0; i < count; ++i) pubs[i] = &keys[i]->pub;
  uint8_t e[kLanes][kDigestBytes];
  const Error err = message_digests(e, pubs, id, id_len, msgs, lens, count);
  if (err != Error::kOk) {
    for (size_t i = 0; i < count; ++i) status[i] = err;
    return;
  }
  sign_digests_x8(sig, keys, e, nonce, status, count);
}

void verify_messages_x8(const PublicKey* const keys[], const uint8_t* id, size_t id_len,
                        const uint8_t* const msgs[], const size_t lens[],
                        const uint8_t sig[][kSignatureBytes], Error status[], size_t count) {
  if (count > kLanes) count = kLanes;
  if (count == 0) return;
  uint8_t e[kLanes][kDigestBytes];
  const Error err = message_digests(e, keys, id, id_len, msgs, lens, count);
  if (err != Error::kOk) {
    for (size_t i = 0; i < count; ++i) status[i] = err;
    return;
  }
  verify_digests_x8(keys, e, sig, status, count);
}

}  // namespace mb
}  // namespace sm2
}  // namespace ks
