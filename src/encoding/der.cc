#include "encoding/der.h"

#include <string.h>

namespace ks {
namespace der {

const char* error_string(Error e) {
  switch (e) {
    case Error::kOk: return "ok";
    case Error::kTruncated: return "DER: input ends inside an element";
    case Error::kUnexpectedTag: return "DER: unexpected element (wrong tag)";
    case Error::kBadLength: return "DER: indefinite, non-minimal or oversized length";
    case Error::kTrailingData: return "DER: bytes after the end of the structure";
    case Error::kNonMinimalInteger: return "DER: INTEGER with a redundant leading byte";
    case Error::kNegativeInteger: return "DER: negative INTEGER";
    case Error::kIntegerTooLarge: return "DER: INTEGER too large";
    case Error::kEmptyInteger: return "DER: INTEGER without content";
    case Error::kBadBitString: return "DER: BIT STRING with unused bits or no content";
  }
  return "DER: unknown error";
}

Error Reader::read_bit_string(Reader* contents) {
  Reader body;
  Error err = read(kBitString, &body);
  if (err != Error::kOk) return err;
  if (body.len_ < 1 || body.p_[0] != 0) return Error::kBadBitString;
  *contents = Reader(body.p_ + 1, body.len_ - 1);
  return Error::kOk;
}

void write(Bytes* out, uint8_t tag, const uint8_t* body, size_t len) {
  write_header(out, tag, len);
  if (len != 0) out->insert(out->end(), body, body + len);
}

void write_header(Bytes* out, uint8_t tag, size_t len) {
  out->push_back(tag);
  if (len < 0x80) {
    out->push_back(uint8_t(len));
  } else {
    uint8_t bytes[sizeof(size_t)];
    size_t n = 0;
    for (size_t v = len; v != 0; v >>= 8) bytes[n++] = uint8_t(v);
    out->push_back(uint8_t(0x80 | n));
    while (n > 0) out->push_back(bytes[--n]);
  }
}

void write_unsigned(Bytes* out, const uint8_t* in, size_t n) {
  size_t skip = 0;
  while (skip + 1 < n && in[skip] == 0) ++skip;  // keep one byte for zero
  Bytes body;
  if (n == 0 || (in[skip] & 0x80)) body.push_back(0);  // sign byte
  body.insert(body.end(), in + skip, in + n);
  write(out, kInteger, body);
}

void write_bit_string(Bytes* out, const uint8_t* bits, size_t len) {
  Bytes body(1, 0);  // no unused bits
  body.insert(body.end(), bits, bits + len);
  write(out, kBitString, body);
}

}  // namespace der
}  // namespace ks
