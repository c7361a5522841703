// SM2 digital signatures (GB/T 32918.2-2016 / GM/T 0003.2-2012) on the
// recommended curve, CPU side. Raw encodings only: 32-byte big-endian
// scalars, r||s signatures (64 bytes), public keys as 04||x||y, x||y or
// 02/03||x. DER, PEM, SPKI and PKCS#8 belong to the layers above.
//
// The distinguishing ID is always explicit (kDefaultId is GM/T 0009's);
// note that OpenSSL 3 uses an EMPTY ID unless told otherwise.
#ifndef KS_SCHEME_SM2_H_
#define KS_SCHEME_SM2_H_

#include <stddef.h>
#include <stdint.h>

#include "sm2/sm2_curve.h"
#include "sm2/sm2_params.h"

namespace ks {
namespace sm2 {

// Values are fixed: the C API and the GPU status words mirror them.
enum class Error {
  kOk = 0,
  kBadPrivateKey = 1,        // d not a 32-byte integer in [1, n-2]
  kBadPublicKey = 2,         // bad encoding, coordinate >= p, off the curve
  kPointAtInfinity = 3,      // key exchange: U, V or P_peer + [x-bar]R_peer at infinity
  kSignatureOutOfRange = 4,  // r or s outside [1, n-1], or r + s = n
  kVerifyFailed = 5,         // well-formed signature that does not verify
  kRngFailure = 6,           // the OS random source failed
  kBadIdLength = 7,          // ID longer than kMaxIdBytes
  kBadNonce = 8,             // a caller-fixed k (test hook) outside [1, n-1] or unusable
  kBadCiphertext = 9,        // encryption: too short, malformed, C1 off the curve
  kCiphertextMismatch = 10,  // encryption: C3 does not match (wrong key or damaged)
  kBadState = 11,            // key exchange: a step out of order, or after a failure
  kConfirmMismatch = 12,     // key exchange: the peer's S_B or S_A does not match
};

// "ok", "bad private key", ... for messages.
const char* error_string(Error e);

constexpr size_t kScalarBytes = 32;
constexpr size_t kDigestBytes = 32;
constexpr size_t kSignatureBytes = 64;            // r || s
constexpr size_t kPublicKeyBytes = 65;            // 04 || x || y
constexpr size_t kCompressedPublicKeyBytes = 33;  // 02/03 || x
// ENTL is the ID length in bits in two bytes (clause 5.5): 8191 bytes at most.
constexpr size_t kMaxIdBytes = 8191;
// GM/T 0009-2012 clause 10 default distinguishing ID (16 bytes).
constexpr char kDefaultId[] = "1234567812345678";
constexpr size_t kDefaultIdBytes = sizeof(kDefaultId) - 1;

// A validated public key (on the curve, not infinity).
struct PublicKey {
  curve::Affine point;
};

// A private key prepared for signing: d, then d and (1 + d)^-1 mod n in
// Montgomery form (field/fn.h; cached so that signing needs no inversion,
// [ZHU22 section 3.3]), and the public key. Wiped on destruction; copy
// with care. Build it with private_key_from_bytes() or generate_key().
struct PrivateKey {
  field::U256 d;
  field::U256 d_mont;
  field::U256 inv_one_plus_d_mont;
  PublicKey pub;
  ~PrivateKey();
};

// --- Keys -------------------------------------------------------------------
// d in [1, n-2] (clause 6.1 of part 1 of GB/T 32918: n-1 has no (1+d)^-1).
Error private_key_from_bytes(PrivateKey& out, const uint8_t d[kScalarBytes]);
void private_key_to_bytes(uint8_t out[kScalarBytes], const PrivateKey& key);
// Key generation (GB/T 32918.1 clause 6.1): d uniformly from [1, n-2] by
// rejection sampling over os_random(), and P = [d]G. The raw form is what a
// caller stores; generate_key() also prepares the key for signing (one
// inversion mod n more).
Error generate_keypair(uint8_t d[kScalarBytes], PublicKey& pub);
// Whether d (32 big-endian bytes) is in [1, n-2], in constant time; only
// the verdict is public.
bool private_key_in_range(const uint8_t d[kScalarBytes]);
Error generate_key(PrivateKey& out);

// 65-byte 04||x||y, 64-byte x||y or 33-byte 02/03||x (GB/T 32918.1
// clause 4.2.9); anything else, the one-byte encoding 00 of the point at
// infinity included, is kBadPublicKey.
Error public_key_from_bytes(PublicKey& out, const uint8_t* in, size_t len);
void public_key_to_bytes(uint8_t out[kPublicKeyBytes], const PublicKey& key);
void public_key_to_compressed(uint8_t out[kCompressedPublicKeyBytes], const PublicKey& key);

// --- Hashing (clause 5.5) ---------------------------------------------------
// Z_A = SM3(ENTL || ID || a || b || xG || yG || xA || yA); id may be empty.
Error compute_za(uint8_t za[kDigestBytes], const PublicKey& key, const uint8_t* id, size_t id_len);
// The key-independent start of Z_A's input, ENTL || ID || a || b || xG ||
// yG, for hashing elsewhere (the GPU): writes 2 + id_len + 128 bytes (at
// most kZaPrefixMaxBytes) and returns that length; 0 for an ID over
// kMaxIdBytes.
constexpr size_t kZaPrefixMaxBytes = 2 + kMaxIdBytes + 128;
size_t za_prefix(uint8_t* out, const uint8_t* id, size_t id_len);
// The curve's part of that input alone, a || b || xG || yG (32 bytes
// big-endian each), for Z_A over per-item IDs (the GPU's digest batch).
void za_curve_part(uint8_t out[128]);
// e = SM3(Z_A || M), the digest that sign_digest/verify_digest take.
Error message_digest(uint8_t e[kDigestBytes], const PublicKey& key, const uint8_t* id,
                     size_t id_len, const uint8_t* msg, size_t msg_len);

// --- Signatures (clauses 6.1 and 7.1) ---------------------------------------
enum class Nonce {
  kRandom,         // k from os_random(), rejection-sampled into [1, n-1]
  kDeterministic,  // RFC 6979 section 3.2 with HMAC-SM3 (see sm2.cc)
};

// (x1, y1) = [k]G, r = (e + x1) mod n, s = (1 + d)^-1 (k - r d) mod n,
// with a fresh k whenever r = 0, r + k = n or s = 0 (clause 6.1, A3-A6).
// Constant time in d and k: no branch or memory index depends on them
// (valgrind with d and k marked undefined reports nothing under KS_CTGRIND).
// sign_message hashes e = SM3(Z_A || M) with the key's own public key.
Error sign_digest(uint8_t sig[kSignatureBytes], const PrivateKey& key,
                  const uint8_t e[kDigestBytes], Nonce nonce = Nonce::kRandom);
Error sign_message(uint8_t sig[kSignatureBytes], const PrivateKey& key, const uint8_t* id,
                   size_t id_len, const uint8_t* msg, size_t msg_len, Nonce nonce = Nonce::kRandom);

// Test hook for known-answer vectors: signs with the caller's k. Returns
// kBadNonce if k is outside [1, n-1] or gives r = 0, r + k = n or s = 0
// (where a real signer would draw another k). Never use with a k that is
// not fresh and secret: reusing k reveals d.
Error sign_digest_with_fixed_nonce(uint8_t sig[kSignatureBytes], const PrivateKey& key,
                                   const uint8_t e[kDigestBytes], const uint8_t k[kScalarBytes]);

// kOk only for a valid signature; kSignatureOutOfRange for r or s outside
// [1, n-1] or r + s = n, kVerifyFailed otherwise. table, when given, is
// key's comb table (curve::make_point_table): [s]G + [t]P from two combs.
Error verify_digest(const PublicKey& key, const uint8_t e[kDigestBytes],
                    const uint8_t sig[kSignatureBytes], const curve::PointTable* table = nullptr);
Error verify_message(const PublicKey& key, const uint8_t* id, size_t id_len, const uint8_t* msg,
                     size_t msg_len, const uint8_t sig[kSignatureBytes],
                     const curve::PointTable* table = nullptr);

}  // namespace sm2
}  // namespace ks

#endif  // KS_SCHEME_SM2_H_
