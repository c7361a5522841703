// PEM armor (RFC 7468): base64 between "-----BEGIN label-----" and
// "-----END label-----" lines, as OpenSSL reads and writes keys.
#ifndef KS_ENCODING_PEM_H_
#define KS_ENCODING_PEM_H_

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

namespace ks {
namespace pem {

enum class Error {
  kOk = 0,
  kNoBlock,      // no BEGIN line with the expected label
  kNoEnd,        // BEGIN without the matching END line
  kEncrypted,    // legacy encrypted PEM headers (Proc-Type/DEK-Info)
  kBadBase64,    // a character outside base64, or bad padding
};

const char* error_string(Error e);

// The PEM text for der under label, lines of 64 characters, final newline.
std::string encode(const char* label, const uint8_t* der, size_t len);

// Finds the first block labelled `label` in text (other text around it is
// ignored, as OpenSSL does) and decodes its body into *der.
Error decode(const char* text, size_t len, const char* label, std::vector<uint8_t>* der);

// Whether text holds a BEGIN line (of any label), i.e. looks like PEM.
bool looks_like_pem(const uint8_t* text, size_t len);

}  // namespace pem
}  // namespace ks

#endif  // KS_ENCODING_PEM_H_
