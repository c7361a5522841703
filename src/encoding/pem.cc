#include "encoding/pem.h"

#include <stdio.h>
#include <string.h>

#include "core/secure.h"

namespace ks {
namespace pem {
namespace {

constexpr char kBegin[] = "-----BEGIN ";

// Private keys pass through this file, so it neither branches on nor
// indexes memory by the characters of a PEM body or the bytes it encodes:
// the character classes below are computed with masks, and only what is
// public by nature (where whitespace, padding and the END line are) is
// declassified for the control flow.

// -1 if lo <= c <= hi, else 0.
int in_range(int c, int lo, int hi) { return -int((unsigned(c - lo) | unsigned(hi - c)) >> 31 ^ 1u); }

// The 6-bit value of a base64 character, or -1.
int base64_value(char ch) {
  const int c = static_cast<unsigned char>(ch);
  const int upper = in_range(c, 'A', 'Z'), lower = in_range(c, 'a', 'z');
  const int digit = in_range(c, '0', '9');
  const int plus = in_range(c, '+', '+'), slash = in_range(c, '/', '/');
  const int value = (upper & (c - 'A')) | (lower & (c - 'a' + 26)) | (digit & (c - '0' + 52)) |
                    (plus & 62) | (slash & 63);
  const int valid = upper | lower | digit | plus | slash;
  return (value & valid) | ~valid;
}

// The base64 character of a 6-bit value (the inverse of base64_value).
char base64_char(uint32_t v) {
  const int x = int(v & 63);
  const int upper = in_range(x, 0, 25), lower = in_range(x, 26, 51), digit = in_range(x, 52, 61);
  const int plus = in_range(x, 62, 62), slash = in_range(x, 63, 63);
  return char((upper & (x + 'A')) | (lower & (x - 26 + 'a')) | (digit & (x - 52 + '0')) |
              (plus & '+') | (slash & '/'));
}

enum class CharClass { kData, kSpace, kPadding, kInvalid };

// What a body character is: public (the layout of the text), the value
// stays secret.
CharClass char_class(char ch) {
  const int c = static_cast<unsigned char>(ch);
  const int space = in_range(c, ' ', ' ') | in_range(c, '\t', '\t') | in_range(c, '\r', '\r') |
                    in_range(c, '\n', '\n');
  const int pad = in_range(c, '=', '=');
  const int data = ~(base64_value(ch) >> 31);  // -1 for a base64 character
  const int cls = (space & 1) | (pad & 2) | (data & 3);  // 0: invalid
  switch (ct_public(cls)) {
    case 1: return CharClass::kSpace;
    case 2: return CharClass::kPadding;
    case 3: return CharClass::kData;
    default: return CharClass::kInvalid;
  }
}

// Base64 body to bytes; whitespace is skipped, '=' only as final padding.
// The scratch and the output wipe what they free.
Error base64_decode(const char* p, size_t len, Bytes* out) {
  SecretString chars;
  chars.reserve(len);  // on the heap from the start, where the allocator wipes it
  size_t padding = 0;
  for (size_t i = 0; i < len; ++i) {
    const CharClass cls = char_class(p[i]);
    if (cls == CharClass::kSpace) continue;
    if (cls == CharClass::kPadding) {
      ++padding;
      continue;
    }
    if (padding > 0 || cls == CharClass::kInvalid) return Error::kBadBase64;
    chars.push_back(p[i]);
  }
  const size_t total = chars.size() + padding;
  const bool ok = total % 4 == 0 && padding <= 2 && !(padding > 0 && chars.size() % 4 == 0);
  out->clear();
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; ok && i < chars.size(); ++i) {
    acc = (acc << 6) | uint32_t(base64_value(chars[i]));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(uint8_t(acc >> bits));
    }
  }
  const bool stray_bits = ct_public((acc & ((1u << bits) - 1)) != 0);  // non-canonical tail
  return ok && !stray_bits ? Error::kOk : Error::kBadBase64;
}

// Whether p (before end) starts with prefix: a public verdict, computed
// without branching on the bytes (they may be a key's base64 body).
bool starts_with(const char* p, const char* end, const char* prefix) {
  const size_t n = strlen(prefix);
  if (size_t(end - p) < n) return false;
  uint64_t diff = 0;
  for (size_t i = 0; i < n; ++i) diff |= uint8_t(p[i] ^ prefix[i]);
  return ct_public(diff) == 0;
}

// The next line at or after p that starts with `prefix` (lines begin at the
// start of the text or after '\n'), or null.
const char* find_line(const char* p, const char* text, const char* end, const char* prefix) {
  for (; p < end; ++p) {
    if ((p == text || starts_with(p - 1, end, "\n")) && starts_with(p, end, prefix)) return p;
  }
  return nullptr;
}

// Whether the BEGIN line at `line` carries `label` exactly.
bool begin_has_label(const char* line, const char* end, const char* label) {
  const char* p = line + strlen(kBegin);
  const size_t n = strlen(label);
  return size_t(end - p) >= n + 5 && memcmp(p, label, n) == 0 && memcmp(p + n, "-----", 5) == 0;
}

Error decode_block(const char* begin, const char* text, const char* end, const char* label,
                   Bytes* der) {
  const char* body = begin + strlen(kBegin) + strlen(label) + 5;
  char end_line[64];  // labels are short constants (and no std::string: see tests/ct)
  snprintf(end_line, sizeof end_line, "-----END %s-----", label);
  const char* stop = find_line(body, text, end, end_line);
  const char* next_begin = find_line(body, text, end, kBegin);
  if (stop == nullptr || (next_begin != nullptr && next_begin < stop)) return Error::kNoEnd;
  // RFC 1421 headers of legacy OpenSSL encryption ("Proc-Type: 4,ENCRYPTED")
  if (find_line(body, text, stop, "Proc-Type:") != nullptr ||
      find_line(body, text, stop, "DEK-Info:") != nullptr)
    return Error::kEncrypted;
  return base64_decode(body, size_t(stop - body), der);
}

}  // namespace

const char* error_string(Error e) {
  switch (e) {
    case Error::kOk: return "ok";
    case Error::kNoBlock: return "PEM: no BEGIN line with an expected label";
    case Error::kNoEnd: return "PEM: BEGIN line without its END line";
    case Error::kEncrypted: return "PEM: the key is encrypted and no passphrase was given";
    case Error::kBadBase64: return "PEM: invalid base64 body";
  }
  return "PEM: unknown error";
}

SecretString encode(const char* label, const uint8_t* der, size_t len) {
  SecretString out = SecretString(kBegin) + label + "-----\n";
  size_t line = 0;
  for (size_t i = 0; i < len; i += 3) {
    const uint32_t b0 = der[i];
    const uint32_t b1 = i + 1 < len ? der[i + 1] : 0;
    const uint32_t b2 = i + 2 < len ? der[i + 2] : 0;
    const uint32_t v = (b0 << 16) | (b1 << 8) | b2;
    out += base64_char(v >> 18);
    out += base64_char(v >> 12);
    out += i + 1 < len ? base64_char(v >> 6) : '=';
    out += i + 2 < len ? base64_char(v) : '=';
    line += 4;
    if (line == 64) {
      out += '\n';
      line = 0;
    }
  }
  if (line != 0) out += '\n';
  out += SecretString("-----END ") + label + "-----\n";
  return out;
}

Error decode(const uint8_t* bytes, size_t len, const char* const labels[], size_t nlabels,
             Bytes* der, size_t* which) {
  const char* text = reinterpret_cast<const char*>(bytes);
  const char* end = text + len;
  bool encrypted = false, incomplete = false;
  for (const char* line = find_line(text, text, end, kBegin); line != nullptr;
       line = find_line(line + 1, text, end, kBegin)) {
    bool wanted = false;
    for (size_t i = 0; i < nlabels && !wanted; ++i) {
      if (!begin_has_label(line, end, labels[i])) continue;
      wanted = true;
      const Error e = decode_block(line, text, end, labels[i], der);
      if (e == Error::kNoEnd) {
        incomplete = true;
        continue;
      }
      if (which != nullptr) *which = i;
      return e;
    }
    // An encrypted block the caller did not ask for: "give a passphrase".
    // One it asked for (the PBES2 reader) that is cut short is kNoEnd.
    encrypted |= !wanted && begin_has_label(line, end, "ENCRYPTED PRIVATE KEY");
  }
  if (encrypted) return Error::kEncrypted;
  return incomplete ? Error::kNoEnd : Error::kNoBlock;
}

}  // namespace pem
}  // namespace ks
