// fuzz_batch_args_25519: the Ed25519 and X25519 batch calls
// (ks_ed25519_keygen_batch, ks_ed25519_public_keys_batch,
// ks_ed25519_sign_batch, ks_ed25519_sign_batch_keys,
// ks_ed25519_verify_batch, ks_x25519_keygen_batch,
// ks_x25519_public_keys_batch, ks_x25519_derive_batch[_keys]) driven as fuzz_batch_args
// drives the SM3/SM2 ones: counts, data lengths, offsets, output lengths
// and NULL pointers taken from the input, on CPU contexts of 1 and 2
// threads, in the same shapes (valid small, valid large, bad arguments,
// counts whose byte sizes overflow).
//
// A target of its own rather than eight more ops in fuzz_batch_args.cc:
// that file was already the largest target and would have doubled, and a
// run's time goes to one family (SM2 items cost several times what 25519
// items do: in a shared target SM2 calls would take most of the time).
// What the two share, the argument machinery and the checks of an answer,
// is batch_args.h; the input layout (op, control byte, fields) is alike.
// Like fuzz_batch_args it wants scripts/fuzz's -len_control=0 and
// -max_len=8192 (large calls read long inputs).
//
// Every buffer is an exactly-sized heap allocation of the size the call is
// told (offsets: count + 1 entries; output buffers sometimes a little
// larger), so a read or write past one is an AddressSanitizer report.
// What may lie is what the header says is checked: offsets (decreasing,
// past data_len), output lengths smaller than needed, counts whose byte
// sizes overflow (then the buffers are small), NULL pointers.
//
// Properties checked:
//  - bad arguments: the call returns one of the codes that name what is
//    wrong (worked out from the arguments here), writes no status and no
//    output byte, and reads nothing it was not given;
//  - good arguments: KS_OK or KS_ERR_BATCH_ITEMS as the statuses say, a
//    status for each item and none past them, no output byte past the
//    items; and the items agree (all of them, or the first and last
//    kChecked of large calls) with the one-item calls:
//     keygen: the public key is that of the fresh seed / private key
//       (ks_ed25519_key_from_seed + ks_ed25519_key_public;
//       ks_x25519_public_key); public_keys: the same for given secrets;
//     sign (one key, per-item seeds): equal to ks_ed25519_sign;
//     verify: the status of ks_ed25519_verify, or KS_ERR_BAD_PUBLIC_KEY
//       where ks_ed25519_pubkey_from_bytes refuses the key, with good,
//       corrupted and arbitrary signatures mixed with small-order, mixed-
//       order and non-canonical keys and R values and S >= L;
//     x25519 (one key, or per-item keys with the _keys call): the
//       status and secret of ks_x25519, with small-order, non-canonical and
//       all-zero peer values (KS_ERR_ZERO_SHARED_SECRET, zeroed output);
//  - at start-up, the one-item calls themselves answer the RFC 8032 /
//    RFC 7748 vectors and refuse the special values as documented.
//
// Input layout (fields past the end of the input read as zeros): op (mod
// 8), control byte (bit 0 context, bit 1 status NULL, bits 2-3 shape:
// valid small, valid large, bad arguments, overflowing count; for bad
// arguments two more bytes: batch_args.h's Bad bits, of which kBadNonce
// and kBadIdLen mean nothing here, and which pointer is NULL), then the
// op's fields in the order the code below reads them.
#include <limits.h>
#include <stdint.h>

#include <memory>

#include "batch_args.h"

using ks_fuzz::Reader;
using namespace ks_fuzz::batch;  // Plan, Verdict, Output, Status, ... (batch_args.h)

namespace {

constexpr size_t kSmallCount = 20;  // two groups of 8 SIMD lanes and a partial one
constexpr size_t kBigCount = 200;   // more than two of the batch runner's 64-item chunks

ks_ctx* g_ctx[2];

// ---- Fixed keys and special values ----------------------------------------------

void hex32(const char* hex, uint8_t out[32]) {
  KS_FUZZ_CHECK(strlen(hex) == 64, "harness: hex value of %zu digits", strlen(hex));
  for (int i = 0; i < 32; ++i) {
    unsigned v = 0;
    sscanf(hex + 2 * i, "%2x", &v);
    out[i] = uint8_t(v);
  }
}

// Ed25519 seeds: all zeros, RFC 8032 7.1 test 1, all ones.
const char* const kEdSeedHex[3] = {
    "0000000000000000000000000000000000000000000000000000000000000000",
    "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
};
const char kRfc8032Test1Pub[] = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
uint8_t g_ed_seeds[3][32];
ks_ed25519_key* g_ed_keys[3];
uint8_t g_ed_pub[3][32];

// Ed25519 point encodings the verification rules single out (as public keys
// and as R): the 8 of small order, 6 non-canonical ones, then valid ones
// of large order (B, -B) and of mixed order (B + a point of order 8).
const char* const kEdSpecialHex[] = {
    // small order
    "0100000000000000000000000000000000000000000000000000000000000000",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    // non-canonical: x = 0 with the sign bit ("negative zero"), y >= p
    "0100000000000000000000000000000000000000000000000000000000000080",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    // valid: B, -B, B + T8
    "5866666666666666666666666666666666666666666666666666666666666666",
    "58666666666666666666666666666666666666666666666666666666666666e6",
    "98519eadf35b995233b51b5cd23e9cc5a28b639b5a4af0ec903cb960d81b7819",
};
constexpr size_t kEdSpecials = sizeof kEdSpecialHex / sizeof kEdSpecialHex[0];
constexpr size_t kEdRefused = 14;  // the first 14 are no public key
uint8_t g_ed_special[kEdSpecials][32];
// L, the order of B, little-endian.
const char kOrderHex[] = "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010";
uint8_t g_order[32];

// X25519 private keys: RFC 7748 6.1's Alice and Bob, all ones.
const char* const kXPrivHex[3] = {
    "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
    "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
};
const char kRfc7748AlicePub[] = "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a";
uint8_t g_x_priv[3][32];
uint8_t g_x_pub[3][32];

// X25519 peer values (little-endian u): the small-order ones (0, 1, the two
// of order 8, p - 1, p, p + 1) and the same with the ignored top bit set;
// then others: 9, p + 2, 2^256 - 1.
const char* const kXSpecialHex[] = {
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "0100000000000000000000000000000000000000000000000000000000000080",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b880",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f11d7",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    // not of small order
    "0900000000000000000000000000000000000000000000000000000000000000",
    "efffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
};
constexpr size_t kXSpecials = sizeof kXSpecialHex / sizeof kXSpecialHex[0];
constexpr size_t kXZero = 14;  // the first 14 make the secret zero
uint8_t g_x_special[kXSpecials][32];

// ---- The one-item calls ----------------------------------------------------------

// The Ed25519 public key of a seed.
void ed25519_public_of(const uint8_t seed[32], uint8_t out[32]) {
  ks_ed25519_key* key = nullptr;
  KS_FUZZ_OK(ks_ed25519_key_from_seed(seed, 32, &key));
  ks_ed25519_pubkey* pub = nullptr;
  KS_FUZZ_OK(ks_ed25519_key_public(key, &pub));
  KS_FUZZ_OK(ks_ed25519_pubkey_to_bytes(pub, out));
  ks_ed25519_pubkey_free(pub);
  ks_ed25519_key_free(key);
}

void x25519_public_of(const uint8_t priv[32], uint8_t out[32]) {
  KS_FUZZ_OK(ks_x25519_public_key(priv, out));
}

// ks_ed25519_verify of one item, or KS_ERR_BAD_PUBLIC_KEY where the key
// does not parse.
int ed25519_verify_one(const uint8_t key[32], const uint8_t* msg, size_t len,
                       const uint8_t sig[64]) {
  ks_ed25519_pubkey* pub = nullptr;
  const int prc = ks_ed25519_pubkey_from_bytes(key, 32, &pub);
  if (prc != KS_OK) {
    KS_FUZZ_CHECK(prc == KS_ERR_BAD_PUBLIC_KEY, "ks_ed25519_pubkey_from_bytes returned %d", prc);
    return prc;
  }
  const int rc = ks_ed25519_verify(pub, msg, len, sig);
  ks_ed25519_pubkey_free(pub);
  KS_FUZZ_CHECK(rc == KS_OK || rc == KS_ERR_SIGNATURE_RANGE || rc == KS_ERR_VERIFY_FAILED,
                "ks_ed25519_verify returned %d", rc);
  return rc;
}

// ---- Inputs ----------------------------------------------------------------------

// 32-byte secrets (Ed25519 seeds, X25519 private keys), one per item: one
// of three fixed ones, all zeros or all ones, or the input's bytes.
void fill_secrets(Reader& r, Bytes& out, const uint8_t fixed[3][32]) {
  for (size_t i = 0; i < out.size() / 32; ++i) {
    const uint8_t sel = r.u8();
    uint8_t* s = out.data() + 32 * i;
    if (sel % 4 == 0) {
      memcpy(s, fixed[(sel >> 2) % 3], 32);
    } else if (sel % 4 == 1) {
      memset(s, (sel & 4) ? 0xFF : 0, 32);
    } else {
      const std::vector<uint8_t> raw = r.fixed(32);
      memcpy(s, raw.data(), 32);
    }
  }
}

// X25519 peer values: a fixed key's public key, a special value, or the
// input's bytes.
void fill_peers(Reader& r, Bytes& out) {
  for (size_t i = 0; i < out.size() / 32; ++i) {
    const uint8_t sel = r.u8();
    uint8_t* u = out.data() + 32 * i;
    if (sel % 4 == 0) {
      memcpy(u, g_x_pub[(sel >> 2) % 3], 32);
    } else if (sel % 4 == 1) {
      memcpy(u, g_x_special[(sel >> 2) % kXSpecials], 32);
    } else {
      const std::vector<uint8_t> raw = r.fixed(32);
      memcpy(u, raw.data(), 32);
    }
  }
}

// Makes S (little-endian, sig[32..64)) of a signature out of range, or
// puts it at the range's edge: S + L, L + a little, bits 252..255 set, L - 1.
void spoil_s(uint8_t sig[64], uint8_t how) {
  uint8_t* s = sig + 32;
  switch (how % 4) {
    case 0: {  // S + L (< 2L < 2^254: no carry out)
      unsigned carry = 0;
      for (int i = 0; i < 32; ++i) {
        const unsigned v = unsigned(s[i]) + g_order[i] + carry;
        s[i] = uint8_t(v);
        carry = v >> 8;
      }
      break;
    }
    case 1:
      memcpy(s, g_order, 32);
      s[0] = uint8_t(s[0] + (how >> 2) % 16);  // L + 0..15 (0xED + 15 < 256)
      break;
    case 2: s[31] |= uint8_t(0x10 << ((how >> 2) % 4)); break;
    case 3:
      memcpy(s, g_order, 32);
      s[0] = uint8_t(s[0] - 1);  // L - 1: in range
      break;
  }
}

// Fills the public keys and signatures of verification items (the flat
// messages m), by each item's selector: 0 a fixed key's good signature,
// 1 the same with a bit flipped, 2 the input's bytes as signature, 3 as key
// and signature, 4 a good signature with S spoiled (spoil_s), 5 a good
// signature under a special key (small order, non-canonical, other), 6 a
// good signature with a special R, 7 a good signature with the key's sign
// bit flipped. Only checked items get good signatures.
void make_verify_items(Reader& r, size_t count, Bytes& keys, Bytes& sigs, const Messages& m) {
  for (size_t i = 0; i < count; ++i) {
    const uint8_t sel = r.u8();
    const int k = (sel >> 3) % 3;
    uint8_t* key = keys.data() + 32 * i;
    uint8_t* sig = sigs.data() + 64 * i;
    const std::vector<uint8_t> raw_sig = r.fixed(64);
    memcpy(sig, raw_sig.data(), 64);
    memcpy(key, g_ed_pub[k], 32);
    const uint8_t how = sel % 8;
    if (how == 3) {
      const std::vector<uint8_t> raw_key = r.fixed(32);
      memcpy(key, raw_key.data(), 32);
      continue;
    }
    if (how == 2 || !checked(i, count)) continue;
    KS_FUZZ_OK(ks_ed25519_sign(g_ed_keys[k], m.msg(i), m.len(i), sig));
    const uint8_t arg = r.u8();
    switch (how) {
      case 1: sig[arg % 64] ^= uint8_t(1u << (sel >> 5)); break;
      case 4: spoil_s(sig, arg); break;
      case 5: memcpy(key, g_ed_special[arg % kEdSpecials], 32); break;
      case 6: memcpy(sig, g_ed_special[arg % kEdSpecials], 32); break;
      case 7: key[31] ^= 0x80; break;
    }
  }
}

// ---- The calls -------------------------------------------------------------------

// A scheme's key calls: Ed25519 (seeds) or X25519 (private keys).
struct KeyScheme {
  const char* keygen_name;
  const char* public_keys_name;
  int (*keygen_batch)(ks_ctx*, size_t, uint8_t*, size_t, uint8_t*, size_t, int*);
  int (*public_keys_batch)(ks_ctx*, const uint8_t*, size_t, uint8_t*, size_t, int*);
  void (*public_of)(const uint8_t secret[32], uint8_t pub[32]);  // the one-item calls
  const uint8_t (*fixed)[32];                                    // three fixed secrets
};
KeyScheme g_ed25519_keys, g_x25519_keys;  // set in LLVMFuzzerInitialize

// Item i's public key is that of its secret (by the one-item calls).
void expect_public(const char* call, const KeyScheme& s, const uint8_t* secret,
                   const uint8_t* pub, size_t i) {
  uint8_t want[32];
  s.public_of(secret, want);
  KS_FUZZ_CHECK(memcmp(want, pub, 32) == 0, "%s item %zu: public key differs from the one-item call's",
                call, i);
}

// ks_ed25519_keygen_batch, ks_x25519_keygen_batch.
void fuzz_keygen_batch(Reader& r, const Plan& plan, const KeyScheme& s) {
  const char* call = s.keygen_name;
  size_t count = pick_count(r, plan, kSmallCount, kBigCount);
  const uint8_t short_out = plan.spoils(kBadOutputLen) ? r.u8() : 0;  // bit 0 secrets, 1 publics
  Output secrets(pick_out_len(r, plan, count, 32, short_out & 1));
  Output pubs(pick_out_len(r, plan, count, 32, short_out & 2));
  Status status(plan.huge() ? 1 : count, plan.status_null);
  uint8_t *secrets_p = secrets.buf.data(), *pubs_p = pubs.buf.data();
  if (plan.spoils(kBadNullPointer)) {
    if (plan.null_which & 1) secrets_p = nullptr;
    if (plan.null_which & 2) pubs_p = nullptr;
  }
  Verdict v;
  if (plan.ctx == nullptr) v.bad(KS_ERR_NULL_POINTER);
  check_output_arg(v, secrets_p, secrets.buf.size(), count, 32);
  check_output_arg(v, pubs_p, pubs.buf.size(), count, 32);
  if (v.valid() && count > kBigCount) count %= kBigCount + 1;  // buffers then larger than needed
  const int rc = s.keygen_batch(plan.ctx, count, secrets_p, secrets.buf.size(), pubs_p,
                                pubs.buf.size(), status.ptr());
  if (!check_answer(call, rc, v, count, status, {&secrets, &pubs})) return;
  KS_FUZZ_CHECK(rc == KS_OK, "%s returned %d (%s)", call, rc, ks_strerror(rc));
  expect_tail(call, secrets, count, 32);
  expect_tail(call, pubs, count, 32);
  static const uint8_t kUnwritten[32] = {kFill, kFill, kFill, kFill, kFill, kFill, kFill, kFill,
                                         kFill, kFill, kFill, kFill, kFill, kFill, kFill, kFill,
                                         kFill, kFill, kFill, kFill, kFill, kFill, kFill, kFill,
                                         kFill, kFill, kFill, kFill, kFill, kFill, kFill, kFill};
  for (size_t i = 0; i < count; ++i) {
    if (!checked(i, count)) continue;
    expect_item(call, status, i, KS_OK);
    const uint8_t* secret = secrets_p + 32 * i;
    KS_FUZZ_CHECK(memcmp(secret, kUnwritten, 32) != 0, "%s item %zu: no secret written", call, i);
    if (i > 0 && checked(i - 1, count))
      KS_FUZZ_CHECK(memcmp(secret, secret - 32, 32) != 0, "%s items %zu, %zu: the same secret",
                    call, i - 1, i);
    expect_public(call, s, secret, pubs_p + 32 * i, i);
  }
}

// ks_ed25519_public_keys_batch, ks_x25519_public_keys_batch.
void fuzz_public_keys_batch(Reader& r, const Plan& plan, const KeyScheme& s) {
  const char* call = s.public_keys_name;
  size_t count = pick_count(r, plan, kSmallCount, kBigCount);
  Bytes secrets(32 * (plan.huge() ? 1 : count));
  fill_secrets(r, secrets, s.fixed);
  Output pubs(pick_out_len(r, plan, count, 32, plan.spoils(kBadOutputLen)));
  Status status(plan.huge() ? 1 : count, plan.status_null);
  const uint8_t* secrets_p = secrets.data();
  uint8_t* pubs_p = pubs.buf.data();
  if (plan.spoils(kBadNullPointer)) {
    if (plan.null_which & 1) secrets_p = nullptr;
    if (plan.null_which & 2) pubs_p = nullptr;
  }
  Verdict v;
  if (plan.ctx == nullptr) v.bad(KS_ERR_NULL_POINTER);
  check_items_arg(v, secrets_p, count, 32);
  check_output_arg(v, pubs_p, pubs.buf.size(), count, 32);
  if (v.valid() && count > kBigCount) count %= kBigCount + 1;
  const int rc =
      s.public_keys_batch(plan.ctx, secrets_p, count, pubs_p, pubs.buf.size(), status.ptr());
  if (!check_answer(call, rc, v, count, status, {&pubs})) return;
  KS_FUZZ_CHECK(rc == KS_OK, "%s returned %d (%s)", call, rc, ks_strerror(rc));
  expect_tail(call, pubs, count, 32);
  for (size_t i = 0; i < count; ++i) {
    if (!checked(i, count)) continue;
    expect_item(call, status, i, KS_OK);
    expect_public(call, s, secrets.data() + 32 * i, pubs_p + 32 * i, i);
  }
}

// ks_ed25519_sign_batch (seeds_in false: one key) and
// ks_ed25519_sign_batch_keys (true: per-item seeds).
void fuzz_ed25519_sign_batch(Reader& r, const Plan& plan, bool seeds_in) {
  const char* call = seeds_in ? "ks_ed25519_sign_batch_keys" : "ks_ed25519_sign_batch";
  size_t count = pick_count(r, plan, kSmallCount, kBigCount, 64);
  const size_t n = plan.huge() ? 1 : count;  // items actually allocated
  const ks_ed25519_key* key = g_ed_keys[r.u8() % 3];
  Bytes seeds(seeds_in ? 32 * n : 0);
  fill_secrets(r, seeds, g_ed_seeds);
  Messages m(r, plan, n);
  Output sigs(pick_out_len(r, plan, count, 64, plan.spoils(kBadOutputLen)));
  Status status(n, plan.status_null);
  m.read_null(r);
  const uint8_t* seeds_p = seeds.data();
  uint8_t* sigs_p = sigs.buf.data();
  if (plan.spoils(kBadNullPointer)) {
    switch (plan.null_which % 4) {
      case 0:
        if (seeds_in) {
          seeds_p = nullptr;
        } else {
          key = nullptr;
        }
        break;
      case 1: sigs_p = nullptr; break;
      case 2: m.off_p = nullptr; break;
      case 3: m.null_data(); break;
    }
  }
  Verdict v;
  if (plan.ctx == nullptr) v.bad(KS_ERR_NULL_POINTER);
  if (seeds_in) {
    check_items_arg(v, seeds_p, count, 32);
  } else if (key == nullptr) {
    v.bad(KS_ERR_NULL_POINTER);
  }
  check_output_arg(v, sigs_p, sigs.buf.size(), count, 64);
  m.check(v, count, plan.huge());
  if (v.valid() && count > kBigCount) count %= kBigCount + 1;  // a prefix of good offsets is good
  int rc;
  if (seeds_in) {
    rc = ks_ed25519_sign_batch_keys(plan.ctx, seeds_p, m.data_p, m.data_len, m.off_p, count,
                                    sigs_p, sigs.buf.size(), status.ptr());
  } else {
    rc = ks_ed25519_sign_batch(plan.ctx, key, m.data_p, m.data_len, m.off_p, count, sigs_p,
                               sigs.buf.size(), status.ptr());
  }
  if (!check_answer(call, rc, v, count, status, {&sigs})) return;
  KS_FUZZ_CHECK(rc == KS_OK, "%s returned %d (%s)", call, rc, ks_strerror(rc));
  expect_tail(call, sigs, count, 64);
  for (size_t i = 0; i < count; ++i) {
    if (!checked(i, count)) continue;
    expect_item(call, status, i, KS_OK);
    ks_ed25519_key* own = nullptr;
    if (seeds_in) KS_FUZZ_OK(ks_ed25519_key_from_seed(seeds.data() + 32 * i, 32, &own));
    uint8_t want[64];
    KS_FUZZ_OK(ks_ed25519_sign(seeds_in ? own : key, m.msg(i), m.len(i), want));
    KS_FUZZ_CHECK(memcmp(want, sigs_p + 64 * i, 64) == 0,
                  "%s item %zu: signature differs from ks_ed25519_sign's", call, i);
    ks_ed25519_key_free(own);
  }
}

void fuzz_ed25519_verify_batch(Reader& r, const Plan& plan) {
  const char* call = "ks_ed25519_verify_batch";
  size_t count = pick_count(r, plan, kSmallCount, kBigCount, 64);
  const size_t n = plan.huge() ? 1 : count;
  Messages m(r, plan, n);
  Bytes keys(32 * n), sigs(64 * n);
  Status status(n, plan.status_null);
  m.read_null(r);
  const uint8_t *keys_p = keys.data(), *sigs_p = sigs.data();
  if (plan.spoils(kBadNullPointer)) {
    switch (plan.null_which % 4) {
      case 0: keys_p = nullptr; break;
      case 1: sigs_p = nullptr; break;
      case 2: m.off_p = nullptr; break;
      case 3: m.null_data(); break;
    }
  }
  Verdict v;
  if (plan.ctx == nullptr) v.bad(KS_ERR_NULL_POINTER);
  check_items_arg(v, keys_p, count, 32);
  check_items_arg(v, sigs_p, count, 64);
  m.check(v, count, plan.huge());
  if (v.valid() && count > kBigCount) count %= kBigCount + 1;
  if (v.valid()) {
    make_verify_items(r, count, keys, sigs, m);
  } else {
    fill(keys, r);
    fill(sigs, r);
  }
  const int rc = ks_ed25519_verify_batch(plan.ctx, keys_p, m.data_p, m.data_len, m.off_p, count,
                                         sigs_p, status.ptr());
  if (!check_answer(call, rc, v, count, status, {})) return;
  bool any_failed = false;
  for (size_t i = 0; i < count; ++i) {
    if (!status.null) {
      const int st = status.arr[i];
      KS_FUZZ_CHECK(st == KS_OK || st == KS_ERR_VERIFY_FAILED || st == KS_ERR_SIGNATURE_RANGE ||
                        st == KS_ERR_BAD_PUBLIC_KEY,
                    "%s item %zu: status %d is none the header lists", call, i, st);
    }
    if (!checked(i, count)) continue;
    const int want = ed25519_verify_one(keys.data() + 32 * i, m.msg(i), m.len(i),
                                        sigs.data() + 64 * i);
    any_failed |= want != KS_OK;
    expect_item(call, status, i, want);
  }
  expect_rc(call, rc, count <= 2 * kChecked, any_failed);
  expect_rc_statuses(call, rc, status, count);
}

// ks_x25519_derive_batch_keys (mode bit 0: per-item keys) or
// ks_x25519_derive_batch (one key).
void fuzz_x25519_batch(Reader& r, const Plan& plan) {
  size_t count = pick_count(r, plan, kSmallCount, kBigCount);
  const size_t n = plan.huge() ? 1 : count;
  const bool per_item = (r.u8() & 1) != 0;
  const char* call = per_item ? "ks_x25519_derive_batch_keys" : "ks_x25519_derive_batch";
  Bytes priv(32 * (per_item ? n : 1)), peers(32 * n);
  fill_secrets(r, priv, g_x_priv);
  fill_peers(r, peers);
  Output shared(pick_out_len(r, plan, count, 32, plan.spoils(kBadOutputLen)));
  Status status(n, plan.status_null);
  const uint8_t *priv_p = priv.data(), *peers_p = peers.data();
  uint8_t* shared_p = shared.buf.data();
  if (plan.spoils(kBadNullPointer)) {
    switch (plan.null_which % 3) {
      case 0: priv_p = nullptr; break;
      case 1: peers_p = nullptr; break;
      case 2: shared_p = nullptr; break;
    }
  }
  Verdict v;
  if (plan.ctx == nullptr) v.bad(KS_ERR_NULL_POINTER);
  // The private keys: count of them, or one; none is read when count is 0
  // (so NULL is then accepted, as for any empty input).
  check_items_arg(v, priv_p, count == 0 ? 0 : per_item ? count : 1, 32);
  check_items_arg(v, peers_p, count, 32);
  check_output_arg(v, shared_p, shared.buf.size(), count, 32);
  if (v.valid() && count > kBigCount) count %= kBigCount + 1;
  const int rc = (per_item ? ks_x25519_derive_batch_keys : ks_x25519_derive_batch)(
      plan.ctx, priv_p, peers_p, count, shared_p, shared.buf.size(), status.ptr());
  if (!check_answer(call, rc, v, count, status, {&shared})) return;
  expect_tail(call, shared, count, 32);
  bool any_failed = false;
  for (size_t i = 0; i < count; ++i) {
    if (!checked(i, count)) continue;
    const uint8_t* key = priv.data() + (per_item ? 32 * i : 0);
    uint8_t want[32];
    const int want_rc = ks_x25519(key, peers.data() + 32 * i, want);
    KS_FUZZ_CHECK(want_rc == KS_OK || want_rc == KS_ERR_ZERO_SHARED_SECRET,
                  "ks_x25519 returned %d", want_rc);
    any_failed |= want_rc != KS_OK;
    expect_item(call, status, i, want_rc);
    KS_FUZZ_CHECK(memcmp(want, shared_p + 32 * i, 32) == 0,
                  "%s item %zu: secret differs from ks_x25519's (%d)", call, i, want_rc);
    if (want_rc == KS_ERR_ZERO_SHARED_SECRET) {
      static const uint8_t kZero[32] = {0};
      KS_FUZZ_CHECK(memcmp(want, kZero, 32) == 0, "ks_x25519: failed secret not zeroed");
    }
  }
  expect_rc(call, rc, count <= 2 * kChecked, any_failed);
  expect_rc_statuses(call, rc, status, count);
}

// The one-item calls answer the RFC vectors, and refuse the special values
// as the header says; the batch calls are compared with them.
void check_oracles() {
  uint8_t want[32];
  hex32(kRfc8032Test1Pub, want);
  KS_FUZZ_CHECK(memcmp(g_ed_pub[1], want, 32) == 0, "RFC 8032 test 1: public key differs");
  hex32(kRfc7748AlicePub, want);
  KS_FUZZ_CHECK(memcmp(g_x_pub[0], want, 32) == 0, "RFC 7748 6.1: Alice's public key differs");
  for (size_t i = 0; i < kEdSpecials; ++i) {
    ks_ed25519_pubkey* pub = nullptr;
    const int rc = ks_ed25519_pubkey_from_bytes(g_ed_special[i], 32, &pub);
    ks_ed25519_pubkey_free(pub);
    KS_FUZZ_CHECK(rc == (i < kEdRefused ? KS_ERR_BAD_PUBLIC_KEY : KS_OK),
                  "ks_ed25519_pubkey_from_bytes(%s) returned %d", kEdSpecialHex[i], rc);
  }
  for (size_t i = 0; i < kXSpecials; ++i) {
    uint8_t out[32];
    const int rc = ks_x25519(g_x_priv[0], g_x_special[i], out);
    KS_FUZZ_CHECK(rc == (i < kXZero ? KS_ERR_ZERO_SHARED_SECRET : KS_OK),
                  "ks_x25519(Alice, %s) returned %d", kXSpecialHex[i], rc);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  make_contexts(g_ctx);
  for (int i = 0; i < 3; ++i) {
    hex32(kEdSeedHex[i], g_ed_seeds[i]);
    KS_FUZZ_OK(ks_ed25519_key_from_seed(g_ed_seeds[i], 32, &g_ed_keys[i]));
    ed25519_public_of(g_ed_seeds[i], g_ed_pub[i]);
    hex32(kXPrivHex[i], g_x_priv[i]);
    x25519_public_of(g_x_priv[i], g_x_pub[i]);
  }
  for (size_t i = 0; i < kEdSpecials; ++i) hex32(kEdSpecialHex[i], g_ed_special[i]);
  for (size_t i = 0; i < kXSpecials; ++i) hex32(kXSpecialHex[i], g_x_special[i]);
  hex32(kOrderHex, g_order);
  g_ed25519_keys = {"ks_ed25519_keygen_batch", "ks_ed25519_public_keys_batch",
                    ks_ed25519_keygen_batch,   ks_ed25519_public_keys_batch,
                    ed25519_public_of,         g_ed_seeds};
  g_x25519_keys = {"ks_x25519_keygen_batch", "ks_x25519_public_keys_batch",
                   ks_x25519_keygen_batch,   ks_x25519_public_keys_batch,
                   x25519_public_of,         g_x_priv};
  check_oracles();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r(data, size);
  const uint8_t op = r.u8() % 8;
  const Plan plan = read_plan(r, g_ctx);
  switch (op) {
    case 0: fuzz_keygen_batch(r, plan, g_ed25519_keys); break;
    case 1: fuzz_public_keys_batch(r, plan, g_ed25519_keys); break;
    case 2: fuzz_ed25519_sign_batch(r, plan, false); break;
    case 3: fuzz_ed25519_sign_batch(r, plan, true); break;
    case 4: fuzz_ed25519_verify_batch(r, plan); break;
    case 5: fuzz_keygen_batch(r, plan, g_x25519_keys); break;
    case 6: fuzz_public_keys_batch(r, plan, g_x25519_keys); break;
    case 7: fuzz_x25519_batch(r, plan); break;
  }
  return 0;
}
