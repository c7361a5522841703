// SM2 encryption and decryption batches on the GPU (GB/T 32918.4) against
// the CPU, on fresh random inputs every run, from host memory and with
// every array in device memory (kuaisuo/common.h, "Device memory"): GPU
// ciphertexts open on the CPU in every form (one recipient and per-item
// keys, bad keys mixed in; 1-byte messages, whose t is all zero one time
// in 256, drawn again on the device), and GPU decryption gives the CPU's
// results byte for byte on 100,000 ciphertexts with damaged, foreign,
// malformed, compressed-C1 (good and off the curve) and long ones mixed
// in; offsets that do not ascend fail a
// device batch whole with nothing written. Skipped where no GPU exists.
#include <gtest/gtest.h>
#include <string.h>

#include <random>
#include <string>
#include <vector>

#include "kuaisuo.h"
#include "testing/gpu_memory_testing.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;

constexpr size_t kItems = 100003;  // odd: arrays of per-item records end unaligned
const int kForms[] = {KS_SM2_C1C3C2, KS_SM2_C1C2C3, KS_SM2_CIPHER_DER};

class GpuSm2Encrypt : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    ASSERT_EQ(gpu_.rc, KS_OK);
    ASSERT_EQ(cpu_.rc, KS_OK);
  }
  ks_test::Context gpu_{KS_BACKEND_GPU, 16};
  ks_test::Context cpu_{KS_BACKEND_CPU, 16};
};

struct KeyPair {
  ks_sm2_key* key = nullptr;
  ks_sm2_pubkey* pub = nullptr;
  Bytes pub_bytes = Bytes(65);
  KeyPair() {
    EXPECT_EQ(ks_sm2_key_generate(&key), KS_OK);
    EXPECT_EQ(ks_sm2_key_public(key, &pub), KS_OK);
    size_t n = 0;
    EXPECT_EQ(ks_sm2_pubkey_to_bytes(pub, 0, pub_bytes.data(), 65, &n), KS_OK);
  }
  ~KeyPair() {
    ks_sm2_key_free(key);
    ks_sm2_pubkey_free(pub);
  }
};

using Flat = ks_test::FlatMessages;

// Random messages, mostly of 0..160 bytes, every 9973rd past the device's
// 64 KiB per-item limit (the host encrypts those).
Flat random_messages(size_t count, std::mt19937_64& rng) {
  Flat f;
  for (size_t i = 0; i < count; ++i) {
    Bytes m(i % 9973 == 17 ? (70 << 10) + rng() % 100 : rng() % 161);
    for (auto& b : m) b = uint8_t(rng());
    f.add(m);
  }
  return f;
}

std::mt19937_64 fresh_rng() {
  const Bytes seed = ks_test::random_bytes(8);
  uint64_t s = 0;
  memcpy(&s, seed.data(), 8);
  return std::mt19937_64(s);
}

using ks::testing::DeviceBytes;

struct Results {
  Bytes out;
  std::vector<uint64_t> lengths;
  std::vector<int> status;
  int rc = 0;
};

// Where a batch's arrays live: the host, or device memory (every array;
// the call returns once queued, KS_OK, and the results are copied back).
enum class Memory { kHost, kDevice };

// r's arrays (filled as the host call would find them) through call(data,
// offsets, out, lengths, status), in `memory`; pubs (65 bytes each) too.
template <class Call>
void run_batch(Memory memory, const Flat& f, Results* r, const Call& call,
               const Bytes* pubs = nullptr) {
  if (memory == Memory::kHost) {
    r->rc = call(pubs != nullptr ? pubs->data() : nullptr, f.data.data(), f.offsets.data(),
                 r->out.data(), r->lengths.data(), r->status.data());
    return;
  }
  const DeviceBytes data(f.data), offsets(f.offsets), out(r->out), lengths(r->lengths),
      status(r->status), d_pubs(pubs != nullptr ? *pubs : Bytes(16));
  r->rc = call(d_pubs.get(), data.get(), offsets.as<const uint64_t>(), out.get(),
               lengths.as<uint64_t>(), status.as<int>());
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  r->out = out.download(r->out.size());
  r->lengths = lengths.download_as<uint64_t>(r->lengths.size());
  r->status = status.download_as<int>(r->status.size());
}

// The call-level answer of a batch whose items (some) failed.
int with_failures(Memory memory) { return memory == Memory::kHost ? KS_ERR_BATCH_ITEMS : KS_OK; }

// An encryption batch: to pub (one recipient), or to pubs (65 bytes each).
Results encrypt_batch(ks_ctx* ctx, const KeyPair* one, const Bytes* pubs, int form,
                      const Flat& f, Memory memory = Memory::kHost) {
  Results r;
  r.out.assign(f.data.size() + f.count() * ks_sm2_ciphertext_bound(0, form), 0xEE);
  r.lengths.assign(f.count(), 99);
  r.status.assign(f.count(), 99);
  const size_t out_len = r.out.size();
  run_batch(memory, f, &r,
            [&](const uint8_t* p, const uint8_t* data, const uint64_t* offsets, uint8_t* out,
                uint64_t* lengths, int* status) {
              return one != nullptr
                         ? ks_sm2_encrypt_batch(ctx, one->pub, form, data, f.data.size(), offsets,
                                                f.count(), out, out_len, lengths, status)
                         : ks_sm2_encrypt_batch_keys(ctx, p, form, data, f.data.size(), offsets,
                                                     f.count(), out, out_len, lengths, status);
            },
            pubs);
  return r;
}

Results decrypt_batch(ks_ctx* ctx, const KeyPair& k, int form, const Flat& cts, uint8_t fill,
                      Memory memory = Memory::kHost) {
  Results r;
  r.out.assign(cts.data.size(), fill);
  r.lengths.assign(cts.count(), 99);
  r.status.assign(cts.count(), 99);
  run_batch(memory, cts, &r,
            [&](const uint8_t*, const uint8_t* data, const uint64_t* offsets, uint8_t* out,
                uint64_t* lengths, int* status) {
              return ks_sm2_decrypt_batch(ctx, k.key, form, data, cts.data.size(), offsets,
                                          cts.count(), out, cts.data.size(), lengths, status);
            });
  return r;
}

// The ciphertexts of an encryption batch, one per item.
Flat ciphertexts(const Results& r, const Flat& f, int form) {
  const size_t extra = ks_sm2_ciphertext_bound(0, form);
  Flat cts;
  for (size_t i = 0; i < f.count(); ++i) {
    const size_t at = f.offsets[i] + i * extra;
    cts.add(Bytes(r.out.begin() + at, r.out.begin() + at + r.lengths[i]));
  }
  return cts;
}

// Every item of a successful decryption batch is the message.
void expect_plaintexts(const Results& r, const Flat& cts, const Flat& msgs) {
  ASSERT_EQ(r.rc, KS_OK);
  for (size_t i = 0; i < msgs.count(); ++i) {
    ASSERT_EQ(r.status[i], KS_OK) << i;
    ASSERT_EQ(r.lengths[i], msgs.items[i].size()) << i;
    const auto at = r.out.begin() + cts.offsets[i];
    ASSERT_EQ(Bytes(at, at + r.lengths[i]), msgs.items[i]) << i;
  }
}

// A device batch's ciphertexts (out and lengths in device memory) open to
// msgs on the CPU.
void expect_device_ciphertexts_open(ks_ctx* cpu, const KeyPair& k, int form,
                                    const DeviceBytes& out, const DeviceBytes& lengths,
                                    const Flat& msgs) {
  Results enc;
  enc.out = out.download(out.size());
  enc.lengths = lengths.download_as<uint64_t>(msgs.count());
  const Flat cts = ciphertexts(enc, msgs, form);
  expect_plaintexts(decrypt_batch(cpu, k, form, cts, 0), cts, msgs);
}

const Memory kMemories[] = {Memory::kHost, Memory::kDevice};

std::string where(Memory memory, int form) {
  return std::string(memory == Memory::kHost ? "host" : "device") + " memory, form " +
         std::to_string(form);
}

TEST_F(GpuSm2Encrypt, OneRecipientOpensOnTheCpuInEveryForm) {
  KeyPair k;
  std::mt19937_64 rng = fresh_rng();
  const Flat msgs = random_messages(kItems, rng);
  for (Memory memory : kMemories)
    for (int form : kForms) {
      SCOPED_TRACE(where(memory, form));
      const Results enc = encrypt_batch(gpu_.ctx, &k, nullptr, form, msgs, memory);
      ASSERT_EQ(enc.rc, KS_OK);
      const size_t extra = ks_sm2_ciphertext_bound(0, form);
      for (size_t i = 0; i < msgs.count(); ++i) {
        ASSERT_EQ(enc.status[i], KS_OK) << i;
        if (form != KS_SM2_CIPHER_DER) {
          ASSERT_EQ(enc.lengths[i], msgs.items[i].size() + 97) << i;
        }
        const size_t end = msgs.offsets[i] + i * extra + enc.lengths[i];
        const size_t slot_end = msgs.offsets[i + 1] + (i + 1) * extra;
        ASSERT_EQ(Bytes(enc.out.begin() + end, enc.out.begin() + slot_end),
                  Bytes(slot_end - end, 0));
      }
      const Flat cts = ciphertexts(enc, msgs, form);
      expect_plaintexts(decrypt_batch(cpu_.ctx, k, form, cts, 0), cts, msgs);
    }
}

TEST_F(GpuSm2Encrypt, PerItemKeysWithBadOnesOpenOnTheCpu) {
  KeyPair a, b;
  std::mt19937_64 rng = fresh_rng();
  const Flat msgs = random_messages(kItems / 4, rng);
  Bytes pubs;
  for (size_t i = 0; i < msgs.count(); ++i) {
    Bytes p = i % 2 ? a.pub_bytes : b.pub_bytes;
    if (i % 997 == 5) p[64] ^= 1;     // off the curve
    if (i % 997 == 6) p[0] = 0x02;    // not 04 || x || y
    if (i % 997 == 7) memset(&p[1], 0xFF, 32);  // x >= p
    pubs.insert(pubs.end(), p.begin(), p.end());
  }
  const int form = KS_SM2_C1C3C2;
  for (Memory memory : kMemories) {
    SCOPED_TRACE(where(memory, form));
    const Results enc = encrypt_batch(gpu_.ctx, nullptr, &pubs, form, msgs, memory);
    ASSERT_EQ(enc.rc, with_failures(memory));
    const Flat cts = ciphertexts(enc, msgs, form);
    const Results under_a = decrypt_batch(cpu_.ctx, a, form, cts, 0);
    const Results under_b = decrypt_batch(cpu_.ctx, b, form, cts, 0);
    for (size_t i = 0; i < msgs.count(); ++i) {
      const size_t at = msgs.offsets[i] + i * 97, len = msgs.items[i].size() + 97;
      if (i % 997 >= 5 && i % 997 <= 7) {
        ASSERT_EQ(enc.status[i], KS_ERR_BAD_PUBLIC_KEY) << i;
        ASSERT_EQ(enc.lengths[i], 0u);
        ASSERT_EQ(Bytes(enc.out.begin() + at, enc.out.begin() + at + len), Bytes(len, 0));
        continue;
      }
      ASSERT_EQ(enc.status[i], KS_OK) << i;
      const Results& mine = i % 2 ? under_a : under_b;
      const Results& theirs = i % 2 ? under_b : under_a;
      ASSERT_EQ(mine.status[i], KS_OK) << i;
      ASSERT_EQ(Bytes(mine.out.begin() + cts.offsets[i], mine.out.begin() + cts.offsets[i] +
                                                             mine.lengths[i]),
                msgs.items[i]);
      // Another key's x2 || y2: C3 differs, or (a short message) its t is
      // all zero, which B4 refuses first.
      ASSERT_TRUE(theirs.status[i] == KS_ERR_CIPHERTEXT_MISMATCH ||
                  (theirs.status[i] == KS_ERR_BAD_CIPHERTEXT && msgs.items[i].size() <= 2))
          << i << " " << theirs.status[i];
    }
  }
}

// count CPU-made ciphertexts, every eleventh of them damaged one way or
// another, decrypted on both in every form (on the GPU from host and from
// device memory): statuses, lengths and every output byte equal.
void decryption_matches_cpu(ks_ctx* gpu, ks_ctx* cpu, size_t count) {
  KeyPair k, other;
  std::mt19937_64 rng = fresh_rng();
  const Flat msgs = random_messages(count, rng);
  for (int form : kForms) {
    SCOPED_TRACE("form " + std::to_string(form));
    const Results enc = encrypt_batch(cpu, &k, nullptr, form, msgs);
    ASSERT_EQ(enc.rc, KS_OK);
    const Flat good = ciphertexts(enc, msgs, form);
    Flat cts;
    for (size_t i = 0; i < good.count(); ++i) {
      Bytes ct = good.items[i];
      switch (i % 11) {
        case 1: ct.back() ^= 0x40; break;  // C2 or C3 damaged
        case 2: ct.resize(rng() % 100); break;  // truncated or malformed
        case 3:
          if (form != KS_SM2_CIPHER_DER) ct[1 + rng() % 64] ^= 1;  // C1 off the curve
          break;
        case 4: {  // under another key
          size_t n = 0;
          ct.resize(ks_sm2_ciphertext_bound(msgs.items[i].size(), form));
          ASSERT_EQ(ks_sm2_encrypt(other.pub, form, msgs.items[i].data(), msgs.items[i].size(),
                                   ct.data(), ct.size(), &n),
                    KS_OK);
          ct.resize(n);
          break;
        }
        case 5:
        case 7:
          if (form != KS_SM2_CIPHER_DER) {  // C1 compressed, recovered on the device
            const uint8_t y_odd = ct[64] & 1;
            ct.erase(ct.begin() + 33, ct.begin() + 65);
            ct[0] = 0x02 | y_odd;
            // 7: x changed: half such x have no point (no square root), the
            // rest another point, whose C3 does not match.
            if (i % 11 == 7) ct[1 + rng() % 32] ^= 1;
          }
          break;
        case 6: ct.push_back(0); break;  // trailing byte (DER), or a C2 one longer
        default: break;
      }
      cts.add(ct);
    }
    const Results on_cpu = decrypt_batch(cpu, k, form, cts, 0);
    ASSERT_EQ(on_cpu.rc, KS_ERR_BATCH_ITEMS);
    for (Memory memory : kMemories) {
      SCOPED_TRACE(where(memory, form));
      const Results on_gpu = decrypt_batch(gpu, k, form, cts, 0, memory);
      ASSERT_EQ(on_gpu.rc, with_failures(memory));
      size_t ok = 0;
      for (size_t i = 0; i < cts.count(); ++i) {
        ASSERT_EQ(on_gpu.status[i], on_cpu.status[i]) << i;
        ASSERT_EQ(on_gpu.lengths[i], on_cpu.lengths[i]) << i;
        ok += on_cpu.status[i] == KS_OK;
      }
      EXPECT_GT(ok, count * 2 / 5);  // 6 of 11 damaged, 1 of 11 compressed
      ASSERT_TRUE(on_gpu.out == on_cpu.out);
    }
  }
}

TEST_F(GpuSm2Encrypt, DecryptionMatchesTheCpuByteForByte) {
  decryption_matches_cpu(gpu_.ctx, cpu_.ctx, kItems);
}

// An even count: the n + 1 staged offsets end 8 bytes past a 16-byte
// boundary, where the ciphertext layouts (alignas(16)) must not begin.
TEST_F(GpuSm2Encrypt, DecryptionOfAnEvenCountMatchesTheCpu) {
  decryption_matches_cpu(gpu_.ctx, cpu_.ctx, 4096);
}

// 20,011 one-byte messages in device memory, each t all zero with
// probability 1/256 (clause 6.1 A5: a new k), about 78 of them drawn again
// on the device; the messages arrive on a user stream behind other work.
// Every ciphertext opens on the CPU.
TEST_F(GpuSm2Encrypt, OneByteMessagesAreDrawnAgainOnTheDeviceOnAUserStream) {
  KeyPair k;
  std::mt19937_64 rng = fresh_rng();
  Flat msgs;
  for (size_t i = 0; i < 20011; ++i) msgs.add(Bytes(1, uint8_t(rng())));
  const int form = KS_SM2_C1C3C2;
  const size_t n = msgs.count(), out_len = msgs.data.size() + n * 97;
  const DeviceBytes staged(msgs.data), offsets(msgs.offsets);
  DeviceBytes data(msgs.data.size()), out(out_len), lengths(8 * n), status(sizeof(int) * n),
      after(status.size());
  const auto call = [&] {
    return ks_sm2_encrypt_batch(gpu_.ctx, k.pub, form, data.get(), msgs.data.size(),
                                offsets.as<const uint64_t>(), n, out.get(), out_len,
                                lengths.as<uint64_t>(), status.as<int>());
  };
  ASSERT_EQ(ks::testing::run_between(gpu_.ctx, data.get(), staged.get(), msgs.data.size(), call,
                                     after.get(), status.get(), status.size()),
            KS_OK);
  EXPECT_EQ(after.download_as<int>(n), std::vector<int>(n, KS_OK));
  expect_device_ciphertexts_open(cpu_.ctx, k, form, out, lengths, msgs);
}

// Lengths written over the offsets themselves (one device array for both):
// the kernels read their own copy of the offsets, checked once, so the
// batch stays in bounds and every ciphertext opens under the offsets the
// call was given.
TEST_F(GpuSm2Encrypt, LengthsPlacedOverTheOffsetsLeaveTheBatchIntact) {
  KeyPair k;
  std::mt19937_64 rng = fresh_rng();
  const Flat msgs = random_messages(3001, rng);
  const size_t n = msgs.count(), out_len = msgs.data.size() + n * 97;
  const DeviceBytes data(msgs.data);
  DeviceBytes offsets_and_lengths(msgs.offsets), out(out_len), status(sizeof(int) * n);
  ASSERT_EQ(ks_sm2_encrypt_batch(gpu_.ctx, k.pub, KS_SM2_C1C3C2, data.get(), msgs.data.size(),
                                 offsets_and_lengths.as<const uint64_t>(), n, out.get(), out_len,
                                 offsets_and_lengths.as<uint64_t>(), status.as<int>()),
            KS_OK);
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  EXPECT_EQ(status.download_as<int>(n), std::vector<int>(n, KS_OK));
  expect_device_ciphertexts_open(cpu_.ctx, k, KS_SM2_C1C3C2, out, offsets_and_lengths, msgs);
}

// Offsets in device memory that do not ascend within the data: every item
// KS_ERR_OFFSETS, no length, and nothing written to out (its slots would
// be laid out from them); mixed memory refused.
TEST_F(GpuSm2Encrypt, DeviceBatchWithBadOffsetsFailsWhole) {
  KeyPair k;
  std::mt19937_64 rng = fresh_rng();
  const Flat msgs = random_messages(1000, rng);
  Flat bad = msgs;
  bad.offsets[500] = bad.offsets[502] + 1;  // item 500 passes 501's end, 501 descends
  for (int decrypting : {0, 1}) {
    SCOPED_TRACE(decrypting ? "decrypt" : "encrypt");
    const Results r = decrypting ? decrypt_batch(gpu_.ctx, k, KS_SM2_C1C3C2, bad, 0xEE,
                                                 Memory::kDevice)
                                 : encrypt_batch(gpu_.ctx, &k, nullptr, KS_SM2_C1C3C2, bad,
                                                 Memory::kDevice);
    ASSERT_EQ(r.rc, KS_OK);
    EXPECT_EQ(r.status, std::vector<int>(bad.count(), KS_ERR_OFFSETS));
    EXPECT_EQ(r.lengths, std::vector<uint64_t>(bad.count(), 0));
    EXPECT_EQ(r.out, Bytes(r.out.size(), 0xEE));
  }
  const DeviceBytes data(msgs.data), out(msgs.data.size() + 1000 * 97);
  std::vector<uint64_t> lengths(1000);
  std::vector<int> status(1000, 7);
  EXPECT_EQ(ks_sm2_encrypt_batch(gpu_.ctx, k.pub, KS_SM2_C1C3C2, data.get(), msgs.data.size(),
                                 msgs.offsets.data(), 1000, out.get(), out.size(),
                                 lengths.data(), status.data()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(status, std::vector<int>(1000, 7));
}

}  // namespace
