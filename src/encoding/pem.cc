#include "encoding/pem.h"

#include <string.h>

#include <string>

#include "core/secure.h"

namespace ks {
namespace pem {
namespace {

const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The 6-bit value of a base64 character, or -1. Written without branches or
// table lookups on the character because private keys pass through here.
int base64_value(char ch) {
  const int c = static_cast<unsigned char>(ch);
  auto in = [c](int lo, int hi) {  // -1 if lo <= c <= hi, else 0
    return -int((unsigned(c - lo) | unsigned(hi - c)) >> 31 ^ 1u);
  };
  const int upper = in('A', 'Z'), lower = in('a', 'z'), digit = in('0', '9');
  const int plus = in('+', '+'), slash = in('/', '/');
  const int value = (upper & (c - 'A')) | (lower & (c - 'a' + 26)) | (digit & (c - '0' + 52)) |
                    (plus & 62) | (slash & 63);
  const int valid = upper | lower | digit | plus | slash;
  return (value & valid) | ~valid;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Base64 body to bytes; whitespace is skipped, '=' only as final padding.
// Private keys pass through here: the scratch string is wiped.
Error base64_decode(const char* p, size_t len, std::vector<uint8_t>* out) {
  std::string chars;
  size_t padding = 0;
  for (size_t i = 0; i < len; ++i) {
    if (is_space(p[i])) continue;
    if (p[i] == '=') {
      ++padding;
      continue;
    }
    if (padding > 0 || base64_value(p[i]) < 0) return Error::kBadBase64;
    chars.push_back(p[i]);
  }
  const size_t total = chars.size() + padding;
  if (total % 4 != 0 || padding > 2 || (padding > 0 && chars.size() % 4 == 0))
    return Error::kBadBase64;
  out->clear();
  uint32_t acc = 0;
  int bits = 0;
  for (char c : chars) {
    acc = (acc << 6) | uint32_t(base64_value(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(uint8_t(acc >> bits));
    }
  }
  const bool stray_bits = (acc & ((1u << bits) - 1)) != 0;  // non-canonical tail
  secure_wipe(&chars[0], chars.size());
  return stray_bits ? Error::kBadBase64 : Error::kOk;
}

const char* find(const char* hay, const char* end, const std::string& needle) {
  if (needle.size() > size_t(end - hay)) return nullptr;
  for (const char* p = hay; p + needle.size() <= end; ++p)
    if (memcmp(p, needle.data(), needle.size()) == 0) return p;
  return nullptr;
}

}  // namespace

const char* error_string(Error e) {
  switch (e) {
    case Error::kOk: return "ok";
    case Error::kNoBlock: return "PEM: no BEGIN line with the expected label";
    case Error::kNoEnd: return "PEM: BEGIN line without its END line";
    case Error::kEncrypted: return "PEM: encrypted PEM is not supported (decrypt it first)";
    case Error::kBadBase64: return "PEM: invalid base64 body";
  }
  return "PEM: unknown error";
}

std::string encode(const char* label, const uint8_t* der, size_t len) {
  std::string out = std::string("-----BEGIN ") + label + "-----\n";
  size_t line = 0;
  for (size_t i = 0; i < len; i += 3) {
    const uint32_t b0 = der[i];
    const uint32_t b1 = i + 1 < len ? der[i + 1] : 0;
    const uint32_t b2 = i + 2 < len ? der[i + 2] : 0;
    const uint32_t v = (b0 << 16) | (b1 << 8) | b2;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < len ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < len ? kAlphabet[v & 63] : '=';
    line += 4;
    if (line == 64) {
      out += '\n';
      line = 0;
    }
  }
  if (line != 0) out += '\n';
  out += std::string("-----END ") + label + "-----\n";
  return out;
}

Error decode(const char* text, size_t len, const char* label, std::vector<uint8_t>* der) {
  const char* end = text + len;
  const char* begin = find(text, end, std::string("-----BEGIN ") + label + "-----");
  if (begin == nullptr) return Error::kNoBlock;
  const char* body = begin + strlen("-----BEGIN ") + strlen(label) + 5;
  const char* stop = find(body, end, std::string("-----END ") + label + "-----");
  if (stop == nullptr) return Error::kNoEnd;
  if (find(body, stop, "Proc-Type:") != nullptr || find(body, stop, "DEK-Info:") != nullptr)
    return Error::kEncrypted;
  return base64_decode(body, size_t(stop - body), der);
}

bool looks_like_pem(const uint8_t* text, size_t len) {
  const char* t = reinterpret_cast<const char*>(text);
  return find(t, t + len, "-----BEGIN ") != nullptr;
}

}  // namespace pem
}  // namespace ks
