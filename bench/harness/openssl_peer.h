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
  using Fn = void (*)();
  // Loads libcrypto (libcrypto.so.3, then .so); check ok().
  static const OpenSslPeer& get();
  bool ok() const { return ok_; }
  const std::string& version() const { return version_; }
  const std::string& error() const { return error_; }

  // One-shot SM3 through EVP_Digest, as an application would call it.
  bool sm3(const uint8_t* data, size_t len, uint8_t out[32]) const;

  // SM2 through EVP, the way applications use it. Keys are EVP_PKEY*,
  // contexts EVP_PKEY_CTX* / EVP_MD_CTX*, kept opaque here.
  struct Sm2Signer;  // a key with its sign and verify contexts
  Sm2Signer* sm2_new_signer() const;  // generates a fresh key
  void sm2_free_signer(Sm2Signer* s) const;
  bool sm2_keygen() const;  // one key generation (the key is freed)
  // Digest e (32 bytes) in, DER signature out (EVP_PKEY_sign).
  bool sm2_sign_digest(Sm2Signer* s, const uint8_t e[32], uint8_t* der, size_t* der_len) const;
  bool sm2_verify_digest(Sm2Signer* s, const uint8_t e[32], const uint8_t* der,
                         size_t der_len) const;
  // Message in with the distinguishing ID set (EVP_DigestSign with SM3).
  bool sm2_sign_message(Sm2Signer* s, const uint8_t* id, size_t id_len, const uint8_t* msg,
                        size_t len, uint8_t* der, size_t* der_len) const;
  bool sm2_verify_message(Sm2Signer* s, const uint8_t* id, size_t id_len, const uint8_t* msg,
                          size_t len, const uint8_t* der, size_t der_len) const;

 private:
  OpenSslPeer();
  Fn sym(const char* name);
  void load_sm2();
  template <class Body>
  bool with_id(Sm2Signer* s, const uint8_t* id, size_t id_len, Body body) const;

  bool ok_ = false;
  std::string version_, error_;
  void* lib_ = nullptr;
  const void* md_sm3_ = nullptr;
  int (*evp_digest_)(const void*, size_t, unsigned char*, unsigned*, const void*, void*) = nullptr;
  // The EVP entry points SM2 needs (void* stands for OpenSSL's types).
  struct Evp {
    void* (*pkey_ctx_new_from_name)(void*, const char*, const char*);
    void* (*pkey_ctx_new)(void*, void*);
    void (*pkey_ctx_free)(void*);
    int (*keygen_init)(void*);
    int (*keygen)(void*, void**);
    void (*pkey_free)(void*);
    int (*sign_init)(void*);
    int (*sign)(void*, unsigned char*, size_t*, const unsigned char*, size_t);
    int (*verify_init)(void*);
    int (*verify)(void*, const unsigned char*, size_t, const unsigned char*, size_t);
    int (*set1_id)(void*, const void*, int);
    void* (*md_ctx_new)();
    void (*md_ctx_free)(void*);
    void (*md_ctx_set_pkey_ctx)(void*, void*);
    int (*digest_sign_init)(void*, void**, const void*, void*, void*);
    int (*digest_sign)(void*, unsigned char*, size_t*, const unsigned char*, size_t);
    int (*digest_verify_init)(void*, void**, const void*, void*, void*);
    int (*digest_verify)(void*, const unsigned char*, size_t, const unsigned char*, size_t);
    const void* (*sm3_md)();
  } evp_{};

};

}  // namespace bench
}  // namespace ks

#endif  // KS_BENCH_OPENSSL_PEER_H_
