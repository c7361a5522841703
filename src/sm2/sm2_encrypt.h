// SM2 public-key encryption (GB/T 32918.4-2016 clauses 6 and 7; GM/T
// 0003.4) on the recommended curve, one message at a time:
//   C1 = [k]G, (x2, y2) = [k]P_B, t = KDF(x2 || y2, klen), C2 = M ^ t,
//   C3 = SM3(x2 || M || y2).
// Three ciphertext forms: C1 || C3 || C2 (the 2016 standard's order),
// C1 || C2 || C3 (the 2012 order still deployed), and GM/T 0009-2012
// clause 7.2's DER SM2Cipher SEQUENCE { x INTEGER, y INTEGER, hash OCTET
// STRING (32), ciphertext OCTET STRING }, which OpenSSL writes. C1 is
// written uncompressed; the raw forms read a compressed C1 too.
#ifndef KS_SM2_SM2_ENCRYPT_H_
#define KS_SM2_SM2_ENCRYPT_H_

#include <stddef.h>
#include <stdint.h>

#include "core/hd.h"
#include "encoding/der.h"
#include "sm2/sm2.h"

namespace ks {
namespace sm2 {

enum class CipherForm { kC1C3C2 = 0, kC1C2C3 = 1, kDer = 2 };

constexpr size_t kC3Bytes = kDigestBytes;
// The raw forms' overhead with an uncompressed C1.
constexpr size_t kCiphertextOverhead = kPublicKeyBytes + kC3Bytes;
// The most bytes the DER form adds beyond the raw one: SEQUENCE and OCTET
// STRING headers (1 + 9 each at most), the INTEGERs' tags, lengths and sign
// bytes (3 each), the hash's header (2), less the raw C1's 04 prefix.
constexpr size_t kDerExtraBytes = 2 * 10 + 2 * 3 + 2 - 1;

// The most bytes encrypt writes for a message of len bytes (0 on overflow).
size_t ciphertext_bound(size_t len, CipherForm form);

// Encrypts msg to pub into out (out_cap bytes; the exact length in
// *out_len). out must not overlap msg. k is drawn from os_random (again
// when t is all zero, clause 6.1 A5); fixed_k, a test hook for the
// standard's examples, fixes it (kBadNonce if outside [1, n-1] or t is all
// zero). table, when given, is pub's comb table (curve::make_point_table):
// [k]P_B then costs what [k]G does. Constant time in k and the message.
Error encrypt(const PublicKey& pub, const uint8_t* msg, size_t len, CipherForm form,
              uint8_t* out, size_t out_cap, size_t* out_len,
              const uint8_t fixed_k[kScalarBytes] = nullptr,
              const curve::PointTable* table = nullptr);

// Where a ciphertext's parts are (clause 7.1 B1's parse; C1 not decoded).
struct CiphertextParts {
  const uint8_t* c1;  // the point's encoding (65 or 33 bytes), or der_xy (DER)
  size_t c1_len;
  const uint8_t* c3;
  const uint8_t* c2;
  size_t c2_len;
  uint8_t der_xy[kPublicKeyBytes];  // DER: 04 || x || y from the INTEGERs
};
// kBadCiphertext for one that is malformed (too short, bad DER, trailing
// bytes). parts may point into itself (der_xy): do not copy it. Host and
// device code: the GPU parses ciphertexts in its memory with it.
KS_HD Error parse_ciphertext(const uint8_t* ct, size_t ct_len, CipherForm form,
                             CiphertextParts* l) {
  if (form == CipherForm::kDer) {
    der::Reader r(ct, ct_len), seq, hash, c2;
    l->der_xy[0] = 0x04;
    if (r.read(der::kSequence, &seq) != der::Error::kOk || r.finish() != der::Error::kOk ||
        seq.read_unsigned(l->der_xy + 1, kScalarBytes) != der::Error::kOk ||
        seq.read_unsigned(l->der_xy + 1 + kScalarBytes, kScalarBytes) != der::Error::kOk ||
        seq.read(der::kOctetString, &hash) != der::Error::kOk || hash.remaining() != kC3Bytes ||
        seq.read(der::kOctetString, &c2) != der::Error::kOk || seq.finish() != der::Error::kOk)
      return Error::kBadCiphertext;
    l->c1 = l->der_xy;
    l->c1_len = kPublicKeyBytes;
    l->c3 = hash.data();
    l->c2 = c2.data();
    l->c2_len = c2.remaining();
    return Error::kOk;
  }
  if (ct_len < 1) return Error::kBadCiphertext;
  const size_t c1_len = ct[0] == 0x04 ? kPublicKeyBytes : kCompressedPublicKeyBytes;
  if (ct_len < c1_len + kC3Bytes) return Error::kBadCiphertext;
  const size_t c2_len = ct_len - c1_len - kC3Bytes;
  const bool c3_first = form == CipherForm::kC1C3C2;
  l->c1 = ct;
  l->c1_len = c1_len;
  l->c3 = ct + c1_len + (c3_first ? 0 : c2_len);
  l->c2 = ct + c1_len + (c3_first ? kC3Bytes : 0);
  l->c2_len = c2_len;
  return Error::kOk;
}

// The plaintext length of a ciphertext in form, or kBadCiphertext for one
// that is malformed (too short, bad DER, trailing bytes); C1 is not
// checked here.
Error plaintext_length(const uint8_t* ct, size_t ct_len, CipherForm form, size_t* len);

// Decrypts into out (out_cap >= plaintext_length). Checks that C1 is a
// point of the curve (kBadCiphertext otherwise: never [d]C1 of a foreign
// point); compares C3 in constant time (kCiphertextMismatch) and on any
// failure leaves out[0 .. plaintext length) zeroed. Constant time in d and
// the plaintext. out must not overlap ct.
Error decrypt(const PrivateKey& key, const uint8_t* ct, size_t ct_len, CipherForm form,
              uint8_t* out, size_t out_cap, size_t* out_len);

// --- Eight at a time (the batch calls) ------------------------------------
// The point multiplications of up to eight items in AVX-512 IFMA lanes
// where the CPU has them (sm2/sm2_curve_mb.h), the KDF and SM3 item by
// item; per-item results as encrypt() and decrypt() give them (status and
// out_len), constant time as they are.
struct EncryptJob {
  const PublicKey* pub;
  const uint8_t* msg;
  size_t len;
  uint8_t* out;
  size_t out_cap;
  size_t out_len;
  Error status;
};
// table, when given, is the comb table of every job's pub (one recipient).
void encrypt_x8(EncryptJob jobs[], size_t n, CipherForm form,
                const curve::PointTable* table = nullptr);

struct DecryptJob {
  const PrivateKey* key;
  const uint8_t* ct;
  size_t ct_len;
  uint8_t* out;
  size_t out_cap;
  size_t out_len;
  Error status;
};
void decrypt_x8(DecryptJob jobs[], size_t n, CipherForm form);

}  // namespace sm2
}  // namespace ks

#endif  // KS_SM2_SM2_ENCRYPT_H_
