// OpenSSL's libcrypto, loaded at run time, as the peer the speed harness
// compares against. Only the few EVP entry points the harness times.
#ifndef KS_BENCH_OPENSSL_PEER_H_
#define KS_BENCH_OPENSSL_PEER_H_

#include <stddef.h>
#include <stdint.h>

#include <string>

namespace ks {
namespace bench {

class OpenSslPeer {
 public:
  // Loads libcrypto (libcrypto.so.3, then .so); check ok().
  static const OpenSslPeer& get();
  bool ok() const { return ok_; }
  const std::string& version() const { return version_; }
  const std::string& error() const { return error_; }

  // One-shot SM3 through EVP_Digest, as an application would call it.
  bool sm3(const uint8_t* data, size_t len, uint8_t out[32]) const;

 private:
  OpenSslPeer();
  using Fn = void (*)();
  Fn sym(const char* name);

  bool ok_ = false;
  std::string version_, error_;
  void* lib_ = nullptr;
  const void* md_sm3_ = nullptr;
  int (*evp_digest_)(const void*, size_t, unsigned char*, unsigned*, const void*, void*) = nullptr;
};

}  // namespace bench
}  // namespace ks

#endif  // KS_BENCH_OPENSSL_PEER_H_
