// kuaisuo-grpc-load: an open-loop load generator for the gRPC form of
// `kuaisuo serve` (service kuaisuo.serve.v1.Signer of
// python/kuaisuo/serve/kuaisuo_serve.proto), SM2 in the rows form and
// Ed25519 as lists of items:
//   sign-rows       Sign{key_id, digest_rows}: count * 32 bytes of digests e;
//                   the reply: count int32 statuses, count * 64 bytes of r||s
//   verify-rows     Verify{public_key_rows, digest_rows, signature_rows};
//                   the reply: count int32 statuses
//   ed25519-sign    Sign{key_id (an Ed25519 key), items: --message-bytes
//                   messages}; the reply: a result (status, signature) each
//   ed25519-verify  Verify{algorithm ed25519, items: (key, message,
//                   signature)}; the reply: a result (status) each
// It is the native counterpart of `kuaisuo bench-serve --transport grpc`
// (one Python process tops out at a few thousand requests/s), and its
// --json document has the same rows, which bench/serve_bench.sh aggregates,
// plus the generator's own CPU per rate (generator_cpu_s and _us_per_request):
// over loopback the generators and the server share the host's cores.
//
// Open loop: the send times of a rate are drawn before it runs (Poisson, or
// every 1/rate); the sender issues each request at its time whether or not
// earlier ones were answered, and latency runs from the SCHEDULED time to
// the reply. A closed loop slows down with the server and never sees the
// queueing a real stream of clients meets ("coordinated omission"); here a
// stalled server or a late sender shows up in the latencies (and the lag
// column says how late the sender itself was).
//
// Honest inputs: a pool of --pool distinct valid items made with the
// library before the run (digests or messages from the OS; for the verify
// ops a key per 16 items and their signatures), cut into windows of
// --items and serialized once. Requests take the windows round robin and
// go out as those bytes (a generic stub over a static slice), so the
// generator copies nothing per request while the server does the work of
// every item.
//
//   kuaisuo-grpc-load --address 127.0.0.1:50051 --token-file tok --op verify-rows
//       --items 1024 --rates 500,2000,8000 --seconds 3 --json out.json
//
// Exit status: 0 when the run completed (refusals and errors are data), 2 on
// bad flags or unreadable flag files, 1 when the pool cannot be built or the
// server cannot be reached.
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "kuaisuo.h"
#include "host_buffer.h"
#include "kuaisuo_serve.grpc.pb.h"
#include "mutex_mode.h"

namespace {

namespace pb = kuaisuo::serve::v1;
using Clock = std::chrono::steady_clock;
// Requests leave as prebuilt bytes; replies arrive parsed.
using Stub = grpc::TemplatedGenericStub<grpc::ByteBuffer, pb::Reply>;

constexpr char kTool[] = "kuaisuo-grpc-load";
constexpr int kExitSetup = 1;
constexpr int kExitFlags = 2;

// As bench-serve's pool: many keys, each signing a few digests.
constexpr size_t kDigestsPerKey = 16;
// Slack between the end of a rate's setup and its first scheduled send.
constexpr auto kLead = std::chrono::milliseconds(50);
// How long the channels get to connect before the address counts as unusable.
constexpr auto kConnectLimit = std::chrono::seconds(10);
// Limits that keep the buffers below well inside memory and size_t.
constexpr uint64_t kMaxItems = uint64_t{1} << 20;
constexpr uint64_t kMaxPool = uint64_t{1} << 24;
constexpr uint64_t kMaxPoolMessageBytes = uint64_t{1} << 32;
constexpr double kMaxRequestsPerRate = 5e7;
// The signature rows printed per --check-key mismatch report.
constexpr uint64_t kMaxCheckReports = 5;

constexpr size_t kDigestBytes = KS_SM2_DIGEST_BYTES;
constexpr size_t kPublicKeyBytes = KS_SM2_PUBLIC_KEY_BYTES;
constexpr size_t kSignatureBytes = KS_SM2_SIGNATURE_BYTES;

// ---- flags ------------------------------------------------------------------

const char kUsage[] =
    "usage: kuaisuo-grpc-load --address HOST:PORT --token-file FILE [options]\n"
    "  --op sign-rows|verify-rows|ed25519-sign|ed25519-verify   (default sign-rows)\n"
    "  --key-id ID                  the sign ops: the server's key (default gov)\n"
    "  --message-bytes N            the ed25519 ops: bytes a message (default 64)\n"
    "  --items N                    items per request (default 1024)\n"
    "  --rates R1,R2,...            offered requests/s, one run each (default 1000)\n"
    "  --seconds S                  per rate (default 3)\n"
    "  --warmup S                   unrecorded run at the first rate (default 1; 0: none)\n"
    "  --channels C                 distinct TCP connections, round robin (default 8)\n"
    "  --threads T                  completion-queue polling threads (default 4)\n"
    "  --pool P                     distinct items in the input pool (default 65536)\n"
    "  --timeout-ms MS              per request, from its scheduled send (default 10000)\n"
    "  --arrivals poisson|fixed     (default poisson)\n"
    "  --seed N                     of the arrival schedule\n"
    "  --cacert FILE                TLS with these roots (default: plaintext)\n"
    "  --check-key FILE             sign-rows: the server key (PKCS#8/SEC1, PEM or DER);\n"
    "                               verify the first ok reply of each rate on the CPU\n"
    "  --json FILE                  parameters, host and rows as JSON\n"
    "  --library auto|cpu|gpu       no server: --threads threads share one context and call\n"
    "                               the op's batch function on --items pool rows each, in\n"
    "                               page-locked buffers, closed loop for --seconds (the\n"
    "                               rate a server's engines can reach; prints one JSON line)\n"
    "   or: kuaisuo-grpc-load --new-key FILE [ed25519]\n"
    "  writes a fresh SM2 (or Ed25519) key (PKCS#8 PEM, unencrypted, mode 0600) for a\n"
    "  benchmark's server (kuaisuo-grpcd --allow-plain) where the Python CLI is not\n"
    "  installed\n";

struct Options {
  std::string address;
  std::string token_file;
  std::string op = "sign-rows";
  std::string key_id = "gov";
  uint64_t items = 1024;
  uint64_t message_bytes = 64;
  std::vector<double> rates = {1000.0};
  double seconds = 3.0;
  double warmup = 1.0;
  uint64_t channels = 8;
  uint64_t threads = 4;
  uint64_t pool = 65536;
  uint64_t timeout_ms = 10000;
  std::string arrivals = "poisson";
  bool has_seed = false;
  uint64_t seed = 0;
  std::string cacert;
  std::string check_key;
  std::string json;
  std::string library;  // a backend: measure the library alone

  bool sign() const { return op == "sign-rows" || op == "ed25519-sign"; }
  bool ed25519() const { return op == "ed25519-sign" || op == "ed25519-verify"; }
  bool rows() const { return !ed25519(); }  // the reply carries statuses as rows
};

bool parse_uint(const std::string& text, uint64_t min, uint64_t max, uint64_t* out) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || value < min || value > max) return false;
  *out = value;
  return true;
}

bool parse_double(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double value = strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(value)) return false;
  *out = value;
  return true;
}

bool parse_rates(const std::string& text, std::vector<double>* out) {
  std::vector<double> rates;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t comma = text.find(',', begin);
    if (comma == std::string::npos) comma = text.size();
    double rate = 0;
    if (!parse_double(text.substr(begin, comma - begin), &rate) || !(rate > 0)) return false;
    rates.push_back(rate);
    begin = comma + 1;
  }
  *out = std::move(rates);
  return true;
}

// Sets one flag; returns an error message, empty when the value is good.
std::string set_flag(const std::string& name, const std::string& value, Options* o) {
  const std::string bad = name + ": bad value '" + value + "'";
  if (name == "--address") {
    o->address = value;
  } else if (name == "--token-file") {
    o->token_file = value;
  } else if (name == "--op") {
    if (value != "sign-rows" && value != "verify-rows" && value != "ed25519-sign" &&
        value != "ed25519-verify") {
      return "--op: sign-rows, verify-rows, ed25519-sign or ed25519-verify, not '" + value + "'";
    }
    o->op = value;
  } else if (name == "--key-id") {
    o->key_id = value;
  } else if (name == "--items") {
    if (!parse_uint(value, 1, kMaxItems, &o->items)) return bad + " (1 to 1048576)";
  } else if (name == "--message-bytes") {
    if (!parse_uint(value, 0, 1 << 20, &o->message_bytes)) return bad + " (0 to 1048576)";
  } else if (name == "--rates") {
    if (!parse_rates(value, &o->rates)) return bad + " (positive rates such as 500,2000)";
  } else if (name == "--seconds") {
    if (!parse_double(value, &o->seconds) || !(o->seconds > 0)) return bad + " (positive)";
  } else if (name == "--warmup") {
    if (!parse_double(value, &o->warmup) || o->warmup < 0) return bad + " (0 or more)";
  } else if (name == "--channels") {
    if (!parse_uint(value, 1, 1024, &o->channels)) return bad + " (1 to 1024)";
  } else if (name == "--threads") {
    if (!parse_uint(value, 1, 256, &o->threads)) return bad + " (1 to 256)";
  } else if (name == "--pool") {
    if (!parse_uint(value, 1, kMaxPool, &o->pool)) return bad + " (1 to 16777216)";
  } else if (name == "--timeout-ms") {
    if (!parse_uint(value, 1, 3600 * 1000, &o->timeout_ms)) return bad + " (1 to 3600000)";
  } else if (name == "--arrivals") {
    if (value != "poisson" && value != "fixed") return "--arrivals: poisson or fixed";
    o->arrivals = value;
  } else if (name == "--seed") {
    if (!parse_uint(value, 0, UINT64_MAX, &o->seed)) return bad + " (an unsigned integer)";
    o->has_seed = true;
  } else if (name == "--cacert") {
    o->cacert = value;
  } else if (name == "--check-key") {
    o->check_key = value;
  } else if (name == "--json") {
    o->json = value;
  } else if (name == "--library") {
    if (value != "auto" && value != "cpu" && value != "gpu") return "--library: auto, cpu or gpu";
    o->library = value;
  } else {
    return "unknown flag " + name;
  }
  return "";
}

// HOST:PORT with a port in 1..65535, or a gRPC target with a scheme
// ("dns:///host:port", "unix:/path"), which gRPC itself resolves.
bool plausible_address(const std::string& address) {
  if (address.find(":/") != std::string::npos) return true;
  const size_t colon = address.rfind(':');
  uint64_t port = 0;
  return colon != std::string::npos && colon > 0 &&
         parse_uint(address.substr(colon + 1), 1, 65535, &port);
}

// Checks the flags together; returns an error message or "".
std::string check_options(const Options& o) {
  if (!o.library.empty()) {
    return o.ed25519() ? "--library runs sign-rows and verify-rows" : "";
  }
  if (o.address.empty()) return "--address HOST:PORT is required";
  if (!plausible_address(o.address)) return "--address: HOST:PORT, not '" + o.address + "'";
  if (o.token_file.empty()) return "--token-file FILE is required";
  if (o.sign() && o.key_id.empty()) return "--op " + o.op + " needs a --key-id";
  if (!o.check_key.empty() && o.op != "sign-rows") {
    return "--check-key applies to --op sign-rows only";
  }
  if (o.ed25519() && std::max(o.pool, o.items) * o.message_bytes > kMaxPoolMessageBytes) {
    return "--pool (or --items) x --message-bytes: more than 4 GiB of messages";
  }
  for (double rate : o.rates) {
    if (rate * std::max(o.seconds, o.warmup) > kMaxRequestsPerRate) {
      return "--rates x --seconds: more than 5e7 requests in one run";
    }
  }
  return "";
}

// Parses argv ("--name value" or "--name=value"); returns an error message or "".
std::string parse_flags(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string name = argv[i];
    std::string value;
    if (name.compare(0, 2, "--") != 0) return "unexpected argument '" + name + "'";
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return name + " needs a value";
    }
    std::string error = set_flag(name, value, o);
    if (!error.empty()) return error;
  }
  return check_options(*o);
}

bool read_file(const std::string& path, std::string* out) {
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  out->clear();
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  const bool ok = !ferror(f);
  fclose(f);
  return ok;
}

bool write_file(const std::string& path, const std::string& text) {
  FILE* f = fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  const bool written = fwrite(text.data(), 1, text.size(), f) == text.size();
  return fclose(f) == 0 && written;
}

// Whether path can be written, without creating it: a run that fails later
// leaves no empty report for an aggregation to choke on.
bool writable(const std::string& path) {
  if (access(path.c_str(), F_OK) == 0) return access(path.c_str(), W_OK) == 0;
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  return access(dir.c_str(), W_OK | X_OK) == 0;
}

// The bearer token: the file's text less trailing whitespace. It goes into
// an HTTP/2 header, so only printable ASCII is accepted.
bool read_token(const std::string& path, std::string* token) {
  if (!read_file(path, token)) {
    fprintf(stderr, "%s: --token-file %s: %s\n", kTool, path.c_str(), strerror(errno));
    return false;
  }
  while (!token->empty() && strchr(" \t\r\n\f\v", token->back()) != nullptr) token->pop_back();
  if (token->empty()) {
    fprintf(stderr, "%s: --token-file %s: empty token\n", kTool, path.c_str());
    return false;
  }
  for (unsigned char c : *token) {
    if (c < 0x20 || c > 0x7e) {
      fprintf(stderr, "%s: --token-file %s: the token is not printable ASCII\n", kTool,
              path.c_str());
      return false;
    }
  }
  return true;
}

// ---- library helpers --------------------------------------------------------

struct CtxFree {
  void operator()(ks_ctx* ctx) const { ks_ctx_free(ctx); }
};
struct PubkeyFree {
  void operator()(ks_sm2_pubkey* key) const { ks_sm2_pubkey_free(key); }
};
struct KeyFree {
  void operator()(ks_sm2_key* key) const { ks_sm2_key_free(key); }
};
using CtxPtr = std::unique_ptr<ks_ctx, CtxFree>;
using PubkeyPtr = std::unique_ptr<ks_sm2_pubkey, PubkeyFree>;
using KeyPtr = std::unique_ptr<ks_sm2_key, KeyFree>;

// Bytes that are wiped when they go: private keys, even throwaway ones.
struct SecretBytes {
  explicit SecretBytes(size_t n) : bytes(n) {}
  ~SecretBytes() { explicit_bzero(bytes.data(), bytes.size()); }
  std::vector<uint8_t> bytes;
};

// Prints a failed library call: its code, or for a batch the first failing
// item's status. Returns whether rc is KS_OK.
bool ks_check(int rc, const char* what, const std::vector<int>* status = nullptr) {
  if (rc == KS_OK) return true;
  if (rc == KS_ERR_BATCH_ITEMS && status != nullptr) {
    for (size_t i = 0; i < status->size(); ++i) {
      const int s = (*status)[i];
      if (s != KS_OK) {
        fprintf(stderr, "%s: %s: item %zu: %s (%d)\n", kTool, what, i, ks_strerror(s), s);
        return false;
      }
    }
  }
  fprintf(stderr, "%s: %s: %s (%d)\n", kTool, what, ks_strerror(rc), rc);
  return false;
}

// The public half of the server's key, from its private key file.
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

bool fill_random(uint8_t* out, size_t len) {
  while (len > 0) {
    const ssize_t n = getrandom(out, len, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "%s: getrandom: %s\n", kTool, strerror(errno));
      return false;
    }
    out += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

// ---- the input pool and the prebuilt requests -----------------------------

// count distinct items, each column one buffer. Item i's key is key
// i / kDigestsPerKey (the verify ops only; the sign ops need just the
// digests or messages).
struct Pool {
  size_t count = 0;
  std::vector<uint8_t> digests;      // SM2: count * 32
  size_t message_bytes = 0;
  std::vector<uint8_t> messages;     // Ed25519: count * message_bytes
  size_t key_bytes = kPublicKeyBytes;
  std::vector<uint8_t> public_keys;  // count * key_bytes: SM2's 04||x||y, Ed25519's 32
  std::vector<uint8_t> signatures;   // count * 64: SM2's r||s, Ed25519's R||S
};

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

CtxPtr cpu_context() {
  ks_ctx_config config;
  ks_ctx_config_init(&config);
  config.backend = KS_BACKEND_CPU;
  ks_ctx* raw = nullptr;
  if (!ks_check(ks_ctx_new(&config, &raw), "CPU context")) return nullptr;
  return CtxPtr(raw);
}

// Row i of per_item gets row i / kDigestsPerKey of per_key (width bytes a
// row): the pool's items share keys as bench-serve's do.
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

// Pool item of row t of window (request) j; windows wrap around the pool.
size_t pool_item(const Pool& pool, size_t items, size_t j, size_t t) {
  return (j * items + t) % pool.count;
}

// Copies the `items` rows of window j of one pool column to out
// (items * width bytes).
void copy_window(const Pool& pool, const std::vector<uint8_t>& column, size_t width,
                 size_t items, size_t j, uint8_t* out) {
  for (size_t t = 0; t < items;) {
    const size_t first = pool_item(pool, items, j, t);
    const size_t run = std::min(items - t, pool.count - first);
    memcpy(out + t * width, &column[first * width], run * width);
    t += run;
  }
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

// One serialized request per window: ceil(count / items) of them, so every
// pool item is sent and no item appears twice in one request (items <= count).
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

// ---- one rate's bookkeeping ---------------------------------------------------

// What happened to a rate's requests, as seen by one polling thread. Each
// thread has its own, merged after the rate: no lock on the reply path.
struct Tally {
  uint64_t ok = 0;
  uint64_t items_ok = 0;
  uint64_t timeouts = 0;
  std::map<std::string, uint64_t> refused;      // by gRPC code name
  std::map<int32_t, uint64_t> item_errors;      // by library status
  std::map<std::string, uint64_t> transport;    // by kind
  std::map<std::string, std::string> messages;  // an example message per code, for the notes
  std::vector<double> latencies;                // seconds, ok requests
  Clock::time_point last_ok = Clock::time_point::min();
};

// The reply kept for --check-key: the first ok reply of the rate.
struct Sample {
  bool taken = false;
  size_t request = 0;
  std::string statuses;
  std::string value_rows;
};

struct RateRun {
  RateRun(size_t threads, bool check) : tallies(threads), want_sample(check) {}

  // Drops one hold on the run; the last one wakes wait(). The replies'
  // writes to the tallies happen before (the counter's release sequence).
  void release() {
    if (outstanding.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
    done.notify_all();
  }

  void wait() {
    std::unique_lock<std::mutex> lock(mu);
    done.wait(lock, [this] { return finished; });
  }

  std::vector<Tally> tallies;  // one per polling thread
  std::vector<double> lags;    // seconds, launch - scheduled; the sender's alone
  uint64_t sent = 0;           // the sender's alone
  uint64_t not_started = 0;    // the sender's alone: calls gRPC would not set up
  Clock::time_point start;
  Clock::time_point end;

  const bool want_sample;
  std::atomic<bool> sample_claimed{false};
  Sample sample;  // written by the thread that claimed it

  std::atomic<uint64_t> outstanding{1};  // calls in flight, plus the sender's hold
  std::mutex mu;
  std::condition_variable done;
  bool finished = false;
};

struct Call {
  RateRun* run = nullptr;
  Clock::time_point scheduled;
  size_t request = 0;
  grpc::ClientContext context;
  pb::Reply reply;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<pb::Reply>> rpc;
};

const char* code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    default: return "CODE_OTHER";
  }
}

int32_t load_le32(const char* p) {
  const auto* b = reinterpret_cast<const uint8_t*>(p);
  return static_cast<int32_t>(uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 |
                              uint32_t{b[3]} << 24);
}

void count_status(int32_t status, Tally* tally) {
  if (status == 0) {
    ++tally->items_ok;
  } else {
    ++tally->item_errors[status];
  }
}

// The reply's item statuses: rows of int32s, or a status per result.
void count_statuses(const pb::Reply& reply, bool rows, Tally* tally) {
  if (rows) {
    const std::string& statuses = reply.statuses();
    for (size_t i = 0; i + 4 <= statuses.size(); i += 4) {
      count_status(load_le32(&statuses[i]), tally);
    }
  } else {
    for (const pb::ItemResult& result : reply.results()) count_status(result.status(), tally);
  }
}

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// CPU seconds this process has used, all threads: the generator's own cost
// per request, which shares the host with the server over loopback.
double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Sleeps until t. clock_nanosleep on an absolute CLOCK_MONOTONIC time
// (steady_clock's clock on Linux) does not drift the way relative sleeps
// summed over a schedule would. A request already due (the sender is
// behind, or arrivals bunch) goes without the system call: sleeping (a
// timer armed, a wake-up) was ~30% of the generator's CPU per single-item
// request (perf at 8k requests/s, a 2-core VM), CPU that a server on the
// same host then lacks.
void sleep_until(Clock::time_point t) {
  if (Clock::now() >= t) return;
  const int64_t ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  if (ns <= 0) return;
  timespec ts;
  ts.tv_sec = static_cast<time_t>(ns / 1000000000);
  ts.tv_nsec = static_cast<long>(ns % 1000000000);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// ---- the client -----------------------------------------------------------------

std::shared_ptr<grpc::Channel> make_channel(const std::string& address,
                                            const std::shared_ptr<grpc::ChannelCredentials>& creds,
                                            int index) {
  grpc::ChannelArguments args;
  // Distinct arguments and a channel-local subchannel pool: otherwise
  // gRPC folds channels to one address onto one TCP connection.
  args.SetInt("kuaisuo.channel", index);
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // A sign-rows reply of 65536 items is 4.5 MB, over the 4 MB default.
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  return grpc::CreateCustomChannel(address, creds, args);
}

class Client {
 public:
  Client(const Options& options, const std::string& token,
         const std::shared_ptr<grpc::ChannelCredentials>& creds,
         std::vector<std::string> requests)
      : options_(options),
        method_(std::string("/") + pb::Signer::service_full_name() +
                (options.sign() ? "/Sign" : "/Verify")),
        bearer_("Bearer " + token),
        timeout_(std::chrono::milliseconds(options.timeout_ms)),
        requests_(std::move(requests)) {
    for (uint64_t i = 0; i < options.channels; ++i) {
      channels_.push_back(make_channel(options.address, creds, static_cast<int>(i)));
      stubs_.push_back(std::make_unique<Stub>(channels_.back()));
    }
    // Static slices: each send takes a reference to these bytes, no copy.
    for (const std::string& request : requests_) {
      grpc::Slice slice(request.data(), request.size(), grpc::Slice::STATIC_SLICE);
      buffers_.emplace_back(&slice, 1);
    }
    for (uint64_t i = 0; i < options.threads; ++i) {
      queues_.push_back(std::make_unique<grpc::CompletionQueue>());
    }
    for (size_t i = 0; i < queues_.size(); ++i) pollers_.emplace_back([this, i] { poll(i); });
  }

  ~Client() {
    for (auto& queue : queues_) queue->Shutdown();
    for (auto& poller : pollers_) poller.join();
  }

  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Connects every channel up front, so that a rate's first requests do
  // not pay for the handshakes; false (with a message) if one cannot.
  bool connect() {
    const auto deadline = std::chrono::system_clock::now() + kConnectLimit;
    for (size_t i = 0; i < channels_.size(); ++i) {
      if (!channels_[i]->WaitForConnected(deadline)) {
        fprintf(stderr, "%s: cannot connect to %s (channel %zu of %zu) within %lld s\n", kTool,
                options_.address.c_str(), i + 1, channels_.size(),
                static_cast<long long>(kConnectLimit.count()));
        return false;
      }
    }
    return true;
  }

  // Issues one request at start + each offset, never waiting for replies,
  // then waits for every reply (or deadline).
  void run(RateRun* run, const std::vector<double>& offsets) {
    run->lags.reserve(offsets.size());
    run->start = Clock::now() + kLead;
    for (double offset : offsets) {
      const Clock::time_point scheduled =
          run->start + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(offset));
      sleep_until(scheduled);
      run->lags.push_back(std::max(0.0, seconds_between(scheduled, Clock::now())));
      launch(run, scheduled);
    }
    run->release();
    run->wait();
    run->end = Clock::now();
  }

 private:
  void launch(RateRun* run, Clock::time_point scheduled) {
    auto call = std::make_unique<Call>();
    call->run = run;
    call->scheduled = scheduled;
    call->request = next_request_++ % buffers_.size();
    // gRPC takes system_clock deadlines: translate "scheduled + timeout".
    call->context.set_deadline(std::chrono::system_clock::now() +
                               (scheduled + timeout_ - Clock::now()));
    call->context.AddMetadata("authorization", bearer_);
    const uint64_t n = next_call_++;
    grpc::CompletionQueue* queue = queues_[n % queues_.size()].get();
    call->rpc = stubs_[n % stubs_.size()]->PrepareUnaryCall(&call->context, method_,
                                                             buffers_[call->request], queue);
    ++run->sent;
    if (!call->rpc) {  // not registered: no completion will come
      ++run->not_started;
      return;
    }
    run->outstanding.fetch_add(1, std::memory_order_relaxed);
    Call* raw = call.release();  // the poller deletes it
    raw->rpc->StartCall();
    raw->rpc->Finish(&raw->reply, &raw->status, raw);
  }

  void poll(size_t index) {
    void* tag = nullptr;
    bool ok = false;
    while (queues_[index]->Next(&tag, &ok)) {
      const Clock::time_point now = Clock::now();  // first: the reply time
      auto* call = static_cast<Call*>(tag);
      RateRun* run = call->run;
      complete(&run->tallies[index], call, now);
      delete call;
      run->release();
    }
  }

  void complete(Tally* tally, Call* call, Clock::time_point now) {
    const grpc::Status& status = call->status;
    if (!status.ok()) {
      fail(tally, status);
      return;
    }
    const pb::Reply& reply = call->reply;
    const bool rows = options_.rows();
    const size_t answered = rows ? reply.statuses().size() : reply.results_size() * size_t{4};
    if (answered != options_.items * 4) {
      ++tally->transport["bad reply"];
      return;
    }
    ++tally->ok;
    tally->latencies.push_back(seconds_between(call->scheduled, now));
    tally->last_ok = std::max(tally->last_ok, now);
    count_statuses(reply, rows, tally);
    RateRun* run = call->run;
    if (run->want_sample && !run->sample_claimed.exchange(true, std::memory_order_relaxed)) {
      run->sample.taken = true;
      run->sample.request = call->request;
      run->sample.statuses = reply.statuses();
      run->sample.value_rows = reply.value_rows();
    }
  }

  static void fail(Tally* tally, const grpc::Status& status) {
    const std::string name = code_name(status.error_code());
    switch (status.error_code()) {
      case grpc::StatusCode::DEADLINE_EXCEEDED:
        ++tally->timeouts;
        return;
      case grpc::StatusCode::UNAVAILABLE:
        ++tally->transport[name];
        break;
      default:
        ++tally->refused[name];
        break;
    }
    tally->messages.emplace(name, status.error_message());
  }

  const Options& options_;
  const std::string method_;
  const std::string bearer_;
  const std::chrono::milliseconds timeout_;
  const std::vector<std::string> requests_;  // serialized; buffers_ point into them
  std::vector<grpc::ByteBuffer> buffers_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<Stub>> stubs_;
  std::vector<std::unique_ptr<grpc::CompletionQueue>> queues_;
  std::vector<std::thread> pollers_;
  uint64_t next_call_ = 0;     // the sender's: round robin over channels and queues
  uint64_t next_request_ = 0;  // the sender's: round robin over windows, across rates
};

// ---- schedules ----------------------------------------------------------------

// Send offsets in [0, seconds): every 1/rate, or a Poisson process at rate.
std::vector<double> schedule(double rate, double seconds, bool poisson, std::mt19937_64* rng) {
  std::vector<double> out;
  if (!poisson) {
    const auto n = static_cast<size_t>(std::ceil(rate * seconds - 1e-9));
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<double>(i) / rate);
    return out;
  }
  std::exponential_distribution<double> gap(rate);
  out.reserve(static_cast<size_t>(rate * seconds * 1.1) + 16);
  for (double t = gap(*rng); t < seconds; t += gap(*rng)) out.push_back(t);
  return out;
}

// A generator per run: the same --seed gives the same schedules.
std::mt19937_64 schedule_rng(uint64_t base_seed, uint64_t run_index) {
  std::seed_seq seq{static_cast<uint32_t>(base_seed), static_cast<uint32_t>(base_seed >> 32),
                    static_cast<uint32_t>(run_index)};
  return std::mt19937_64(seq);
}

// ---- results ----------------------------------------------------------------

struct Row {
  double offered_rps = 0;
  double seconds = 0;
  uint64_t items_per_request = 0;
  uint64_t sent = 0;
  double elapsed_s = 0;
  uint64_t ok = 0;
  uint64_t items_ok = 0;
  uint64_t timeouts = 0;
  uint64_t check_failures = 0;
  std::map<std::string, uint64_t> refused_by_code;
  std::map<int32_t, uint64_t> item_errors_by_status;
  std::map<std::string, uint64_t> transport_by_kind;
  std::map<std::string, std::string> messages;
  std::vector<double> latencies;  // seconds, ascending
  std::vector<double> lags;       // seconds, ascending
  double cpu_s = 0;               // this process's CPU over the rate's run (every thread)
  bool checked = false;           // --check-key found a reply to verify
  uint64_t check_rows = 0;        // the rows of it verified
  std::vector<std::string> check_reports;
};

template <typename K>
uint64_t total(const std::map<K, uint64_t>& counts) {
  uint64_t sum = 0;
  for (const auto& entry : counts) sum += entry.second;
  return sum;
}

template <typename K, typename V>
void merge_counts(const std::map<K, V>& from, std::map<K, V>* into) {
  for (const auto& entry : from) (*into)[entry.first] += entry.second;
}

Row summarize(RateRun* run, double rate, double seconds, uint64_t items) {
  Row row;
  row.offered_rps = rate;
  row.seconds = seconds;
  row.items_per_request = items;
  row.sent = run->sent;
  if (run->not_started > 0) row.transport_by_kind["call not started"] = run->not_started;
  Clock::time_point last_ok = Clock::time_point::min();
  for (Tally& t : run->tallies) {
    row.ok += t.ok;
    row.items_ok += t.items_ok;
    row.timeouts += t.timeouts;
    merge_counts(t.refused, &row.refused_by_code);
    merge_counts(t.item_errors, &row.item_errors_by_status);
    merge_counts(t.transport, &row.transport_by_kind);
    row.messages.insert(t.messages.begin(), t.messages.end());
    row.latencies.insert(row.latencies.end(), t.latencies.begin(), t.latencies.end());
    last_ok = std::max(last_ok, t.last_ok);
  }
  // A server that drains its backlog late is charged for it; without any
  // ok reply, the time until the last answer of any kind.
  const Clock::time_point last = last_ok == Clock::time_point::min() ? run->end : last_ok;
  row.elapsed_s = std::max(seconds, seconds_between(run->start, last));
  std::sort(row.latencies.begin(), row.latencies.end());
  row.lags = std::move(run->lags);
  std::sort(row.lags.begin(), row.lags.end());
  return row;
}

// Nearest rank of an ascending sequence; NaN (written as null) when empty.
double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return NAN;
  const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(q * sorted.size())));
  return sorted[std::min(rank, sorted.size()) - 1];
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return NAN;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double round_to(double value, double scale) { return std::round(value * scale) / scale; }

// Seconds to milliseconds, 3 decimals; NaN stays NaN.
double ms(double seconds) { return round_to(seconds * 1000.0, 1000.0); }

// Verifies the signatures of the rate's sample reply on the CPU against the
// server key: the count of rows (status 0) whose signature does not verify,
// the rows verified, and a line for each of the first few failures.
uint64_t check_sample(const Sample& sample, const Pool& pool, const ks_sm2_pubkey* key,
                      size_t items, uint64_t* verified, std::vector<std::string>* reports) {
  char line[160];
  if (sample.value_rows.size() != items * kSignatureBytes) {
    snprintf(line, sizeof line, "value_rows of %zu bytes, not %zu", sample.value_rows.size(),
             items * kSignatureBytes);
    reports->push_back(line);
    return items;
  }
  uint64_t failures = 0;
  for (size_t t = 0; t < items; ++t) {
    if (load_le32(&sample.statuses[4 * t]) != 0) continue;  // an item error, counted already
    ++*verified;
    const size_t item = pool_item(pool, items, sample.request, t);
    const auto* sig = reinterpret_cast<const uint8_t*>(&sample.value_rows[t * kSignatureBytes]);
    const int rc = ks_sm2_verify_digest(key, &pool.digests[item * kDigestBytes], sig);
    if (rc == KS_OK) continue;
    if (++failures <= kMaxCheckReports) {
      snprintf(line, sizeof line, "request window %zu row %zu (pool item %zu): %s (%d)",
               sample.request, t, item, ks_strerror(rc), rc);
      reports->push_back(line);
    }
  }
  return failures;
}

// ---- report -------------------------------------------------------------------

// A JSON document written in order, a member a line (as bench-serve's
// json.dump(indent=1)); all this report needs.
class JsonWriter {
 public:
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  void key(const std::string& k) {
    member_prefix();
    append_string(k);
    out_ += ": ";
    after_key_ = true;
  }

  void string(const std::string& s) {
    value_prefix();
    append_string(s);
  }

  void null() {
    value_prefix();
    out_ += "null";
  }

  void uint(uint64_t v) {
    value_prefix();
    out_ += std::to_string(v);
  }

  // Doubles as Python writes floats ("20.0", "1.234"); non-finite as null.
  void number(double v) {
    value_prefix();
    if (!std::isfinite(v)) {
      out_ += "null";
      return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", v);
    out_ += buf;
    if (strpbrk(buf, ".eE") == nullptr) out_ += ".0";
  }

  void member(const std::string& k, const std::string& v) {
    key(k);
    string(v);
  }

  void member(const std::string& k, uint64_t v) {
    key(k);
    uint(v);
  }

  void member(const std::string& k, double v) {
    key(k);
    number(v);
  }

  const std::string& text() const { return out_; }

 private:
  void open(char c) {
    value_prefix();
    out_ += c;
    first_.push_back(true);
  }

  void close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_ += c;
  }

  void value_prefix() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    member_prefix();
  }

  void member_prefix() {
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    newline();
  }

  void newline() {
    out_ += '\n';
    out_.append(first_.size(), ' ');
  }

  void append_string(const std::string& s) {
    out_ += '"';
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += static_cast<char>(c);
      } else if (c < 0x20) {
        char buf[8];
        snprintf(buf, sizeof buf, "\\u%04x", c);
        out_ += buf;
      } else {
        out_ += static_cast<char>(c);
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> first_;  // per open container: no member written yet
  bool after_key_ = false;
};

struct Host {
  long cpu_count = 0;
  std::string cpu_model;  // empty: unknown
  std::vector<double> loadavg;
  std::string datetime_utc;
};

Host host_info() {
  Host host;
  host.cpu_count = sysconf(_SC_NPROCESSORS_ONLN);
  std::string cpuinfo;
  if (read_file("/proc/cpuinfo", &cpuinfo)) {
    const size_t at = cpuinfo.find("model name");
    const size_t colon = at == std::string::npos ? at : cpuinfo.find(':', at);
    if (colon != std::string::npos) {
      const size_t eol = cpuinfo.find('\n', colon);
      std::string model = cpuinfo.substr(colon + 1, eol == std::string::npos ? eol
                                                                             : eol - colon - 1);
      const size_t b = model.find_first_not_of(" \t");
      const size_t e = model.find_last_not_of(" \t");
      if (b != std::string::npos) host.cpu_model = model.substr(b, e - b + 1);
    }
  }
  // Other load on the host skews every number measured.
  double load[3];
  if (getloadavg(load, 3) == 3) {
    for (double l : load) host.loadavg.push_back(round_to(l, 100.0));
  }
  const time_t now = time(nullptr);
  tm utc;
  gmtime_r(&now, &utc);
  char buf[40];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S+00:00", &utc);
  host.datetime_utc = buf;
  return host;
}

void write_optional_string(JsonWriter* w, const std::string& key, const std::string& value) {
  w->key(key);
  if (value.empty()) {
    w->null();
  } else {
    w->string(value);
  }
}

// Every flag but the token (its file's path is there).
void write_parameters(JsonWriter* w, const Options& o) {
  w->key("parameters");
  w->begin_object();
  w->member("address", o.address);
  w->member("token_file", o.token_file);
  w->member("op", o.op);
  write_optional_string(w, "key_id", o.sign() ? o.key_id : "");
  w->member("items", o.items);
  if (o.ed25519()) w->member("message_bytes", o.message_bytes);
  w->key("rates");
  w->begin_array();
  for (double r : o.rates) w->number(r);
  w->end_array();
  w->member("seconds", o.seconds);
  w->member("warmup", o.warmup);
  w->member("channels", o.channels);
  w->member("threads", o.threads);
  w->member("pool", o.pool);
  w->member("timeout_ms", o.timeout_ms);
  w->member("arrivals", o.arrivals);
  w->key("seed");
  if (o.has_seed) {
    w->uint(o.seed);
  } else {
    w->null();
  }
  write_optional_string(w, "cacert", o.cacert);
  write_optional_string(w, "check_key", o.check_key);
  write_optional_string(w, "json", o.json);
  w->end_object();
}

void write_host(JsonWriter* w, const Host& host) {
  w->key("host");
  w->begin_object();
  w->member("cpu_count", static_cast<uint64_t>(std::max(0L, host.cpu_count)));
  write_optional_string(w, "cpu_model", host.cpu_model);
  w->key("loadavg_at_start");
  w->begin_array();
  for (double l : host.loadavg) w->number(l);
  w->end_array();
  w->member("datetime_utc", host.datetime_utc);
  w->end_object();
}

template <typename K>
void write_counts(JsonWriter* w, const std::string& key, const std::map<K, uint64_t>& counts) {
  w->key(key);
  w->begin_object();
  for (const auto& entry : counts) {
    if constexpr (std::is_same<K, std::string>::value) {
      w->member(entry.first, entry.second);
    } else {
      w->member(std::to_string(entry.first), entry.second);
    }
  }
  w->end_object();
}

void write_latencies(JsonWriter* w, const std::vector<double>& sorted) {
  w->key("latency_ms");
  w->begin_object();
  const std::pair<const char*, double> quantiles[] = {
      {"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}, {"p99.9", 0.999}};
  for (const auto& q : quantiles) w->member(q.first, ms(percentile(sorted, q.second)));
  w->member("max", ms(sorted.empty() ? NAN : sorted.back()));
  w->member("mean", ms(mean(sorted)));
  w->end_object();
}

double cpu_us_per_request(const Row& r) {
  return r.sent ? r.cpu_s / static_cast<double>(r.sent) * 1e6 : NAN;
}

// The row as bench-serve writes it (the keys bench/serve_bench.sh reads).
void write_row(JsonWriter* w, const Row& r) {
  w->begin_object();
  w->member("offered_rps", r.offered_rps);
  w->member("seconds", r.seconds);
  w->member("items_per_request", r.items_per_request);
  w->member("sent", r.sent);
  w->member("elapsed_s", round_to(r.elapsed_s, 1e4));
  w->member("achieved_rps", round_to(static_cast<double>(r.ok) / r.elapsed_s, 100.0));
  w->member("achieved_items_per_s",
            round_to(static_cast<double>(r.items_ok) / r.elapsed_s, 100.0));
  w->member("ok", r.ok);
  w->member("items_ok", r.items_ok);
  w->member("refused", total(r.refused_by_code));
  write_counts(w, "refused_by_code", r.refused_by_code);
  w->member("item_errors", total(r.item_errors_by_status));
  write_counts(w, "item_errors_by_status", r.item_errors_by_status);
  w->member("transport_errors", total(r.transport_by_kind));
  w->member("timeouts", r.timeouts);
  w->member("check_failures", r.check_failures);
  w->member("generator_cpu_s", round_to(r.cpu_s, 1e4));
  w->member("generator_cpu_us_per_request", round_to(cpu_us_per_request(r), 100.0));
  write_latencies(w, r.latencies);
  w->key("lag_ms");
  w->begin_object();
  w->member("p99", ms(percentile(r.lags, 0.99)));
  w->member("max", ms(r.lags.empty() ? NAN : r.lags.back()));
  w->end_object();
  w->end_object();
}

std::string report_json(const Options& o, const Host& host,
                        const std::vector<Row>& rows) {
  JsonWriter w;
  w.begin_object();
  w.member("tool", kTool);
  write_parameters(&w, o);
  write_host(&w, host);
  w.key("rows");
  w.begin_array();
  for (const Row& row : rows) write_row(&w, row);
  w.end_array();
  w.end_object();
  return w.text() + "\n";
}

std::string cell(const char* format, double value) {
  if (!std::isfinite(value)) return "-";
  char buf[48];
  snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string cell(uint64_t value) { return std::to_string(value); }

void print_table(const std::vector<Row>& rows, bool with_check) {
  std::vector<std::string> heads = {"offered", "achieved", "items/s", "ok", "refused",
                                    "item err", "transport", "timeouts"};
  if (with_check) heads.push_back("check");
  for (const char* h : {"p50", "p99", "p99.9", "max", "lag p99", "cpu us/req"}) {
    heads.push_back(h);
  }
  std::vector<std::vector<std::string>> lines;
  for (const Row& r : rows) {
    std::vector<std::string> c = {
        cell("%.0f", r.offered_rps),
        cell("%.0f", static_cast<double>(r.ok) / r.elapsed_s),
        cell("%.0f", static_cast<double>(r.items_ok) / r.elapsed_s),
        cell(r.ok),
        cell(total(r.refused_by_code)),
        cell(total(r.item_errors_by_status)),
        cell(total(r.transport_by_kind)),
        cell(r.timeouts)};
    if (with_check) c.push_back(r.checked ? cell(r.check_failures) : "-");
    for (double q : {0.50, 0.99, 0.999}) c.push_back(cell("%.2f", ms(percentile(r.latencies, q))));
    c.push_back(cell("%.2f", ms(r.latencies.empty() ? NAN : r.latencies.back())));
    c.push_back(cell("%.2f", ms(percentile(r.lags, 0.99))));
    c.push_back(cell("%.1f", cpu_us_per_request(r)));
    lines.push_back(std::move(c));
  }
  std::vector<size_t> widths;
  for (size_t i = 0; i < heads.size(); ++i) {
    size_t width = heads[i].size();
    for (const auto& line : lines) width = std::max(width, line[i].size());
    widths.push_back(width);
  }
  auto print_line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      printf("%s%*s", i ? "  " : "", static_cast<int>(widths[i]), cells[i].c_str());
    }
    printf("\n");
  };
  print_line(heads);
  for (const auto& line : lines) print_line(line);
}

// The errors behind the table's counts, per rate, with an example message.
void print_notes(const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    std::string parts;
    auto add = [&parts](const std::string& part) { parts += (parts.empty() ? "" : "; ") + part; };
    for (const auto& e : r.item_errors_by_status) {
      add("item status " + std::to_string(e.first) + " (" + ks_strerror(e.first) +
          "): " + std::to_string(e.second));
    }
    for (const auto& e : r.refused_by_code) {
      add("refused " + e.first + ": " + std::to_string(e.second));
    }
    for (const auto& e : r.transport_by_kind) {
      add("transport " + e.first + ": " + std::to_string(e.second));
    }
    if (r.timeouts) add("DEADLINE_EXCEEDED: " + std::to_string(r.timeouts));
    for (const auto& m : r.messages) {
      if (!m.second.empty()) add(m.first + " says '" + m.second + "'");
    }
    if (!parts.empty()) printf("  at %.0f/s: %s\n", r.offered_rps, parts.c_str());
  }
}

// ---- main -------------------------------------------------------------------

bool channel_credentials(const Options& o, std::shared_ptr<grpc::ChannelCredentials>* out) {
  if (o.cacert.empty()) {
    *out = grpc::InsecureChannelCredentials();
    return true;
  }
  grpc::SslCredentialsOptions ssl;
  if (!read_file(o.cacert, &ssl.pem_root_certs)) {
    fprintf(stderr, "%s: --cacert %s: %s\n", kTool, o.cacert.c_str(), strerror(errno));
    return false;
  }
  *out = grpc::SslCredentials(ssl);
  return true;
}

uint64_t draw_seed() {
  uint64_t seed = 0;
  if (!fill_random(reinterpret_cast<uint8_t*>(&seed), sizeof seed)) {
    seed = static_cast<uint64_t>(Clock::now().time_since_epoch().count());
  }
  return seed;
}

// Runs every rate (after the warm-up) and returns the rows.
std::vector<Row> run_all(const Options& o, Client* client, const Pool& pool,
                         const ks_sm2_pubkey* check_key) {
  const uint64_t base_seed = o.has_seed ? o.seed : draw_seed();
  const bool poisson = o.arrivals == "poisson";
  // Fine-grained sleeps: the default 50 us timer slack would be lag. Best
  // effort: without it the sender is a little later, and the lag says so.
  (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  if (o.warmup > 0) {
    fprintf(stderr, "%s: warm-up at %g requests/s for %g s ...\n", kTool, o.rates[0], o.warmup);
    std::mt19937_64 rng = schedule_rng(base_seed, 0);
    RateRun warm(o.threads, false);
    client->run(&warm, schedule(o.rates[0], o.warmup, poisson, &rng));
  }
  std::vector<Row> rows;
  for (size_t i = 0; i < o.rates.size(); ++i) {
    const double rate = o.rates[i];
    fprintf(stderr, "%s: %g requests/s for %g s ...\n", kTool, rate, o.seconds);
    std::mt19937_64 rng = schedule_rng(base_seed, i + 1);
    RateRun run(o.threads, check_key != nullptr);
    std::vector<double> offsets = schedule(rate, o.seconds, poisson, &rng);
    const double cpu_before = process_cpu_s();
    client->run(&run, offsets);
    Row row = summarize(&run, rate, o.seconds, o.items);
    row.cpu_s = process_cpu_s() - cpu_before;
    if (check_key != nullptr && run.sample.taken) {
      row.checked = true;
      row.check_failures = check_sample(run.sample, pool, check_key, o.items, &row.check_rows,
                                        &row.check_reports);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void print_check_summary(const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    if (!r.checked) {
      printf("  check at %.0f/s: no ok reply to check\n", r.offered_rps);
      continue;
    }
    printf("  check at %.0f/s: %llu of the first ok reply's %llu signatures did not verify\n",
           r.offered_rps, static_cast<unsigned long long>(r.check_failures),
           static_cast<unsigned long long>(r.check_rows));
    for (const std::string& line : r.check_reports) printf("    %s\n", line.c_str());
  }
}

// ---- --library: the same rows straight into the library ---------------------

// The rate kuaisuo-grpcd's engines can reach without a transport: threads
// sharing one context (the server runs two per GPU), each gathering
// --items pool rows into page-locked buffers, as an engine gathers a
// batch, and calling the op's batch function, closed loop. Windows go
// round robin over the pool, so no call repeats the last one's items.
class LibraryRun {
 public:
  LibraryRun(const Options& o, const Pool& pool, ks_ctx* ctx, const ks_sm2_key* key)
      : o_(o), pool_(pool), ctx_(ctx), key_(key) {}

  // Items per second from the start until the last call that began within
  // --seconds returned, after one unrecorded call per thread; a negative
  // value when a call failed or a row did not get status 0.
  double items_per_second() {
    std::vector<std::thread> threads;
    const auto start = Clock::now() + std::chrono::milliseconds(200);
    for (uint64_t t = 0; t < o_.threads; ++t) {
      threads.emplace_back([this, t, start] { loop(t, start); });
    }
    for (auto& t : threads) t.join();
    if (failed_) return -1.0;
    return static_cast<double>(items_.load()) / seconds_between(start, Clock::now());
  }

 private:
  // Gathers window j's rows into the buffers (as an engine gathers a
  // batch) and makes the call; true when every row got status 0.
  bool call(size_t j, uint8_t* digests, uint8_t* keys, uint8_t* sigs, uint8_t* out,
            int* status) {
    const size_t n = o_.items;
    copy_window(pool_, pool_.digests, kDigestBytes, n, j, digests);
    if (o_.sign()) {
      return ks_sm2_sign_digest_batch(ctx_, key_, digests, n, KS_SM2_NONCE_RANDOM, out,
                                      n * kSignatureBytes, status) == KS_OK;
    }
    copy_window(pool_, pool_.public_keys, kPublicKeyBytes, n, j, keys);
    copy_window(pool_, pool_.signatures, kSignatureBytes, n, j, sigs);
    return ks_sm2_verify_digest_batch(ctx_, keys, digests, n, sigs, status) == KS_OK;
  }

  void loop(uint64_t t, Clock::time_point start) {
    const size_t n = o_.items, windows = (pool_.count + n - 1) / n;
    kuaisuo::serve::HostBuffer buffers[5];
    uint8_t* digests = buffers[0].get(n * kDigestBytes);
    uint8_t* keys = buffers[1].get(n * kPublicKeyBytes);
    uint8_t* sigs = buffers[2].get(n * kSignatureBytes);
    uint8_t* out = buffers[3].get(n * kSignatureBytes);
    int* st = reinterpret_cast<int*>(buffers[4].get(n * sizeof(int)));
    if (!digests || !keys || !sigs || !out || !st) {
      failed_ = true;
      return;
    }
    size_t j = t;
    if (!call(j % windows, digests, keys, sigs, out, st)) failed_ = true;  // warm-up
    sleep_until(start);
    const auto end = start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(o_.seconds));
    uint64_t items = 0;
    while (Clock::now() < end && !failed_) {
      j += o_.threads;
      if (!call(j % windows, digests, keys, sigs, out, st)) failed_ = true;
      items += n;
    }
    items_ += items;
  }

  const Options& o_;
  const Pool& pool_;
  ks_ctx* ctx_;
  const ks_sm2_key* key_;
  std::atomic<uint64_t> items_{0};
  std::atomic<bool> failed_{false};
};

int run_library(const Options& o, const Pool& pool) {
  ks_ctx_config config;
  ks_ctx_config_init(&config);
  config.backend = o.library == "cpu" ? KS_BACKEND_CPU
                   : o.library == "gpu" ? KS_BACKEND_GPU : KS_BACKEND_AUTO;
  ks_ctx* raw_ctx = nullptr;
  if (!ks_check(ks_ctx_new(&config, &raw_ctx), "--library: context")) return kExitSetup;
  CtxPtr ctx(raw_ctx);
  ks_sm2_key* raw_key = nullptr;
  if (!ks_check(ks_sm2_key_generate(&raw_key), "--library: keygen")) return kExitSetup;
  KeyPtr key(raw_key);
  const double rate = LibraryRun(o, pool, ctx.get(), key.get()).items_per_second();
  if (rate < 0) {
    fprintf(stderr, "%s: --library: a batch call failed\n", kTool);
    return kExitSetup;
  }
  printf("{\"mode\": \"library\", \"op\": \"%s\", \"backend\": \"%s\", \"threads\": %llu, "
         "\"items_per_call\": %llu, \"pool\": %zu, \"seconds\": %.3g, \"items_per_s\": %.0f}\n",
         o.op.c_str(), o.library.c_str(), static_cast<unsigned long long>(o.threads),
         static_cast<unsigned long long>(o.items), pool.count, o.seconds, rate);
  return 0;
}

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

// A benchmark's throwaway server key, written where only its owner reads it.
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

int usage_error(const std::string& message) {
  fprintf(stderr, "%s: %s\n%s", kTool, message.c_str(), kUsage);
  return kExitFlags;
}

}  // namespace

int main(int argc, char** argv) {
  GOOGLE_PROTOBUF_VERIFY_VERSION;
  kuaisuo::serve::release_mode_mutexes();
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("%s", kUsage);
      return 0;
    }
  }
  if ((argc == 3 || (argc == 4 && strcmp(argv[3], "ed25519") == 0)) &&
      strcmp(argv[1], "--new-key") == 0) {
    return write_new_key(argv[2], argc == 4);
  }
  Options o;
  const std::string error = parse_flags(argc, argv, &o);
  if (!error.empty()) return usage_error(error);

  if (!o.library.empty()) {
    Pool pool;
    if (!build_pool(o, std::max(o.pool, o.items), &pool)) return kExitSetup;
    return run_library(o, pool);
  }

  // Every file a flag names is read (or opened) before the long work.
  std::string token;
  if (!read_token(o.token_file, &token)) return kExitFlags;
  PubkeyPtr check_key;
  if (!o.check_key.empty() && !load_check_key(o.check_key, &check_key)) return kExitFlags;
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (!channel_credentials(o, &creds)) return kExitFlags;
  if (!o.json.empty() && !writable(o.json)) {
    fprintf(stderr, "%s: --json %s: %s\n", kTool, o.json.c_str(), strerror(errno));
    return kExitFlags;
  }

  const Host host = host_info();  // before the pool, as bench-serve does
  // No item twice in one request: the pool holds at least a request's worth.
  const uint64_t pool_size = std::max(o.pool, o.items);
  const auto pool_start = Clock::now();
  Pool pool;
  std::vector<std::string> requests;
  if (!build_pool(o, pool_size, &pool) || !build_requests(o, pool, &requests)) {
    fprintf(stderr, "%s: cannot build the input pool\n", kTool);
    return kExitSetup;
  }
  fprintf(stderr, "%s: pool of %llu items, %zu requests of %llu, in %.2f s\n", kTool,
          static_cast<unsigned long long>(pool_size), requests.size(),
          static_cast<unsigned long long>(o.items), seconds_between(pool_start, Clock::now()));

  std::vector<Row> rows;
  {
    Client client(o, token, creds, std::move(requests));
    if (!client.connect()) return kExitSetup;
    rows = run_all(o, &client, pool, check_key.get());
  }

  printf("kuaisuo serve over gRPC (%s%s), %s, %llu items/request, %s arrivals, %llu channels\n",
         o.address.c_str(), o.cacert.empty() ? "" : ", TLS", o.op.c_str(),
         static_cast<unsigned long long>(o.items), o.arrivals.c_str(),
         static_cast<unsigned long long>(o.channels));
  print_table(rows, check_key != nullptr);
  print_notes(rows);
  if (check_key) print_check_summary(rows);

  if (!o.json.empty() && !write_file(o.json, report_json(o, host, rows))) {
    fprintf(stderr, "%s: --json %s: %s\n", kTool, o.json.c_str(), strerror(errno));
    return kExitSetup;
  }
  return 0;
}
