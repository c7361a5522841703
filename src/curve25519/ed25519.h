// Ed25519, Ed25519ctx and Ed25519ph signatures (RFC 8032 5.1) on the CPU.
// Raw encodings only: 32-byte seeds (the private key RFC 8032 and OpenSSL
// store), 32-byte public keys, 64-byte R || S signatures; PKCS#8 and SPKI
// belong to the layers above.
//
// Verification rules (the same on every path of the library: one
// operation, CPU batches, the 8-lane batches, the GPU):
//   1. S must be canonical: S < L (RFC 8032 5.1.7 step 1; rejects the
//      malleable S + L).
//   2. A and R must be canonical encodings of curve points: y < p, and
//      x = 0 only with the sign bit clear (5.1.3).
//   3. A and R must not have small order ([8]P = identity): a key of small
//      order verifies forged signatures of any message under the
//      cofactored equation; rejecting both, as libsodium does, also makes
//      a signature's validity independent of the equation's form.
//   4. The equation is the cofactored one, [8][S]B = [8]R + [8][k]A
//      (5.1.7 step 3), with k = SHA-512(dom2 || R || A || M) mod L over the
//      encodings as given: it is the form a batch check (random linear
//      combination) can agree with on every input, including A and R with
//      a small-order component, which the cofactorless [S]B = R + [k]A
//      rejects and a batch may accept.
// OpenSSL checks the cofactorless equation: a signature whose R (or A)
// carries a torsion component of order 2, 4 or 8 verifies here and fails
// there; every other input gets the same answer from both (tested).
#ifndef KS_SCHEME_ED25519_H_
#define KS_SCHEME_ED25519_H_

#include <stddef.h>
#include <stdint.h>

#include "curve25519/ed25519_curve.h"

namespace ks {
namespace ed25519 {

constexpr size_t kSeedBytes = 32;
constexpr size_t kPublicKeyBytes = 32;
constexpr size_t kSignatureBytes = 64;  // R || S
constexpr size_t kMaxContextBytes = 255;

enum class Error {
  kOk = 0,
  kBadPublicKey,     // A not a canonical point encoding, or of small order
  kBadSignature,     // S >= L, or R not a canonical point of large order
  kVerifyFailed,     // well-formed signature that does not verify
  kRngFailure,       // the OS random source failed (key generation)
  kBadContext,       // context longer than 255 bytes, or empty for Ed25519ctx
};

// The three instances of RFC 8032 5.1: pure Ed25519 (no context),
// Ed25519ctx (context of 1..255 bytes), Ed25519ph (SHA-512 of the message
// is signed; context of 0..255 bytes).
enum class Flavor { kPure, kCtx, kPh };

struct Domain {
  Flavor flavor = Flavor::kPure;
  const uint8_t* context = nullptr;
  size_t context_len = 0;
};

// A validated public key: its encoding and its point (decoded once).
struct PublicKey {
  uint8_t bytes[kPublicKeyBytes];
  curve::ed25519::Point point;
};

// A private key expanded for signing (RFC 8032 5.1.5): h = SHA-512(seed),
// s = the clamped first half as an integer, the second half the nonce
// prefix; s mod L in Montgomery form; the public key. Wiped on destruction.
struct PrivateKey {
  uint8_t seed[kSeedBytes];
  field::U256 s;
  field::U256 s_mont;
  uint8_t prefix[32];
  PublicKey pub;
  PrivateKey() = default;
  PrivateKey(const PrivateKey&) = default;
  PrivateKey& operator=(const PrivateKey&) = default;
  ~PrivateKey();
};

// The 96-byte form of a key that the GPU signing kernels take
// (curve25519/gpu/curve25519_gpu.h): s_mont as 32 little-endian bytes || prefix ||
// public key. A secret: the caller wipes it.
constexpr size_t kDeviceKeyBytes = 96;
void device_key_bytes(uint8_t out[kDeviceKeyBytes], const PrivateKey& key);

// Keys. Every 32-byte seed is a valid private key.
void key_from_seed(PrivateKey& out, const uint8_t seed[kSeedBytes]);
Error generate_key(PrivateKey& out);  // seed from os_random
Error public_key_from_bytes(PublicKey& out, const uint8_t in[kPublicKeyBytes]);

// Signing is deterministic (RFC 8032 5.1.6: r = SHA-512(dom2 || prefix ||
// M) mod L) and constant time in the key and the nonce.
Error sign(uint8_t sig[kSignatureBytes], const PrivateKey& key, const Domain& domain,
           const uint8_t* msg, size_t msg_len);
// kOk, kBadSignature, kVerifyFailed or kBadContext; variable time (public
// inputs).
Error verify(const PublicKey& key, const Domain& domain, const uint8_t* msg, size_t msg_len,
             const uint8_t sig[kSignatureBytes]);

// --- Pieces shared with the batch paths (curve25519/ed25519_mb.cc) -----------

// dom2(F, C) (RFC 8032 2): empty for pure Ed25519, else
// "SigEd25519 no Ed25519 collisions" || F || |C| || C. Returns its length
// (at most kMaxDom2Bytes), or -1 for a context the flavor does not allow.
constexpr size_t kMaxDom2Bytes = 32 + 2 + kMaxContextBytes;
int dom2(uint8_t out[kMaxDom2Bytes], const Domain& domain);

// s of the expanded key (5.1.5 step 2): the first half of h = SHA-512(seed)
// with the low three bits and bit 255 cleared and bit 254 set.
field::U256 expanded_scalar(const uint8_t h[64]);

// S = (r + k s) mod L, the signing equation (5.1.6 step 5), written once.
field::U256 signing_equation(const field::U256& r, const field::U256& k,
                             const field::U256& s_mont);

// The checks of a signature's own bytes (rules 1-3 for R and S): kOk with
// R decoded, or kBadSignature.
Error parse_signature(curve::ed25519::Point& r, field::U256& s, const uint8_t sig[kSignatureBytes]);

}  // namespace ed25519
}  // namespace ks

#endif  // KS_SCHEME_ED25519_H_
