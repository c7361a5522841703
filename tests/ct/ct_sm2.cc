// Runs SM2 key generation, signing and key parsing with secrets marked
// undefined (see core/secure.h). Under valgrind (KS_CTGRIND) or built with
// MemorySanitizer (KS_CT_MSAN), any branch or address that depends on a
// private key, a nonce or a key file's secret bytes is an error. Prints
// "N passed, 0 failed" when the operations themselves succeed (the
// checker's exit code carries the verdict on timing).
//
// Covered: single operations on the field the CPU dispatch picks (MULX/ADX
// where present; KS_CPU_FEATURES=portable for the portable one), the batch
// calls (8-lane AVX-512 IFMA where present) through the C API, PKCS#8 and
// SEC1 decoding with the private key's bytes secret, PEM's base64 both
// ways, HMAC-SM3 under a secret key, encryption (k, the shared point and
// the message secret; with and without the recipient's comb table) and
// decryption (the private key secret, and so the shared point and the
// plaintext) in every form, and key exchange with confirmation (static and
// ephemeral keys secret). valgrind emulates a CPU without ADX and AVX-512,
// so only the MSan build checks those paths.
#include <stdio.h>
#include <string.h>

#include <vector>

#include "core/os_random.h"
#include "core/secure.h"
#include "sm2/sm2_curve.h"
#include "sm2/sm2_curve_mb.h"
#include "sm2/sm2_mb.h"
#include "encoding/pem.h"
#include "sm3/sm3.h"
#include "kuaisuo.h"
#include "sm2/sm2.h"
#include "sm2/sm2_encrypt.h"
#include "sm2/sm2_exchange.h"
#include "ct_tally.h"

namespace {

using ks_ct::expect;

bool is_ok(ks::sm2::Error e) { return ks::ct_public(e) == ks::sm2::Error::kOk; }
bool is_ok(int status) { return ks::ct_public(status) == KS_OK; }

const uint8_t* id() { return reinterpret_cast<const uint8_t*>(ks::sm2::kDefaultId); }

void single_operations(const uint8_t e[32]) {
  using namespace ks::sm2;
  PrivateKey key;  // d from os_random: secret
  expect(is_ok(generate_key(key)), "generate_key");
  uint8_t sig[64];
  expect(is_ok(sign_digest(sig, key, e, Nonce::kRandom)), "sign_digest (random k)");
  expect(is_ok(sign_digest(sig, key, e, Nonce::kDeterministic)), "sign_digest (RFC 6979 k)");
  uint8_t msg[100] = {1, 2, 3};
  expect(is_ok(sign_message(sig, key, id(), kDefaultIdBytes, msg, sizeof msg, Nonce::kRandom)),
         "sign_message");
  // A private key loaded from bytes: secret as well.
  uint8_t d[32];
  private_key_to_bytes(d, key);
  ks::ct_poison(d, sizeof d);
  PrivateKey loaded;
  expect(is_ok(private_key_from_bytes(loaded, d)), "private_key_from_bytes");
  // Verification of our own signature (public inputs) as a sanity check.
  ks::ct_declassify(sig, sizeof sig);
  expect(is_ok(verify_message(key.pub, id(), kDefaultIdBytes, msg, sizeof msg, sig)),
         "verify_message");
}

// SM2 encryption and decryption: only the ciphertext (after encryption)
// and the verdicts are public.
void encryption() {
  using namespace ks::sm2;
  PrivateKey key;
  expect(is_ok(generate_key(key)), "generate_key");
  uint8_t msg[300], ct[300 + kCiphertextOverhead + kDerExtraBytes], back[300];
  ks_ct::secret_random(msg, sizeof msg);
  const ks::curve::PointTablePtr table = ks::curve::make_point_table(key.pub.point);
  for (CipherForm form : {CipherForm::kC1C3C2, CipherForm::kC1C2C3, CipherForm::kDer}) {
    size_t n = 0, m = 0;
    expect(is_ok(encrypt(key.pub, msg, sizeof msg, form, ct, sizeof ct, &n, nullptr,
                         table.get())),
           "encrypt with the key's comb table");
    expect(is_ok(encrypt(key.pub, msg, sizeof msg, form, ct, sizeof ct, &n)), "encrypt");
    ks::ct_declassify(ct, sizeof ct);  // what goes on the wire
    ks::ct_declassify(&n, sizeof n);
    expect(is_ok(decrypt(key, ct, n, form, back, sizeof back, &m)), "decrypt");
    ct[n - 1] ^= 1;  // a wrong C2 or C3: refused, in constant time up to the verdict
    expect(ks::ct_public(decrypt(key, ct, n, form, back, sizeof back, &m)) ==
               Error::kCiphertextMismatch,
           "decrypt refuses a damaged ciphertext");
  }
}

// The encryption batches through the C API (eight items in IFMA lanes
// where present): the key, the nonces and the messages secret; the
// ciphertexts public once made.
void encryption_batches(ks_ctx* ctx) {
  constexpr size_t kCount = 11;
  constexpr size_t kLen = 40, kExtra = KS_SM2_CIPHERTEXT_OVERHEAD;
  ks_sm2_key* key = nullptr;
  ks_sm2_pubkey* pub = nullptr;
  expect(is_ok(ks_sm2_key_generate(&key)) && is_ok(ks_sm2_key_public(key, &pub)), "keys");
  uint8_t msgs[kCount * kLen], cts[kCount * (kLen + kExtra)], back[kCount * (kLen + kExtra)];
  ks_ct::secret_random(msgs, sizeof msgs);
  uint64_t offsets[kCount + 1], ct_offsets[kCount + 1], lengths[kCount];
  for (size_t i = 0; i <= kCount; ++i) {
    offsets[i] = i * kLen;
    ct_offsets[i] = i * (kLen + kExtra);
  }
  int status[kCount];
  expect(is_ok(ks_sm2_encrypt_batch(ctx, pub, KS_SM2_C1C3C2, msgs, sizeof msgs, offsets, kCount,
                                    cts, sizeof cts, lengths, status)),
         "ks_sm2_encrypt_batch");
  ks::ct_declassify(cts, sizeof cts);  // on the wire
  expect(is_ok(ks_sm2_decrypt_batch(ctx, key, KS_SM2_C1C3C2, cts, sizeof cts, ct_offsets, kCount,
                                    back, sizeof back, lengths, status)),
         "ks_sm2_decrypt_batch");
  ks_sm2_pubkey_free(pub);
  ks_sm2_key_free(key);
}

// Key exchange with confirmation:// Key exchange with confirmation: both static keys and both ephemeral
// ones secret; R_A, R_B, the tags (once on the wire) and the verdicts
// public.
void key_exchange() {
  using namespace ks::sm2;
  PrivateKey a, b;
  expect(is_ok(generate_key(a)) && is_ok(generate_key(b)), "generate_key");
  for (bool forged : {false, true}) {
    KeyExchange ia, rb;
    expect(is_ok(ia.init(ExchangeRole::kInitiator, a, id(), kDefaultIdBytes, b.pub, id(),
                         kDefaultIdBytes, true)) &&
               is_ok(rb.init(ExchangeRole::kResponder, b, id(), kDefaultIdBytes, a.pub, id(),
                             kDefaultIdBytes, true)),
           "key exchange init");
    uint8_t r_a[65], r_b[65], s_b[32], s_a[32], key_a[48], key_b[48];
    expect(is_ok(ia.start(r_a)), "start");
    expect(is_ok(rb.respond(r_a, sizeof r_a, r_b, s_b, nullptr, 0)), "respond");
    ks::ct_declassify(s_b, sizeof s_b);  // sent
    expect(is_ok(ia.finish(r_b, sizeof r_b, s_b, key_a, sizeof key_a, s_a)), "finish");
    ks::ct_declassify(s_a, sizeof s_a);
    if (forged) s_a[0] ^= 1;
    const Error e = rb.confirm(s_a, key_b, sizeof key_b);
    expect(ks::ct_public(e) == (forged ? Error::kConfirmMismatch : Error::kOk),
           forged ? "confirm refuses a forged tag" : "confirm");
  }
}

// The batch calls on one CPU thread (no worker threads: the check follows
// the calling thread), 8 lanes at a time where the CPU has IFMA.
void batches(ks_ctx* ctx, const uint8_t e[32]) {
  constexpr size_t kCount = 11;  // a full group of 8 and a partial one
  uint8_t priv[32 * kCount], pub[65 * kCount], digests[32 * kCount], sigs[64 * kCount];
  int status[kCount];
  for (size_t i = 0; i < kCount; ++i) memcpy(digests + 32 * i, e, 32);
  expect(is_ok(ks_sm2_keygen_batch(ctx, kCount, priv, sizeof priv, pub, sizeof pub, status)),
         "ks_sm2_keygen_batch");
  ks::ct_declassify(pub, sizeof pub);  // public halves are public
  expect(is_ok(ks_sm2_sign_digest_batch_keys(ctx, priv, digests, kCount, KS_SM2_NONCE_RANDOM,
                                             sigs, sizeof sigs, status)),
         "ks_sm2_sign_digest_batch_keys (random k)");
  expect(is_ok(ks_sm2_sign_digest_batch_keys(ctx, priv, digests, kCount,
                                             KS_SM2_NONCE_DETERMINISTIC, sigs, sizeof sigs,
                                             status)),
         "ks_sm2_sign_digest_batch_keys (RFC 6979 k)");
  ks_sm2_key* key = nullptr;
  expect(is_ok(ks_sm2_key_from_bytes(priv, 32, &key)), "ks_sm2_key_from_bytes");
  if (key == nullptr) return;
  expect(is_ok(ks_sm2_sign_digest_batch(ctx, key, digests, kCount, KS_SM2_NONCE_RANDOM, sigs,
                                        sizeof sigs, status)),
         "ks_sm2_sign_digest_batch");
  const uint8_t data[] = "three messages";
  const uint64_t offsets[] = {0, 5, 5, 14};
  expect(is_ok(ks_sm2_sign_batch(ctx, key, id(), KS_SM2_DEFAULT_ID_BYTES, data, 14, offsets, 3,
                                 KS_SM2_NONCE_DETERMINISTIC, sigs, sizeof sigs, status)),
         "ks_sm2_sign_batch (RFC 6979 k)");
  ks_sm2_key_free(key);
}

// Decodes `der` with its secret bytes [at, at + 32) marked secret.
void decode_with_secret(const std::vector<uint8_t>& der, size_t at, const char* what) {
  std::vector<uint8_t> in(der);
  ks::ct_poison(in.data() + at, 32);
  ks_sm2_key* key = nullptr;
  expect(is_ok(ks_sm2_key_decode(in.data(), in.size(), &key)), what);
  ks_sm2_key_free(key);
}

// The offset of d inside a PKCS#8 or SEC1 encoding: after the OCTET STRING
// header 04 20 that precedes it (the structure around it is public).
size_t d_offset(const std::vector<uint8_t>& der, const uint8_t d[32]) {
  for (size_t i = 2; i + 32 <= der.size(); ++i)
    if (der[i - 2] == 0x04 && der[i - 1] == 0x20 && memcmp(&der[i], d, 32) == 0) return i;
  return 0;
}

void key_formats() {
  ks_sm2_key* key = nullptr;
  expect(is_ok(ks_sm2_key_generate(&key)), "ks_sm2_key_generate");
  if (key == nullptr) return;
  // Encoders of a secret: DER, and PEM's base64 of it.
  size_t len = 0;
  ks_sm2_key_encode(key, 0, nullptr, 0, &len);
  std::vector<uint8_t> der(len);
  expect(is_ok(ks_sm2_key_encode(key, 0, der.data(), der.size(), &len)), "PKCS#8 DER encode");
  ks_sm2_key_encode(key, 1, nullptr, 0, &len);
  std::vector<uint8_t> pem(len + 1);
  expect(is_ok(ks_sm2_key_encode(key, 1, pem.data(), pem.size(), &len)), "PKCS#8 PEM encode");
  uint8_t d[32];
  ks_sm2_key_to_bytes(key, d);
  ks_sm2_key_free(key);
  // Everything below handles the key as an attacker-observed program
  // would: the file's layout is public, d is not.
  ks::ct_declassify(der.data(), der.size());
  ks::ct_declassify(pem.data(), pem.size());
  ks::ct_declassify(d, sizeof d);
  const size_t at = d_offset(der, d);
  expect(at != 0, "d inside the PKCS#8 encoding");
  if (at != 0) decode_with_secret(der, at, "PKCS#8 DER decode");
  // SEC1 ECPrivateKey: the content of PKCS#8's privateKey OCTET STRING
  // (04 len 30 ...: the first 04 in the structure, the OIDs before it
  // holding none).
  std::vector<uint8_t> sec1;
  for (size_t i = 0; i + 2 < der.size(); ++i)
    if (der[i] == 0x04 && der[i + 2] == 0x30) {
      sec1.assign(der.begin() + long(i) + 2, der.end());
      break;
    }
  const size_t sec1_d = d_offset(sec1, d);
  expect(sec1_d != 0, "d inside the SEC1 encoding");
  if (sec1_d != 0) decode_with_secret(sec1, sec1_d, "SEC1 DER decode");
  // PEM: the whole base64 body is secret; only the BEGIN/END lines are not.
  const char* text = reinterpret_cast<const char*>(pem.data());
  const char* body = strchr(text, '\n') + 1;
  const char* stop = strstr(body, "-----END");
  ks::ct_poison(body, size_t(stop - body));
  static const char* const kLabels[] = {"PRIVATE KEY"};
  ks::Bytes decoded;
  const ks::pem::Error err = ks::pem::decode(pem.data(), len, kLabels, 1, &decoded);
  expect(ks::ct_public(err) == ks::pem::Error::kOk, "PEM body decode");
  ks::ct_declassify(decoded.data(), decoded.size());
  expect(decoded.size() == der.size() && memcmp(decoded.data(), der.data(), der.size()) == 0,
         "PEM body decodes to the DER");
}

void hmac_under_secret_key() {
  uint8_t key[40], tag[32];
  if (!ks::os_random(key, sizeof key)) return;  // secret
  const uint8_t msg[] = "message";
  ks::sm3::hmac(key, sizeof key, msg, sizeof msg, tag);
  ks::ct_declassify(tag, sizeof tag);
  expect(true, "hmac_sm3");
}

// The check is only as good as the taint's path through the code: a
// secret that came out of the assembly (or the IFMA intrinsics) looking
// public would make every test above pass vacuously. MSan can say whether a
// value is still secret; valgrind's equivalent would report an error.
void taint_reaches_the_results() {
#if defined(KS_CT_MSAN)
  ks::field::U256 k[ks::curve::mb::kLanes];
  if (!ks::os_random(reinterpret_cast<uint8_t*>(k), sizeof k)) return;
  for (auto& x : k) x.w[3] &= 0x0fffffffffffffff;  // below n
  const ks::curve::Affine one = ks::curve::mul_base_affine(k[0]);
  expect(ks::ct_is_secret(&one, sizeof one), "[k]G (dispatched field) stays secret");
  if (ks::sm2::mb::available()) {
    ks::curve::Affine lanes[ks::curve::mb::kLanes];
    ks::curve::mb::mul_base_x8(lanes, k);
    expect(ks::ct_is_secret(&lanes[0], sizeof lanes[0]), "[k]G (8 IFMA lanes) stays secret");
  }
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--leak") == 0) return ks_ct::leak_on_purpose();
  uint8_t e[32];
  if (!ks::os_random(e, sizeof e)) return 2;
  ks::ct_declassify(e, sizeof e);  // the digest is public

  ks_ctx_config config;
  ks_ctx_config_init(&config);
  config.backend = KS_BACKEND_CPU;
  config.cpu_threads = 1;
  ks_ctx* ctx = nullptr;
  if (ks_ctx_new(&config, &ctx) != KS_OK) return 2;
  for (int round = 0; round < 3; ++round) {
    single_operations(e);
    batches(ctx, e);
  }
  key_formats();
  encryption();
  key_exchange();
  encryption_batches(ctx);
  hmac_under_secret_key();
  taint_reaches_the_results();
  ks_ctx_free(ctx);
  const ks_ct::Tally& t = ks_ct::tally();
  printf("%d passed, %d failed (cpu: %s)\n", t.passes, t.failures, ks_cpu_features());
  return t.failures == 0 ? 0 : 1;
}
