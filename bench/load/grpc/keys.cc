#include "keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

namespace kuaisuo::load {
namespace {

// A fresh key's plain PKCS#8 PEM.
bool new_key_pem(bool ed25519, SecretBytes* pem, size_t* len) {
  if (ed25519) {
    ks_ed25519_key* key = nullptr;
    if (!ks_check(ks_ed25519_key_generate(&key), "--new-key: keygen")) return false;
    const int rc = ks_ed25519_key_encode(key, 1, pem->bytes.data(), pem->bytes.size(), len);
    ks_ed25519_key_free(key);
    return ks_check(rc, "--new-key: PKCS#8");
  }
  ks_sm2_key* raw = nullptr;
  if (!ks_check(ks_sm2_key_generate(&raw), "--new-key: keygen")) return false;
  KeyPtr key(raw);
  return ks_check(ks_sm2_key_encode(key.get(), 1, pem->bytes.data(), pem->bytes.size(), len),
                  "--new-key: PKCS#8");
}

}  // namespace

bool load_check_key(const std::string& path, PubkeyPtr* out) {
  std::string file;
  if (!read_file(path, &file)) {
    fprintf(stderr, "%s: --check-key %s: %s\n", kTool, path.c_str(), strerror(errno));
    return false;
  }
  ks_sm2_key* raw_key = nullptr;
  const int rc = ks_sm2_key_decode(reinterpret_cast<const uint8_t*>(file.data()), file.size(),
                                   &raw_key);
  explicit_bzero(&file[0], file.size());
  KeyPtr key(raw_key);
  if (rc != KS_OK) {
    fprintf(stderr, "%s: --check-key %s: %s (%d)\n", kTool, path.c_str(), ks_strerror(rc), rc);
    return false;
  }
  ks_sm2_pubkey* raw_public = nullptr;
  if (!ks_check(ks_sm2_key_public(key.get(), &raw_public), "--check-key: public key")) {
    return false;
  }
  out->reset(raw_public);
  return true;
}

int write_new_key(const std::string& path, bool ed25519) {
  SecretBytes pem(1024);
  size_t len = 0;
  if (!new_key_pem(ed25519, &pem, &len)) return kExitSetup;
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0 || write(fd, pem.bytes.data(), len) != static_cast<ssize_t>(len) || close(fd) != 0) {
    fprintf(stderr, "%s: --new-key %s: %s\n", kTool, path.c_str(), strerror(errno));
    return kExitSetup;
  }
  return 0;
}

}  // namespace kuaisuo::load
