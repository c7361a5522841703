#include "curve25519/ed25519.h"

#include <string.h>

#include "core/os_random.h"
#include "core/secure.h"
#include "field/sc25519.h"
#include "hash/sha512.h"

namespace ks {
namespace ed25519 {

using field::Sc25519;
using field::U256;
namespace curve25519 = curve::ed25519;

namespace {

// The message as RFC 8032 signs it: M itself, or SHA-512(M) for Ed25519ph
// (5.1: PH(M) = SHA-512(M)).
struct SignedMessage {
  const uint8_t* bytes;
  size_t len;
  uint8_t prehash[sha512::kDigestBytes];

  SignedMessage(const Domain& domain, const uint8_t* msg, size_t msg_len) {
    if (domain.flavor == Flavor::kPh) {
      sha512::digest(msg, msg_len, prehash);
      bytes = prehash;
      len = sizeof prehash;
    } else {
      bytes = msg;
      len = msg_len;
    }
  }
};

// SHA-512(dom2 || a || b || M) mod L: a is the nonce prefix (then b is
// empty) or R (then b is A).
U256 hash_to_scalar(const uint8_t* dom, size_t dom_len, const uint8_t* a, size_t a_len,
                    const uint8_t* b, size_t b_len, const SignedMessage& m) {
  sha512::Sha512 h;
  h.update(dom, dom_len);
  h.update(a, a_len);
  h.update(b, b_len);
  h.update(m.bytes, m.len);
  uint8_t digest[sha512::kDigestBytes];
  h.finish(digest);
  const U256 scalar = Sc25519::reduce_wide(digest);
  secure_wipe(digest, sizeof digest);
  return scalar;
}

}  // namespace

PrivateKey::~PrivateKey() { secure_wipe(this, sizeof *this); }

U256 expanded_scalar(const uint8_t h[64]) {
  U256 s = Sc25519::from_le_bytes(h);
  s.w[0] &= ~uint64_t(7);
  s.w[3] &= 0x7FFFFFFFFFFFFFFFull;
  s.w[3] |= 0x4000000000000000ull;
  return s;
}

void key_from_seed(PrivateKey& out, const uint8_t seed[kSeedBytes]) {
  uint8_t h[sha512::kDigestBytes];
  sha512::digest(seed, kSeedBytes, h);
  memcpy(out.seed, seed, kSeedBytes);
  out.s = expanded_scalar(h);
  out.s_mont = Sc25519::to_mont(out.s);  // s < 2^255 < R: one Montgomery step reduces it
  memcpy(out.prefix, h + 32, 32);
  out.pub.point = curve25519::mul_base(out.s);
  curve25519::encode(out.pub.bytes, out.pub.point);
  ct_declassify(&out.pub, sizeof out.pub);  // the public key is public
  secure_wipe(h, sizeof h);
}

void device_key_bytes(uint8_t out[kDeviceKeyBytes], const PrivateKey& key) {
  Sc25519::to_le_bytes(out, key.s_mont);
  memcpy(out + 32, key.prefix, 32);
  memcpy(out + 64, key.pub.bytes, 32);
}

Error generate_key(PrivateKey& out) {
  uint8_t seed[kSeedBytes];
  if (!os_random(seed, sizeof seed)) return Error::kRngFailure;
  key_from_seed(out, seed);
  secure_wipe(seed, sizeof seed);
  return Error::kOk;
}

Error public_key_from_bytes(PublicKey& out, const uint8_t in[kPublicKeyBytes]) {
  if (!curve25519::decode(out.point, in) || curve25519::has_small_order(out.point))
    return Error::kBadPublicKey;
  memcpy(out.bytes, in, kPublicKeyBytes);
  return Error::kOk;
}

int dom2(uint8_t out[kMaxDom2Bytes], const Domain& domain) {
  static const char kPrefix[] = "SigEd25519 no Ed25519 collisions";
  if (domain.context_len > kMaxContextBytes) return -1;
  if (domain.flavor == Flavor::kPure) return domain.context_len == 0 ? 0 : -1;
  if (domain.flavor == Flavor::kCtx && domain.context_len == 0) return -1;  // 5.1: C non-empty
  memcpy(out, kPrefix, 32);
  out[32] = domain.flavor == Flavor::kPh ? 1 : 0;
  out[33] = uint8_t(domain.context_len);
  if (domain.context_len > 0) memcpy(out + 34, domain.context, domain.context_len);
  return int(34 + domain.context_len);
}

U256 signing_equation(const U256& r, const U256& k, const U256& s_mont) {
  return Sc25519::add(r, Sc25519::mul_plain_mont(k, s_mont));
}

Error parse_signature(curve25519::Point& r, U256& s, const uint8_t sig[kSignatureBytes]) {
  if (!Sc25519::is_canonical(sig + 32)) return Error::kBadSignature;
  if (!curve25519::decode(r, sig) || curve25519::has_small_order(r)) return Error::kBadSignature;
  s = Sc25519::from_le_bytes(sig + 32);
  return Error::kOk;
}

Error sign(uint8_t sig[kSignatureBytes], const PrivateKey& key, const Domain& domain,
           const uint8_t* msg, size_t msg_len) {
  uint8_t dom[kMaxDom2Bytes];
  const int dom_len = dom2(dom, domain);
  if (dom_len < 0) return Error::kBadContext;
  const SignedMessage m(domain, msg, msg_len);
  // 5.1.6 steps 2-5
  U256 r = hash_to_scalar(dom, size_t(dom_len), key.prefix, 32, nullptr, 0, m);
  curve25519::encode(sig, curve25519::mul_base(r));
  ct_declassify(sig, 32);  // R is part of the signature
  const U256 k = hash_to_scalar(dom, size_t(dom_len), sig, 32, key.pub.bytes, kPublicKeyBytes, m);
  const U256 s = signing_equation(r, k, key.s_mont);
  Sc25519::to_le_bytes(sig + 32, s);
  ct_declassify(sig + 32, 32);
  secure_wipe(&r, sizeof r);
  return Error::kOk;
}

Error verify(const PublicKey& key, const Domain& domain, const uint8_t* msg, size_t msg_len,
             const uint8_t sig[kSignatureBytes]) {
  uint8_t dom[kMaxDom2Bytes];
  const int dom_len = dom2(dom, domain);
  if (dom_len < 0) return Error::kBadContext;
  curve25519::Point r;
  U256 s;
  const Error parsed = parse_signature(r, s, sig);
  if (parsed != Error::kOk) return parsed;
  const SignedMessage m(domain, msg, msg_len);
  const U256 k = hash_to_scalar(dom, size_t(dom_len), sig, 32, key.bytes, kPublicKeyBytes, m);
  return curve25519::verify_equation(s, k, key.point, r) ? Error::kOk : Error::kVerifyFailed;
}

}  // namespace ed25519
}  // namespace ks
