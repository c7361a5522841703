#include "sm4/sm4_formats.h"

#include <string.h>

#include "encoding/pkix.h"
#include "kuaisuo/sm4.h"

namespace ks {
namespace sm4_formats {
namespace {

// 1.2.156.10197.1.104 (GM/T 0006: SM4 block cipher), X.690 8.19.
const uint8_t kOidSm4[] = {0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x68};
const pkix::AlgorithmId kSm4 = {pkix::oid(kOidSm4), {nullptr, 0}};

}  // namespace

Bytes pkcs8_encode(const uint8_t key[kKeyBytes]) {
  return pkix::pkcs8_encode(kSm4, key, kKeyBytes);
}

int pkcs8_decode(const uint8_t* der, size_t len, uint8_t key[kKeyBytes]) {
  pkix::PrivateKeyInfo info;
  KS_RETURN_IF_ERROR(pkix::pkcs8_decode(der, len, &kSm4, 1, &info));
  if (info.has_public_key || info.private_key.remaining() != kKeyBytes)
    return KS_ERR_BAD_PRIVATE_KEY;
  memcpy(key, info.private_key.data(), kKeyBytes);
  return KS_OK;
}

}  // namespace sm4_formats
}  // namespace ks
