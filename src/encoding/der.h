// Strict DER (ITU-T X.690 section 10) reading and writing: just what key and
// signature formats need. The reader rejects everything BER allows but DER
// forbids (indefinite or non-minimal lengths, non-minimal or negative
// INTEGERs where unsigned ones are expected, trailing bytes), and says which.
#ifndef KS_ENCODING_DER_H_
#define KS_ENCODING_DER_H_

#include <stddef.h>
#include <stdint.h>

#include "core/hd.h"
#include "core/wiping_allocator.h"

namespace ks {
namespace der {

enum Tag : uint8_t {
  kInteger = 0x02,
  kBitString = 0x03,
  kOctetString = 0x04,
  kOid = 0x06,
  kSequence = 0x30,
  kContext0 = 0xA0,  // [0] constructed
  kContext1 = 0xA1,  // [1] constructed
};

enum class Error {
  kOk = 0,
  kTruncated,          // the input ends inside an element
  kUnexpectedTag,      // a different element than the format requires
  kBadLength,          // indefinite, non-minimal or over-long length
  kTrailingData,       // bytes after the end of the structure
  kNonMinimalInteger,  // an INTEGER with a redundant leading 00 or FF byte
  kNegativeInteger,    // an INTEGER with its top bit set
  kIntegerTooLarge,    // an INTEGER longer than the field it goes into
  kEmptyInteger,       // an INTEGER with no content bytes
  kBadBitString,       // a BIT STRING with unused bits or no content
};

const char* error_string(Error e);

// A cursor over DER bytes; never reads outside [p, p + len).
class Reader {
 public:
  Reader() = default;
  KS_HD Reader(const uint8_t* p, size_t len) : p_(p), len_(len) {}

  KS_HD size_t remaining() const { return len_; }
  KS_HD const uint8_t* data() const { return p_; }
  KS_HD bool next_tag_is(uint8_t tag) const { return len_ > 0 && p_[0] == tag; }

  // Reads one element with the given tag; *contents covers its body.
  KS_HD Error read(uint8_t tag, Reader* contents);
  // An unsigned INTEGER into out[0..n), big-endian, left-padded with zeros.
  KS_HD Error read_unsigned(uint8_t* out, size_t n);
  // A BIT STRING with no unused bits; *contents covers the bits.
  Error read_bit_string(Reader* contents);
  // Fails with kTrailingData if anything is left.
  KS_HD Error finish() const { return len_ == 0 ? Error::kOk : Error::kTrailingData; }

 private:
  const uint8_t* p_ = nullptr;
  size_t len_ = 0;
};

// The reading is host and device code: the GPU parses SM2 ciphertexts
// already in its memory with it (sm2/gpu/sm2_gpu_host.h's layout_of).
KS_HD Error Reader::read(uint8_t tag, Reader* contents) {
  if (len_ < 2) return Error::kTruncated;
  if (p_[0] != tag) return Error::kUnexpectedTag;
  size_t header = 2;
  size_t body = p_[1];
  if (body & 0x80) {
    // Long form (X.690 10.1): 1..4 length bytes, no leading zero, >= 128.
    const size_t n = body & 0x7f;
    if (n == 0 || n > 4) return Error::kBadLength;
    if (len_ < 2 + n) return Error::kTruncated;
    if (p_[2] == 0) return Error::kBadLength;
    body = 0;
    for (size_t i = 0; i < n; ++i) body = (body << 8) | p_[2 + i];
    if (body < 0x80) return Error::kBadLength;
    header += n;
  }
  if (body > len_ - header) return Error::kTruncated;
  *contents = Reader(p_ + header, body);
  p_ += header + body;
  len_ -= header + body;
  return Error::kOk;
}

KS_HD Error Reader::read_unsigned(uint8_t* out, size_t n) {
  Reader body;
  Error err = read(kInteger, &body);
  if (err != Error::kOk) return err;
  const uint8_t* v = body.p_;
  size_t len = body.len_;
  if (len == 0) return Error::kEmptyInteger;
  if (v[0] & 0x80) return Error::kNegativeInteger;
  if (len > 1 && v[0] == 0x00 && !(v[1] & 0x80)) return Error::kNonMinimalInteger;
  if (v[0] == 0x00 && len > 1) {  // the sign byte of a value with its top bit set
    ++v;
    --len;
  }
  if (len > n) return Error::kIntegerTooLarge;
  for (size_t i = 0; i < n - len; ++i) out[i] = 0;
  for (size_t i = 0; i < len; ++i) out[n - len + i] = v[i];
  return Error::kOk;
}

// Writers append one element to out. Bytes wipes what it frees: private
// keys are written through here. write_header appends the tag and length
// alone, for a body the caller places itself.
void write_header(Bytes* out, uint8_t tag, size_t len);
void write(Bytes* out, uint8_t tag, const uint8_t* body, size_t len);
inline void write(Bytes* out, uint8_t tag, const Bytes& body) {
  write(out, tag, body.data(), body.size());
}
// The unsigned big-endian integer in[0..n) as a minimal INTEGER.
void write_unsigned(Bytes* out, const uint8_t* in, size_t n);
// A BIT STRING with no unused bits.
void write_bit_string(Bytes* out, const uint8_t* bits, size_t len);

}  // namespace der
}  // namespace ks

#endif  // KS_ENCODING_DER_H_
