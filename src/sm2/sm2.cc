#include "sm2/sm2.h"

#include <string.h>

#include <initializer_list>

#include "core/os_random.h"
#include "core/secure.h"
#include "sm2/sm2_curve.h"
#include "sm3/sm3.h"
#include "sm2/sm2_detail.h"

namespace ks {
namespace sm2 {

using field::Fn;
using field::U256;

namespace detail {

bool declassify(uint64_t mask) { return ct_public(value_barrier(mask)) != 0; }

U256 n_minus(uint64_t k) {
  U256 r;
  field::sub_borrow(r, Fn::kModulus, U256{{k, 0, 0, 0}});
  return r;
}

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

}  // namespace detail

namespace {

using detail::declassify;
using detail::n_minus;
using detail::random_scalar;

using curve::Affine;
using field::Fp;

// Where the per-signature k comes from: next() yields the next candidate
// in [1, n-1]; the signer asks again when k gives r = 0, r + k = n or s = 0.
class NonceSource {
 public:
  virtual ~NonceSource() = default;
  virtual Error next(U256& k) = 0;
};

class RandomNonces final : public NonceSource {
 public:
  Error next(U256& k) override { return random_scalar(k, n_minus(1)); }
};

// RFC 6979 section 3.2 with HMAC-SM3 as the HMAC and q = n (qlen = hlen =
// 256, so bits2int is the plain big-endian reading and one HMAC output
// makes one candidate):
//   seed = int2octets(d) || bits2octets(e)   (e mod n, 32 bytes each)
//   V = 0x01^32, K = 0x00^32
//   K = HMAC_K(V || 0x00 || seed); V = HMAC_K(V)
//   K = HMAC_K(V || 0x01 || seed); V = HMAC_K(V)
//   each candidate: V = HMAC_K(V), k = V read big-endian, kept if in [1, n-1];
//   before every further candidate: K = HMAC_K(V || 0x00); V = HMAC_K(V).
// Same key and digest give the same signature; distinct digests give
// independent-looking k without a random source.
class DeterministicNonces final : public NonceSource {
 public:
  DeterministicNonces(const U256& d, const U256& e_mod_n) {
    uint8_t seed[2 * kScalarBytes];
    field::to_be_bytes(seed, d);
    field::to_be_bytes(seed + kScalarBytes, e_mod_n);
    for (size_t i = 0; i < sizeof v_; ++i) v_[i] = 0x01, k_[i] = 0x00;
    for (uint8_t separator : {0x00, 0x01}) {
      hmac_into(k_, v_, &separator, 1, seed, sizeof seed);
      hmac_into(v_, v_, nullptr, 0, nullptr, 0);
    }
    secure_wipe(seed, sizeof seed);
  }
  ~DeterministicNonces() override {
    secure_wipe(k_, sizeof k_);
    secure_wipe(v_, sizeof v_);
  }

  Error next(U256& k) override {
    for (;;) {
      if (started_) {
        const uint8_t zero = 0x00;
        hmac_into(k_, v_, &zero, 1, nullptr, 0);
        hmac_into(v_, v_, nullptr, 0, nullptr, 0);
      }
      started_ = true;
      hmac_into(v_, v_, nullptr, 0, nullptr, 0);
      k = field::from_be_bytes(v_);
      if (declassify(Fn::in_range_nonzero(k))) return Error::kOk;
    }
  }

 private:
  // out = HMAC_K(V || a || b) under the current key K.
  void hmac_into(uint8_t out[sm3::kDigestBytes], const uint8_t* v, const uint8_t* a, size_t a_len,
                 const uint8_t* b, size_t b_len) {
    sm3::HmacSm3 mac(k_, sizeof k_);
    mac.update(v, sm3::kDigestBytes);
    mac.update(a, a_len);
    mac.update(b, b_len);
    mac.finish(out);
  }

  uint8_t k_[sm3::kDigestBytes], v_[sm3::kDigestBytes];
  bool started_ = false;
};

// The caller's k, once (sign_digest_with_fixed_nonce).
class FixedNonce final : public NonceSource {
 public:
  explicit FixedNonce(const U256& k) : k_(k) {}
  ~FixedNonce() override { secure_wipe(&k_, sizeof k_); }
  Error next(U256& k) override {
    if (used_ || !declassify(Fn::in_range_nonzero(k_))) return Error::kBadNonce;
    used_ = true;
    k = k_;
    return Error::kOk;
  }

 private:
  U256 k_;
  bool used_ = false;
};

// Steps A4-A6 of clause 6.1 for one k in [1, n-1]: (x1, y1) = [k]G,
// r = (e + x1) mod n, s = (1 + d)^-1 (k - r d) mod n. Returns an all-ones
// mask when the attempt is usable (r != 0, r + k != n, s != 0). The only
// place the signing equation is written.
uint64_t sign_attempt(U256& r, U256& s, const PrivateKey& key, const U256& e_mod_n, const U256& k) {
  const Affine p1 = curve::mul_base_affine(k);  // finite: k in [1, n-1]
  r = Fn::add(e_mod_n, Fn::reduce_once(p1.x));
  const uint64_t r_ok = ~field::is_zero_mask(r) & ~field::is_zero_mask(Fn::add(r, k));
  const U256 k_minus_rd = Fn::sub(k, Fn::mul_plain_mont(r, key.d_mont));
  s = Fn::mul_plain_mont(k_minus_rd, key.inv_one_plus_d_mont);
  return r_ok & ~field::is_zero_mask(s);
}

Error sign_with(uint8_t sig[kSignatureBytes], const PrivateKey& key, const U256& e_mod_n,
                NonceSource& nonces) {
  U256 k, r, s;
  Error err;
  for (;;) {
    err = nonces.next(k);
    if (err != Error::kOk) break;
    if (declassify(sign_attempt(r, s, key, e_mod_n, k))) {
      field::to_be_bytes(sig, r);
      field::to_be_bytes(sig + kScalarBytes, s);
      ct_declassify(sig, kSignatureBytes);  // the signature is public
      break;
    }
  }
  secure_wipe(&k, sizeof k);
  return err;
}

U256 digest_mod_n(const uint8_t e[kDigestBytes]) {
  return Fn::reduce_once(field::from_be_bytes(e));  // e < 2^256 < 2n
}

// P = [d]G, finite for d in [1, n-2]; public once computed.
curve::Affine public_point(const U256& d) {
  const curve::Affine p = curve::mul_base_affine(d);
  ct_declassify(&p, sizeof p);
  return p;
}

void prepare_private_key(PrivateKey& out, const U256& d) {
  out.d = d;
  out.d_mont = Fn::to_mont(d);
  out.inv_one_plus_d_mont = Fn::inv_mont(Fn::add(out.d_mont, Fn::one_mont()));
  out.pub.point = public_point(d);
}

// Step B7, R = (e + x1) mod n == r, is x1 = r - e (mod n) for the affine x1
// of the finite Jacobian point p. Since x1 < p < 2n that means x1 = c or
// x1 = c + n (when below p) for c = (r - e) mod n, and x1 = X/Z^2 turns each
// test into X == x Z^2: two multiplications instead of an inversion.
bool x_matches(const curve::Jacobian& p, const U256& c) {
  const U256 z2 = Fp::sqr(p.z);
  if (Fp::eq(p.x, Fp::mul(c, z2))) return true;
  U256 c_plus_n;
  if (field::add_carry(c_plus_n, c, Fn::kModulus) || !field::lt_mask(c_plus_n, Fp::kModulus))
    return false;
  return Fp::eq(p.x, Fp::mul(c_plus_n, z2)) != 0;
}

}  // namespace

const char* error_string(Error e) {
  switch (e) {
    case Error::kOk:
      return "ok";
    case Error::kBadPrivateKey:
      return "bad private key";
    case Error::kBadPublicKey:
      return "bad public key";
    case Error::kPointAtInfinity:
      return "point at infinity";
    case Error::kSignatureOutOfRange:
      return "signature out of range";
    case Error::kVerifyFailed:
      return "signature verification failed";
    case Error::kRngFailure:
      return "random number generator failure";
    case Error::kBadIdLength:
      return "ID too long";
    case Error::kBadNonce:
      return "unusable nonce";
    case Error::kBadCiphertext:
      return "malformed ciphertext";
    case Error::kCiphertextMismatch:
      return "ciphertext check failed";
    case Error::kBadState:
      return "key exchange step out of order";
    case Error::kConfirmMismatch:
      return "key confirmation failed";
  }
  return "unknown error";
}

PrivateKey::~PrivateKey() { secure_wipe(this, sizeof *this); }

bool private_key_in_range(const uint8_t d_bytes[kScalarBytes]) {
  U256 d = field::from_be_bytes(d_bytes);
  const uint64_t ok = Fn::in_range_nonzero(d) & ~field::eq_mask(d, n_minus(1));
  secure_wipe(&d, sizeof d);
  return declassify(ok);
}

Error private_key_from_bytes(PrivateKey& out, const uint8_t d_bytes[kScalarBytes]) {
  U256 d = field::from_be_bytes(d_bytes);
  Error err = Error::kBadPrivateKey;
  if (private_key_in_range(d_bytes)) {
    prepare_private_key(out, d);
    err = Error::kOk;
  }
  secure_wipe(&d, sizeof d);
  return err;
}

void private_key_to_bytes(uint8_t out[kScalarBytes], const PrivateKey& key) {
  field::to_be_bytes(out, key.d);
}

Error generate_keypair(uint8_t d_bytes[kScalarBytes], PublicKey& pub) {
  U256 d;
  const Error err = random_scalar(d, n_minus(2));
  if (err == Error::kOk) {
    pub.point = public_point(d);
    field::to_be_bytes(d_bytes, d);
  }
  secure_wipe(&d, sizeof d);
  return err;
}

Error generate_key(PrivateKey& out) {
  U256 d;
  const Error err = random_scalar(d, n_minus(2));
  if (err == Error::kOk) prepare_private_key(out, d);
  secure_wipe(&d, sizeof d);
  return err;
}

Error public_key_from_bytes(PublicKey& out, const uint8_t* in, size_t len) {
  return curve::decode_point(out.point, in, len) ? Error::kOk : Error::kBadPublicKey;
}

void public_key_to_bytes(uint8_t out[kPublicKeyBytes], const PublicKey& key) {
  curve::encode_point_uncompressed(out, key.point);
}

void public_key_to_compressed(uint8_t out[kCompressedPublicKeyBytes], const PublicKey& key) {
  curve::encode_point_compressed(out, key.point);
}

namespace {

// ENTL: the ID's length in bits, two bytes big-endian (clause 5.5).
void entl_bytes(uint8_t out[2], size_t id_len) {
  const size_t entl = id_len * 8;
  out[0] = uint8_t(entl >> 8);
  out[1] = uint8_t(entl);
}

}  // namespace

void za_curve_part(uint8_t out[128]) {
  const U256 a = Fp::neg(U256{{3, 0, 0, 0}});
  const U256* values[4] = {&a, &curve::kB, &curve::kG.x, &curve::kG.y};
  for (int i = 0; i < 4; ++i) Fp::to_bytes(out + 32 * i, *values[i]);
}

Error compute_za(uint8_t za[kDigestBytes], const PublicKey& key, const uint8_t* id, size_t id_len) {
  if (id_len > kMaxIdBytes) return Error::kBadIdLength;
  uint8_t entl[2], curve_part[128], xy[64];
  entl_bytes(entl, id_len);
  za_curve_part(curve_part);
  Fp::to_bytes(xy, key.point.x);
  Fp::to_bytes(xy + 32, key.point.y);
  sm3::Sm3 h;
  h.update(entl, 2);
  h.update(id, id_len);
  h.update(curve_part, sizeof curve_part);
  h.update(xy, sizeof xy);
  h.finish(za);
  return Error::kOk;
}

size_t za_prefix(uint8_t* out, const uint8_t* id, size_t id_len) {
  if (id_len > kMaxIdBytes) return 0;
  entl_bytes(out, id_len);
  if (id_len > 0) memcpy(out + 2, id, id_len);
  za_curve_part(out + 2 + id_len);
  return 2 + id_len + 128;
}

Error message_digest(uint8_t e[kDigestBytes], const PublicKey& key, const uint8_t* id,
                     size_t id_len, const uint8_t* msg, size_t msg_len) {
  uint8_t za[kDigestBytes];
  const Error err = compute_za(za, key, id, id_len);
  if (err != Error::kOk) return err;
  sm3::Sm3 h;
  h.update(za, sizeof za);
  h.update(msg, msg_len);
  h.finish(e);
  return Error::kOk;
}

Error sign_digest(uint8_t sig[kSignatureBytes], const PrivateKey& key,
                  const uint8_t e[kDigestBytes], Nonce nonce) {
  const U256 e_mod_n = digest_mod_n(e);
  if (nonce == Nonce::kDeterministic) {
    DeterministicNonces nonces(key.d, e_mod_n);
    return sign_with(sig, key, e_mod_n, nonces);
  }
  RandomNonces nonces;
  return sign_with(sig, key, e_mod_n, nonces);
}

Error sign_message(uint8_t sig[kSignatureBytes], const PrivateKey& key, const uint8_t* id,
                   size_t id_len, const uint8_t* msg, size_t msg_len, Nonce nonce) {
  uint8_t e[kDigestBytes];
  const Error err = message_digest(e, key.pub, id, id_len, msg, msg_len);
  return err != Error::kOk ? err : sign_digest(sig, key, e, nonce);
}

Error sign_digest_with_fixed_nonce(uint8_t sig[kSignatureBytes], const PrivateKey& key,
                                   const uint8_t e[kDigestBytes], const uint8_t k[kScalarBytes]) {
  FixedNonce nonce(field::from_be_bytes(k));
  return sign_with(sig, key, digest_mod_n(e), nonce);
}

// Clause 7.1, steps B1-B7 (B3-B4, hashing, happen in verify_message).
Error verify_digest(const PublicKey& key, const uint8_t e[kDigestBytes],
                    const uint8_t sig[kSignatureBytes], const curve::PointTable* table) {
  const U256 r = field::from_be_bytes(sig);
  const U256 s = field::from_be_bytes(sig + kScalarBytes);
  if (!Fn::in_range_nonzero(r) || !Fn::in_range_nonzero(s))
    return Error::kSignatureOutOfRange;  // B1, B2
  const U256 t = Fn::add(r, s);          // B5
  if (field::is_zero_mask(t)) return Error::kSignatureOutOfRange;
  const curve::Jacobian p1 = table != nullptr  // B6
                                 ? curve::mul_base_add_table_vartime(s, t, *table)
                                 : curve::mul_base_add_point_vartime(s, t, key.point);
  if (p1.is_infinity()) return Error::kVerifyFailed;
  return x_matches(p1, Fn::sub(r, digest_mod_n(e))) ? Error::kOk : Error::kVerifyFailed;
}

Error verify_message(const PublicKey& key, const uint8_t* id, size_t id_len, const uint8_t* msg,
                     size_t msg_len, const uint8_t sig[kSignatureBytes],
                     const curve::PointTable* table) {
  uint8_t e[kDigestBytes];
  const Error err = message_digest(e, key, id, id_len, msg, msg_len);
  return err != Error::kOk ? err : verify_digest(key, e, sig, table);
}

}  // namespace sm2
}  // namespace ks
