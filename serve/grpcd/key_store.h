// kuaisuo-grpcd's keys and clients, by the rules of python/kuaisuo/keystore.py
// (the same directory and access file serve both front ends):
//  - KeyStore: KEYS/<id>.pem|.der, one private key each, PKCS#8 (or SEC1),
//    encrypted at rest with PBES2 under one passphrase (ks_pkcs8_decrypt),
//    plain files only when allowed; ids are [A-Za-z0-9._-]{1,128}. This
//    front end signs with SM2 and Ed25519 keys, so SM4 files are named as
//    not served here (kuaisuo serve serves them). load() swaps the whole
//    set at once; a file that does not load is reported by name and
//    reason, never by its bytes.
//  - Access: {"tokens": {"<sha256 hex of a token>": ["key id" | "*", ...]}}.
#ifndef KUAISUO_SERVE_GRPCD_KEY_STORE_H_
#define KUAISUO_SERVE_GRPCD_KEY_STORE_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kuaisuo.h"

namespace kuaisuo::serve {

using Sm2Key = std::shared_ptr<const ks_sm2_key>;
using Ed25519Key = std::shared_ptr<const ks_ed25519_key>;

// A signing key of the store: exactly one of the two is set (neither for
// an id that is absent).
struct SigningKey {
  Sm2Key sm2;
  Ed25519Key ed25519;

  explicit operator bool() const { return sm2 || ed25519; }
};

class KeyStore {
 public:
  KeyStore(std::string directory, std::string passphrase, bool allow_plain);

  // Reads the directory again; the keys that load become the set. Returns
  // "file: reason" for each file that did not (an unreadable directory is
  // one such line and keeps the old set).
  std::vector<std::string> load();
  SigningKey get(const std::string& id) const;  // empty when absent
  size_t size() const;

 private:
  using Keys = std::map<std::string, SigningKey>;
  std::optional<SigningKey> read(const std::string& path, std::string* reason) const;

  std::string directory_, passphrase_;
  bool allow_plain_;
  mutable std::mutex mu_;
  std::shared_ptr<const Keys> keys_;
};

class Access {
 public:
  // The grants of an access file, or nullopt with *error set.
  static std::optional<Access> from_file(const std::string& path, std::string* error);
  static std::string token_digest(std::string_view token);  // SHA-256, lower-case hex

  // The key ids granted to the token of this digest, null for an unknown
  // one: callers hash a request's token once and reuse the digest.
  const std::vector<std::string>* grant(const std::string& digest) const;
  static bool permits(const std::vector<std::string>& grant, const std::string& key_id);

 private:
  std::unordered_map<std::string, std::vector<std::string>> grants_;  // digest -> ids
};

// "pass:TEXT", "env:VARIABLE" or "file:PATH" (its first line), as the
// Python CLI's --passin; nullopt with *error for anything else.
std::optional<std::string> read_passphrase(const std::string& spec, std::string* error);

// The token of an "authorization: Bearer <token>" value, else empty.
std::string_view bearer_token(std::string_view authorization);

}  // namespace kuaisuo::serve

#endif  // KUAISUO_SERVE_GRPCD_KEY_STORE_H_
