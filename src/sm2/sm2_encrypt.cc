// SM2 encryption (sm2/sm2_encrypt.h), GB/T 32918.4-2016 clauses 6.1 (A1-A8)
// and 7.1 (B1-B7).
#include "sm2/sm2_encrypt.h"

#include <string.h>

#include "core/secure.h"
#include "encoding/der.h"
#include "field/fn.h"
#include "sm2/sm2_curve.h"
#include "sm2/sm2_detail.h"
#include "sm2/sm2_curve_mb.h"
#include "sm2/sm2_mb.h"
#include "sm3/sm3_kdf.h"

namespace ks {
namespace sm2 {
namespace {

using detail::declassify;
using field::Fn;
using field::U256;

constexpr size_t kChunk = 4096;  // KDF and SM3 a piece at a time: no copy of the message
constexpr size_t kPointBytes = 2 * kScalarBytes;  // x || y

// Streams t = KDF(x2 || y2, len) over in into out = in ^ t and hashes
// x2 || plain || y2 into c3, where plain is in (encrypting) or out
// (decrypting). Returns all ones if t was all zero (clause 6.1 A5, 7.1
// B4), computed without a branch on t.
uint64_t mask_and_hash(const uint8_t xy[kPointBytes], const uint8_t* in, uint8_t* out,
                       size_t len, bool decrypting, uint8_t c3[kC3Bytes]) {
  sm3::Kdf kdf(xy, kPointBytes);
  sm3::Sm3 h;
  h.update(xy, kScalarBytes);
  uint8_t t[kChunk];
  uint64_t any = 0;
  for (size_t off = 0; off < len;) {
    const size_t n = len - off < kChunk ? len - off : kChunk;
    kdf.next(t, n);
    for (size_t i = 0; i < n; ++i) {
      any |= t[i];
      out[off + i] = uint8_t(in[off + i] ^ t[i]);
    }
    h.update(decrypting ? out + off : in + off, n);
    off += n;
  }
  h.update(xy + kScalarBytes, kScalarBytes);
  h.finish(c3);
  secure_wipe(t, sizeof t);
  secure_wipe(&h, sizeof h);
  // An empty message has no key stream to be all zero.
  return len == 0 ? 0 : ct_is_zero_mask(any);
}

// x2 || y2 of [k]P: the shared point, in constant time (from P's comb
// table where there is one).
void shared_point(uint8_t xy[kPointBytes], const U256& k, const curve::Affine& p,
                  const curve::PointTable* table = nullptr) {
  curve::encode_point_xy(xy, table != nullptr ? curve::mul_table_affine(*table, k)
                                              : curve::affine_of(curve::mul_point(k, p)));
}

// The DER form's bytes before C2: SEQUENCE and OCTET STRING headers around
// INTEGER x, INTEGER y and the hash; *prefix holds them, c3 left zero.
void der_prefix(const uint8_t c1[kPublicKeyBytes], size_t len, Bytes* prefix,
                size_t* c3_at) {
  Bytes inner;
  der::write_unsigned(&inner, c1 + 1, kScalarBytes);
  der::write_unsigned(&inner, c1 + 1 + kScalarBytes, kScalarBytes);
  const uint8_t zero[kC3Bytes] = {};
  der::write(&inner, der::kOctetString, zero, kC3Bytes);
  *c3_at = inner.size() - kC3Bytes;
  der::write_header(&inner, der::kOctetString, len);
  der::write_header(prefix, der::kSequence, inner.size() + len);
  *c3_at += prefix->size();
  prefix->insert(prefix->end(), inner.begin(), inner.end());
}

}  // namespace

size_t ciphertext_bound(size_t len, CipherForm form) {
  const size_t extra = kCiphertextOverhead + (form == CipherForm::kDer ? kDerExtraBytes : 0);
  return len > SIZE_MAX - extra ? 0 : len + extra;
}

namespace {

// A3-A8 once C1 and the shared point are known: the layout, C2 and C3.
// *zero_t is set (and nothing released) when t came out all zero (A5: the
// caller draws a new k).
Error finish_encrypt(const uint8_t c1[kPublicKeyBytes], const uint8_t xy[kPointBytes],
                     const uint8_t* msg, size_t len, CipherForm form, uint8_t* out,
                     size_t out_cap, size_t* out_len, bool* zero_t) {
  *zero_t = false;
  Bytes prefix;
  size_t c2_at = kPublicKeyBytes, c3_at = kPublicKeyBytes, total = len + kCiphertextOverhead;
  if (form == CipherForm::kC1C3C2) c2_at += kC3Bytes;
  if (form == CipherForm::kC1C2C3) c3_at += len;
  if (form == CipherForm::kDer) {
    der_prefix(c1, len, &prefix, &c3_at);
    c2_at = prefix.size();
    total = prefix.size() + len;
  }
  if (total > out_cap) {
    *out_len = total;
    return Error::kBadCiphertext;  // the caller maps a short buffer to a length error
  }
  uint8_t c3[kC3Bytes];
  if (declassify(mask_and_hash(xy, msg, out + c2_at, len, false, c3))) {  // A5-A7
    secure_wipe(out + c2_at, len);
    *zero_t = true;
    return Error::kOk;
  }
  if (form == CipherForm::kDer) {
    memcpy(out, prefix.data(), prefix.size());
  } else {
    memcpy(out, c1, kPublicKeyBytes);
  }
  memcpy(out + c3_at, c3, kC3Bytes);  // A8
  *out_len = total;
  return Error::kOk;
}

// C1 = [k]G, public once made (the ciphertext carries it; DER sizes it).
void encode_c1(uint8_t c1[kPublicKeyBytes], const curve::Affine& point) {
  curve::encode_point_uncompressed(c1, point);
  ct_declassify(c1, kPublicKeyBytes);
}

}  // namespace

Error encrypt(const PublicKey& pub, const uint8_t* msg, size_t len, CipherForm form,
              uint8_t* out, size_t out_cap, size_t* out_len, const uint8_t fixed_k[kScalarBytes],
              const curve::PointTable* table) {
  *out_len = 0;
  if (uint64_t(len) > sm3::kKdfMaxBytes) return Error::kBadCiphertext;
  U256 k;
  uint8_t c1[kPublicKeyBytes], xy[kPointBytes];
  const WipeOnExit wipe_k(&k, sizeof k), wipe_xy(xy, sizeof xy);
  for (;;) {
    if (fixed_k != nullptr) {  // A1 with the caller's k
      k = field::from_be_bytes(fixed_k);
      if (!declassify(Fn::in_range_nonzero(k))) return Error::kBadNonce;
    } else {
      const Error e = detail::random_scalar(k, detail::n_minus(1));  // A1
      if (e != Error::kOk) return e;
    }
    encode_c1(c1, curve::mul_base_affine(k));  // A2
    shared_point(xy, k, pub.point, table);      // A3 (h = 1: P_B is a finite point) and A4
    bool zero_t = false;
    const Error e = finish_encrypt(c1, xy, msg, len, form, out, out_cap, out_len, &zero_t);
    if (e != Error::kOk || !zero_t) return e;
    if (fixed_k != nullptr) return Error::kBadNonce;
  }
}

Error plaintext_length(const uint8_t* ct, size_t ct_len, CipherForm form, size_t* len) {
  CiphertextParts l;
  const Error e = parse_ciphertext(ct, ct_len, form, &l);
  *len = e == Error::kOk ? l.c2_len : 0;
  return e;
}

namespace {

// B1-B2: the ciphertext's parts, the plaintext's length (*out_len, also
// when out_cap is short) and C1, which must be a point of the curve other
// than infinity (no encoding of infinity is accepted).
Error open_ciphertext(const uint8_t* ct, size_t ct_len, CipherForm form, size_t out_cap,
                      CiphertextParts* l, PublicKey* c1, size_t* out_len) {
  *out_len = 0;
  const Error e = parse_ciphertext(ct, ct_len, form, l);
  if (e != Error::kOk) return e;
  if (l->c2_len > out_cap) {
    *out_len = l->c2_len;
    return Error::kBadCiphertext;
  }
  return public_key_from_bytes(*c1, l->c1, l->c1_len) == Error::kOk ? Error::kOk
                                                                     : Error::kBadCiphertext;
}

// B4-B7 from the shared point x2 || y2.
Error finish_decrypt(const CiphertextParts& l, const uint8_t xy[kPointBytes], uint8_t* out,
                     size_t* out_len) {
  uint8_t c3[kC3Bytes];
  const WipeOnExit wipe_c3(c3, sizeof c3);
  const uint64_t zero_t = mask_and_hash(xy, l.c2, out, l.c2_len, true, c3);  // B4-B6
  uint64_t diff = 0;  // B6: u == C3, every byte compared
  for (size_t i = 0; i < kC3Bytes; ++i) diff |= uint64_t(c3[i] ^ l.c3[i]);
  if (declassify(zero_t | ~ct_is_zero_mask(diff))) {  // the verdicts are public
    secure_wipe(out, l.c2_len);  // B7 releases nothing on failure
    return declassify(zero_t) ? Error::kBadCiphertext : Error::kCiphertextMismatch;
  }
  *out_len = l.c2_len;
  return Error::kOk;
}

}  // namespace

Error decrypt(const PrivateKey& key, const uint8_t* ct, size_t ct_len, CipherForm form,
              uint8_t* out, size_t out_cap, size_t* out_len) {
  CiphertextParts l;
  PublicKey c1;
  const Error e = open_ciphertext(ct, ct_len, form, out_cap, &l, &c1, out_len);
  if (e != Error::kOk) return e;
  uint8_t xy[kPointBytes];
  const WipeOnExit wipe_xy(xy, sizeof xy);
  shared_point(xy, key.d, c1.point);  // B3
  return finish_decrypt(l, xy, out, out_len);
}

// --- Eight at a time ----------------------------------------------------------

namespace {

// out[j] = [k[j]]G for j < n (unused lanes hold k = 0): in IFMA lanes
// where the CPU has them, else one by one; constant time in k.
void base_points_x8(curve::Affine out[], const U256 k[], size_t n) {
  if (mb::available()) {
    curve::mb::mul_base_x8(out, k);
  } else {
    for (size_t j = 0; j < n; ++j) out[j] = curve::mul_base_affine(k[j]);
  }
}

// xy[j] = x || y of [k[j]]P[j] for j < n, the same way (lanes past n and
// refused items hold k = 0 and P = G).
void shared_points_x8(uint8_t xy[][kPointBytes], const U256 k[], const curve::Affine p[],
                      size_t n) {
  if (!mb::available()) {
    for (size_t j = 0; j < n; ++j) shared_point(xy[j], k[j], p[j]);
    return;
  }
  curve::Affine shared[mb::kLanes];
  curve::mb::mul_point_x8(shared, k, p);
  for (size_t j = 0; j < n; ++j) curve::encode_point_xy(xy[j], shared[j]);
  secure_wipe(shared, sizeof shared);
}

}  // namespace

void encrypt_x8(EncryptJob jobs[], size_t n, CipherForm form, const curve::PointTable* table) {
  U256 k[mb::kLanes] = {};  // lanes past n and refused items stay 0
  uint8_t c1[mb::kLanes][kPublicKeyBytes], xy[mb::kLanes][kPointBytes];
  const WipeOnExit wipe_k(k, sizeof k), wipe_xy(xy, sizeof xy);
  curve::Affine points[mb::kLanes], c1_points[mb::kLanes];
  for (curve::Affine& p : points) p = curve::kG;
  for (size_t j = 0; j < n; ++j) {
    jobs[j].out_len = 0;
    jobs[j].status = uint64_t(jobs[j].len) > sm3::kKdfMaxBytes
                         ? Error::kBadCiphertext
                         : detail::random_scalar(k[j], detail::n_minus(1));  // A1
    points[j] = jobs[j].pub->point;
  }
  base_points_x8(c1_points, k, n);  // A2
  if (table != nullptr) {  // A3-A4: one recipient, from its comb
    for (size_t j = 0; j < n; ++j) shared_point(xy[j], k[j], points[j], table);
  } else {
    shared_points_x8(xy, k, points, n);  // A3-A4
  }
  for (size_t j = 0; j < n; ++j) {
    EncryptJob& job = jobs[j];
    if (job.status != Error::kOk) continue;
    encode_c1(c1[j], c1_points[j]);
    bool zero_t = false;
    job.status = finish_encrypt(c1[j], xy[j], job.msg, job.len, form, job.out, job.out_cap,
                                &job.out_len, &zero_t);
    if (job.status == Error::kOk && zero_t)  // A5 (probability 2^-256): a new k, alone
      job.status = encrypt(*job.pub, job.msg, job.len, form, job.out, job.out_cap, &job.out_len,
                           nullptr, table);
  }
}

void decrypt_x8(DecryptJob jobs[], size_t n, CipherForm form) {
  CiphertextParts layouts[mb::kLanes];
  PublicKey c1[mb::kLanes];
  U256 d[mb::kLanes] = {};
  curve::Affine points[mb::kLanes];
  for (curve::Affine& p : points) p = curve::kG;
  uint8_t xy[mb::kLanes][kPointBytes];
  const WipeOnExit wipe_d(d, sizeof d), wipe_xy(xy, sizeof xy);
  for (size_t j = 0; j < n; ++j) {
    DecryptJob& job = jobs[j];
    job.status = open_ciphertext(job.ct, job.ct_len, form, job.out_cap, &layouts[j], &c1[j],
                                 &job.out_len);
    if (job.status != Error::kOk) continue;  // public: the ciphertext is malformed
    d[j] = job.key->d;
    points[j] = c1[j].point;
  }
  // Lanes of refused items multiply G by 0: a wasted lane, no branch on it.
  shared_points_x8(xy, d, points, n);  // B3
  for (size_t j = 0; j < n; ++j)
    if (jobs[j].status == Error::kOk)
      jobs[j].status = finish_decrypt(layouts[j], xy[j], jobs[j].out, &jobs[j].out_len);
}

}  // namespace sm2
}  // namespace ks
