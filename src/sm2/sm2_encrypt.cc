// SM2 encryption (sm2/sm2_encrypt.h), GB/T 32918.4-2016 clauses 6.1 (A1-A8)
// and 7.1 (B1-B7).
#include "sm2/sm2_encrypt.h"

#include <string.h>

#include "core/secure.h"
#include "encoding/der.h"
#include "field/fn.h"
#include "sm2/sm2_curve.h"
#include "sm2/sm2_detail.h"
#include "sm3/sm3_kdf.h"

namespace ks {
namespace sm2 {
namespace {

using detail::declassify;
using field::Fn;
using field::U256;

constexpr size_t kChunk = 4096;  // KDF and SM3 a piece at a time: no copy of the message
constexpr size_t kPointBytes = 2 * kScalarBytes;  // x || y

// Where a ciphertext's parts are.
struct Layout {
  const uint8_t* c1;  // the point's encoding (65 or 33 bytes), or x and y (DER)
  size_t c1_len;
  const uint8_t* c3;
  const uint8_t* c2;
  size_t c2_len;
  uint8_t der_xy[kPublicKeyBytes];  // DER: 04 || x || y from the INTEGERs
};

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
  uint8_t enc[kPublicKeyBytes];
  curve::encode_point_uncompressed(enc, table != nullptr
                                            ? curve::mul_table_affine(*table, k)
                                            : curve::affine_of(curve::mul_point(k, p)));
  memcpy(xy, enc + 1, kPointBytes);
  secure_wipe(enc, sizeof enc);
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

Error parse(const uint8_t* ct, size_t ct_len, CipherForm form, Layout* l) {
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

}  // namespace

size_t ciphertext_bound(size_t len, CipherForm form) {
  const size_t extra = kCiphertextOverhead + (form == CipherForm::kDer ? kDerExtraBytes : 0);
  return len > SIZE_MAX - extra ? 0 : len + extra;
}

Error encrypt(const PublicKey& pub, const uint8_t* msg, size_t len, CipherForm form,
              uint8_t* out, size_t out_cap, size_t* out_len, const uint8_t fixed_k[kScalarBytes],
              const curve::PointTable* table) {
  *out_len = 0;
  if (uint64_t(len) > sm3::kKdfMaxBytes) return Error::kBadCiphertext;
  U256 k;
  uint8_t c1[kPublicKeyBytes], xy[kPointBytes], c3[kC3Bytes];
  const WipeOnExit wipe_k(&k, sizeof k), wipe_xy(xy, sizeof xy);
  for (;;) {
    if (fixed_k != nullptr) {  // A1 with the caller's k
      k = field::from_be_bytes(fixed_k);
      if (!declassify(Fn::in_range_nonzero(k))) return Error::kBadNonce;
    } else {
      const Error e = detail::random_scalar(k, detail::n_minus(1));  // A1
      if (e != Error::kOk) return e;
    }
    curve::encode_point_uncompressed(c1, curve::mul_base_affine(k));  // A2
    ct_declassify(c1, sizeof c1);  // C1 is public: the ciphertext carries it (and DER sizes it)
    shared_point(xy, k, pub.point, table);  // A3 (h = 1: P_B is a finite point) and A4
    // The layout: where C2 goes, and the bytes around it.
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
    const uint64_t zero_t = mask_and_hash(xy, msg, out + c2_at, len, false, c3);  // A5-A7
    if (declassify(zero_t)) {
      if (fixed_k != nullptr) return Error::kBadNonce;
      continue;  // A5: a new k
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
}

Error plaintext_length(const uint8_t* ct, size_t ct_len, CipherForm form, size_t* len) {
  Layout l;
  const Error e = parse(ct, ct_len, form, &l);
  *len = e == Error::kOk ? l.c2_len : 0;
  return e;
}

Error decrypt(const PrivateKey& key, const uint8_t* ct, size_t ct_len, CipherForm form,
              uint8_t* out, size_t out_cap, size_t* out_len) {
  *out_len = 0;
  Layout l;
  Error e = parse(ct, ct_len, form, &l);
  if (e != Error::kOk) return e;
  if (l.c2_len > out_cap) {
    *out_len = l.c2_len;
    return Error::kBadCiphertext;
  }
  PublicKey c1;  // B1-B2: on the curve, not infinity (no encoding of it is accepted)
  if (public_key_from_bytes(c1, l.c1, l.c1_len) != Error::kOk) return Error::kBadCiphertext;
  uint8_t xy[kPointBytes], c3[kC3Bytes];
  const WipeOnExit wipe_xy(xy, sizeof xy), wipe_c3(c3, sizeof c3);
  shared_point(xy, key.d, c1.point);  // B3
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

}  // namespace sm2
}  // namespace ks
