// Version, error strings and build/machine queries.
#include <string>

#include "core/cpu_features.h"
#include "gpu/gpu.h"
#include "api/guard.h"
#include "kuaisuo.h"

#define KS_STR2(x) #x
#define KS_STR(x) KS_STR2(x)

uint32_t ks_version(void) {
  return (uint32_t(KS_VERSION_MAJOR) << 16) | (uint32_t(KS_VERSION_MINOR) << 8) |
         uint32_t(KS_VERSION_PATCH);
}

const char* ks_version_string(void) {
  return KS_STR(KS_VERSION_MAJOR) "." KS_STR(KS_VERSION_MINOR) "." KS_STR(KS_VERSION_PATCH);
}

const char* ks_strerror(int code) {
  switch (code) {
    case KS_OK: return "success";
    case KS_ERR_NULL_POINTER: return "a required pointer argument is NULL";
    case KS_ERR_INVALID_ARGUMENT: return "an argument value is out of range";
    case KS_ERR_LENGTH: return "a buffer length is wrong for this input or output";
    case KS_ERR_OVERFLOW: return "sizes overflow when combined";
    case KS_ERR_OFFSETS: return "batch offsets decrease or point past the end of the data";
    case KS_ERR_NO_MEMORY: return "out of memory";
    case KS_ERR_BACKEND_UNAVAILABLE:
      return "the GPU backend is not available (built without CUDA, or no such device)";
    case KS_ERR_DEVICE: return "the GPU runtime reported an error";
    case KS_ERR_RANDOM: return "the operating system's random generator failed";
    case KS_ERR_BATCH_ITEMS: return "one or more batch items failed; see the status array";
    case KS_ERR_UNSUPPORTED: return "this operation is not implemented on the chosen backend";
    case KS_ERR_INTERNAL: return "internal error";
    case KS_ERR_THREADS:
      return "the operating system refused to create the worker threads (process or memory limits)";
    case KS_ERR_MEMORY_MIX:
      return "host and device memory mixed in one call, or device memory of another device "
             "than the context's (device buffers need a GPU context on their device)";
    case KS_ERR_ALIGNMENT: return "a device buffer is not 16-byte aligned";
    case KS_ERR_DER_TRUNCATED: return "DER: the input ends inside an element";
    case KS_ERR_DER_TAG: return "DER: unexpected element (wrong tag)";
    case KS_ERR_DER_LENGTH: return "DER: indefinite, non-minimal or oversized length";
    case KS_ERR_DER_TRAILING: return "DER: bytes after the end of the structure";
    case KS_ERR_DER_NON_MINIMAL: return "DER: INTEGER with a redundant leading byte";
    case KS_ERR_DER_NEGATIVE: return "DER: negative INTEGER";
    case KS_ERR_DER_TOO_LARGE: return "DER: INTEGER larger than the value it encodes";
    case KS_ERR_DER_EMPTY: return "DER: INTEGER without content bytes";
    case KS_ERR_DER_BIT_STRING: return "DER: BIT STRING with unused bits or no content";
    case KS_ERR_PEM_NO_BLOCK: return "PEM: no block with the expected label";
    case KS_ERR_PEM_NO_END: return "PEM: BEGIN line without its END line";
    case KS_ERR_PEM_ENCRYPTED:
      return "the private key is encrypted (PKCS#8 EncryptedPrivateKeyInfo) and no "
             "passphrase was given (or it is PEM in OpenSSL's legacy Proc-Type: 4,ENCRYPTED "
             "form, which is not supported: convert it with openssl pkcs8 -topk8)";
    case KS_ERR_PEM_BASE64: return "PEM: invalid base64 body";
    case KS_ERR_KEY_ALGORITHM:
      return "a key of another algorithm (algorithm or curve identifier does not match)";
    case KS_ERR_KEY_VERSION: return "unsupported PKCS#8 or SEC1 structure version";
    case KS_ERR_KEY_MISMATCH: return "the embedded public key does not match the private key";
    case KS_ERR_BAD_PRIVATE_KEY:
      return "bad private key (the wrong length for its algorithm, or an SM2 key not in "
             "[1, n-2])";
    case KS_ERR_BAD_PUBLIC_KEY:
      return "bad public key: bad point encoding, coordinate >= p, not on the curve, or "
             "(Ed25519) a point of small order";
    case KS_ERR_POINT_AT_INFINITY: return "point at infinity";
    case KS_ERR_SIGNATURE_RANGE:
      return "malformed signature (SM2: r or s outside [1, n-1], or r + s = n; Ed25519: "
             "S >= L, or R not a canonical point of large order)";
    case KS_ERR_VERIFY_FAILED: return "the signature does not verify";
    case KS_ERR_BAD_CIPHERTEXT: return "malformed SM2 ciphertext (length, encoding or C1)";
    case KS_ERR_CIPHERTEXT_MISMATCH:
      return "the SM2 ciphertext's check value does not match (wrong key or damaged ciphertext)";
    case KS_ERR_STATE:
      return "SM2 key exchange: a step called out of order, or after the exchange failed";
    case KS_ERR_CONFIRMATION:
      return "SM2 key exchange: the peer's confirmation value does not match (no key released)";
    case KS_ERR_ID_LENGTH: return "SM2 distinguishing ID longer than 8191 bytes";
    case KS_ERR_ZERO_SHARED_SECRET:
      return "X25519: the peer's public value has small order (the shared secret is all zero, "
             "RFC 7748 6.1)";
    case KS_ERR_CONTEXT_LENGTH:
      return "Ed25519ctx/Ed25519ph: context longer than 255 bytes, or empty for Ed25519ctx";
    case KS_ERR_BAD_PADDING: return "ECB/CBC: the decrypted PKCS#7 padding is malformed";
    case KS_ERR_TAG_MISMATCH:
      return "GCM: the tag does not match; no plaintext was written";
    case KS_ERR_WRONG_PASSPHRASE:
      return "encrypted key: wrong passphrase (the decrypted bytes are not a key; damaged "
             "encrypted bytes look the same)";
    case KS_ERR_PBES2_UNSUPPORTED:
      return "encrypted key: unsupported encryption (PBES2 with PBKDF2 over HMAC-SHA1, "
             "HMAC-SHA256 or HMAC-SM3, AES-128/192/256-CBC or SM4-CBC, and at least one "
             "iteration are supported)";
    case KS_ERR_PBES2_ITERATIONS:
      return "encrypted key: the PBKDF2 iteration count exceeds the maximum this reader "
             "allows (600,000 by default; ks_pkcs8_decrypt_max raises it to at most "
             "10,000,000)";
    case KS_ERR_OVERLOADED: return "the service is overloaded (its queue is full); retry later";
    case KS_ERR_DEADLINE: return "the item's deadline passed before it ran";
    case KS_ERR_SHUTTING_DOWN: return "the service is shutting down and takes no new work";
    default: return "unknown error code";
  }
}

int ks_gpu_built(void) { return ks::gpu::built() ? 1 : 0; }

int ks_gpu_device_count(void) { return ks::gpu::device_count(); }

int ks_host_alloc(size_t bytes, void** out) try {
  if (out == nullptr) return KS_ERR_NULL_POINTER;
  return ks::gpu::host_alloc(bytes, out);
} KS_API_CATCH

void ks_host_free(void* p) { ks::gpu::host_free(p); }

const char* ks_cpu_features(void) {
  try {
    static const std::string features = ks::cpu_feature_string(ks::cpu_features());
    return features.c_str();
  } catch (...) {  // no memory for the string: an empty list, not an abort
    return "";
  }
}
