// PEM armor (RFC 7468): base64 between "-----BEGIN label-----" and
// "-----END label-----" lines, as OpenSSL reads and writes keys.
#ifndef KS_ENCODING_PEM_H_
#define KS_ENCODING_PEM_H_

#include <stddef.h>
#include <stdint.h>

#include "core/wiping_allocator.h"

namespace ks {
namespace pem {

enum class Error {
  kOk = 0,
  kNoBlock,      // no BEGIN line with an expected label
  kNoEnd,        // BEGIN without the matching END line
  kEncrypted,    // an encrypted key: ENCRYPTED PRIVATE KEY, or Proc-Type/DEK-Info headers
  kBadBase64,    // a character outside base64, or bad padding
};

const char* error_string(Error e);

// The PEM text for der under label, lines of 64 characters, final newline.
SecretString encode(const char* label, const uint8_t* der, size_t len);

// Finds the first complete block whose BEGIN line (at the start of a
// line, other text around it being ignored, as OpenSSL does) carries one
// of the `nlabels` labels, decodes its body into *der and, if `which` is
// given, sets it to the label's index. A block is complete when its END
// line comes before any other BEGIN line; an incomplete one is skipped, so
// that decoders with different label lists pick the same block of a text
// (kNoEnd is the answer only when no block is complete). With no such
// block but an "ENCRYPTED PRIVATE KEY" one, the answer is kEncrypted, so
// that a passphrase-protected key is reported as what it is.
Error decode(const uint8_t* text, size_t len, const char* const labels[], size_t nlabels,
             Bytes* der, size_t* which = nullptr);

// Whether an encoded key is DER rather than PEM, decided from its first
// byte alone: every DER structure read here is a SEQUENCE (0x30), which no
// PEM text starts with. Never from a marker found further in: DER carries
// arbitrary bytes (a public key's coordinates may hold "-----BEGIN ").
inline bool is_der(const uint8_t* in, size_t len) { return len > 0 && in[0] == 0x30; }

}  // namespace pem
}  // namespace ks

#endif  // KS_ENCODING_PEM_H_
