// The streaming state machines of the C API under random sequences of
// init, update, final, cleanse and overwritten states (issue 42): the
// model of tests/fuzz/stream_machines.h, with choices from a seeded PRNG,
// and the regressions the review found in SKINNY's CTR stream.
#include <gtest/gtest.h>
#include <string.h>

#include <random>
#include <string>

#include "../fuzz/stream_machines.h"
#include "kuaisuo.h"

namespace {

class PrngChooser : public ks_streams::Chooser {
 public:
  explicit PrngChooser(uint32_t seed) : rng_(seed) {}
  uint32_t below(uint32_t bound) override { return uint32_t(rng_() % bound); }
  void fill(uint8_t* p, size_t n) override {
    for (size_t i = 0; i < n; ++i) p[i] = uint8_t(rng_());
  }
  bool adversarial() const override { return false; }

 private:
  std::mt19937 rng_;
};

const char* const kNames[] = {"SM3", "HMAC-SM3", "SM4", "SM4-GCM", "SKINNY CTR"};

class StreamStates : public testing::TestWithParam<uint32_t> {};

TEST_P(StreamStates, RandomOperationsMatchOneShotAndRefuseWipedStates) {
  for (uint32_t seed = 0; seed < 60; ++seed) {
    PrngChooser ch(seed * 7919 + GetParam());
    const char* failure = ks_streams::run(GetParam(), ch, 200);
    ASSERT_EQ(failure, nullptr) << kNames[GetParam()] << ", seed " << seed << ": " << failure;
  }
}

std::string machine_name(const testing::TestParamInfo<uint32_t>& info) {
  const char* const names[] = {"Sm3", "HmacSm3", "Sm4", "Sm4Gcm", "SkinnyCtr"};
  return names[info.param];
}

INSTANTIATE_TEST_SUITE_P(AllMachines, StreamStates, testing::Range(0u, 5u), machine_name);

// The review's findings, one by one: after cleanse or on a zeroed state
// update returned KS_OK and encrypted under a keystream that did not
// depend on the key; on a 0xFF-filled state it read out of bounds.
TEST(SkinnyCtrStream, RefusesWipedZeroedAndFilledStates) {
  const uint8_t tweakey[32] = {1}, iv[16] = {2}, in[40] = {3};
  uint8_t out[40];
  ks_skinny_ctr_ctx c;
  ASSERT_EQ(ks_skinny128_256_ctr_init(&c, tweakey, iv), KS_OK);
  ASSERT_EQ(ks_skinny128_256_ctr_update(&c, in, 5, out), KS_OK);
  ks_skinny128_256_ctr_cleanse(&c);
  for (int fill : {-1, 0x00, 0xff, 0xa5}) {
    if (fill >= 0) memset(&c, fill, sizeof c);
    memset(out, 0x5a, sizeof out);
    EXPECT_EQ(ks_skinny128_256_ctr_update(&c, in, sizeof in, out), KS_ERR_INVALID_ARGUMENT)
        << fill;
    for (uint8_t b : out) ASSERT_EQ(b, 0x5a) << "a refused update wrote (fill " << fill << ")";
  }
}

// Every streaming state type refuses a state no init made, for each fill.
TEST(StreamStatesRefused, EveryTypeRefusesFilledStates) {
  uint8_t buf[64] = {}, out[80], tag[32];
  size_t n = 0;
  for (int fill : {0x00, 0xff, 0x01, 0x80}) {
    ks_sm3_ctx sm3;
    ks_hmac_sm3_ctx hmac;
    ks_sm4_ctx sm4;
    ks_sm4_gcm_ctx gcm;
    ks_sm4_schedule schedule;
    memset(&schedule, fill, sizeof schedule);
    memset(&sm3, fill, sizeof sm3);
    memset(&hmac, fill, sizeof hmac);
    memset(&sm4, fill, sizeof sm4);
    memset(&gcm, fill, sizeof gcm);
    EXPECT_EQ(ks_sm3_update(&sm3, buf, 64), KS_ERR_INVALID_ARGUMENT) << fill;
    EXPECT_EQ(ks_sm3_final(&sm3, tag), KS_ERR_INVALID_ARGUMENT) << fill;
    EXPECT_EQ(ks_hmac_sm3_update(&hmac, buf, 64), KS_ERR_INVALID_ARGUMENT) << fill;
    EXPECT_EQ(ks_hmac_sm3_final(&hmac, tag), KS_ERR_INVALID_ARGUMENT) << fill;
    EXPECT_EQ(ks_sm4_update(&sm4, buf, 64, out, 80, &n), KS_ERR_INVALID_ARGUMENT) << fill;
    EXPECT_EQ(ks_sm4_final(&sm4, out, 16, &n), KS_ERR_INVALID_ARGUMENT) << fill;
    EXPECT_EQ(ks_sm4_gcm_aad(&gcm, buf, 64), KS_ERR_INVALID_ARGUMENT) << fill;
    EXPECT_EQ(ks_sm4_gcm_update(&gcm, buf, 64, out), KS_ERR_INVALID_ARGUMENT) << fill;
    EXPECT_EQ(ks_sm4_gcm_final(&gcm, tag, 16), KS_ERR_INVALID_ARGUMENT) << fill;
    EXPECT_EQ(ks_sm4_gcm_verify(&gcm, tag, 16), KS_ERR_INVALID_ARGUMENT) << fill;
    memset(out, 0x5a, sizeof out);
    EXPECT_EQ(ks_sm4_schedule_crypt(&schedule, KS_SM4_ECB, KS_ENCRYPT, 0, nullptr, 0, buf, 64,
                                    out, 80, &n),
              KS_ERR_INVALID_ARGUMENT)
        << fill;
    for (uint8_t b : out) ASSERT_EQ(b, 0x5a) << "a refused schedule wrote (fill " << fill << ")";
  }
  // A wiped HMAC state used to give a tag independent of the key.
  ks_hmac_sm3_ctx hmac;
  ASSERT_EQ(ks_hmac_sm3_init(&hmac, "key", 3), KS_OK);
  ks_hmac_sm3_cleanse(&hmac);
  EXPECT_EQ(ks_hmac_sm3_update(&hmac, buf, 1), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_hmac_sm3_final(&hmac, tag), KS_ERR_INVALID_ARGUMENT);
}

}  // namespace
