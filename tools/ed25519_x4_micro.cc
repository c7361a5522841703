// One-thread throughput of single Curve25519 operations: the 4-lane ymm
// IFMA path (curve25519/ed25519_x4.h) against the scalar path (MULX/ADX field,
// curve::ed25519::scalar) and OpenSSL's EVP, in the same process.
//   - X25519 derive (clamp, ladder, encoding) and OpenSSL's EVP_PKEY_derive
//     (context and peer set up before timing);
//   - Ed25519 sign and verify of a 64-byte message: the scheme's steps
//     (curve25519/ed25519.cc: hashes, [r]B and its encoding, the signing
//     equation; parse_signature, the hash, the verification equation) with
//     the curve operation of either path, the library's own dispatched
//     ks::ed25519::sign/verify, and OpenSSL's EVP_DigestSign/Verify;
//   - the curve operations alone ([k]B, the ladder, the equation).
// Each measurement runs ~0.2 s of this thread's CPU time; the variants
// alternate within each repetition, and the median is reported.
//   ed25519_x4_micro [repetitions]
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <functional>
#include <vector>

#include "core/cpu_features.h"
#include "core/os_random.h"
#include "curve25519/ed25519_curve.h"
#include "curve25519/ed25519_x4.h"
#include "field/fe25519.h"
#include "field/sc25519.h"
#include "hash/sha512.h"
#include "micro_timing.h"
#include "curve25519/ed25519.h"
#include "curve25519/x25519.h"

namespace {

namespace curve = ks::curve::ed25519;
using ks::field::Fe25519;
using ks::field::Sc25519;
using ks::field::U256;

void check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "ed25519_x4_micro: %s failed\n", what);
    exit(1);
  }
}

// --- The scheme's steps with a chosen curve path ------------------------------

struct Path {
  curve::Point (*mul_base)(const U256&);
  void (*encode)(uint8_t*, const curve::Point&);
  U256 (*x25519)(const U256&, const U256&);
  bool (*decode)(curve::Point&, const uint8_t*);
  bool (*has_small_order)(const curve::Point&);
  bool (*verify_equation)(const U256&, const U256&, const curve::Point&, const curve::Point&);
};
// Encoding's inversion runs on the scalar field on either path (ed25519_curve.cc).
const Path kX4 = {curve::x4::mul_base, curve::scalar::encode,      curve::x4::x25519,
                  curve::x4::decode,   curve::x4::has_small_order, curve::x4::verify_equation};
const Path kScalar = {curve::scalar::mul_base,        curve::scalar::encode,
                      curve::scalar::x25519,          curve::scalar::decode,
                      curve::scalar::has_small_order, curve::scalar::verify_equation};

U256 hash_to_scalar(const uint8_t* a, size_t a_len, const uint8_t* b, size_t b_len,
                    const uint8_t* m, size_t m_len) {
  ks::sha512::Sha512 h;
  h.update(a, a_len);
  h.update(b, b_len);
  h.update(m, m_len);
  uint8_t digest[64];
  h.finish(digest);
  return Sc25519::reduce_wide(digest);
}

// RFC 8032 5.1.6 (pure Ed25519), as curve25519/ed25519.cc sign.
void sign_with(const Path& path, uint8_t sig[64], const ks::ed25519::PrivateKey& key,
               const uint8_t* msg, size_t len) {
  const U256 r = hash_to_scalar(key.prefix, 32, nullptr, 0, msg, len);
  path.encode(sig, path.mul_base(r));
  const U256 k = hash_to_scalar(sig, 32, key.pub.bytes, 32, msg, len);
  Sc25519::to_le_bytes(sig + 32, ks::ed25519::signing_equation(r, k, key.s_mont));
}

// RFC 8032 5.1.7 with the library's rules, as curve25519/ed25519.cc verify
// (parse_signature: S < L, R canonical and of large order).
bool verify_with(const Path& path, const ks::ed25519::PublicKey& key, const uint8_t* msg,
                 size_t len, const uint8_t sig[64]) {
  curve::Point r;
  if (!Sc25519::is_canonical(sig + 32)) return false;
  if (!path.decode(r, sig) || path.has_small_order(r)) return false;
  const U256 s = Sc25519::from_le_bytes(sig + 32);
  const U256 k = hash_to_scalar(sig, 32, key.bytes, 32, msg, len);
  return path.verify_equation(s, k, key.point, r);
}

// RFC 7748 5, as curve25519/x25519.cc shared_secret.
void derive_with(const Path& path, uint8_t out[32], const uint8_t k[32], const uint8_t u[32]) {
  Fe25519::to_bytes(out, path.x25519(ks::x25519::clamp(k), ks::x25519::decode_u(u)));
}

// --- OpenSSL ---------------------------------------------------------------------

struct OpenSsl {
  EVP_PKEY* ed = nullptr;
  EVP_MD_CTX* sign_md = nullptr;
  EVP_MD_CTX* verify_md = nullptr;
  EVP_PKEY* x = nullptr;
  EVP_PKEY* peer = nullptr;
  EVP_PKEY_CTX* derive = nullptr;

  explicit OpenSsl(const uint8_t peer_pub[32]) {
    ed = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
    x = EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519");
    peer = EVP_PKEY_new_raw_public_key_ex(nullptr, "X25519", nullptr, peer_pub, 32);
    sign_md = EVP_MD_CTX_new();
    verify_md = EVP_MD_CTX_new();
    derive = EVP_PKEY_CTX_new_from_pkey(nullptr, x, nullptr);
    check(ed && x && peer && sign_md && verify_md && derive, "OpenSSL keys");
    check(EVP_DigestSignInit(sign_md, nullptr, nullptr, nullptr, ed) == 1 &&
              EVP_DigestVerifyInit(verify_md, nullptr, nullptr, nullptr, ed) == 1 &&
              EVP_PKEY_derive_init(derive) == 1 && EVP_PKEY_derive_set_peer(derive, peer) == 1,
          "OpenSSL contexts");
  }
  ~OpenSsl() {
    EVP_PKEY_CTX_free(derive);
    EVP_MD_CTX_free(sign_md);
    EVP_MD_CTX_free(verify_md);
    EVP_PKEY_free(ed);
    EVP_PKEY_free(x);
    EVP_PKEY_free(peer);
  }
  bool sign(uint8_t sig[64], const uint8_t* msg, size_t len) {
    size_t sig_len = 64;
    return EVP_DigestSign(sign_md, sig, &sig_len, msg, len) == 1 && sig_len == 64;
  }
  bool verify(const uint8_t sig[64], const uint8_t* msg, size_t len) {
    return EVP_DigestVerify(verify_md, sig, 64, msg, len) == 1;
  }
  bool derive_secret(uint8_t out[32]) {
    size_t len = 32;
    return EVP_PKEY_derive(derive, out, &len) == 1 && len == 32;
  }
};

// The machine's load average (shared machines: report it with the rates).
void print_load(const char* when) {
  FILE* f = fopen("/proc/loadavg", "r");
  char line[128] = "?";
  if (f != nullptr) {
    if (fgets(line, sizeof line, f) == nullptr) line[0] = 0;
    fclose(f);
  }
  line[strcspn(line, "\n")] = 0;
  printf("load average %s: %s\n", when, line);
}

struct Row {
  const char* name;
  std::function<void()> x4, scalar, dispatched, openssl;
};

double rate(const std::function<void()>& op) {
  return op ? ks_micro::calls_per_second(op, 0.2, 4) : 0.0;
}

void print_rate(double r) {
  if (r > 0)
    printf(" %10.0f", r);
  else
    printf(" %10s", "-");
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 5;
  check(curve::x4::available(), "AVX-512 IFMA (the 4-lane path cannot run here)");

  // Inputs: an Ed25519 key, a 64-byte message and its signature; an X25519
  // private key and a peer's public key.
  ks::ed25519::PrivateKey key;
  check(ks::ed25519::generate_key(key) == ks::ed25519::Error::kOk, "generate_key");
  uint8_t msg[64];
  check(ks::os_random(msg, sizeof msg), "os_random");
  const ks::ed25519::Domain pure;
  uint8_t sig[64], sig_x4[64], sig_scalar[64];
  check(ks::ed25519::sign(sig, key, pure, msg, sizeof msg) == ks::ed25519::Error::kOk, "sign");
  sign_with(kX4, sig_x4, key, msg, sizeof msg);
  sign_with(kScalar, sig_scalar, key, msg, sizeof msg);
  check(memcmp(sig, sig_x4, 64) == 0 && memcmp(sig, sig_scalar, 64) == 0, "signatures agree");
  check(verify_with(kX4, key.pub, msg, sizeof msg, sig) &&
            verify_with(kScalar, key.pub, msg, sizeof msg, sig),
        "verify");
  uint8_t xk[32], peer_priv[32], peer_pub[32], shared[32], shared_scalar[32];
  check(ks::os_random(xk, 32) && ks::os_random(peer_priv, 32), "os_random");
  ks::x25519::public_key(peer_pub, peer_priv);
  derive_with(kX4, shared, xk, peer_pub);
  derive_with(kScalar, shared_scalar, xk, peer_pub);
  check(memcmp(shared, shared_scalar, 32) == 0, "X25519 agrees");
  OpenSsl ssl(peer_pub);
  uint8_t ssl_sig[64];
  check(ssl.sign(ssl_sig, msg, sizeof msg) && ssl.verify(ssl_sig, msg, sizeof msg) &&
            ssl.derive_secret(shared),
        "OpenSSL operations");

  // The curve operations alone.
  const U256 scalar_k = ks::x25519::clamp(xk), u = ks::x25519::decode_u(peer_pub);
  curve::Point r_point;
  U256 s_value;
  check(ks::ed25519::parse_signature(r_point, s_value, sig) == ks::ed25519::Error::kOk, "parse");
  const U256 k_value = hash_to_scalar(sig, 32, key.pub.bytes, 32, msg, sizeof msg);

  volatile bool sink = false;
  uint8_t out[64];
  const Row rows[] = {
      {"x25519 derive", [&] { derive_with(kX4, out, xk, peer_pub); },
       [&] { derive_with(kScalar, out, xk, peer_pub); },
       [&] { sink = ks::x25519::shared_secret(out, xk, peer_pub) == ks::x25519::Error::kOk; },
       [&] { sink = ssl.derive_secret(out); }},
      {"ed25519 sign", [&] { sign_with(kX4, out, key, msg, sizeof msg); },
       [&] { sign_with(kScalar, out, key, msg, sizeof msg); },
       [&] {
         sink = ks::ed25519::sign(out, key, pure, msg, sizeof msg) == ks::ed25519::Error::kOk;
       },
       [&] { sink = ssl.sign(out, msg, sizeof msg); }},
      {"ed25519 verify", [&] { sink = verify_with(kX4, key.pub, msg, sizeof msg, sig); },
       [&] { sink = verify_with(kScalar, key.pub, msg, sizeof msg, sig); },
       [&] {
         sink = ks::ed25519::verify(key.pub, pure, msg, sizeof msg, sig) == ks::ed25519::Error::kOk;
       },
       [&] { sink = ssl.verify(ssl_sig, msg, sizeof msg); }},
      {"  [k]B", [&] { r_point = curve::x4::mul_base(k_value); },
       [&] { r_point = curve::scalar::mul_base(k_value); }, nullptr, nullptr},
      {"  ladder", [&] { sink = curve::x4::x25519(scalar_k, u).w[0] & 1; },
       [&] { sink = curve::scalar::x25519(scalar_k, u).w[0] & 1; }, nullptr, nullptr},
      {"  equation",
       [&] { sink = curve::x4::verify_equation(s_value, k_value, key.pub.point, r_point); },
       [&] { sink = curve::scalar::verify_equation(s_value, k_value, key.pub.point, r_point); },
       nullptr, nullptr},
      {"  decode R", [&] { sink = curve::x4::decode(r_point, sig); },
       [&] { sink = curve::scalar::decode(r_point, sig); }, nullptr, nullptr},
      {"  small order", [&] { sink = curve::x4::has_small_order(r_point); },
       [&] { sink = curve::scalar::has_small_order(r_point); }, nullptr, nullptr},
  };
  check(curve::decode(r_point, sig), "decode");

  printf("CPU: %s [%s], one thread, median of %d runs of 0.2 s CPU time each, ops/s\n",
         ks::cpu_model_name().c_str(), ks::cpu_feature_string(ks::cpu_features()).c_str(), reps);
  print_load("before");
  printf("%-16s %10s %10s %10s %10s %8s %8s %8s\n", "op", "x4 (IFMA)", "scalar", "library",
         "OpenSSL", "x4/OSSL", "sc/OSSL", "x4/sc");
  for (const Row& row : rows) {
    std::vector<double> a, b, c, d;
    for (int i = 0; i < reps; ++i) {
      a.push_back(rate(row.x4));
      b.push_back(rate(row.scalar));
      c.push_back(rate(row.dispatched));
      d.push_back(rate(row.openssl));
    }
    const double x4 = ks_micro::median(a), sc = ks_micro::median(b), lib = ks_micro::median(c),
                 ossl = ks_micro::median(d);
    printf("%-16s", row.name);
    print_rate(x4);
    print_rate(sc);
    print_rate(lib);
    print_rate(ossl);
    if (ossl > 0)
      printf(" %7.2fx %7.2fx", x4 / ossl, sc / ossl);
    else
      printf(" %8s %8s", "", "");
    if (sc > 0) printf(" %7.2fx", x4 / sc);
    printf("\n");
  }
  print_load("after");
  return 0;
}
