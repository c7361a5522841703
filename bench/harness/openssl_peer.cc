#include "openssl_peer.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include <vector>

namespace ks {
namespace bench {

const OpenSslPeer& OpenSslPeer::get() {
  static const OpenSslPeer peer;
  return peer;
}

OpenSslPeer::Fn OpenSslPeer::sym(const char* name) { return sym_into(name, &error_); }

// A symbol of libcrypto; a missing one is recorded in *error (the first).
OpenSslPeer::Fn OpenSslPeer::sym_into(const char* name, std::string* error) {
  void* p = lib_ == nullptr ? nullptr : dlsym(lib_, name);
  if (p == nullptr && error->empty()) *error = std::string("libcrypto lacks ") + name;
  return reinterpret_cast<Fn>(p);
}

OpenSslPeer::OpenSslPeer() {
  for (const char* name : {"libcrypto.so.3", "libcrypto.so"}) {
    lib_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib_ != nullptr) break;
  }
  if (lib_ == nullptr) {
    error_ = curve_error_ = ecdh_error_ = "cannot load libcrypto.so.3 (install OpenSSL 3)";
    for (std::string& e : sm4_error_) e = error_;
    return;
  }
  load_curve25519();  // on its own: a libcrypto without SM2 may still have it
  load_sm4();         // likewise
  load_sm2_ecdh();    // likewise
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
  load_sm2();
  ok_ = error_.empty();
}

template <class T>
static void bind(T*& slot, OpenSslPeer::Fn fn) {
  slot = reinterpret_cast<T*>(fn);
}

void OpenSslPeer::load_sm2() {
  bind(evp_.pkey_ctx_new_from_name, sym("EVP_PKEY_CTX_new_from_name"));
  bind(evp_.pkey_ctx_new, sym("EVP_PKEY_CTX_new"));
  bind(evp_.pkey_ctx_free, sym("EVP_PKEY_CTX_free"));
  bind(evp_.keygen_init, sym("EVP_PKEY_keygen_init"));
  bind(evp_.keygen, sym("EVP_PKEY_keygen"));
  bind(evp_.pkey_free, sym("EVP_PKEY_free"));
  bind(evp_.sign_init, sym("EVP_PKEY_sign_init"));
  bind(evp_.sign, sym("EVP_PKEY_sign"));
  bind(evp_.verify_init, sym("EVP_PKEY_verify_init"));
  bind(evp_.verify, sym("EVP_PKEY_verify"));
  bind(evp_.set1_id, sym("EVP_PKEY_CTX_set1_id"));
  bind(evp_.md_ctx_new, sym("EVP_MD_CTX_new"));
  bind(evp_.md_ctx_free, sym("EVP_MD_CTX_free"));
  bind(evp_.md_ctx_set_pkey_ctx, sym("EVP_MD_CTX_set_pkey_ctx"));
  bind(evp_.digest_sign_init, sym("EVP_DigestSignInit"));
  bind(evp_.digest_sign, sym("EVP_DigestSign"));
  bind(evp_.digest_verify_init, sym("EVP_DigestVerifyInit"));
  bind(evp_.digest_verify, sym("EVP_DigestVerify"));
  bind(evp_.sm3_md, sym("EVP_sm3"));
  bind(evp_.encrypt_init, sym("EVP_PKEY_encrypt_init"));
  bind(evp_.encrypt, sym("EVP_PKEY_encrypt"));
  bind(evp_.decrypt_init, sym("EVP_PKEY_decrypt_init"));
  bind(evp_.decrypt, sym("EVP_PKEY_decrypt"));
  if (!error_.empty()) return;
  if (!sm2_keygen()) error_ = "this libcrypto has no SM2";
}

struct OpenSslPeer::Sm2Signer {
  void* pkey = nullptr;
  void* sign_ctx = nullptr;    // EVP_PKEY_CTX, sign-initialised
  void* verify_ctx = nullptr;  // EVP_PKEY_CTX, verify-initialised
  void* encrypt_ctx = nullptr;
  void* decrypt_ctx = nullptr;
};

OpenSslPeer::Sm2Signer* OpenSslPeer::sm2_new_signer() const {
  auto* s = new Sm2Signer;
  // EVP_PKEY_keygen on a shared context is not thread-safe: one per key.
  void* ctx = evp_.pkey_ctx_new_from_name(nullptr, "SM2", nullptr);
  const bool ok = ctx != nullptr && evp_.keygen_init(ctx) == 1 && evp_.keygen(ctx, &s->pkey) == 1;
  evp_.pkey_ctx_free(ctx);
  if (ok) {
    s->sign_ctx = evp_.pkey_ctx_new(s->pkey, nullptr);
    s->verify_ctx = evp_.pkey_ctx_new(s->pkey, nullptr);
    s->encrypt_ctx = evp_.pkey_ctx_new(s->pkey, nullptr);
    s->decrypt_ctx = evp_.pkey_ctx_new(s->pkey, nullptr);
  }
  if (!ok || evp_.sign_init(s->sign_ctx) != 1 || evp_.verify_init(s->verify_ctx) != 1 ||
      evp_.encrypt_init(s->encrypt_ctx) != 1 || evp_.decrypt_init(s->decrypt_ctx) != 1) {
    sm2_free_signer(s);
    return nullptr;
  }
  return s;
}

void OpenSslPeer::sm2_free_signer(Sm2Signer* s) const {
  if (s == nullptr) return;
  if (s->sign_ctx) evp_.pkey_ctx_free(s->sign_ctx);
  if (s->verify_ctx) evp_.pkey_ctx_free(s->verify_ctx);
  if (s->encrypt_ctx) evp_.pkey_ctx_free(s->encrypt_ctx);
  if (s->decrypt_ctx) evp_.pkey_ctx_free(s->decrypt_ctx);
  if (s->pkey) evp_.pkey_free(s->pkey);
  delete s;
}

bool OpenSslPeer::sm2_keygen() const {
  void* ctx = evp_.pkey_ctx_new_from_name(nullptr, "SM2", nullptr);
  void* pkey = nullptr;
  const bool ok = ctx != nullptr && evp_.keygen_init(ctx) == 1 && evp_.keygen(ctx, &pkey) == 1;
  if (pkey != nullptr) evp_.pkey_free(pkey);
  evp_.pkey_ctx_free(ctx);
  return ok;
}

bool OpenSslPeer::sm2_sign_digest(Sm2Signer* s, const uint8_t e[32], uint8_t* der,
                                  size_t* der_len) const {
  return evp_.sign(s->sign_ctx, der, der_len, e, 32) == 1;
}

bool OpenSslPeer::sm2_verify_digest(Sm2Signer* s, const uint8_t e[32], const uint8_t* der,
                                    size_t der_len) const {
  return evp_.verify(s->verify_ctx, der, der_len, e, 32) == 1;
}

// Runs body(md) on an EVP_MD_CTX whose fresh EVP_PKEY_CTX carries the
// distinguishing ID, as OpenSSL's documentation prescribes for SM2 (an MD
// context cannot be reused after a one-shot sign or verify in OpenSSL 3.0).
template <class Body>
bool OpenSslPeer::with_id(Sm2Signer* s, const uint8_t* id, size_t id_len, Body body) const {
  void* md = evp_.md_ctx_new();
  void* pctx = evp_.pkey_ctx_new(s->pkey, nullptr);
  bool ok = evp_.set1_id(pctx, id, int(id_len)) > 0;
  evp_.md_ctx_set_pkey_ctx(md, pctx);
  ok = ok && body(md);
  evp_.md_ctx_free(md);
  evp_.pkey_ctx_free(pctx);
  return ok;
}

bool OpenSslPeer::sm2_sign_message(Sm2Signer* s, const uint8_t* id, size_t id_len,
                                   const uint8_t* msg, size_t len, uint8_t* der,
                                   size_t* der_len) const {
  return with_id(s, id, id_len, [&](void* md) {
    return evp_.digest_sign_init(md, nullptr, evp_.sm3_md(), nullptr, s->pkey) == 1 &&
           evp_.digest_sign(md, der, der_len, msg, len) == 1;
  });
}

bool OpenSslPeer::sm2_verify_message(Sm2Signer* s, const uint8_t* id, size_t id_len,
                                     const uint8_t* msg, size_t len, const uint8_t* der,
                                     size_t der_len) const {
  return with_id(s, id, id_len, [&](void* md) {
    return evp_.digest_verify_init(md, nullptr, evp_.sm3_md(), nullptr, s->pkey) == 1 &&
           evp_.digest_verify(md, der, der_len, msg, len) == 1;
  });
}

// ---- ECDH on the SM2 curve (the key-exchange rows) ---------------------------------

struct OpenSslPeer::Sm2Ecdh {
  void* keygen_ctx = nullptr;  // EVP_PKEY_CTX "EC", keygen-initialised, group "SM2"
  std::vector<void*> peers;    // EVP_PKEY, the other party's ephemeral keys
};

void OpenSslPeer::load_sm2_ecdh() {
  std::string* e = &ecdh_error_;
  bind(evp_.pkey_ctx_new_from_name, sym_into("EVP_PKEY_CTX_new_from_name", e));
  bind(evp_.pkey_ctx_new, sym_into("EVP_PKEY_CTX_new", e));
  bind(evp_.pkey_ctx_free, sym_into("EVP_PKEY_CTX_free", e));
  bind(evp_.keygen_init, sym_into("EVP_PKEY_keygen_init", e));
  bind(evp_.keygen, sym_into("EVP_PKEY_keygen", e));
  bind(evp_.pkey_free, sym_into("EVP_PKEY_free", e));
  bind(ecdh_.set_group_name, sym_into("EVP_PKEY_CTX_set_group_name", e));
  bind(ecdh_.derive_init, sym_into("EVP_PKEY_derive_init", e));
  bind(ecdh_.derive_set_peer_ex, sym_into("EVP_PKEY_derive_set_peer_ex", e));
  bind(ecdh_.derive, sym_into("EVP_PKEY_derive", e));
  if (!e->empty()) return;
  Sm2Ecdh* probe = sm2_ecdh_new(1);
  if (probe == nullptr) *e = "this libcrypto has no ECDH on the SM2 curve";
  sm2_ecdh_free(probe);
}

// EVP_PKEY_derive of pkey with peer (32 bytes out), on a context made for pkey.
bool OpenSslPeer::ecdh_derive(void* pkey, void* peer, uint8_t out[32]) const {
  void* ctx = evp_.pkey_ctx_new(pkey, nullptr);
  size_t len = 32;
  const bool ok = ctx != nullptr && ecdh_.derive_init(ctx) == 1 &&
                  ecdh_.derive_set_peer_ex(ctx, peer, 0) == 1 &&
                  ecdh_.derive(ctx, out, &len) == 1 && len == 32;
  if (ctx != nullptr) evp_.pkey_ctx_free(ctx);
  return ok;
}

OpenSslPeer::Sm2Ecdh* OpenSslPeer::sm2_ecdh_new(size_t peers) const {
  auto* e = new Sm2Ecdh;
  // One context per party: EVP_PKEY_keygen on a shared one is not thread-safe.
  e->keygen_ctx = evp_.pkey_ctx_new_from_name(nullptr, "EC", nullptr);
  bool ok = peers > 0 && e->keygen_ctx != nullptr && evp_.keygen_init(e->keygen_ctx) == 1 &&
            ecdh_.set_group_name(e->keygen_ctx, "SM2") == 1;
  for (size_t i = 0; ok && i < peers; ++i) {
    void* peer = nullptr;
    ok = evp_.keygen(e->keygen_ctx, &peer) == 1;
    if (peer != nullptr) e->peers.push_back(peer);
  }
  // One exchange, both ways: the same shared secret.
  void* mine = nullptr;
  uint8_t ab[32] = {}, ba[32] = {1};
  ok = ok && evp_.keygen(e->keygen_ctx, &mine) == 1 && ecdh_derive(mine, e->peers[0], ab) &&
       ecdh_derive(e->peers[0], mine, ba) && memcmp(ab, ba, 32) == 0;
  if (mine != nullptr) evp_.pkey_free(mine);
  if (!ok) {
    sm2_ecdh_free(e);
    return nullptr;
  }
  return e;
}

void OpenSslPeer::sm2_ecdh_free(Sm2Ecdh* e) const {
  if (e == nullptr) return;
  for (void* peer : e->peers) evp_.pkey_free(peer);
  if (e->keygen_ctx != nullptr) evp_.pkey_ctx_free(e->keygen_ctx);
  delete e;
}

bool OpenSslPeer::sm2_ecdh_exchange(Sm2Ecdh* e, size_t peer, uint8_t out[32]) const {
  void* eph = nullptr;
  if (evp_.keygen(e->keygen_ctx, &eph) != 1) return false;
  const bool ok = ecdh_derive(eph, e->peers[peer % e->peers.size()], out);
  evp_.pkey_free(eph);
  return ok;
}

// ---- Ed25519 and X25519 ---------------------------------------------------------

void OpenSslPeer::load_curve25519() {
  std::string* e = &curve_error_;
  bind(evp_.pkey_ctx_new_from_name, sym_into("EVP_PKEY_CTX_new_from_name", e));
  bind(evp_.pkey_ctx_new, sym_into("EVP_PKEY_CTX_new", e));
  bind(evp_.pkey_ctx_free, sym_into("EVP_PKEY_CTX_free", e));
  bind(evp_.keygen_init, sym_into("EVP_PKEY_keygen_init", e));
  bind(evp_.keygen, sym_into("EVP_PKEY_keygen", e));
  bind(evp_.pkey_free, sym_into("EVP_PKEY_free", e));
  bind(evp_.md_ctx_new, sym_into("EVP_MD_CTX_new", e));
  bind(evp_.md_ctx_free, sym_into("EVP_MD_CTX_free", e));
  bind(evp_.digest_sign_init, sym_into("EVP_DigestSignInit", e));
  bind(evp_.digest_sign, sym_into("EVP_DigestSign", e));
  bind(evp_.digest_verify_init, sym_into("EVP_DigestVerifyInit", e));
  bind(evp_.digest_verify, sym_into("EVP_DigestVerify", e));
  bind(curve_.new_raw_public_key_ex, sym_into("EVP_PKEY_new_raw_public_key_ex", e));
  bind(curve_.derive_init, sym_into("EVP_PKEY_derive_init", e));
  bind(curve_.derive_set_peer, sym_into("EVP_PKEY_derive_set_peer", e));
  bind(curve_.derive, sym_into("EVP_PKEY_derive", e));
  if (!e->empty()) return;
  if (!ed25519_keygen() || !x25519_keygen()) *e = "this libcrypto has no Ed25519 or X25519";
}

// A fresh key of the named algorithm (EVP_PKEY_keygen on its own context:
// a shared one is not thread-safe).
bool OpenSslPeer::keygen_named(const char* alg, void** pkey) const {
  void* ctx = evp_.pkey_ctx_new_from_name(nullptr, alg, nullptr);
  const bool ok = ctx != nullptr && evp_.keygen_init(ctx) == 1 && evp_.keygen(ctx, pkey) == 1;
  evp_.pkey_ctx_free(ctx);
  return ok;
}

struct OpenSslPeer::Ed25519Signer {
  void* pkey = nullptr;
  void* sign_md = nullptr;    // EVP_MD_CTX, DigestSign-initialised
  void* verify_md = nullptr;  // EVP_MD_CTX, DigestVerify-initialised
};

OpenSslPeer::Ed25519Signer* OpenSslPeer::ed25519_new_signer() const {
  auto* s = new Ed25519Signer;
  bool ok = keygen_named("ED25519", &s->pkey);
  if (ok) {
    s->sign_md = evp_.md_ctx_new();
    s->verify_md = evp_.md_ctx_new();
    ok = s->sign_md != nullptr && s->verify_md != nullptr &&
         evp_.digest_sign_init(s->sign_md, nullptr, nullptr, nullptr, s->pkey) == 1 &&
         evp_.digest_verify_init(s->verify_md, nullptr, nullptr, nullptr, s->pkey) == 1;
  }
  if (!ok) {
    ed25519_free_signer(s);
    return nullptr;
  }
  return s;
}

void OpenSslPeer::ed25519_free_signer(Ed25519Signer* s) const {
  if (s == nullptr) return;
  if (s->sign_md) evp_.md_ctx_free(s->sign_md);
  if (s->verify_md) evp_.md_ctx_free(s->verify_md);
  if (s->pkey) evp_.pkey_free(s->pkey);
  delete s;
}

bool OpenSslPeer::ed25519_keygen() const {
  void* pkey = nullptr;
  const bool ok = keygen_named("ED25519", &pkey);
  if (pkey != nullptr) evp_.pkey_free(pkey);
  return ok;
}

bool OpenSslPeer::ed25519_sign(Ed25519Signer* s, const uint8_t* msg, size_t len,
                               uint8_t sig[64]) const {
  size_t sig_len = 64;
  return evp_.digest_sign(s->sign_md, sig, &sig_len, msg, len) == 1 && sig_len == 64;
}

bool OpenSslPeer::ed25519_verify(Ed25519Signer* s, const uint8_t* msg, size_t len,
                                 const uint8_t sig[64]) const {
  return evp_.digest_verify(s->verify_md, sig, 64, msg, len) == 1;
}

struct OpenSslPeer::X25519Deriver {
  void* pkey = nullptr;
  std::vector<void*> peers;  // EVP_PKEY of each peer's public key
  std::vector<void*> ctxs;   // EVP_PKEY_CTX, derive-initialised with peers[i]
};

OpenSslPeer::X25519Deriver* OpenSslPeer::x25519_new_deriver(const uint8_t (*peers)[32],
                                                            size_t count) const {
  auto* d = new X25519Deriver;
  bool ok = count > 0 && keygen_named("X25519", &d->pkey);
  for (size_t i = 0; ok && i < count; ++i) {
    void* peer = curve_.new_raw_public_key_ex(nullptr, "X25519", nullptr, peers[i], 32);
    if (peer != nullptr) d->peers.push_back(peer);
    void* ctx = peer == nullptr ? nullptr : evp_.pkey_ctx_new(d->pkey, nullptr);
    if (ctx != nullptr) d->ctxs.push_back(ctx);
    ok = ctx != nullptr && curve_.derive_init(ctx) == 1 && curve_.derive_set_peer(ctx, peer) == 1;
  }
  if (!ok) {
    x25519_free_deriver(d);
    return nullptr;
  }
  return d;
}

void OpenSslPeer::x25519_free_deriver(X25519Deriver* d) const {
  if (d == nullptr) return;
  for (void* ctx : d->ctxs) evp_.pkey_ctx_free(ctx);
  for (void* peer : d->peers) evp_.pkey_free(peer);
  if (d->pkey) evp_.pkey_free(d->pkey);
  delete d;
}

bool OpenSslPeer::x25519_keygen() const {
  void* pkey = nullptr;
  const bool ok = keygen_named("X25519", &pkey);
  if (pkey != nullptr) evp_.pkey_free(pkey);
  return ok;
}

bool OpenSslPeer::x25519_derive(X25519Deriver* d, size_t peer, uint8_t out[32]) const {
  size_t len = 32;
  return curve_.derive(d->ctxs[peer % d->ctxs.size()], out, &len) == 1 && len == 32;
}

// ---- SM4 -------------------------------------------------------------------------

namespace {
const char* const kSm4Names[][2] = {{"ecb", "SM4-ECB"}, {"cbc", "SM4-CBC"}, {"cfb", "SM4-CFB"},
                                    {"ofb", "SM4-OFB"}, {"ctr", "SM4-CTR"}, {"gcm", "SM4-GCM"}};
constexpr int kCtrlAeadGetTag = 0x10;  // EVP_CTRL_AEAD_GET_TAG
}  // namespace

void OpenSslPeer::load_sm4() {
  std::string error;
  bind(cipher_.fetch, sym_into("EVP_CIPHER_fetch", &error));
  bind(cipher_.free, sym_into("EVP_CIPHER_free", &error));
  bind(cipher_.ctx_new, sym_into("EVP_CIPHER_CTX_new", &error));
  bind(cipher_.ctx_free, sym_into("EVP_CIPHER_CTX_free", &error));
  bind(cipher_.init, sym_into("EVP_CipherInit_ex2", &error));
  bind(cipher_.update, sym_into("EVP_CipherUpdate", &error));
  bind(cipher_.final, sym_into("EVP_CipherFinal_ex", &error));
  bind(cipher_.set_padding, sym_into("EVP_CIPHER_CTX_set_padding", &error));
  bind(cipher_.ctrl, sym_into("EVP_CIPHER_CTX_ctrl", &error));
  for (int m = 0; m < kSm4Modes; ++m) {
    if (error.empty()) sm4_cipher_[m] = cipher_.fetch(nullptr, kSm4Names[m][1], nullptr);
    sm4_error_[m] = !error.empty()             ? error
                    : sm4_cipher_[m] == nullptr ? std::string("this libcrypto has no ") +
                                                      kSm4Names[m][1]
                                                : std::string();
  }
}

int OpenSslPeer::sm4_index(const std::string& mode) const {
  for (int m = 0; m < kSm4Modes; ++m)
    if (mode == kSm4Names[m][0]) return m;
  return -1;
}

const std::string& OpenSslPeer::sm4_error(const std::string& mode) const {
  static const std::string unknown = "no such SM4 mode";
  const int m = sm4_index(mode);
  return m < 0 ? unknown : sm4_error_[m];
}

struct OpenSslPeer::Sm4Cipher {
  void* ctx = nullptr;  // EVP_CIPHER_CTX
  bool gcm = false, has_iv = false;
  uint8_t key[16] = {}, iv[16] = {};
};

OpenSslPeer::Sm4Cipher* OpenSslPeer::sm4_new_cipher(const std::string& mode, bool encrypt,
                                                    const uint8_t key[16], const uint8_t* iv,
                                                    size_t iv_len) const {
  const int m = sm4_index(mode);
  if (m < 0 || !sm4_error_[m].empty()) return nullptr;
  auto* c = new Sm4Cipher;
  c->gcm = mode == "gcm";
  // The IV lengths EVP assumes: none for ECB, 12 bytes for GCM, else 16.
  const size_t want = mode == "ecb" ? 0 : c->gcm ? 12 : 16;
  memcpy(c->key, key, 16);
  c->has_iv = want != 0;
  if (iv_len == want && c->has_iv) memcpy(c->iv, iv, want);
  c->ctx = cipher_.ctx_new();
  const bool ok = iv_len == want && c->ctx != nullptr &&
                  cipher_.init(c->ctx, sm4_cipher_[m], c->key, c->has_iv ? c->iv : nullptr,
                               encrypt ? 1 : 0, nullptr) == 1 &&
                  cipher_.set_padding(c->ctx, 0) == 1;
  if (!ok) {
    sm4_free_cipher(c);
    return nullptr;
  }
  return c;
}

void OpenSslPeer::sm4_free_cipher(Sm4Cipher* c) const {
  if (c == nullptr) return;
  if (c->ctx != nullptr) cipher_.ctx_free(c->ctx);
  delete c;
}

bool OpenSslPeer::sm4_message(Sm4Cipher* c, const uint8_t* in, size_t len, uint8_t* out,
                              uint8_t tag[16], bool rekey) const {
  int n = 0, last = 0;
  // The cipher and direction stay as made (NULL cipher, enc -1).
  const uint8_t* iv = c->has_iv ? c->iv : nullptr;
  const uint8_t* key = rekey ? c->key : nullptr;
  if (len > size_t(INT32_MAX) || cipher_.init(c->ctx, nullptr, key, iv, -1, nullptr) != 1 ||
      cipher_.update(c->ctx, out, &n, in, int(len)) != 1 ||
      cipher_.final(c->ctx, out + n, &last) != 1 || size_t(n) + size_t(last) != len)
    return false;
  return !c->gcm || cipher_.ctrl(c->ctx, kCtrlAeadGetTag, 16, tag) == 1;
}

bool OpenSslPeer::sm2_encrypt(Sm2Signer* s, const uint8_t* msg, size_t len, uint8_t* out,
                              size_t* out_len) const {
  return evp_.encrypt(s->encrypt_ctx, out, out_len, msg, len) == 1;
}

bool OpenSslPeer::sm2_decrypt(Sm2Signer* s, const uint8_t* ct, size_t len, uint8_t* out,
                              size_t* out_len) const {
  return evp_.decrypt(s->decrypt_ctx, out, out_len, ct, len) == 1;
}

bool OpenSslPeer::sm4_rekey(Sm4Cipher* c) const {
  return cipher_.init(c->ctx, nullptr, c->key, nullptr, -1, nullptr) == 1;
}

bool OpenSslPeer::sm3(const uint8_t* data, size_t len, uint8_t out[32]) const {
  unsigned out_len = 0;
  return evp_digest_(data, len, out, &out_len, md_sm3_, nullptr) == 1 && out_len == 32;
}

}  // namespace bench
}  // namespace ks
