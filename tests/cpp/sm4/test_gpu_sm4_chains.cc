// SM4 batches of the chained modes on the GPU (sm4/gpu/sm4_gpu_messages.h:
// crypt_messages with kCbcEncrypt, kCfbEncrypt and kOfb, 32 messages a
// thread, and kCbcDecrypt, kCfbDecrypt, blocks of one message a thread)
// against the CPU's modes (cipher/modes.h over sm4::block_cipher(), checked
// against OpenSSL by test_sm4_modes.cc): the draft-ribose-cfrg-sm4 example
// in every lane of a group, then fresh random keys, IVs and data every run
// over batches of 1, 31, 32, 33 and 1000 messages of 0 .. ~300 blocks
// (empty, one block, partial last blocks for CFB and OFB, equal and mixed
// lengths), starting at odd byte offsets, with skipped messages (neither
// computed nor written) and CBC messages that are not whole blocks (skipped
// by crypt_messages itself), out of place and in place. The seed is
// printed on failure. Skipped where no GPU is present.
#include <gtest/gtest.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "api/context.h"
#include "cipher/modes.h"
#include "sm4/gpu/sm4_gpu_messages.h"
#include "sm4/sm4.h"
#include "kuaisuo.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;
using ks::sm4::gpu::MessageMode;

const MessageMode kModes[] = {MessageMode::kCbcEncrypt, MessageMode::kCbcDecrypt,
                              MessageMode::kCfbEncrypt, MessageMode::kCfbDecrypt,
                              MessageMode::kOfb};

std::string mode_name(MessageMode m) {
  switch (m) {
    case MessageMode::kCbcEncrypt: return "cbc-encrypt";
    case MessageMode::kCbcDecrypt: return "cbc-decrypt";
    case MessageMode::kCfbEncrypt: return "cfb-encrypt";
    case MessageMode::kCfbDecrypt: return "cfb-decrypt";
    case MessageMode::kOfb: return "ofb";
    default: return "other";
  }
}

bool is_cbc(MessageMode m) {
  return m == MessageMode::kCbcEncrypt || m == MessageMode::kCbcDecrypt;
}

// The CPU's answer for one message: len bytes of in to out under key and iv.
void cpu_crypt(MessageMode mode, const uint8_t key[16], const uint8_t iv[16], const uint8_t* in,
               uint8_t* out, size_t len) {
  ks::sm4::Key k;
  ks::sm4::set_key(&k, key);
  const ks::BlockCipher& bc = ks::sm4::block_cipher();
  uint8_t chain[16];
  memcpy(chain, iv, 16);
  ks::modes::StreamState st;
  ks::modes::stream_init(&st, iv);
  switch (mode) {
    case MessageMode::kCbcEncrypt: ks::modes::cbc_encrypt(bc, &k, chain, in, out, len); break;
    case MessageMode::kCbcDecrypt: ks::modes::cbc_decrypt(bc, &k, chain, in, out, len); break;
    case MessageMode::kCfbEncrypt: ks::modes::cfb_encrypt(bc, &k, &st, in, out, len); break;
    case MessageMode::kCfbDecrypt: ks::modes::cfb_decrypt(bc, &k, &st, in, out, len); break;
    case MessageMode::kOfb: ks::modes::ofb_crypt(bc, &k, &st, in, out, len); break;
    default: FAIL() << "not a chained mode";
  }
  ks::sm4::wipe_key(&k);
}

// One call's messages: message i is data[offsets[i] .. offsets[i + 1]).
struct Batch {
  size_t count = 0;
  Bytes keys, ivs, data, skip;
  std::vector<uint64_t> offsets;
};

// How the lengths of a batch are drawn.
enum class Lengths { kMixed, kEqual };

class GpuSm4Chains : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    ctx_ = std::make_unique<ks_test::Context>(KS_BACKEND_GPU);
    ASSERT_EQ(ctx_->rc, KS_OK);
    ASSERT_NE(ctx_->ctx->gpu, nullptr);
    const uint64_t seed = std::random_device{}() * 0x100000000ull + std::random_device{}();
    rng_.seed(seed);
    trace_ = "seed " + std::to_string(seed);
  }

  ks::gpu::Engine& engine() { return *ctx_->ctx->gpu; }
  size_t below(size_t n) { return size_t(rng_() % n); }

  // A message length for mode: 0 .. ~300 blocks, mixed; whole blocks for
  // CBC but one message in 13 (which crypt_messages must skip).
  size_t draw_length(MessageMode mode, Lengths lengths, size_t equal_len) {
    size_t len;
    if (lengths == Lengths::kEqual) {
      len = equal_len;
    } else {
      switch (below(8)) {
        case 0: len = 0; break;
        case 1: len = 16; break;
        case 2: len = 1 + below(31); break;  // under two blocks
        case 3: len = 16 * (300 + below(3)) + below(16); break;
        default: len = below(16 * 300 + 16); break;
      }
    }
    if (is_cbc(mode) && below(13) != 0) len -= len % 16;
    return len;
  }

  Batch make_batch(MessageMode mode, size_t count, Lengths lengths) {
    Batch b;
    b.count = count;
    b.keys = ks_test::random_bytes(rng_, 16 * count);
    b.ivs = ks_test::random_bytes(rng_, 16 * count);
    b.skip.assign(count, 0);
    b.offsets.assign(count + 1, 0);
    b.offsets[0] = 1 + 2 * below(8);  // odd: the first message is not aligned
    const size_t equal_len = 16 * below(40) + (is_cbc(mode) ? 0 : below(16));
    for (size_t i = 0; i < count; ++i) {
      b.offsets[i + 1] = b.offsets[i] + draw_length(mode, lengths, equal_len);
      if (below(9) == 0) b.skip[i] = uint8_t(1 + below(255));
    }
    b.data = ks_test::random_bytes(rng_, b.offsets[count] + 7);  // bytes past the end too
    return b;
  }

  // What crypt_messages must leave in out: the CPU's answer for every
  // message computed, `untouched` (out's bytes before the call) elsewhere.
  static Bytes expected(MessageMode mode, const Batch& b, const Bytes& untouched) {
    Bytes want = untouched;
    for (size_t i = 0; i < b.count; ++i) {
      const size_t at = b.offsets[i], len = b.offsets[i + 1] - at;
      if (b.skip[i] != 0 || (is_cbc(mode) && len % 16 != 0)) continue;
      cpu_crypt(mode, b.keys.data() + 16 * i, b.ivs.data() + 16 * i, b.data.data() + at,
                want.data() + at, len);
    }
    return want;
  }

  // The first message whose bytes differ, for the failure message.
  static std::string first_difference(const Batch& b, const Bytes& got, const Bytes& want) {
    for (size_t i = 0; i < b.count; ++i) {
      const size_t at = b.offsets[i], len = b.offsets[i + 1] - at;
      if (memcmp(got.data() + at, want.data() + at, len) != 0) {
        size_t k = 0;
        while (got[at + k] == want[at + k]) ++k;
        return "message " + std::to_string(i) + " (" + std::to_string(len) + " bytes, skip " +
               std::to_string(b.skip[i]) + ") differs from byte " + std::to_string(k);
      }
    }
    return got == want ? "equal" : "a byte outside the messages differs";
  }

  // Runs mode over the batch out of place and in place against the CPU
  // (skip passed as null where no message is skipped). Buffers are
  // compared whole but reported by their first differing message: gtest
  // would print megabytes.
  void check(MessageMode mode, const Batch& b) {
    SCOPED_TRACE(mode_name(mode) + ", " + std::to_string(b.count) + " messages");
    const bool none_skipped =
        std::all_of(b.skip.begin(), b.skip.end(), [](uint8_t f) { return f == 0; });
    const uint8_t* skip = none_skipped ? nullptr : b.skip.data();
    Bytes got(b.data.size(), 0xa5);
    const Bytes want = expected(mode, b, got);
    ASSERT_EQ(ks::sm4::gpu::crypt_messages(engine(), mode, b.keys.data(), b.ivs.data(),
                                           b.data.data(), b.offsets.data(), b.count, skip,
                                           got.data()),
              KS_OK);
    EXPECT_TRUE(got == want) << first_difference(b, got, want);
    Bytes inplace = b.data;
    const Bytes want_inplace = expected(mode, b, b.data);
    ASSERT_EQ(ks::sm4::gpu::crypt_messages(engine(), mode, b.keys.data(), b.ivs.data(),
                                           inplace.data(), b.offsets.data(), b.count, skip,
                                           inplace.data()),
              KS_OK);
    EXPECT_TRUE(inplace == want_inplace)
        << "in place: " << first_difference(b, inplace, want_inplace);
  }

  std::unique_ptr<ks_test::Context> ctx_;
  std::mt19937_64 rng_;
  std::string trace_;
};

// draft-ribose-cfrg-sm4 appendix A.2 (CBC, CFB, OFB over four blocks) in
// 33 lanes (two groups), each message after a skipped one-byte message so
// that they start at every alignment; decrypted back.
TEST_F(GpuSm4Chains, DraftExample) {
  const Bytes key = ks_test::from_hex("0123456789abcdeffedcba9876543210");
  const Bytes iv = ks_test::from_hex("000102030405060708090a0b0c0d0e0f");
  const Bytes plain = ks_test::from_hex(
      "aaaaaaaabbbbbbbbccccccccddddddddeeeeeeeeffffffffaaaaaaaabbbbbbbb");
  struct Case {
    MessageMode encrypt, decrypt;
    const char* cipher;
  };
  const Case cases[] = {
      {MessageMode::kCbcEncrypt, MessageMode::kCbcDecrypt,
       "78ebb11cc40b0a48312aaeb2040244cb4cb7016951909226979b0d15dc6a8f6d"},
      {MessageMode::kCfbEncrypt, MessageMode::kCfbDecrypt,
       "ac3236cb861dd316e6413b4e3c7524b769d4c54ed433b9a0346009beb37b2b3f"},
      {MessageMode::kOfb, MessageMode::kOfb,
       "ac3236cb861dd316e6413b4e3c7524b71d01aca2487ca582cbf5463e6698539b"},
  };
  const size_t lanes = 33, count = 2 * lanes;  // message 2k: the gap; 2k + 1: the example
  Bytes keys, ivs, skip, data(5, 0x77);
  std::vector<uint64_t> offsets(1, data.size());
  for (size_t i = 0; i < lanes; ++i) {
    data.push_back(0x77);
    offsets.push_back(data.size());
    data.insert(data.end(), plain.begin(), plain.end());
    offsets.push_back(data.size());
    for (int m = 0; m < 2; ++m) {
      keys.insert(keys.end(), key.begin(), key.end());
      ivs.insert(ivs.end(), iv.begin(), iv.end());
    }
    skip.push_back(1);
    skip.push_back(0);
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(mode_name(c.encrypt));
    const Bytes want = ks_test::from_hex(c.cipher);
    Bytes out(data.size(), 0x77);
    ASSERT_EQ(ks::sm4::gpu::crypt_messages(engine(), c.encrypt, keys.data(), ivs.data(),
                                           data.data(), offsets.data(), count, skip.data(),
                                           out.data()),
              KS_OK);
    Bytes expect = data;  // the gaps untouched, every example encrypted
    for (size_t i = 0; i < lanes; ++i) {
      const size_t at = offsets[2 * i + 1];
      EXPECT_EQ(Bytes(out.begin() + at, out.begin() + at + plain.size()), want) << "lane " << i;
      memcpy(expect.data() + at, want.data(), want.size());
    }
    EXPECT_EQ(out, expect);
    Bytes back(data.size(), 0x77);
    ASSERT_EQ(ks::sm4::gpu::crypt_messages(engine(), c.decrypt, keys.data(), ivs.data(),
                                           out.data(), offsets.data(), count, skip.data(),
                                           back.data()),
              KS_OK);
    EXPECT_EQ(back, data);
  }
}

// Every mode over batches whose sizes are not multiples of 32 (and one
// that is), mixed lengths.
TEST_F(GpuSm4Chains, MixedBatchesMatchTheCpu) {
  SCOPED_TRACE(trace_);
  for (MessageMode mode : kModes)
    for (size_t count : {size_t(1), size_t(31), size_t(32), size_t(33), size_t(1000)})
      check(mode, make_batch(mode, count, Lengths::kMixed));
}

// Every lane of a group as long as the others (no lane ends early), with
// and without skipped messages, and batches of empty messages only.
TEST_F(GpuSm4Chains, EqualLengthsMatchTheCpu) {
  SCOPED_TRACE(trace_);
  for (MessageMode mode : kModes) {
    check(mode, make_batch(mode, 64, Lengths::kEqual));
    check(mode, make_batch(mode, 97, Lengths::kEqual));
    Batch all = make_batch(mode, 96, Lengths::kEqual);
    all.skip.assign(all.count, 0);  // skip passed as null
    check(mode, all);
    Batch empty = make_batch(mode, 40, Lengths::kEqual);
    empty.offsets.assign(41, empty.offsets[0]);
    check(mode, empty);
  }
}

// Every message skipped: nothing written.
TEST_F(GpuSm4Chains, SkippedMessagesAreNotWritten) {
  SCOPED_TRACE(trace_);
  for (MessageMode mode : kModes) {
    Batch b = make_batch(mode, 70, Lengths::kMixed);
    b.skip.assign(b.count, 1);
    Bytes out(b.data.size(), 0x3c);
    ASSERT_EQ(ks::sm4::gpu::crypt_messages(engine(), mode, b.keys.data(), b.ivs.data(),
                                           b.data.data(), b.offsets.data(), b.count,
                                           b.skip.data(), out.data()),
              KS_OK);
    EXPECT_TRUE(out == Bytes(b.data.size(), 0x3c)) << mode_name(mode) << " wrote a skipped message";
  }
}

}  // namespace
