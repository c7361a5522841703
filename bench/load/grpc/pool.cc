#include "pool.h"

#include <stdio.h>
#include <string.h>

#include <algorithm>

#include "kuaisuo_serve.pb.h"

namespace kuaisuo::load {
namespace {

namespace pb = ::kuaisuo::serve::v1;

// As bench/load's pool: many keys, each signing a few digests.
constexpr size_t kDigestsPerKey = 16;

// One item checked locally: a pool the server rejects must be the
// server's fault, never the generator's.
bool spot_check(const Pool& pool) {
  ks_sm2_pubkey* raw = nullptr;
  if (!ks_check(ks_sm2_pubkey_from_bytes(pool.public_keys.data(), kPublicKeyBytes, &raw),
                "pool: public key")) {
    return false;
  }
  PubkeyPtr key(raw);
  return ks_check(ks_sm2_verify_digest(key.get(), pool.digests.data(), pool.signatures.data()),
                  "pool: local verify of item 0");
}

// Row i of per_item gets row i / kDigestsPerKey of per_key (width bytes a
// row): the pool's items share keys as bench/load's do.
void spread_keys(const uint8_t* per_key, size_t width, size_t count, uint8_t* per_item) {
  for (size_t i = 0; i < count; ++i) {
    memcpy(per_item + i * width, per_key + (i / kDigestsPerKey) * width, width);
  }
}

size_t key_count(size_t items) { return (items + kDigestsPerKey - 1) / kDigestsPerKey; }

// Keys, per-item key copies and signatures for verify-rows.
bool sign_pool(Pool* pool) {
  CtxPtr ctx = cpu_context();
  if (!ctx) return false;
  const size_t count = pool->count, keys = key_count(count);
  SecretBytes private_keys(keys * KS_SM2_PRIVATE_KEY_BYTES);
  std::vector<uint8_t> public_keys(keys * kPublicKeyBytes);
  std::vector<int> status(keys);
  if (!ks_check(ks_sm2_keygen_batch(ctx.get(), keys, private_keys.bytes.data(),
                                    private_keys.bytes.size(), public_keys.data(),
                                    public_keys.size(), status.data()),
                "pool: ks_sm2_keygen_batch", &status)) {
    return false;
  }
  SecretBytes item_keys(count * KS_SM2_PRIVATE_KEY_BYTES);
  spread_keys(private_keys.bytes.data(), KS_SM2_PRIVATE_KEY_BYTES, count, item_keys.bytes.data());
  pool->public_keys.resize(count * kPublicKeyBytes);
  spread_keys(public_keys.data(), kPublicKeyBytes, count, pool->public_keys.data());

  pool->signatures.resize(count * kSignatureBytes);
  status.assign(count, 0);
  if (!ks_check(ks_sm2_sign_digest_batch_keys(ctx.get(), item_keys.bytes.data(),
                                              pool->digests.data(), count, KS_SM2_NONCE_RANDOM,
                                              pool->signatures.data(), pool->signatures.size(),
                                              status.data()),
                "pool: ks_sm2_sign_digest_batch_keys", &status)) {
    return false;
  }
  return spot_check(*pool);
}

// Keys (seeds), per-item copies and signatures for ed25519-verify, item 0
// verified on its own.
bool sign_ed25519_pool(Pool* pool) {
  CtxPtr ctx = cpu_context();
  if (!ctx) return false;
  const size_t count = pool->count, keys = key_count(count), w = pool->message_bytes;
  SecretBytes seeds(keys * KS_ED25519_SEED_BYTES);
  std::vector<uint8_t> public_keys(keys * KS_ED25519_PUBLIC_KEY_BYTES);
  std::vector<int> status(keys);
  if (!ks_check(ks_ed25519_keygen_batch(ctx.get(), keys, seeds.bytes.data(), seeds.bytes.size(),
                                        public_keys.data(), public_keys.size(), status.data()),
                "pool: ks_ed25519_keygen_batch", &status)) {
    return false;
  }
  SecretBytes item_seeds(count * KS_ED25519_SEED_BYTES);
  spread_keys(seeds.bytes.data(), KS_ED25519_SEED_BYTES, count, item_seeds.bytes.data());
  pool->key_bytes = KS_ED25519_PUBLIC_KEY_BYTES;
  pool->public_keys.resize(count * pool->key_bytes);
  spread_keys(public_keys.data(), pool->key_bytes, count, pool->public_keys.data());

  std::vector<uint64_t> offsets(count + 1);
  for (size_t i = 0; i <= count; ++i) offsets[i] = i * w;
  pool->signatures.resize(count * KS_ED25519_SIGNATURE_BYTES);
  status.assign(count, 0);
  if (!ks_check(ks_ed25519_sign_batch_keys(ctx.get(), item_seeds.bytes.data(),
                                           pool->messages.data(), pool->messages.size(),
                                           offsets.data(), count, pool->signatures.data(),
                                           pool->signatures.size(), status.data()),
                "pool: ks_ed25519_sign_batch_keys", &status)) {
    return false;
  }
  status.assign(1, 0);
  return ks_check(ks_ed25519_verify_batch(ctx.get(), pool->public_keys.data(),
                                          pool->messages.data(), w, offsets.data(), 1,
                                          pool->signatures.data(), status.data()),
                  "pool: local verify of item 0", &status);
}

// The same rows as one byte string.
std::string window(const Pool& pool, const std::vector<uint8_t>& column, size_t width,
                   size_t items, size_t j) {
  std::string out(items * width, '\0');
  copy_window(pool, column, width, items, j, reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

// Window j of the pool as a request of o.op. Each carries the caller's
// timeout: the server drops items whose caller has given up (status -61).
bool serialize_request(const Options& o, const Pool& pool, size_t j, std::string* out) {
  const size_t n = o.items, mb = pool.message_bytes, kb = pool.key_bytes;
  const auto timeout = static_cast<uint32_t>(o.timeout_ms);
  if (o.op == "sign-rows" || o.op == "ed25519-sign") {
    pb::SignRequest request;
    request.set_key_id(o.key_id);
    if (o.ed25519()) {
      const std::string messages = window(pool, pool.messages, mb, n, j);
      for (size_t t = 0; t < n; ++t) request.add_items(messages.substr(t * mb, mb));
    } else {
      request.set_digest_rows(window(pool, pool.digests, kDigestBytes, n, j));
    }
    request.set_timeout_ms(timeout);
    return request.SerializeToString(out);
  }
  pb::VerifyRequest request;
  const std::string keys = window(pool, pool.public_keys, kb, n, j);
  const std::string sigs = window(pool, pool.signatures, kSignatureBytes, n, j);
  if (o.ed25519()) {
    request.set_algorithm("ed25519");
    const std::string messages = window(pool, pool.messages, mb, n, j);
    for (size_t t = 0; t < n; ++t) {
      pb::VerifyItem* item = request.add_items();
      item->set_public_key(keys.substr(t * kb, kb));
      item->set_data(messages.substr(t * mb, mb));
      item->set_signature(sigs.substr(t * kSignatureBytes, kSignatureBytes));
    }
  } else {
    request.set_public_key_rows(keys);
    request.set_digest_rows(window(pool, pool.digests, kDigestBytes, n, j));
    request.set_signature_rows(sigs);
  }
  request.set_timeout_ms(timeout);
  return request.SerializeToString(out);
}

}  // namespace

bool build_pool(const Options& o, size_t count, Pool* pool) {
  pool->count = count;
  if (o.ed25519()) {
    pool->message_bytes = o.message_bytes;
    pool->messages.resize(count * o.message_bytes);
    if (!fill_random(pool->messages.data(), pool->messages.size())) return false;
    return o.sign() || sign_ed25519_pool(pool);
  }
  pool->digests.resize(count * kDigestBytes);
  if (!fill_random(pool->digests.data(), pool->digests.size())) return false;
  return o.sign() || sign_pool(pool);
}

size_t pool_item(const Pool& pool, size_t items, size_t j, size_t t) {
  return (j * items + t) % pool.count;
}

void copy_window(const Pool& pool, const std::vector<uint8_t>& column, size_t width,
                 size_t items, size_t j, uint8_t* out) {
  for (size_t t = 0; t < items;) {
    const size_t first = pool_item(pool, items, j, t);
    const size_t run = std::min(items - t, pool.count - first);
    memcpy(out + t * width, &column[first * width], run * width);
    t += run;
  }
}

bool build_requests(const Options& o, const Pool& pool, std::vector<std::string>* out) {
  const size_t n = (pool.count + o.items - 1) / o.items;
  out->assign(n, std::string());
  for (size_t j = 0; j < n; ++j) {
    if (!serialize_request(o, pool, j, &(*out)[j])) {
      fprintf(stderr, "%s: cannot serialize request %zu\n", kTool, j);
      return false;
    }
  }
  return true;
}

}  // namespace kuaisuo::load
