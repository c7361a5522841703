// fuzz_curve25519_ops: Ed25519 verification and X25519 agreement on
// arbitrary public keys, signatures, peer values and contexts, single calls
// against the batch calls (which run 8 AVX-512 IFMA lanes where the CPU has
// them: a different implementation of the same rules).
//
// Input layout (fields past the end of the input read as zeros):
//   flags     1 byte: bits 0-1 the flavor (0 pure, 1 ctx, 2 ph; 3 invalid),
//             bit 2 also sign with the input's seed and check the property
//             below, bit 3 X25519 with one private key for the batch
//   key_len   1 byte (public key length, 32 taken mod 40 so that wrong
//             lengths occur), then the key bytes
//   sig       64 bytes
//   seed      32 bytes (signing key; X25519 private key)
//   peer      32 bytes (X25519)
//   ctx_len   1 byte, then the context
//   message   the rest
//
// Properties checked:
//  - ks_ed25519_pubkey_from_bytes and ks_ed25519_verify_ex never crash and
//    answer as documented; a key that parses gives the same status through
//    ks_ed25519_verify_batch (pure flavor, the item among 8 copies and 1);
//  - with signing: the signature of the input's seed verifies, by the single
//    and the batch call, and a flipped bit makes it fail;
//  - ks_x25519 on any peer value gives KS_OK or KS_ERR_ZERO_SHARED_SECRET
//    (then an all-zero output), the same as ks_x25519_batch; the secret is
//    symmetric for a peer made from the input's second key.
#include "fuzz_util.h"

using ks_fuzz::HeapBytes;
using ks_fuzz::Reader;

namespace {

ks_ctx* g_ctx = nullptr;

bool is_verify_answer(int rc) {
  return rc == KS_OK || rc == KS_ERR_SIGNATURE_RANGE || rc == KS_ERR_VERIFY_FAILED;
}

// Verifies one item through the batch call, as the only item and as item
// 5 of 8 identical ones; both must give the same status.
int batch_verify(const uint8_t pub[32], const HeapBytes& msg, const uint8_t sig[64]) {
  constexpr size_t kCount = 8;
  std::vector<uint8_t> pubs, sigs, data;
  std::vector<uint64_t> offsets = {0};
  for (size_t i = 0; i < kCount; ++i) {
    pubs.insert(pubs.end(), pub, pub + 32);
    sigs.insert(sigs.end(), sig, sig + 64);
    if (msg.size() != 0) data.insert(data.end(), msg.data(), msg.data() + msg.size());
    offsets.push_back(data.size());
  }
  HeapBytes d(data), p(pubs), s(sigs);
  int status[kCount];
  const int rc = ks_ed25519_verify_batch(g_ctx, p.data(), d.data(), d.size(), offsets.data(),
                                         kCount, s.data(), status);
  KS_FUZZ_CHECK(rc == KS_OK || rc == KS_ERR_BATCH_ITEMS, "verify_batch returned %d", rc);
  for (size_t i = 1; i < kCount; ++i)
    KS_FUZZ_CHECK(status[i] == status[0], "lane %zu gave %d, lane 0 %d", i, status[i], status[0]);
  int one = 0;
  const uint64_t one_offsets[2] = {0, msg.size()};
  ks_ed25519_verify_batch(g_ctx, pub, msg.data(), msg.size(), one_offsets, 1, sig, &one);
  KS_FUZZ_CHECK(one == status[0], "one item gave %d, eight gave %d", one, status[0]);
  return status[0];
}

void check_verify(const std::vector<uint8_t>& key_bytes, int flavor, const HeapBytes& ctx,
                  const HeapBytes& msg, const uint8_t sig[64]) {
  HeapBytes key(key_bytes);
  ks_ed25519_pubkey* pub = nullptr;
  const int parsed = ks_ed25519_pubkey_from_bytes(key.data(), key.size(), &pub);
  KS_FUZZ_CHECK(parsed == KS_OK || parsed == KS_ERR_BAD_PUBLIC_KEY, "pubkey_from_bytes: %d", parsed);
  if (parsed != KS_OK) {
    if (key.size() == 32) {
      const int st = batch_verify(key.data(), msg, sig);
      KS_FUZZ_CHECK(st == KS_ERR_BAD_PUBLIC_KEY, "batch took a key the single call refused: %d", st);
    }
    return;
  }
  const int rc = ks_ed25519_verify_ex(pub, flavor, ctx.data(), ctx.size(), msg.data(), msg.size(), sig);
  if (flavor > KS_ED25519_PH) {
    KS_FUZZ_CHECK(rc == KS_ERR_INVALID_ARGUMENT, "flavor %d gave %d", flavor, rc);
  } else if (rc == KS_ERR_CONTEXT_LENGTH) {
    KS_FUZZ_CHECK(flavor != KS_ED25519_PH || ctx.size() > 255, "ph refused context %zu", ctx.size());
  } else {
    KS_FUZZ_CHECK(is_verify_answer(rc), "verify_ex gave %d", rc);
  }
  if (flavor == KS_ED25519_PURE && ctx.size() == 0) {
    const int st = batch_verify(key.data(), msg, sig);
    KS_FUZZ_CHECK(st == rc, "batch %d, single %d", st, rc);
  }
  ks_ed25519_pubkey_free(pub);
}

void check_signing(const std::vector<uint8_t>& seed, int flavor, const HeapBytes& ctx,
                   const HeapBytes& msg) {
  ks_ed25519_key* key = nullptr;
  KS_FUZZ_OK(ks_ed25519_key_from_seed(seed.data(), seed.size(), &key));
  uint8_t sig[64];
  const int rc = ks_ed25519_sign_ex(key, flavor, ctx.data(), ctx.size(), msg.data(), msg.size(), sig);
  if (rc == KS_OK) {
    ks_ed25519_pubkey* pub = nullptr;
    KS_FUZZ_OK(ks_ed25519_key_public(key, &pub));
    KS_FUZZ_OK(ks_ed25519_verify_ex(pub, flavor, ctx.data(), ctx.size(), msg.data(), msg.size(), sig));
    uint8_t pub_bytes[32];
    KS_FUZZ_OK(ks_ed25519_pubkey_to_bytes(pub, pub_bytes));
    if (flavor == KS_ED25519_PURE) KS_FUZZ_CHECK(batch_verify(pub_bytes, msg, sig) == KS_OK, "batch");
    sig[msg.size() % 64] ^= uint8_t(1 << (ctx.size() % 8));
    KS_FUZZ_CHECK(ks_ed25519_verify_ex(pub, flavor, ctx.data(), ctx.size(), msg.data(), msg.size(),
                                       sig) != KS_OK,
                  "a flipped bit verified");
    ks_ed25519_pubkey_free(pub);
  }
  ks_ed25519_key_free(key);
}

void check_x25519(const std::vector<uint8_t>& k, const std::vector<uint8_t>& peer, bool one_key) {
  HeapBytes kb(k), pb(peer);
  uint8_t single[32];
  const int rc = ks_x25519(kb.data(), pb.data(), single);
  KS_FUZZ_CHECK(rc == KS_OK || rc == KS_ERR_ZERO_SHARED_SECRET, "x25519 gave %d", rc);
  if (rc == KS_ERR_ZERO_SHARED_SECRET)
    for (uint8_t b : single) KS_FUZZ_CHECK(b == 0, "zero secret not zeroed");
  constexpr size_t kCount = 9;  // a group of 8 and one more
  std::vector<uint8_t> keys, peers;
  for (size_t i = 0; i < kCount; ++i) {
    keys.insert(keys.end(), k.begin(), k.end());
    peers.insert(peers.end(), peer.begin(), peer.end());
  }
  HeapBytes kk(keys), pp(peers);
  HeapBytes shared(32 * kCount);
  int status[kCount];
  (one_key ? ks_x25519_derive_batch : ks_x25519_derive_batch_keys)(
      g_ctx, kk.data(), pp.data(), kCount, shared.data(), shared.size(), status);
  for (size_t i = 0; i < kCount; ++i) {
    KS_FUZZ_CHECK(status[i] == rc, "batch item %zu: %d, single %d", i, status[i], rc);
    KS_FUZZ_CHECK(memcmp(shared.data() + 32 * i, single, 32) == 0, "batch item %zu differs", i);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ks_ctx_config c;
  ks_ctx_config_init(&c);
  c.backend = KS_BACKEND_CPU;
  c.cpu_threads = 1;
  if (ks_ctx_new(&c, &g_ctx) != KS_OK) abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in(data, size);
  const uint8_t flags = in.u8();
  const int flavor = flags & 3;
  const size_t key_len = in.u8() % 40;
  const std::vector<uint8_t> key = in.fixed(key_len);
  const std::vector<uint8_t> sig = in.fixed(64);
  const std::vector<uint8_t> seed = in.fixed(32);
  const std::vector<uint8_t> peer = in.fixed(32);
  const HeapBytes ctx(in.bytes(in.u8()));
  const HeapBytes msg(in.remainder());
  check_verify(key, flavor, ctx, msg, sig.data());
  if (flags & 4) check_signing(seed, flavor, ctx, msg);
  check_x25519(seed, peer, (flags & 8) != 0);
  return 0;
}
