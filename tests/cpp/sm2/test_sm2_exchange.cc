// SM2 key exchange (GB/T 32918.3-2016): the recommended-curve example of
// GM/T 0003.5-2012 Annex A (static and ephemeral keys fixed, both IDs the
// default, a 128-bit key, with both confirmation values), exchanges between
// the two roles through the C API with and without confirmation, every key
// length class, and the refusals: points that are not on the curve, wrong
// tags, steps out of order, bad arguments. The independent implementations
// (a model written from the standard, and gmalg) are in
// tests/python/test_sm2_exchange.py.
#include <gtest/gtest.h>

#include <string.h>

#include <string>
#include <vector>

#include "kuaisuo.h"
#include "sm2/sm2_exchange.h"
#include "test_util.h"

using Bytes = std::vector<uint8_t>;
using ks_test::from_hex;

namespace {

namespace sm2 = ks::sm2;

const Bytes kId(sm2::kDefaultId, sm2::kDefaultId + sm2::kDefaultIdBytes);

// GM/T 0003.5-2012 Annex A, key exchange on the recommended curve.
struct Example {
  Bytes d_a = from_hex("81EB26E941BB5AF16DF116495F90695272AE2CD63D6C4AE1678418BE48230029");
  Bytes d_b = from_hex("785129917D45A9EA5437A59356B82338EAADDA6CEB199088F14AE10DEFA229B5");
  Bytes r_a = from_hex("D4DE15474DB74D06491C440D305E012400990F3E390C7E87153C12DB2EA60BB3");
  Bytes r_b = from_hex("7E07124814B309489125EAED101113164EBF0F3458C5BD88335C1F9D596243D6");
  Bytes big_r_a = from_hex(
      "0464CED1BDBC99D590049B434D0FD73428CF608A5DB8FE5CE07F15026940BAE40E"
      "376629C7AB21E7DB260922499DDB118F07CE8EAAE3E7720AFEF6A5CC062070C0");
  Bytes big_r_b = from_hex(
      "04ACC27688A6F7B706098BC91FF3AD1BFF7DC2802CDB14CCCCDB0A90471F9BD707"
      "2FEDAC0494B2FFC4D6853876C79B8F301C6573AD0AA50F39FC87181E1A1B46FE");
  Bytes key = from_hex("6C89347354DE2484C60B4AB1FDE4C6E5");
  Bytes s_b = from_hex("D3A0FE15DEE185CEAE907A6B595CC32A266ED7B3367E9983A896DC32FA20F8EB");
  Bytes s_a = from_hex("18C7894B3816DF16CF07B05C5EC0BEF5D655D58F779CC1B400A4F3884644DB88");
};

sm2::PrivateKey private_key(const Bytes& d) {
  sm2::PrivateKey k;
  EXPECT_EQ(sm2::private_key_from_bytes(k, d.data()), sm2::Error::kOk);
  return k;
}

TEST(Sm2Exchange, StandardExampleWithConfirmation) {
  const Example ex;
  const sm2::PrivateKey a = private_key(ex.d_a), b = private_key(ex.d_b);
  sm2::KeyExchange ia, rb;
  ASSERT_EQ(ia.init(sm2::ExchangeRole::kInitiator, a, kId.data(), kId.size(), b.pub, kId.data(),
                    kId.size(), true),
            sm2::Error::kOk);
  ASSERT_EQ(rb.init(sm2::ExchangeRole::kResponder, b, kId.data(), kId.size(), a.pub, kId.data(),
                    kId.size(), true),
            sm2::Error::kOk);
  uint8_t big_r_a[65], big_r_b[65], s_b[32], s_a[32];
  ASSERT_EQ(ia.start(big_r_a, ex.r_a.data()), sm2::Error::kOk);
  EXPECT_EQ(Bytes(big_r_a, big_r_a + 65), ex.big_r_a);
  ASSERT_EQ(rb.respond(big_r_a, 65, big_r_b, s_b, nullptr, 0, ex.r_b.data()), sm2::Error::kOk);
  EXPECT_EQ(Bytes(big_r_b, big_r_b + 65), ex.big_r_b);
  EXPECT_EQ(Bytes(s_b, s_b + 32), ex.s_b);
  Bytes key_a(16), key_b(16);
  ASSERT_EQ(ia.finish(big_r_b, 65, s_b, key_a.data(), key_a.size(), s_a), sm2::Error::kOk);
  EXPECT_EQ(key_a, ex.key);
  EXPECT_EQ(Bytes(s_a, s_a + 32), ex.s_a);
  ASSERT_EQ(rb.confirm(s_a, key_b.data(), key_b.size()), sm2::Error::kOk);
  EXPECT_EQ(key_b, ex.key);
}

TEST(Sm2Exchange, StandardExampleWithoutConfirmation) {
  const Example ex;
  const sm2::PrivateKey a = private_key(ex.d_a), b = private_key(ex.d_b);
  sm2::KeyExchange rb;
  ASSERT_EQ(rb.init(sm2::ExchangeRole::kResponder, b, kId.data(), kId.size(), a.pub, kId.data(),
                    kId.size(), false),
            sm2::Error::kOk);
  uint8_t big_r_b[65];
  Bytes key_b(16);
  ASSERT_EQ(rb.respond(ex.big_r_a.data(), 65, big_r_b, nullptr, key_b.data(), key_b.size(),
                       ex.r_b.data()),
            sm2::Error::kOk);
  EXPECT_EQ(key_b, ex.key);
  // The rest of the key stream is KDF's too: a longer key extends it.
  sm2::KeyExchange again;
  ASSERT_EQ(again.init(sm2::ExchangeRole::kResponder, b, kId.data(), kId.size(), a.pub,
                       kId.data(), kId.size(), false),
            sm2::Error::kOk);
  Bytes longer(100);
  ASSERT_EQ(again.respond(ex.big_r_a.data(), 65, big_r_b, nullptr, longer.data(), longer.size(),
                          ex.r_b.data()),
            sm2::Error::kOk);
  EXPECT_EQ(Bytes(longer.begin(), longer.begin() + 16), ex.key);
}

// Both parties through the C API.
struct Party {
  ks_sm2_key* key = nullptr;
  ks_sm2_pubkey* pub = nullptr;
  Party() {
    EXPECT_EQ(ks_sm2_key_generate(&key), KS_OK);
    EXPECT_EQ(ks_sm2_key_public(key, &pub), KS_OK);
  }
  ~Party() {
    ks_sm2_key_free(key);
    ks_sm2_pubkey_free(pub);
  }
};

struct Pair {
  Party a, b;
  ks_sm2_kx* ia = nullptr;
  ks_sm2_kx* rb = nullptr;
  Pair(int confirm, const std::string& id_a = "alice", const std::string& id_b = "bob",
       const std::string& b_thinks_a = "alice") {
    const auto* ida = reinterpret_cast<const uint8_t*>(id_a.data());
    const auto* idb = reinterpret_cast<const uint8_t*>(id_b.data());
    const auto* idx = reinterpret_cast<const uint8_t*>(b_thinks_a.data());
    EXPECT_EQ(ks_sm2_kx_new(KS_SM2_INITIATOR, a.key, ida, id_a.size(), b.pub, idb, id_b.size(),
                            confirm, &ia),
              KS_OK);
    EXPECT_EQ(ks_sm2_kx_new(KS_SM2_RESPONDER, b.key, idb, id_b.size(), a.pub, idx,
                            b_thinks_a.size(), confirm, &rb),
              KS_OK);
  }
  ~Pair() {
    ks_sm2_kx_free(ia);
    ks_sm2_kx_free(rb);
  }
};

TEST(Sm2Exchange, BothRolesAgreeOnEveryKeyLength) {
  for (int confirm = 0; confirm <= 1; ++confirm) {
    for (size_t len : {1, 16, 31, 32, 33, 64, 1000}) {
      Pair p(confirm);
      uint8_t r_a[65], r_b[65], s_b[32], s_a[32];
      Bytes key_a(len, 0xEE), key_b(len, 0xDD);
      ASSERT_EQ(ks_sm2_kx_start(p.ia, r_a), KS_OK);
      if (confirm) {
        ASSERT_EQ(ks_sm2_kx_respond(p.rb, r_a, 65, r_b, s_b, nullptr, 0), KS_OK);
        ASSERT_EQ(ks_sm2_kx_finish(p.ia, r_b, 65, s_b, key_a.data(), len, s_a), KS_OK);
        ASSERT_EQ(ks_sm2_kx_confirm(p.rb, s_a, key_b.data(), len), KS_OK);
      } else {
        ASSERT_EQ(ks_sm2_kx_respond(p.rb, r_a, 65, r_b, nullptr, key_b.data(), len), KS_OK);
        ASSERT_EQ(ks_sm2_kx_finish(p.ia, r_b, 65, nullptr, key_a.data(), len, nullptr), KS_OK);
      }
      EXPECT_EQ(key_a, key_b) << "confirm " << confirm << " length " << len;
      // Both were written (they were filled apart). A key of a byte or two
      // equals a fill by chance (1 in 256 for one byte), so only the longer
      // ones are held to differ from it.
      if (len >= 16) {
        EXPECT_NE(key_a, Bytes(len, 0xEE));
      }
      // Every step is done: the objects refuse more.
      EXPECT_EQ(ks_sm2_kx_start(p.ia, r_a), KS_ERR_STATE);
    }
  }
}

TEST(Sm2Exchange, CompressedAndRawPointsAreRead) {
  Pair p(0);
  uint8_t r_a[65], r_b[65];
  ASSERT_EQ(ks_sm2_kx_start(p.ia, r_a), KS_OK);
  uint8_t compressed[33];
  compressed[0] = uint8_t(0x02 | (r_a[64] & 1));
  memcpy(compressed + 1, r_a + 1, 32);
  Bytes key_a(32), key_b(32);
  ASSERT_EQ(ks_sm2_kx_respond(p.rb, compressed, 33, r_b, nullptr, key_b.data(), 32), KS_OK);
  ASSERT_EQ(ks_sm2_kx_finish(p.ia, r_b + 1, 64, nullptr, key_a.data(), 32, nullptr), KS_OK);
  EXPECT_EQ(key_a, key_b);
}

TEST(Sm2Exchange, DifferentIdsGiveDifferentKeysAndConfirmationCatchesIt) {
  Pair p(1, "alice", "bob", "mallory");  // B has the wrong ID for A
  uint8_t r_a[65], r_b[65], s_b[32], s_a[32];
  ASSERT_EQ(ks_sm2_kx_start(p.ia, r_a), KS_OK);
  ASSERT_EQ(ks_sm2_kx_respond(p.rb, r_a, 65, r_b, s_b, nullptr, 0), KS_OK);
  Bytes key_a(16, 0x5A);
  memset(s_a, 0x77, sizeof s_a);
  EXPECT_EQ(ks_sm2_kx_finish(p.ia, r_b, 65, s_b, key_a.data(), 16, s_a), KS_ERR_CONFIRMATION);
  EXPECT_EQ(key_a, Bytes(16, 0x5A));  // nothing released
  EXPECT_EQ(Bytes(s_a, s_a + 32), Bytes(32, 0x77));
  // Failed for good.
  EXPECT_EQ(ks_sm2_kx_finish(p.ia, r_b, 65, s_b, key_a.data(), 16, s_a), KS_ERR_STATE);
}

TEST(Sm2Exchange, ResponderChecksTheInitiatorsTag) {
  Pair p(1);
  uint8_t r_a[65], r_b[65], s_b[32], s_a[32];
  ASSERT_EQ(ks_sm2_kx_start(p.ia, r_a), KS_OK);
  ASSERT_EQ(ks_sm2_kx_respond(p.rb, r_a, 65, r_b, s_b, nullptr, 0), KS_OK);
  Bytes key_a(16), key_b(16, 0x5A);
  ASSERT_EQ(ks_sm2_kx_finish(p.ia, r_b, 65, s_b, key_a.data(), 16, s_a), KS_OK);
  for (int bit = 0; bit < 256; bit += 37) {
    Pair q(1);
    uint8_t qa[65], qb[65], qsb[32], qsa[32];
    ASSERT_EQ(ks_sm2_kx_start(q.ia, qa), KS_OK);
    ASSERT_EQ(ks_sm2_kx_respond(q.rb, qa, 65, qb, qsb, nullptr, 0), KS_OK);
    Bytes qkey(16);
    ASSERT_EQ(ks_sm2_kx_finish(q.ia, qb, 65, qsb, qkey.data(), 16, qsa), KS_OK);
    qsa[bit / 8] ^= uint8_t(1 << (bit % 8));
    Bytes out(16, 0x5A);
    EXPECT_EQ(ks_sm2_kx_confirm(q.rb, qsa, out.data(), 16), KS_ERR_CONFIRMATION);
    EXPECT_EQ(out, Bytes(16, 0x5A));
  }
  // S_B offered as S_A (a reflection) is refused too.
  EXPECT_EQ(ks_sm2_kx_confirm(p.rb, s_b, key_b.data(), 16), KS_ERR_CONFIRMATION);
}

TEST(Sm2Exchange, PointsOffTheCurveAreRefused) {
  uint8_t r_a[65];
  {
    Pair p(0);
    ASSERT_EQ(ks_sm2_kx_start(p.ia, r_a), KS_OK);
  }
  std::vector<Bytes> bad;
  Bytes off(r_a, r_a + 65);
  off[64] ^= 1;  // y changed: off the curve
  bad.push_back(off);
  bad.push_back(Bytes{0x00});                  // infinity
  bad.push_back(Bytes(r_a, r_a + 64));         // truncated
  bad.push_back(Bytes(65, 0xFF));              // x, y >= p
  Bytes wrong_prefix(r_a, r_a + 65);
  wrong_prefix[0] = 0x05;
  bad.push_back(wrong_prefix);
  for (const Bytes& r : bad) {
    Pair p(0);
    uint8_t r_b[65];
    Bytes key(16, 0x5A);
    EXPECT_EQ(ks_sm2_kx_respond(p.rb, r.data(), r.size(), r_b, nullptr, key.data(), 16),
              KS_ERR_BAD_PUBLIC_KEY);
    EXPECT_EQ(key, Bytes(16, 0x5A));
    EXPECT_EQ(ks_sm2_kx_respond(p.rb, r_a, 65, r_b, nullptr, key.data(), 16), KS_ERR_STATE);
    // The initiator refuses the same.
    uint8_t mine[65];
    ASSERT_EQ(ks_sm2_kx_start(p.ia, mine), KS_OK);
    EXPECT_EQ(ks_sm2_kx_finish(p.ia, r.data(), r.size(), nullptr, key.data(), 16, nullptr),
              KS_ERR_BAD_PUBLIC_KEY);
    EXPECT_EQ(key, Bytes(16, 0x5A));
  }
}

TEST(Sm2Exchange, StepsRunInOrderOnly) {
  uint8_t r[65], r2[65], tag[32];
  Bytes key(16);
  {
    Pair p(1);
    EXPECT_EQ(ks_sm2_kx_start(p.rb, r), KS_ERR_STATE);  // a responder does not start
    EXPECT_EQ(ks_sm2_kx_confirm(p.rb, tag, key.data(), 16), KS_ERR_STATE);  // failed already
  }
  {
    Pair p(1);
    ASSERT_EQ(ks_sm2_kx_start(p.ia, r), KS_OK);
    EXPECT_EQ(ks_sm2_kx_start(p.ia, r2), KS_ERR_STATE);  // twice
  }
  {
    Pair p(1);
    EXPECT_EQ(ks_sm2_kx_confirm(p.rb, tag, key.data(), 16), KS_ERR_STATE);  // before respond
  }
  {
    Pair p(0);
    ASSERT_EQ(ks_sm2_kx_start(p.ia, r), KS_OK);
    EXPECT_EQ(ks_sm2_kx_respond(p.ia, r, 65, r2, nullptr, key.data(), 16), KS_ERR_STATE);
  }
  {
    Pair p(0);
    EXPECT_EQ(ks_sm2_kx_finish(p.ia, r, 65, nullptr, key.data(), 16, nullptr), KS_ERR_STATE);
  }
  {
    Pair p(0);  // without confirmation there is nothing to confirm
    uint8_t r_a[65];
    ASSERT_EQ(ks_sm2_kx_start(p.ia, r_a), KS_OK);
    ASSERT_EQ(ks_sm2_kx_respond(p.rb, r_a, 65, r, nullptr, key.data(), 16), KS_OK);
    EXPECT_EQ(ks_sm2_kx_confirm(p.rb, tag, key.data(), 16), KS_ERR_STATE);
  }
}

TEST(Sm2Exchange, ArgumentErrorsLeaveTheExchangeAsItWas) {
  Pair p(1);
  uint8_t r_a[65], r_b[65], s_b[32], s_a[32];
  Bytes key(16);
  ks_sm2_kx* none = nullptr;
  EXPECT_EQ(ks_sm2_kx_new(2, p.a.key, nullptr, 0, p.b.pub, nullptr, 0, 0, &none),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm2_kx_new(0, p.a.key, nullptr, 0, p.b.pub, nullptr, 0, 2, &none),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm2_kx_new(0, nullptr, nullptr, 0, p.b.pub, nullptr, 0, 0, &none),
            KS_ERR_NULL_POINTER);
  const Bytes long_id(8192, 'x');
  EXPECT_EQ(ks_sm2_kx_new(0, p.a.key, long_id.data(), long_id.size(), p.b.pub, nullptr, 0, 0,
                          &none),
            KS_ERR_ID_LENGTH);
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(ks_sm2_kx_start(p.ia, nullptr), KS_ERR_NULL_POINTER);
  ASSERT_EQ(ks_sm2_kx_start(p.ia, r_a), KS_OK);
  EXPECT_EQ(ks_sm2_kx_respond(p.rb, r_a, 65, r_b, nullptr, nullptr, 0), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_kx_respond(p.rb, r_a, 65, r_b, s_b, key.data(), 16),
            KS_ERR_INVALID_ARGUMENT);  // with confirmation the key comes later
  ASSERT_EQ(ks_sm2_kx_respond(p.rb, r_a, 65, r_b, s_b, nullptr, 0), KS_OK);
  EXPECT_EQ(ks_sm2_kx_finish(p.ia, r_b, 65, nullptr, key.data(), 16, s_a), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_kx_finish(p.ia, r_b, 65, s_b, key.data(), 0, s_a), KS_ERR_LENGTH);
  ASSERT_EQ(ks_sm2_kx_finish(p.ia, r_b, 65, s_b, key.data(), 16, s_a), KS_OK);
  Bytes key_b(16);
  EXPECT_EQ(ks_sm2_kx_confirm(p.rb, s_a, nullptr, 16), KS_ERR_NULL_POINTER);
  ASSERT_EQ(ks_sm2_kx_confirm(p.rb, s_a, key_b.data(), 16), KS_OK);
  EXPECT_EQ(key, key_b);
  ks_sm2_kx_free(nullptr);
}

}  // namespace
