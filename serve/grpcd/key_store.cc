#include "key_store.h"

#include <dirent.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

namespace kuaisuo::serve {
namespace {

bool read_file(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !f.bad();
}

// Overwrites a string that held key material before it is freed.
void wipe(std::string* s) {
  volatile char* p = s->data();
  for (size_t i = 0; i < s->size(); ++i) p[i] = 0;
  s->clear();
}

// An EncryptedPrivateKeyInfo: PEM with its label, or DER whose outer
// SEQUENCE opens with the algorithm's SEQUENCE (a PrivateKeyInfo opens
// with its version INTEGER): keystore.py's is_encrypted.
bool is_encrypted(const std::string& b) {
  if (b.empty() || static_cast<uint8_t>(b[0]) != 0x30) {
    return b.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string::npos;
  }
  if (b.size() < 2) return false;
  const uint8_t len = static_cast<uint8_t>(b[1]);
  const size_t head = 2 + ((len & 0x80) ? (len & 0x7F) : 0);
  return b.size() > head && static_cast<uint8_t>(b[head]) == 0x30;
}

bool key_id_of(const std::string& name, std::string* id) {
  static const std::regex kName(R"(^([A-Za-z0-9._-]{1,128})\.(pem|der)$)");
  std::smatch m;
  if (!std::regex_match(name, m, kName)) return false;
  *id = m[1];
  return true;
}

// An SM2 key (PKCS#8 or SEC1), else an Ed25519 one (PKCS#8, RFC 8410), as
// keystore.py tries its decoders; each names a key of another algorithm
// KS_ERR_KEY_ALGORITHM.
std::optional<SigningKey> decode_key(const std::string& der, std::string* reason) {
  const auto* in = reinterpret_cast<const uint8_t*>(der.data());
  ks_sm2_key* sm2 = nullptr;
  int rc = ks_sm2_key_decode(in, der.size(), &sm2);
  if (rc == KS_OK) return SigningKey{Sm2Key(sm2, ks_sm2_key_free), nullptr};
  if (rc == KS_ERR_KEY_ALGORITHM) {
    ks_ed25519_key* ed25519 = nullptr;
    rc = ks_ed25519_key_decode(in, der.size(), &ed25519);
    if (rc == KS_OK) return SigningKey{nullptr, Ed25519Key(ed25519, ks_ed25519_key_free)};
  }
  *reason = rc == KS_ERR_KEY_ALGORITHM
                ? "not an SM2 or Ed25519 key (kuaisuo-grpcd signs with those; kuaisuo serve "
                  "serves SM4 keys too)"
                : ks_strerror(rc);
  return std::nullopt;
}

}  // namespace

KeyStore::KeyStore(std::string directory, std::string passphrase, bool allow_plain)
    : directory_(std::move(directory)),
      passphrase_(std::move(passphrase)),
      allow_plain_(allow_plain),
      keys_(std::make_shared<const Keys>()) {}

std::optional<SigningKey> KeyStore::read(const std::string& path, std::string* reason) const {
  std::string data;
  if (!read_file(path, &data)) {
    *reason = "cannot be read";
    return std::nullopt;
  }
  if (is_encrypted(data)) {
    if (passphrase_.empty()) {
      *reason = "encrypted, and no passphrase was given (--passin)";
      wipe(&data);
      return std::nullopt;
    }
    std::string der(data.size(), '\0');
    size_t len = 0;
    const int rc = ks_pkcs8_decrypt(reinterpret_cast<const uint8_t*>(data.data()), data.size(),
                                    reinterpret_cast<const uint8_t*>(passphrase_.data()),
                                    passphrase_.size(), reinterpret_cast<uint8_t*>(der.data()),
                                    der.size(), &len);
    wipe(&data);
    if (rc != KS_OK) {
      *reason = ks_strerror(rc);
      wipe(&der);
      return std::nullopt;
    }
    der.resize(len);
    data.swap(der);
  } else if (!allow_plain_) {
    *reason = "not encrypted (plain key files need --allow-plain)";
    wipe(&data);
    return std::nullopt;
  }
  std::optional<SigningKey> key = decode_key(data, reason);
  wipe(&data);
  return key;
}

std::vector<std::string> KeyStore::load() {
  std::vector<std::string> errors;
  DIR* dir = opendir(directory_.c_str());
  if (dir == nullptr) return {directory_ + ": the key directory cannot be read"};
  std::vector<std::string> names;
  while (const dirent* entry = readdir(dir)) names.emplace_back(entry->d_name);
  closedir(dir);
  std::sort(names.begin(), names.end());
  auto keys = std::make_shared<Keys>();
  for (const std::string& name : names) {
    std::string id, reason;
    if (name == "." || name == "..") continue;
    if (!key_id_of(name, &id)) {
      if (name.size() > 4 && (name.rfind(".pem") == name.size() - 4 ||
                              name.rfind(".der") == name.size() - 4)) {
        errors.push_back(name + ": not a key id (letters, digits, '.', '_', '-')");
      }
      continue;
    }
    if (keys->count(id)) {
      errors.push_back(name + ": key id '" + id + "' is also in another file");
      keys->erase(id);
      continue;
    }
    if (auto key = read(directory_ + "/" + name, &reason)) {
      (*keys)[id] = *key;
    } else {
      errors.push_back(name + ": " + reason);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  keys_ = std::move(keys);
  return errors;
}

SigningKey KeyStore::get(const std::string& id) const {
  std::shared_ptr<const Keys> keys;
  {
    std::lock_guard<std::mutex> lock(mu_);
    keys = keys_;
  }
  auto it = keys->find(id);
  return it == keys->end() ? SigningKey{} : it->second;
}

size_t KeyStore::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return keys_->size();
}

std::optional<Access> Access::from_file(const std::string& path, std::string* error) {
  std::string text;
  if (!read_file(path, &text)) {
    *error = path + ": cannot be read";
    return std::nullopt;
  }
  google::protobuf::Struct doc;
  if (!google::protobuf::util::JsonStringToMessage(text, &doc).ok()) {
    *error = path + ": not JSON";
    return std::nullopt;
  }
  auto tokens = doc.fields().find("tokens");
  if (tokens == doc.fields().end() || !tokens->second.has_struct_value()) {
    *error = path + ": expected {\"tokens\": {\"<sha256 hex>\": [key ids]}}";
    return std::nullopt;
  }
  static const std::regex kDigest("^[0-9a-f]{64}$");
  Access access;
  for (const auto& [digest, ids] : tokens->second.struct_value().fields()) {
    if (!std::regex_match(digest, kDigest) || !ids.has_list_value()) {
      *error = path + ": each token is a SHA-256 hex digest mapped to a list of key ids";
      return std::nullopt;
    }
    std::vector<std::string>& grant = access.grants_[digest];
    for (const auto& id : ids.list_value().values()) {
      if (!id.has_string_value()) {
        *error = path + ": key ids are strings";
        return std::nullopt;
      }
      grant.push_back(id.string_value());
    }
  }
  return access;
}

std::string Access::token_digest(std::string_view token) {
  // Fetched once: OpenSSL 3's EVP_sha256() fetches the implementation
  // again on every EVP_Digest, through locks every request would share.
  static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (sha256 == nullptr || !EVP_Digest(token.data(), token.size(), md, &len, sha256, nullptr)) {
    return std::string();  // no digest: the token is not recognised
  }
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < len; ++i) {
    hex.push_back(kHex[md[i] >> 4]);
    hex.push_back(kHex[md[i] & 15]);
  }
  return hex;
}

const std::vector<std::string>* Access::grant(const std::string& digest) const {
  auto it = grants_.find(digest);
  return it == grants_.end() ? nullptr : &it->second;
}

bool Access::permits(const std::vector<std::string>& grant, const std::string& key_id) {
  return std::any_of(grant.begin(), grant.end(),
                     [&](const std::string& id) { return id == "*" || id == key_id; });
}

std::optional<std::string> read_passphrase(const std::string& spec, std::string* error) {
  const size_t colon = spec.find(':');
  const std::string kind = spec.substr(0, colon), rest = colon == std::string::npos
                                                              ? std::string()
                                                              : spec.substr(colon + 1);
  if (colon != std::string::npos && kind == "pass") return rest;
  if (colon != std::string::npos && kind == "env") {
    if (const char* v = std::getenv(rest.c_str())) return std::string(v);
    *error = "--passin env:" + rest + ": the variable is not set";
    return std::nullopt;
  }
  if (colon != std::string::npos && kind == "file") {
    std::ifstream f(rest);
    std::string line;
    if (f && std::getline(f, line)) return line;
    *error = "--passin file:" + rest + ": cannot be read";
    return std::nullopt;
  }
  *error = "--passin: pass:TEXT, env:VARIABLE or file:PATH";
  return std::nullopt;
}

std::string_view bearer_token(std::string_view value) {
  const size_t space = value.find(' ');
  if (space == std::string_view::npos || space != 6) return {};
  for (size_t i = 0; i < 6; ++i) {
    if (std::tolower(static_cast<unsigned char>(value[i])) != "bearer"[i]) return {};
  }
  std::string_view token = value.substr(space + 1);
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.front()))) {
    token.remove_prefix(1);
  }
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) {
    token.remove_suffix(1);
  }
  return token;
}

}  // namespace kuaisuo::serve
