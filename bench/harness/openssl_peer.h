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
  // SM2 encryption to the signer's key and decryption with it
  // (EVP_PKEY_encrypt / decrypt: SM3, the DER form); *out_len: capacity in,
  // length out.
  bool sm2_encrypt(Sm2Signer* s, const uint8_t* msg, size_t len, uint8_t* out,
                   size_t* out_len) const;
  bool sm2_decrypt(Sm2Signer* s, const uint8_t* ct, size_t len, uint8_t* out,
                   size_t* out_len) const;
  bool sm2_verify_digest(Sm2Signer* s, const uint8_t e[32], const uint8_t* der,
                         size_t der_len) const;
  // Message in with the distinguishing ID set (EVP_DigestSign with SM3).
  bool sm2_sign_message(Sm2Signer* s, const uint8_t* id, size_t id_len, const uint8_t* msg,
                        size_t len, uint8_t* der, size_t* der_len) const;
  bool sm2_verify_message(Sm2Signer* s, const uint8_t* id, size_t id_len, const uint8_t* msg,
                          size_t len, const uint8_t* der, size_t der_len) const;

  // OpenSSL's nearest equivalent of one party's side of an SM2 key
  // exchange, which OpenSSL 3 lacks: ECDH on the SM2 curve, with EC keys of
  // group "SM2" (an EVP_PKEY_SM2 key refuses EVP_PKEY_derive). Independent
  // of SM2 signing; sm2_ecdh_error() is "" when usable.
  const std::string& sm2_ecdh_error() const { return ecdh_error_; }
  // A keygen context ("EC", group "SM2") made once and `peers` peer keys
  // (the other party's ephemeral keys), with one exchange checked to agree
  // both ways; nullptr on failure.
  struct Sm2Ecdh;
  Sm2Ecdh* sm2_ecdh_new(size_t peers) const;
  void sm2_ecdh_free(Sm2Ecdh* e) const;
  // One party's side: a fresh ephemeral key (EVP_PKEY_keygen on the
  // context) and EVP_PKEY_derive with peer i's public key into out (the
  // shared x coordinate), on a derive context made for the new key. The
  // peer is set without OpenSSL's per-derive public-key check
  // (EVP_PKEY_derive_set_peer_ex, validate 0): that check multiplies the
  // point by the group order, a third scalar multiplication ours does not
  // do (the curve's cofactor is 1: being on the curve, which the peers are
  // by construction, suffices), and it would weigh on OpenSSL alone.
  bool sm2_ecdh_exchange(Sm2Ecdh* e, size_t peer, uint8_t out[32]) const;

  // Ed25519 and X25519 through EVP, independent of SM2: a libcrypto without
  // SM2 still has them. curve25519_error() is "" when they are usable.
  bool curve25519_ok() const { return lib_ != nullptr && curve_error_.empty(); }
  const std::string& curve25519_error() const { return curve_error_; }
  // Ed25519: a fresh key with an EVP_DigestSign and an EVP_DigestVerify
  // context initialised once and reused, as `openssl speed` does.
  struct Ed25519Signer;
  Ed25519Signer* ed25519_new_signer() const;
  void ed25519_free_signer(Ed25519Signer* s) const;
  bool ed25519_keygen() const;  // one key generation (the key is freed)
  bool ed25519_sign(Ed25519Signer* s, const uint8_t* msg, size_t len, uint8_t sig[64]) const;
  bool ed25519_verify(Ed25519Signer* s, const uint8_t* msg, size_t len,
                      const uint8_t sig[64]) const;
  // X25519: a fresh private key and one EVP_PKEY_derive context per peer
  // (raw 32-byte public keys), its peer set once; each derive is one
  // EVP_PKEY_derive, as `openssl speed` times ECDH.
  struct X25519Deriver;
  X25519Deriver* x25519_new_deriver(const uint8_t (*peers)[32], size_t count) const;
  void x25519_free_deriver(X25519Deriver* d) const;
  bool x25519_keygen() const;  // one key generation (the key is freed)
  bool x25519_derive(X25519Deriver* d, size_t peer, uint8_t out[32]) const;

  // SM4 through EVP_CIPHER (SM4-ECB, -CBC, -CFB, -OFB, -CTR, -GCM), each
  // fetched once; modes are named "ecb", "cbc", "cfb", "ofb", "ctr", "gcm".
  // sm4_error(mode) is "" when this libcrypto has that mode (OpenSSL 3.0
  // has no SM4-GCM).
  const std::string& sm4_error(const std::string& mode) const;
  // An EVP_CIPHER_CTX made once with its key and IV (GCM: a 12-byte IV),
  // padding off. One message is sm4_message: EVP_CipherInit_ex2 with the
  // key and IV again (the key schedule, as a one-shot call pays it),
  // EVP_CipherUpdate over the whole buffer, EVP_CipherFinal_ex and, for
  // GCM, the 16-byte tag; false unless exactly len bytes came out. With
  // rekey false the IV alone is set again: the key schedule made before is
  // reused, as an application holding the context per key does.
  // sm4_rekey is the key schedule alone (EVP_CipherInit_ex2 with the key).
  struct Sm4Cipher;
  Sm4Cipher* sm4_new_cipher(const std::string& mode, bool encrypt, const uint8_t key[16],
                            const uint8_t* iv, size_t iv_len) const;
  void sm4_free_cipher(Sm4Cipher* c) const;
  bool sm4_message(Sm4Cipher* c, const uint8_t* in, size_t len, uint8_t* out, uint8_t tag[16],
                   bool rekey = true) const;
  bool sm4_rekey(Sm4Cipher* c) const;

 private:
  OpenSslPeer();
  Fn sym(const char* name);
  Fn sym_into(const char* name, std::string* error);
  void load_sm2();
  void load_curve25519();
  void load_sm4();
  void load_sm2_ecdh();
  bool ecdh_derive(void* pkey, void* peer, uint8_t out[32]) const;
  int sm4_index(const std::string& mode) const;  // into sm4_cipher_, or -1
  bool keygen_named(const char* alg, void** pkey) const;
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
    int (*encrypt_init)(void*);
    int (*encrypt)(void*, unsigned char*, size_t*, const unsigned char*, size_t);
    int (*decrypt_init)(void*);
    int (*decrypt)(void*, unsigned char*, size_t*, const unsigned char*, size_t);
  } evp_{};
  // The further entry points Ed25519 and X25519 need.
  struct Curve {
    void* (*new_raw_public_key_ex)(void*, const char*, const char*, const unsigned char*, size_t);
    int (*derive_init)(void*);
    int (*derive_set_peer)(void*, void*);
    int (*derive)(void*, unsigned char*, size_t*);
  } curve_{};
  std::string curve_error_;
  // The further entry points ECDH on the SM2 curve needs.
  struct Ecdh {
    int (*set_group_name)(void*, const char*);
    int (*derive_init)(void*);
    int (*derive_set_peer_ex)(void*, void*, int);
    int (*derive)(void*, unsigned char*, size_t*);
  } ecdh_{};
  std::string ecdh_error_;
  // The EVP_CIPHER entry points SM4 needs, and the fetched ciphers.
  struct Cipher {
    void* (*fetch)(void*, const char*, const char*);
    void (*free)(void*);
    void* (*ctx_new)();
    void (*ctx_free)(void*);
    int (*init)(void*, const void*, const unsigned char*, const unsigned char*, int, const void*);
    int (*update)(void*, unsigned char*, int*, const unsigned char*, int);
    int (*final)(void*, unsigned char*, int*);
    int (*set_padding)(void*, int);
    int (*ctrl)(void*, int, int, void*);
  } cipher_{};
  static constexpr int kSm4Modes = 6;
  void* sm4_cipher_[kSm4Modes] = {};  // EVP_CIPHER*, or nullptr
  std::string sm4_error_[kSm4Modes];
};

}  // namespace bench
}  // namespace ks

#endif  // KS_BENCH_OPENSSL_PEER_H_
