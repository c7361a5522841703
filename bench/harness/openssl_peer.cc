#include "openssl_peer.h"

#include <dlfcn.h>

namespace ks {
namespace bench {

const OpenSslPeer& OpenSslPeer::get() {
  static const OpenSslPeer peer;
  return peer;
}

OpenSslPeer::Fn OpenSslPeer::sym(const char* name) {
  void* p = lib_ == nullptr ? nullptr : dlsym(lib_, name);
  if (p == nullptr && error_.empty()) error_ = std::string("libcrypto lacks ") + name;
  return reinterpret_cast<Fn>(p);
}

OpenSslPeer::OpenSslPeer() {
  for (const char* name : {"libcrypto.so.3", "libcrypto.so"}) {
    lib_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib_ != nullptr) break;
  }
  if (lib_ == nullptr) {
    error_ = "cannot load libcrypto.so.3 (install OpenSSL 3)";
    return;
  }
  auto version = reinterpret_cast<const char* (*)(int)>(sym("OpenSSL_version"));
  auto fetch = reinterpret_cast<const void* (*)(void*, const char*, const char*)>(
      sym("EVP_MD_fetch"));
  evp_digest_ = reinterpret_cast<decltype(evp_digest_)>(sym("EVP_Digest"));
  if (!error_.empty()) return;
  version_ = version(0);  // OPENSSL_VERSION
  md_sm3_ = fetch(nullptr, "SM3", nullptr);
  if (md_sm3_ == nullptr) {
    error_ = "this libcrypto has no SM3";
    return;
  }
  ok_ = true;
}

bool OpenSslPeer::sm3(const uint8_t* data, size_t len, uint8_t out[32]) const {
  unsigned out_len = 0;
  return evp_digest_(data, len, out, &out_len, md_sm3_, nullptr) == 1 && out_len == 32;
}

}  // namespace bench
}  // namespace ks
