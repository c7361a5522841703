#include "bench.h"

#include <string.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <functional>
#include <thread>
#include <type_traits>
#include <vector>

#include "crypto_mb_peer.h"
#include "skinny/skinny128_256.h"
#include "core/os_random.h"
#include "kuaisuo.h"
#include "openssl_peer.h"

namespace ks {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

// run(iters) performs iters rounds and returns the operations done.
using RoundFn = std::function<size_t(size_t iters)>;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Warm-up and calibration, then kRuns timed runs; the median rate.
Result measure(double seconds, size_t bytes_per_op, const RoundFn& run) {
  constexpr int kRuns = 7;
  const double run_seconds = std::max(seconds / kRuns, 0.005);
  size_t iters = 1;
  for (;;) {  // grow until one call takes a tenth of a run (this warms up too)
    const Clock::time_point t0 = Clock::now();
    run(iters);
    const double dt = seconds_since(t0);
    if (dt >= run_seconds / 10) {
      iters = std::max<size_t>(1, size_t(double(iters) * run_seconds / dt));
      break;
    }
    iters *= 4;
  }
  std::vector<double> rates;
  for (int r = 0; r < kRuns; ++r) {
    const Clock::time_point t0 = Clock::now();
    const size_t ops = run(iters);
    rates.push_back(double(ops) / seconds_since(t0));
  }
  std::sort(rates.begin(), rates.end());
  Result res;
  res.ops_per_s = rates[kRuns / 2];
  res.bytes_per_s = res.ops_per_s * double(bytes_per_op);
  res.runs = kRuns;
  return res;
}

// Runs body(thread_index) on `threads` threads and waits for all.
void on_threads(unsigned threads, const std::function<void(unsigned)>& body) {
  if (threads <= 1) {
    body(0);
    return;
  }
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(body, t);
  for (std::thread& t : pool) t.join();
}

std::vector<uint8_t> random_bytes(size_t n) {
  std::vector<uint8_t> v(n);
  if (!os_random(v.data(), n)) v.assign(n, 0x5a);  // timing only; never keys
  return v;
}

// Single-operation SM3 on `threads` threads, each over its own messages.
RoundFn sm3_single_round(bool openssl, unsigned threads, size_t msg_bytes,
                         std::vector<uint8_t>* pool) {
  constexpr size_t kMsgsPerThread = 8;  // rotate so no single buffer stays hot
  *pool = random_bytes(size_t(threads) * kMsgsPerThread * std::max<size_t>(msg_bytes, 1));
  const uint8_t* base = pool->data();
  return [=](size_t iters) {
    on_threads(threads, [&](unsigned t) {
      uint8_t out[32];
      const uint8_t* mine = base + size_t(t) * kMsgsPerThread * std::max<size_t>(msg_bytes, 1);
      for (size_t i = 0; i < iters; ++i) {
        const uint8_t* msg = mine + (i % kMsgsPerThread) * msg_bytes;
        if (openssl) {
          OpenSslPeer::get().sm3(msg, msg_bytes, out);
        } else {
          ks_sm3(msg, msg_bytes, out);
        }
      }
    });
    return iters * threads;
  };
}

struct CtxDeleter {
  void operator()(ks_ctx* c) const { ks_ctx_free(c); }
};
using CtxPtr = std::unique_ptr<ks_ctx, CtxDeleter>;

// The context a kuaisuo batch case runs in: its backend, its threads
// (input "wide-table": Ed25519/X25519 keys and signatures over the GPU's
// wide fixed-base table, KS_GPU_WIDE_BASE_TABLE).
CtxPtr make_ctx(const Case& c, std::string* error) {
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  cfg.backend = c.backend == "gpu" ? KS_BACKEND_GPU : KS_BACKEND_CPU;
  cfg.cpu_threads = c.threads;
  if (c.input == "wide-table") cfg.gpu_flags = KS_GPU_WIDE_BASE_TABLE;
  ks_ctx* raw = nullptr;
  const int rc = ks_ctx_new(&cfg, &raw);
  if (rc != KS_OK) *error = ks_strerror(rc);
  return CtxPtr(raw);
}


bool run_sm3(const Case& c, Result* result, std::string* error) {
  const bool openssl = c.impl == "openssl";
  if (openssl && !OpenSslPeer::get().ok()) {
    *error = OpenSslPeer::get().error();
    return false;
  }
  std::vector<uint8_t> pool;
  if (openssl || c.batch <= 1) {
    *result = measure(c.seconds, c.msg_bytes, sm3_single_round(openssl, c.threads, c.msg_bytes, &pool));
    result->backend = "cpu";
    return true;
  }
  CtxPtr ctx = make_ctx(c, error);
  if (ctx == nullptr) return false;
  pool = random_bytes(c.batch * c.msg_bytes);
  std::vector<uint64_t> offsets(c.batch + 1);
  for (size_t i = 0; i <= c.batch; ++i) offsets[i] = i * c.msg_bytes;
  std::vector<uint8_t> digests(32 * c.batch);
  int status = KS_OK;
  *result = measure(c.seconds, c.msg_bytes, [&](size_t iters) {
    for (size_t i = 0; i < iters && status == KS_OK; ++i)
      status = ks_sm3_batch(ctx.get(), pool.data(), pool.size(), offsets.data(), c.batch,
                            digests.data(), digests.size(), nullptr);
    return iters * c.batch;
  });
  if (status != KS_OK) {
    *error = ks_strerror(status);
    return false;
  }
  result->backend = c.backend;
  return true;
}

// ---- SM2 --------------------------------------------------------------------

constexpr size_t kPool = 16;  // inputs each worker rotates through
const uint8_t kId[] = "1234567812345678";
constexpr size_t kIdLen = 16;

// One thread's keys and inputs, for us and for OpenSSL, made before timing.
struct Sm2Worker {
  ks_sm2_key* key = nullptr;
  ks_sm2_pubkey* pub = nullptr;
  ks_ctx* keygen_ctx = nullptr;
  OpenSslPeer::Sm2Signer* peer = nullptr;
  std::vector<uint8_t> digests, msgs, sigs, der, cts;  // kPool of each
  std::vector<size_t> der_len, ct_len;
  size_t msg_bytes = 0;
  // Key exchange (prepare_exchange): the responder's static key and the
  // kPool ephemeral points R_B it answered with; OpenSSL's ECDH peers.
  ks_sm2_key* kx_peer_key = nullptr;
  ks_sm2_pubkey* kx_peer_pub = nullptr;
  std::vector<uint8_t> kx_r, kx_key;  // kPool R_B of 65 bytes; the key out
  OpenSslPeer::Sm2Ecdh* ecdh = nullptr;

  Sm2Worker(bool openssl, size_t msg_len) : msg_bytes(msg_len) {
    ks_ctx_config cfg;
    ks_ctx_config_init(&cfg);
    cfg.backend = KS_BACKEND_CPU;
    cfg.cpu_threads = 1;  // the calling thread only
    ks_ctx_new(&cfg, &keygen_ctx);
    digests = random_bytes(32 * kPool);
    msgs = random_bytes(std::max<size_t>(1, msg_len) * kPool);
    sigs.resize(64 * kPool);
    der.resize(80 * kPool);
    der_len.resize(kPool);
    cts.resize(ct_stride() * kPool);
    ct_len.resize(kPool);
    if (openssl) {
      peer = OpenSslPeer::get().sm2_new_signer();
    } else if (ks_sm2_key_generate(&key) == KS_OK) {
      ks_sm2_key_public(key, &pub);
    }
  }
  ~Sm2Worker() {
    ks_ctx_free(keygen_ctx);
    ks_sm2_key_free(key);
    ks_sm2_pubkey_free(pub);
    ks_sm2_key_free(kx_peer_key);
    ks_sm2_pubkey_free(kx_peer_pub);
    OpenSslPeer::get().sm2_free_signer(peer);
    OpenSslPeer::get().sm2_ecdh_free(ecdh);
  }
  bool ready() const { return pub != nullptr || peer != nullptr; }
  size_t ct_stride() const { return std::max<size_t>(1, msg_bytes) + 128; }  // DER form
  const uint8_t* msg(size_t i) const { return msgs.data() + (i % kPool) * msg_bytes; }

  // One operation on pool slot i; false on failure.
  bool run(const Case& c, size_t i) {
    const size_t j = i % kPool;
    const bool digest = c.input == "digest";
    const OpenSslPeer& ssl = OpenSslPeer::get();
    uint8_t* d = der.data() + 80 * j;
    if (c.op == "keygen") {  // a key pair (d, P), as OpenSSL's keygen makes
      if (peer != nullptr) return ssl.sm2_keygen();
      uint8_t d[32], p[65];
      return ks_sm2_keygen_batch(keygen_ctx, 1, d, sizeof d, p, sizeof p, nullptr) == KS_OK;
    }
    if (c.op == "encrypt" || c.op == "decrypt") return crypt(c.op == "encrypt", j);
    if (c.op == "key-exchange") return exchange(j);
    if (c.op == "sign") {
      size_t& len = der_len[j];
      len = 80;
      if (peer != nullptr)
        return digest ? ssl.sm2_sign_digest(peer, &digests[32 * j], d, &len)
                      : ssl.sm2_sign_message(peer, kId, kIdLen, msg(j), msg_bytes, d, &len);
      return (digest ? ks_sm2_sign_digest(key, &digests[32 * j], KS_SM2_NONCE_RANDOM, &sigs[64 * j])
                     : ks_sm2_sign(key, kId, kIdLen, msg(j), msg_bytes, KS_SM2_NONCE_RANDOM,
                                   &sigs[64 * j])) == KS_OK;
    }
    if (peer != nullptr)
      return digest ? ssl.sm2_verify_digest(peer, &digests[32 * j], d, der_len[j])
                    : ssl.sm2_verify_message(peer, kId, kIdLen, msg(j), msg_bytes, d, der_len[j]);
    return (digest ? ks_sm2_verify_digest(pub, &digests[32 * j], &sigs[64 * j])
                   : ks_sm2_verify(pub, kId, kIdLen, msg(j), msg_bytes, &sigs[64 * j])) == KS_OK;
  }

  // SM2 encryption of message j (the DER form, as OpenSSL writes it), or
  // decryption of the ciphertext made for it.
  bool crypt(bool encrypting, size_t j) {
    const OpenSslPeer& ssl = OpenSslPeer::get();
    uint8_t* ct = cts.data() + ct_stride() * j;
    if (encrypting) {
      size_t& len = ct_len[j];
      len = ct_stride();
      if (peer != nullptr) return ssl.sm2_encrypt(peer, msg(j), msg_bytes, ct, &len);
      return ks_sm2_encrypt(pub, KS_SM2_CIPHER_DER, msg(j), msg_bytes, ct, len, &len) == KS_OK;
    }
    uint8_t plain[4096];
    size_t n = sizeof plain;
    if (msg_bytes > sizeof plain) return false;
    if (peer != nullptr) return ssl.sm2_decrypt(peer, ct, ct_len[j], plain, &n) && n == msg_bytes;
    return ks_sm2_decrypt(key, KS_SM2_CIPHER_DER, ct, ct_len[j], plain, sizeof plain, &n) ==
               KS_OK &&
           n == msg_bytes;
  }

  // One SM2 key exchange (GB/T 32918.3) between our static key (the
  // initiator's) and kx_peer_key's (the responder's), with or without key
  // confirmation: true if both ends derive the same key of kx_key's
  // length. R_B is written to rb.
  bool exchange_both_ways(bool confirm, uint8_t rb[65]) {
    ks_sm2_kx *a = nullptr, *b = nullptr;
    std::vector<uint8_t> ka(kx_key.size(), 0), kb(kx_key.size(), 0xff);
    uint8_t ra[65], sa[KS_SM2_CONFIRM_BYTES], sb[KS_SM2_CONFIRM_BYTES];
    const size_t n = kx_key.size();
    const bool ok =
        ks_sm2_kx_new(KS_SM2_INITIATOR, key, kId, kIdLen, kx_peer_pub, kId, kIdLen, confirm,
                      &a) == KS_OK &&
        ks_sm2_kx_new(KS_SM2_RESPONDER, kx_peer_key, kId, kIdLen, pub, kId, kIdLen, confirm,
                      &b) == KS_OK &&
        ks_sm2_kx_start(a, ra) == KS_OK &&
        ks_sm2_kx_respond(b, ra, sizeof ra, rb, confirm ? sb : nullptr,
                          confirm ? nullptr : kb.data(), confirm ? 0 : n) == KS_OK &&
        ks_sm2_kx_finish(a, rb, 65, confirm ? sb : nullptr, ka.data(), n,
                         confirm ? sa : nullptr) == KS_OK &&
        (!confirm || ks_sm2_kx_confirm(b, sa, kb.data(), n) == KS_OK) && ka == kb;
    ks_sm2_kx_free(a);
    ks_sm2_kx_free(b);
    return ok;
  }

  // Before timing the key exchange: ours, a responder's static key and
  // kPool whole exchanges with it (no confirmation, as timed), each checked
  // to give both ends the same key of key_len bytes, their R_B kept as the
  // pool, and one more exchange with key confirmation, checked likewise;
  // OpenSSL's, its ECDH peers (checked to agree both ways).
  bool prepare_exchange(size_t key_len) {
    if (key_len == 0 || key_len > 4096) return false;
    kx_key.assign(key_len, 0);
    if (peer != nullptr) {
      ecdh = OpenSslPeer::get().sm2_ecdh_new(kPool);
      return ecdh != nullptr;
    }
    if (pub == nullptr || ks_sm2_key_generate(&kx_peer_key) != KS_OK ||
        ks_sm2_key_public(kx_peer_key, &kx_peer_pub) != KS_OK)
      return false;
    kx_r.assign(65 * kPool, 0);
    for (size_t j = 0; j < kPool; ++j)
      if (!exchange_both_ways(false, &kx_r[65 * j])) return false;
    uint8_t rb[65];
    return exchange_both_ways(true, rb);
  }

  // One party's whole side of a key exchange, the initiator's: a state
  // object for it (ks_sm2_kx_new: the Z values of both IDs), R_A
  // (ks_sm2_kx_start), then the key from the responder's R_B, pool slot j
  // (ks_sm2_kx_finish: R_B checked, the shared point, the KDF), the object
  // freed. No key confirmation: its tags need a responder that saw this
  // R_A. OpenSSL's: an ephemeral EC key on the SM2 curve and ECDH with a
  // peer's (sm2_ecdh_exchange), OpenSSL having no SM2 key exchange.
  bool exchange(size_t j) {
    if (ecdh != nullptr) {
      uint8_t shared[32];
      return OpenSslPeer::get().sm2_ecdh_exchange(ecdh, j, shared);
    }
    ks_sm2_kx* kx = nullptr;
    uint8_t ra[65];
    const bool ok = ks_sm2_kx_new(KS_SM2_INITIATOR, key, kId, kIdLen, kx_peer_pub, kId, kIdLen,
                                  0, &kx) == KS_OK &&
                    ks_sm2_kx_start(kx, ra) == KS_OK &&
                    ks_sm2_kx_finish(kx, &kx_r[65 * j], 65, nullptr, kx_key.data(),
                                     kx_key.size(), nullptr) == KS_OK;
    ks_sm2_kx_free(kx);
    return ok;
  }

  // Ciphertexts of the pool, for the decrypt benchmarks.
  bool encrypt_pool() {
    for (size_t j = 0; j < kPool; ++j)
      if (!crypt(true, j)) return false;
    return true;
  }

  // Valid signatures over the pool, for the verify benchmarks.
  bool sign_pool(const Case& c) {
    Case sign = c;
    sign.op = "sign";
    for (size_t j = 0; j < kPool; ++j)
      if (!run(sign, j)) return false;
    return true;
  }
};

bool run_sm2_single(const Case& c, Result* result, std::string* error) {
  const bool openssl = c.impl == "openssl";
  const bool kx = c.op == "key-exchange";  // msg_bytes: the key's length
  if (openssl && !OpenSslPeer::get().ok()) {
    *error = OpenSslPeer::get().error();
    return false;
  }
  if (openssl && kx && !OpenSslPeer::get().sm2_ecdh_error().empty()) {
    *error = OpenSslPeer::get().sm2_ecdh_error();
    return false;
  }
  std::vector<std::unique_ptr<Sm2Worker>> workers;
  for (unsigned t = 0; t < c.threads; ++t) {
    workers.push_back(std::make_unique<Sm2Worker>(openssl, c.msg_bytes));
    if (!workers.back()->ready() || (c.op == "verify" && !workers.back()->sign_pool(c)) ||
        (c.op == "decrypt" && !workers.back()->encrypt_pool())) {
      *error = "could not prepare SM2 keys, signatures and ciphertexts";
      return false;
    }
    // "table": one recipient / one signer checked many times, its comb table
    // built once before timing (ks_sm2_pubkey_precompute).
    if (c.input == "table" && !openssl &&
        ks_sm2_pubkey_precompute(workers.back()->pub) != KS_OK) {
      *error = "could not build the key's table";
      return false;
    }
    if (kx && !workers.back()->prepare_exchange(c.msg_bytes)) {
      *error = c.msg_bytes == 0 || c.msg_bytes > 4096
                   ? "SM2 key exchange: the key length (msg_bytes) must be 1 to 4096"
                   : "could not prepare SM2 key exchanges (or both ends disagreed)";
      return false;
    }
  }
  std::atomic<bool> failed{false};
  *result = measure(c.seconds, c.msg_bytes, [&](size_t iters) {
    on_threads(c.threads, [&](unsigned t) {
      for (size_t i = 0; i < iters; ++i)
        if (!workers[t]->run(c, i)) failed = true;
    });
    return iters * c.threads;
  });
  if (failed) *error = c.op + " failed during the benchmark";
  result->backend = "cpu";
  return !failed;
}

// A batch buffer: ordinary memory, or pinned (ks_host_alloc) for
// Case::pinned, holding a copy of `init` when given.
class HostBuffer {
 public:
  HostBuffer(size_t bytes, bool pinned, const std::vector<uint8_t>& init = {}) : bytes_(bytes) {
    void* p = nullptr;
    if (pinned && ks_host_alloc(bytes, &p) == KS_OK) {
      pinned_.reset(static_cast<uint8_t*>(p));
    } else if (!pinned) {
      plain_.resize(bytes);
    }
    if (data() != nullptr && !init.empty()) memcpy(data(), init.data(), std::min(bytes, init.size()));
  }
  uint8_t* data() { return pinned_ ? pinned_.get() : plain_.empty() ? nullptr : plain_.data(); }
  int* ints() { return reinterpret_cast<int*>(data()); }
  size_t size() const { return bytes_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { ks_host_free(p); }
  };
  std::unique_ptr<uint8_t, Free> pinned_;
  std::vector<uint8_t> plain_;
  size_t bytes_;
};

// Batches through the C API: keygen, many digests or messages under one
// key, and verification of (key, input, signature) triples with 16
// distinct keys; per-item statuses returned.
bool run_sm2_batch(const Case& c, Result* result, std::string* error) {
  CtxPtr ctx = make_ctx(c, error);
  if (ctx == nullptr) return false;
  int rc = KS_OK;
  const size_t n = c.batch;
  const bool digest = c.input == "digest";
  const size_t item = digest ? 32 : c.msg_bytes;
  HostBuffer inputs(n * item, c.pinned, random_bytes(n * item)), sigs(64 * n, c.pinned),
      priv(32 * n, c.pinned), pubs(65 * n, c.pinned), status(sizeof(int) * n, c.pinned);
  if (inputs.data() == nullptr || sigs.data() == nullptr || priv.data() == nullptr ||
      pubs.data() == nullptr || status.data() == nullptr) {
    *error = "could not allocate the batch buffers";
    return false;
  }
  std::vector<uint64_t> offsets(n + 1);
  for (size_t i = 0; i <= n; ++i) offsets[i] = i * item;
  Sm2Worker keys(false, 0);
  auto sign_all = [&]() {
    return digest ? ks_sm2_sign_digest_batch(ctx.get(), keys.key, inputs.data(), n,
                                             KS_SM2_NONCE_RANDOM, sigs.data(), sigs.size(),
                                             status.ints())
                  : ks_sm2_sign_batch(ctx.get(), keys.key, kId, kIdLen, inputs.data(),
                                      inputs.size(), offsets.data(), n, KS_SM2_NONCE_RANDOM,
                                      sigs.data(), sigs.size(), status.ints());
  };
  if (c.op == "verify") {  // n signatures under 16 keys (a slice each), made before timing
    constexpr size_t kKeys = 16;
    std::vector<std::unique_ptr<Sm2Worker>> signers;
    for (size_t k = 0; k < kKeys && rc == KS_OK; ++k) {
      signers.push_back(std::make_unique<Sm2Worker>(false, 0));
      const size_t begin = n * k / kKeys, end = n * (k + 1) / kKeys;
      const Sm2Worker& w = *signers.back();
      size_t len = 0;
      for (size_t i = begin; i < end && rc == KS_OK; ++i)
        rc = ks_sm2_pubkey_to_bytes(w.pub, 0, pubs.data() + 65 * i, 65, &len);
      if (rc == KS_OK && end > begin)
        rc = digest ? ks_sm2_sign_digest_batch(ctx.get(), w.key, inputs.data() + 32 * begin,
                                               end - begin, KS_SM2_NONCE_RANDOM,
                                               sigs.data() + 64 * begin, 64 * (end - begin),
                                               nullptr)
                    : ks_sm2_sign_batch(ctx.get(), w.key, kId, kIdLen, inputs.data(),
                                        inputs.size(), &offsets[begin], end - begin,
                                        KS_SM2_NONCE_RANDOM, sigs.data() + 64 * begin,
                                        64 * (end - begin), nullptr);
    }
  }
  int call_rc = rc;
  *result = measure(c.seconds, c.msg_bytes, [&](size_t iters) {
    for (size_t r = 0; r < iters && call_rc == KS_OK; ++r) {
      if (c.op == "keygen") {
        call_rc = ks_sm2_keygen_batch(ctx.get(), n, priv.data(), priv.size(), pubs.data(),
                                      pubs.size(), status.ints());
      } else if (c.op == "sign") {
        call_rc = sign_all();
      } else {
        call_rc = digest ? ks_sm2_verify_digest_batch(ctx.get(), pubs.data(), inputs.data(), n,
                                                      sigs.data(), status.ints())
                         : ks_sm2_verify_batch(ctx.get(), pubs.data(), kId, kIdLen,
                                               inputs.data(), inputs.size(), offsets.data(), n,
                                               sigs.data(), status.ints());
      }
    }
    return iters * n;
  });
  if (call_rc != KS_OK) {  // KS_ERR_BATCH_ITEMS included: every item must succeed
    *error = ks_strerror(call_rc);
    return false;
  }
  result->backend = c.backend;
  return true;
}

// Encryption (to one recipient, its table built before timing) or
// decryption (of ciphertexts made before timing) of c.batch random
// messages of c.msg_bytes, DER form, per call.
bool run_sm2_crypt_batch(const Case& c, Result* result, std::string* error) {
  CtxPtr ctx = make_ctx(c, error);
  if (ctx == nullptr) return false;
  const size_t n = c.batch, extra = ks_sm2_ciphertext_bound(0, KS_SM2_CIPHER_DER);
  const std::vector<uint8_t> msgs = random_bytes(n * c.msg_bytes);
  std::vector<uint64_t> offsets(n + 1), ct_offsets(n + 1), lengths(n);
  for (size_t i = 0; i <= n; ++i) offsets[i] = i * c.msg_bytes;
  std::vector<uint8_t> cts(msgs.size() + n * extra), plain(cts.size());
  std::vector<int> status(n);
  Sm2Worker keys(false, 0);
  int rc = ks_sm2_pubkey_precompute(keys.pub);
  auto encrypt_all = [&] {
    return ks_sm2_encrypt_batch(ctx.get(), keys.pub, KS_SM2_CIPHER_DER, msgs.data(), msgs.size(),
                                offsets.data(), n, cts.data(), cts.size(), lengths.data(),
                                status.data());
  };
  std::vector<uint8_t> packed;  // the ciphertexts back to back (DER lengths vary by 2 bytes)
  if (rc == KS_OK && c.op == "decrypt") rc = encrypt_all();
  for (size_t i = 0; i < n && c.op == "decrypt"; ++i) {
    const uint8_t* slot = cts.data() + offsets[i] + i * extra;
    packed.insert(packed.end(), slot, slot + lengths[i]);
    ct_offsets[i + 1] = packed.size();
  }
  int call_rc = rc;
  *result = measure(c.seconds, c.msg_bytes, [&](size_t iters) {
    for (size_t r = 0; r < iters && call_rc == KS_OK; ++r)
      call_rc = c.op == "encrypt"
                    ? encrypt_all()
                    : ks_sm2_decrypt_batch(ctx.get(), keys.key, KS_SM2_CIPHER_DER,
                                           packed.data(), packed.size(), ct_offsets.data(), n,
                                           plain.data(), plain.size(), lengths.data(),
                                           status.data());
    return iters * n;
  });
  for (size_t i = 0; i < n && call_rc == KS_OK && c.op == "decrypt"; ++i)
    if (lengths[i] != c.msg_bytes ||
        memcmp(plain.data() + ct_offsets[i], msgs.data() + offsets[i], c.msg_bytes) != 0)
      call_rc = KS_ERR_INTERNAL;  // a plaintext that did not come back
  if (call_rc != KS_OK) {
    *error = ks_strerror(call_rc);
    return false;
  }
  result->backend = c.backend;
  return true;
}

bool run_sm2(const Case& c, Result* result, std::string* error) {
  const bool crypt = c.op == "encrypt" || c.op == "decrypt";
  if (crypt && c.batch > 1 && c.impl == "kuaisuo") return run_sm2_crypt_batch(c, result, error);
  if (c.op == "key-exchange" && c.batch > 1) {
    *error = "SM2 key exchange has no batch call";
    return false;
  }
  if (c.impl == "openssl" || c.batch <= 1) return run_sm2_single(c, result, error);
  return run_sm2_batch(c, result, error);
}

// ---- Ed25519 and X25519 -------------------------------------------------------

bool curve25519_peer_ready(const Case& c, std::string* error) {
  if (c.impl != "openssl") return true;
  if (!OpenSslPeer::get().curve25519_ok()) {
    *error = OpenSslPeer::get().curve25519_error();
    return false;
  }
  return true;
}

// Single operations on `threads` threads, each with its own worker (keys
// and kPool inputs made before timing); W::run(op, i) does one operation.
template <class W>
bool run_single(const Case& c, Result* result, std::string* error, const char* what) {
  std::vector<std::unique_ptr<W>> workers;
  for (unsigned t = 0; t < c.threads; ++t) {
    // The other side of a comparison: OpenSSL, or a baseline of ours.
    if constexpr (std::is_constructible_v<W, bool, size_t, const std::string&>)
      workers.push_back(std::make_unique<W>(c.impl != "kuaisuo", c.msg_bytes, c.input));
    else
      workers.push_back(std::make_unique<W>(c.impl != "kuaisuo", c.msg_bytes));
    if (!workers.back()->prepare(c.op)) {
      *error = std::string("could not prepare ") + what + " keys and inputs";
      return false;
    }
  }
  std::atomic<bool> failed{false};
  *result = measure(c.seconds, c.msg_bytes, [&](size_t iters) {
    on_threads(c.threads, [&](unsigned t) {
      for (size_t i = 0; i < iters; ++i)
        if (!workers[t]->run(c.op, i)) failed = true;
    });
    return iters * c.threads;
  });
  if (failed) *error = c.op + " failed during the benchmark";
  result->backend = "cpu";
  return !failed;
}

// One thread's Ed25519 key and kPool messages (and their signatures, for
// verify), for us or for OpenSSL.
struct Ed25519Worker {
  ks_ed25519_key* key = nullptr;
  ks_ed25519_pubkey* pub = nullptr;
  OpenSslPeer::Ed25519Signer* peer = nullptr;
  std::vector<uint8_t> msgs, sigs;
  size_t msg_bytes;

  Ed25519Worker(bool openssl, size_t msg_len)
      : msgs(random_bytes(std::max<size_t>(1, msg_len) * kPool)), sigs(64 * kPool),
        msg_bytes(msg_len) {
    if (openssl) {
      peer = OpenSslPeer::get().ed25519_new_signer();
    } else if (ks_ed25519_key_generate(&key) == KS_OK) {
      ks_ed25519_key_public(key, &pub);
    }
  }
  ~Ed25519Worker() {
    ks_ed25519_key_free(key);
    ks_ed25519_pubkey_free(pub);
    OpenSslPeer::get().ed25519_free_signer(peer);
  }
  const uint8_t* msg(size_t j) const { return msgs.data() + j * msg_bytes; }

  // Keys made; for verify, valid signatures over the pool.
  bool prepare(const std::string& op) {
    if (pub == nullptr && peer == nullptr) return false;
    for (size_t j = 0; op == "verify" && j < kPool; ++j)
      if (!run("sign", j)) return false;
    return true;
  }

  bool run(const std::string& op, size_t i) {
    const size_t j = i % kPool;
    const OpenSslPeer& ssl = OpenSslPeer::get();
    uint8_t* sig = &sigs[64 * j];
    if (op == "keygen") {  // a key ready to sign: seed, expanded scalar, public key
      if (peer != nullptr) return ssl.ed25519_keygen();
      ks_ed25519_key* k = nullptr;
      const int rc = ks_ed25519_key_generate(&k);
      ks_ed25519_key_free(k);
      return rc == KS_OK;
    }
    if (op == "sign")
      return peer != nullptr ? ssl.ed25519_sign(peer, msg(j), msg_bytes, sig)
                             : ks_ed25519_sign(key, msg(j), msg_bytes, sig) == KS_OK;
    return peer != nullptr ? ssl.ed25519_verify(peer, msg(j), msg_bytes, sig)
                           : ks_ed25519_verify(pub, msg(j), msg_bytes, sig) == KS_OK;
  }
};

// Batches through the C API: keygen, many messages under one key, and
// verification of (key, message, signature) triples under 16 distinct keys.
bool run_ed25519_batch(const Case& c, Result* result, std::string* error) {
  CtxPtr ctx = make_ctx(c, error);
  if (ctx == nullptr) return false;
  const size_t n = c.batch;
  const size_t msgs_bytes = std::max<size_t>(1, n * c.msg_bytes);
  HostBuffer msgs(msgs_bytes, c.pinned, random_bytes(msgs_bytes)), sigs(64 * n, c.pinned),
      seeds(32 * n, c.pinned), pubs(32 * n, c.pinned), status(sizeof(int) * n, c.pinned);
  if (msgs.data() == nullptr || sigs.data() == nullptr || seeds.data() == nullptr ||
      pubs.data() == nullptr || status.data() == nullptr) {
    *error = "could not allocate the batch buffers";
    return false;
  }
  std::vector<uint64_t> offsets(n + 1);
  for (size_t i = 0; i <= n; ++i) offsets[i] = i * c.msg_bytes;
  Ed25519Worker signer(false, 0);
  int rc = signer.key == nullptr ? KS_ERR_INTERNAL : KS_OK;
  if (c.op == "verify") {  // n signatures under 16 keys (a slice each), made before timing
    constexpr size_t kKeys = 16;
    for (size_t k = 0; k < kKeys && rc == KS_OK; ++k) {
      Ed25519Worker w(false, 0);
      const size_t begin = n * k / kKeys, end = n * (k + 1) / kKeys;
      rc = w.pub == nullptr ? KS_ERR_INTERNAL : KS_OK;
      for (size_t i = begin; i < end && rc == KS_OK; ++i)
        rc = ks_ed25519_pubkey_to_bytes(w.pub, pubs.data() + 32 * i);
      if (rc == KS_OK && end > begin)
        rc = ks_ed25519_sign_batch(ctx.get(), w.key, msgs.data(), msgs.size(), &offsets[begin],
                                   end - begin, sigs.data() + 64 * begin, 64 * (end - begin),
                                   nullptr);
    }
  }
  int call_rc = rc;
  *result = measure(c.seconds, c.msg_bytes, [&](size_t iters) {
    for (size_t r = 0; r < iters && call_rc == KS_OK; ++r) {
      if (c.op == "keygen") {
        call_rc = ks_ed25519_keygen_batch(ctx.get(), n, seeds.data(), seeds.size(), pubs.data(),
                                          pubs.size(), status.ints());
      } else if (c.op == "sign") {
        call_rc = ks_ed25519_sign_batch(ctx.get(), signer.key, msgs.data(), msgs.size(),
                                        offsets.data(), n, sigs.data(), sigs.size(),
                                        status.ints());
      } else {
        call_rc = ks_ed25519_verify_batch(ctx.get(), pubs.data(), msgs.data(), msgs.size(),
                                          offsets.data(), n, sigs.data(), status.ints());
      }
    }
    return iters * n;
  });
  if (call_rc != KS_OK) {  // KS_ERR_BATCH_ITEMS included: every item must succeed
    *error = ks_strerror(call_rc);
    return false;
  }
  result->backend = c.backend;
  return true;
}

bool run_ed25519(const Case& c, Result* result, std::string* error) {
  if (!curve25519_peer_ready(c, error)) return false;
  if (c.impl == "openssl" || c.batch <= 1)
    return run_single<Ed25519Worker>(c, result, error, "Ed25519");
  return run_ed25519_batch(c, result, error);
}

// One thread's X25519 private key and kPool peer public keys, for us or for
// OpenSSL (whose derive contexts each hold one peer, set before timing).
struct X25519Worker {
  uint8_t priv[32] = {}, pub[32] = {}, peers[kPool][32] = {};
  OpenSslPeer::X25519Deriver* peer = nullptr;
  bool ready = false;

  X25519Worker(bool openssl, size_t) {
    uint8_t scratch[32];
    ready = ks_x25519_keygen(priv, pub) == KS_OK;
    for (size_t j = 0; j < kPool && ready; ++j) ready = ks_x25519_keygen(scratch, peers[j]) == KS_OK;
    if (ready && openssl) {
      peer = OpenSslPeer::get().x25519_new_deriver(peers, kPool);
      ready = peer != nullptr;
    }
  }
  ~X25519Worker() { OpenSslPeer::get().x25519_free_deriver(peer); }
  bool prepare(const std::string&) const { return ready; }

  bool run(const std::string& op, size_t i) {
    const OpenSslPeer& ssl = OpenSslPeer::get();
    if (op == "keygen") {
      if (peer != nullptr) return ssl.x25519_keygen();
      uint8_t k[32], p[32];
      return ks_x25519_keygen(k, p) == KS_OK;
    }
    uint8_t shared[32];
    return peer != nullptr ? ssl.x25519_derive(peer, i % kPool, shared)
                           : ks_x25519(priv, peers[i % kPool], shared) == KS_OK;
  }
};

// Batches through the C API: keygen, and shared secrets with per-item
// private keys (as a server agreeing fresh keys with many clients).
bool run_x25519_batch(const Case& c, Result* result, std::string* error) {
  CtxPtr ctx = make_ctx(c, error);
  if (ctx == nullptr) return false;
  const size_t n = c.batch;
  HostBuffer priv(32 * n, c.pinned), pubs(32 * n, c.pinned), peers(32 * n, c.pinned),
      shared(32 * n, c.pinned), status(sizeof(int) * n, c.pinned);
  if (priv.data() == nullptr || pubs.data() == nullptr || peers.data() == nullptr ||
      shared.data() == nullptr || status.data() == nullptr) {
    *error = "could not allocate the batch buffers";
    return false;
  }
  int rc = KS_OK;
  if (c.op == "derive") {  // peers are valid public keys, made before timing
    rc = ks_x25519_keygen_batch(ctx.get(), n, shared.data(), shared.size(), peers.data(),
                                peers.size(), nullptr);
    if (rc == KS_OK)
      rc = ks_x25519_keygen_batch(ctx.get(), n, priv.data(), priv.size(), pubs.data(),
                                  pubs.size(), nullptr);
  }
  int call_rc = rc;
  *result = measure(c.seconds, c.msg_bytes, [&](size_t iters) {
    for (size_t r = 0; r < iters && call_rc == KS_OK; ++r) {
      call_rc = c.op == "keygen"
                    ? ks_x25519_keygen_batch(ctx.get(), n, priv.data(), priv.size(), pubs.data(),
                                             pubs.size(), status.ints())
                    : ks_x25519_derive_batch_keys(ctx.get(), priv.data(), peers.data(), n,
                                                  shared.data(), shared.size(), status.ints());
    }
    return iters * n;
  });
  if (call_rc != KS_OK) {
    *error = ks_strerror(call_rc);
    return false;
  }
  result->backend = c.backend;
  return true;
}

bool run_x25519(const Case& c, Result* result, std::string* error) {
  if (!curve25519_peer_ready(c, error)) return false;
  if (c.impl == "openssl" || c.batch <= 1)
    return run_single<X25519Worker>(c, result, error, "X25519");
  return run_x25519_batch(c, result, error);
}

// ---- SM4 -------------------------------------------------------------------------

// The operations: a mode, encrypting unless named "-dec".
struct Sm4Op {
  const char* op;
  int mode;
  bool encrypt;
};
const Sm4Op kSm4Ops[] = {
    {"ecb", KS_SM4_ECB, true}, {"cbc", KS_SM4_CBC, true}, {"cbc-dec", KS_SM4_CBC, false},
    {"cfb", KS_SM4_CFB, true}, {"ofb", KS_SM4_OFB, true}, {"ctr", KS_SM4_CTR, true},
    {"gcm", KS_SM4_GCM, true}, {"setkey", KS_SM4_ECB, true},
};

const Sm4Op* sm4_op(const std::string& op) {
  for (const Sm4Op& o : kSm4Ops)
    if (op == o.op) return &o;
  return nullptr;
}

const char* sm4_mode_name(int mode) {
  static const char* const kNames[] = {"ecb", "cbc", "cfb", "ofb", "ctr", "gcm"};
  return kNames[mode];
}

// IV bytes per message: none for ECB, 12 for GCM (the recommended and
// OpenSSL's default length), a block for the others.
size_t sm4_iv_len(int mode) {
  return mode == KS_SM4_ECB ? 0 : mode == KS_SM4_GCM ? 12 : KS_SM4_BLOCK_BYTES;
}

// One thread's random key, IV and message, with one input and one output
// buffer that every operation reuses (as `openssl speed` does), for us or
// for OpenSSL. An operation is one whole message under that key and IV,
// without padding and (GCM) without AAD, with a 16-byte tag: for us the
// one-shot call (ks_sm4_crypt / ks_sm4_gcm_seal); for OpenSSL init with the
// key and IV, update over the buffer and final on an EVP_CIPHER_CTX made
// once. Both redo the key schedule per message, unless the input is
// "schedule": the key expanded once, ours in a ks_sm4_schedule, OpenSSL's
// in its context (init with the IV alone). Op "setkey" is the key schedule
// alone.
struct Sm4Worker {
  const Sm4Op* op = nullptr;
  OpenSslPeer::Sm4Cipher* peer = nullptr;
  bool openssl, reuse_key;
  size_t msg_bytes;
  std::vector<uint8_t> key, iv, in, out;
  uint8_t tag[16] = {};
  ks_sm4_schedule schedule;

  Sm4Worker(bool use_openssl, size_t msg_len, const std::string& input)
      : openssl(use_openssl), reuse_key(input == "schedule"), msg_bytes(msg_len),
        key(random_bytes(KS_SM4_KEY_BYTES)), iv(random_bytes(KS_SM4_BLOCK_BYTES)),
        in(random_bytes(std::max<size_t>(1, msg_len))), out(std::max<size_t>(1, msg_len)) {
    ks_sm4_schedule_init(&schedule, key.data());
  }
  ~Sm4Worker() {
    OpenSslPeer::get().sm4_free_cipher(peer);
    ks_sm4_schedule_cleanse(&schedule);
  }

  // One message through our one-shot call into dst (and t, for GCM).
  bool ours(uint8_t* dst, uint8_t* t) const {
    const size_t iv_len = sm4_iv_len(op->mode);
    const uint8_t* v = iv_len != 0 ? iv.data() : nullptr;
    if (op->mode == KS_SM4_GCM)
      return ks_sm4_gcm_seal(key.data(), v, iv_len, nullptr, 0, in.data(), msg_bytes, dst, t,
                             16) == KS_OK;
    size_t n = 0;
    const int dir = op->encrypt ? KS_ENCRYPT : KS_DECRYPT;
    const int rc = reuse_key ? ks_sm4_schedule_crypt(&schedule, op->mode, dir, 0, v, iv_len,
                                                     in.data(), msg_bytes, dst, msg_bytes, &n)
                             : ks_sm4_crypt(op->mode, dir, 0, key.data(), v, iv_len, in.data(),
                                            msg_bytes, dst, msg_bytes, &n);
    return rc == KS_OK && n == msg_bytes;
  }

  // The context for OpenSSL, and a check that both sides compute the same
  // bytes (so that OpenSSL is timed on the very operation we are).
  bool prepare(const std::string& name) {
    op = sm4_op(name);
    if (op == nullptr) return false;
    if (!openssl) return ours(out.data(), tag);
    const size_t iv_len = sm4_iv_len(op->mode);
    peer = OpenSslPeer::get().sm4_new_cipher(sm4_mode_name(op->mode), op->encrypt, key.data(),
                                             iv.data(), iv_len);
    std::vector<uint8_t> mine(out.size());
    uint8_t mine_tag[16] = {};
    return peer != nullptr && ours(mine.data(), mine_tag) &&
           OpenSslPeer::get().sm4_message(peer, in.data(), msg_bytes, out.data(), tag) &&
           memcmp(mine.data(), out.data(), msg_bytes) == 0 &&
           (op->mode != KS_SM4_GCM || memcmp(mine_tag, tag, 16) == 0);
  }

  bool run(const std::string& name, size_t) {
    if (name == "setkey") {
      if (peer != nullptr) return OpenSslPeer::get().sm4_rekey(peer);
      return ks_sm4_schedule_init(&schedule, key.data()) == KS_OK;
    }
    if (peer != nullptr)
      return OpenSslPeer::get().sm4_message(peer, in.data(), msg_bytes, out.data(), tag,
                                            !reuse_key);
    return ours(out.data(), tag);
  }
};

// Batches through ks_sm4_batch: n messages of msg_bytes in the flat layout,
// each with its own random key and IV, on the context's threads; the text
// in ordinary or pinned (Case::pinned) memory.
bool run_sm4_batch(const Case& c, const Sm4Op& op, Result* result, std::string* error) {
  CtxPtr ctx = make_ctx(c, error);
  if (ctx == nullptr) return false;
  const size_t n = c.batch, iv_len = sm4_iv_len(op.mode);
  const bool gcm = op.mode == KS_SM4_GCM;
  const std::vector<uint8_t> keys = random_bytes(KS_SM4_KEY_BYTES * n),
                             ivs = random_bytes(std::max<size_t>(1, iv_len * n));
  const size_t bytes = std::max<size_t>(1, n * c.msg_bytes);
  HostBuffer data(bytes, c.pinned, random_bytes(bytes)), out(bytes, c.pinned);
  if (data.data() == nullptr || out.data() == nullptr) {
    *error = "no host memory";
    return false;
  }
  std::vector<uint8_t> tags(gcm ? 16 * n : 1);
  std::vector<uint64_t> offsets(n + 1);
  for (size_t i = 0; i <= n; ++i) offsets[i] = i * c.msg_bytes;
  std::vector<int> status(n);
  int call_rc = KS_OK;
  *result = measure(c.seconds, c.msg_bytes, [&](size_t iters) {
    for (size_t r = 0; r < iters && call_rc == KS_OK; ++r)
      call_rc = ks_sm4_batch(ctx.get(), op.mode, op.encrypt ? 1 : 0, 0, keys.data(),
                             iv_len != 0 ? ivs.data() : nullptr, iv_len, data.data(),
                             n * c.msg_bytes, offsets.data(), n, out.data(), bytes, nullptr,
                             0, nullptr, gcm ? tags.data() : nullptr, gcm ? 16 : 0,
                             status.data());
    return iters * n;
  });
  if (call_rc != KS_OK) {  // KS_ERR_BATCH_ITEMS included: every item must succeed
    *error = ks_strerror(call_rc);
    return false;
  }
  result->backend = c.backend;
  return true;
}

// One buffer of msg_bytes through a cipher's crypt_buffer call on the
// context, from ordinary or pinned (Case::pinned) memory, encrypted in
// place: call(ctx, buf) returns the call's status. batch is 1: the rows'
// unit is the buffer.
template <class Call>
bool run_cipher_buffer(const Case& c, Result* result, std::string* error, Call call) {
  CtxPtr ctx = make_ctx(c, error);
  if (ctx == nullptr) return false;
  HostBuffer buf(c.msg_bytes, c.pinned, random_bytes(c.msg_bytes));
  if (buf.data() == nullptr && c.msg_bytes > 0) {
    *error = "no host memory";
    return false;
  }
  int call_rc = KS_OK;
  *result = measure(c.seconds, c.msg_bytes, [&](size_t iters) {
    for (size_t r = 0; r < iters && call_rc == KS_OK; ++r) call_rc = call(ctx.get(), buf.data());
    return iters;
  });
  if (call_rc != KS_OK) {
    *error = ks_strerror(call_rc);
    return false;
  }
  result->backend = c.backend;
  return true;
}

// ks_sm4_crypt_buffer (input "buffer": the constant-time GPU kernel;
// "buffer-tables": the T-table one).
bool run_sm4_buffer(const Case& c, const Sm4Op& op, Result* result, std::string* error) {
  if (op.mode != KS_SM4_ECB && op.mode != KS_SM4_CTR) {
    *error = "buffers: ecb or ctr";
    return false;
  }
  const std::vector<uint8_t> key = random_bytes(16), iv = random_bytes(16);
  const uint32_t flags = c.input == "buffer-tables" ? KS_SM4_GPU_TABLES : 0;
  const bool ctr = op.mode == KS_SM4_CTR;
  return run_cipher_buffer(c, result, error, [&](ks_ctx* ctx, uint8_t* buf) {
    return ks_sm4_crypt_buffer(ctx, op.mode, op.encrypt ? 1 : 0, flags, key.data(),
                               ctr ? iv.data() : nullptr, ctr ? 16 : 0, buf, c.msg_bytes, buf);
  });
}

// Intel crypto_mb's SM4-CBC over 16 buffers (impl "crypto_mb", batch 16,
// one thread): each call encrypts 16 messages of msg_bytes under 16 random
// keys and IVs, its key schedules included, as our batch row does; checked
// first against ks_sm4_crypt on every lane.
bool run_sm4_crypto_mb(const Case& c, const Sm4Op& op, Result* result, std::string* error) {
  const CryptoMbPeer& mb = CryptoMbPeer::get();
  constexpr size_t kLanes = CryptoMbPeer::kLanes;
  if (!mb.ok() || op.mode != KS_SM4_CBC || !op.encrypt || c.batch != kLanes || c.threads != 1) {
    *error = mb.ok() ? "crypto_mb rows: cbc encryption, batch 16, one thread" : mb.error();
    return false;
  }
  const std::vector<uint8_t> keys = random_bytes(16 * kLanes), ivs = random_bytes(16 * kLanes),
                             data = random_bytes(kLanes * c.msg_bytes);
  std::vector<uint8_t> out(data.size()), expect(data.size());
  const uint8_t* in[kLanes];
  uint8_t* dst[kLanes];
  for (size_t i = 0; i < kLanes; ++i) {
    in[i] = data.data() + i * c.msg_bytes;
    dst[i] = out.data() + i * c.msg_bytes;
    size_t n = 0;
    ks_sm4_crypt(KS_SM4_CBC, KS_ENCRYPT, 0, keys.data() + 16 * i, ivs.data() + 16 * i, 16, in[i],
                 c.msg_bytes, expect.data() + i * c.msg_bytes, c.msg_bytes, &n);
  }
  CryptoMbPeer::Sm4Schedule schedule;
  if (!mb.sm4_cbc_encrypt16(keys.data(), true, &schedule, ivs.data(), in, c.msg_bytes, dst) ||
      out != expect) {
    *error = "crypto_mb's SM4-CBC does not match ks_sm4_crypt";
    return false;
  }
  bool ok = true;
  *result = measure(c.seconds, c.msg_bytes, [&](size_t iters) {
    for (size_t r = 0; r < iters; ++r)
      ok &= mb.sm4_cbc_encrypt16(keys.data(), true, &schedule, ivs.data(), in, c.msg_bytes, dst);
    return iters * kLanes;
  });
  if (!ok) *error = "crypto_mb failed during the benchmark";
  result->backend = "cpu";
  return ok;
}

bool run_sm4(const Case& c, Result* result, std::string* error) {
  const Sm4Op* op = sm4_op(c.op);
  if (op->mode <= KS_SM4_CBC && c.msg_bytes % KS_SM4_BLOCK_BYTES != 0) {
    *error = "ECB and CBC messages must be whole blocks (no padding)";
    return false;
  }
  if (c.impl == "openssl") {
    const std::string& why = OpenSslPeer::get().sm4_error(sm4_mode_name(op->mode));
    if (!why.empty()) {
      *error = why;
      return false;
    }
  }
  if (c.impl == "kuaisuo" && c.input.rfind("buffer", 0) == 0)
    return run_sm4_buffer(c, *op, result, error);
  if (c.impl == "crypto_mb") return run_sm4_crypto_mb(c, *op, result, error);
  if (c.impl == "openssl" || c.batch <= 1) return run_single<Sm4Worker>(c, result, error, "SM4");
  return run_sm4_batch(c, *op, result, error);
}

// ---- SKINNY-128-256 ----------------------------------------------------------------
// No OpenSSL peer exists: the other side is our table-based baseline
// (impl "table": the S-box looked up, one block at a time, the seed's kind
// of CPU code). One thread's random tweakey, counter and message; an
// operation is one whole message (ECB: whole blocks) under them, the
// tweakey schedule included, as for SM4.
struct SkinnyWorker {
  bool table;
  int mode = KS_SKINNY_CTR;
  size_t msg_bytes;
  std::vector<uint8_t> tweakey, iv, in, out;

  SkinnyWorker(bool use_table, size_t msg_len)
      : table(use_table), msg_bytes(msg_len), tweakey(random_bytes(KS_SKINNY_TWEAKEY_BYTES)),
        iv(random_bytes(KS_SKINNY_BLOCK_BYTES)), in(random_bytes(std::max<size_t>(1, msg_len))),
        out(std::max<size_t>(1, msg_len)) {}

  bool ours(uint8_t* dst) const {
    const bool ctr = mode == KS_SKINNY_CTR;
    return ks_skinny128_256_crypt(mode, 1, tweakey.data(), ctr ? iv.data() : nullptr,
                                  ctr ? 16 : 0, in.data(), msg_bytes, dst) == KS_OK;
  }

  // The baseline: whole blocks through the table code (the benchmarks'
  // messages are whole blocks).
  bool baseline(uint8_t* dst) const {
    ks::skinny::Key k;
    ks::skinny::set_key(&k, tweakey.data());
    uint8_t counter[16];
    memcpy(counter, iv.data(), 16);
    if (mode == KS_SKINNY_CTR) {
      ks::skinny::table_ctr_blocks(k, counter, in.data(), dst, msg_bytes / 16);
    } else {
      ks::skinny::table_encrypt_blocks(k, in.data(), dst, msg_bytes / 16);
    }
    ks::skinny::wipe_key(&k);
    return true;
  }

  // Both sides compute the same bytes before either is timed.
  bool prepare(const std::string& name) {
    if (name != "ecb" && name != "ctr") return false;
    mode = name == "ecb" ? KS_SKINNY_ECB : KS_SKINNY_CTR;
    std::vector<uint8_t> mine(out.size());
    return ours(mine.data()) && baseline(out.data()) &&
           memcmp(mine.data(), out.data(), msg_bytes) == 0;
  }

  bool run(const std::string&, size_t) { return table ? baseline(out.data()) : ours(out.data()); }
};

// One buffer through ks_skinny128_256_crypt_buffer on the context (its
// threads, or its GPU: the bitsliced kernel).
bool run_skinny_buffer(const Case& c, Result* result, std::string* error) {
  const std::vector<uint8_t> tweakey = random_bytes(32), iv = random_bytes(16);
  const bool ctr = c.op == "ctr";
  return run_cipher_buffer(c, result, error, [&](ks_ctx* ctx, uint8_t* buf) {
    return ks_skinny128_256_crypt_buffer(ctx, ctr ? KS_SKINNY_CTR : KS_SKINNY_ECB, 1,
                                         tweakey.data(), ctr ? iv.data() : nullptr, ctr ? 16 : 0,
                                         buf, c.msg_bytes, buf);
  });
}

bool run_skinny(const Case& c, Result* result, std::string* error) {
  if (c.msg_bytes % KS_SKINNY_BLOCK_BYTES != 0) {
    *error = "SKINNY benchmark messages are whole blocks";
    return false;
  }
  if (c.impl == "table" && c.threads != 1) {
    *error = "the table-based baseline runs on one thread";
    return false;
  }
  if (c.impl == "kuaisuo" && c.input == "buffer") return run_skinny_buffer(c, result, error);
  return run_single<SkinnyWorker>(c, result, error, "SKINNY");
}

// ---- Dispatch ---------------------------------------------------------------------

// Every benchmark: its algorithm, the operations it times, its runner.
struct Benchmark {
  const char* alg;
  const char* ops[8];  // nullptr-terminated when fewer
  bool (*run)(const Case&, Result*, std::string*);
};

const Benchmark kBenchmarks[] = {
    {"sm3", {"hash"}, run_sm3},
    {"sm2", {"keygen", "sign", "verify", "encrypt", "decrypt", "key-exchange"}, run_sm2},
    {"ed25519", {"keygen", "sign", "verify"}, run_ed25519},
    {"x25519", {"keygen", "derive"}, run_x25519},
    {"sm4", {"ecb", "cbc", "cbc-dec", "cfb", "ofb", "ctr", "gcm", "setkey"}, run_sm4},
    {"skinny128-256", {"ecb", "ctr"}, run_skinny},
};

}  // namespace

bool run_case(const Case& c, Result* result, std::string* error) {
  if (c.threads == 0 || c.batch == 0 || c.seconds <= 0) {
    *error = "threads, batch and seconds must be positive";
    return false;
  }
  if (c.impl == "kuaisuo" && c.backend != "cpu" && c.backend != "gpu") {
    *error = "backend must be resolved to cpu or gpu";
    return false;
  }
  for (const Benchmark& b : kBenchmarks) {
    if (c.alg != b.alg) continue;
    for (const char* op : b.ops)
      if (op != nullptr && c.op == op) return b.run(c, result, error);
    *error = c.alg + " has no operation " + c.op;
    return false;
  }
  *error = "no benchmark for " + c.alg + " " + c.op;
  return false;
}

std::string openssl_version() {
  const OpenSslPeer& peer = OpenSslPeer::get();
  return peer.ok() ? peer.version() : std::string();
}

}  // namespace bench
}  // namespace ks
