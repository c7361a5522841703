// The C API's streaming state machines (SM3, HMAC-SM3, SM4 ECB..CTR,
// SM4-GCM, SKINNY CTR) driven by a sequence of choices: init, update with
// random lengths, final, cleanse, and overwriting the state with zeros,
// 0xFF, random bytes or a few poked bytes. Shared by the property test
// (tests/cpp/api/test_stream_states.cc, choices from a seeded PRNG) and the
// libFuzzer target (fuzz_stream_states.cc, choices from the input), so
// both check one model (issue 42):
//  - a live state (after init) gives what the one-shot call gives for the
//    same input, whatever the split;
//  - a state no init made, or one wiped (cleanse, final, zeros, 0xFF, or
//    random bytes from the PRNG) is refused with KS_ERR_INVALID_ARGUMENT
//    and writes nothing;
//  - a state with bytes an adversary chose (fuzz input, poked bytes) may be
//    accepted or refused but is never read or written out of bounds (the
//    fuzz build's ASan/UBSan) and never returns another status.
// Output buffers are exactly what the API promises to fill, so that ASan
// reports a write past them.
#ifndef KS_TESTS_STREAM_MACHINES_H_
#define KS_TESTS_STREAM_MACHINES_H_

#include <stdint.h>
#include <string.h>

#include <memory>
#include <vector>

#include "kuaisuo.h"

namespace ks_streams {

using Bytes = std::vector<uint8_t>;

// Where a run's choices come from.
class Chooser {
 public:
  virtual ~Chooser() = default;
  virtual uint32_t below(uint32_t bound) = 0;  // in [0, bound), bound > 0
  virtual void fill(uint8_t* p, size_t n) = 0;
  // Whether filled bytes may be crafted (fuzz input) rather than random:
  // then a state filled with them may carry a valid tag.
  virtual bool adversarial() const = 0;
  Bytes bytes(size_t n) {
    Bytes b(n);
    fill(b.data(), n);
    return b;
  }
};

// What the model knows of a state.
enum class Life { kRefused, kLive, kUnknown };

// The state handling every machine shares: its life, the input and output
// since init, overwriting, and the first property that failed.
template <class Ctx>
class Machine {
 public:
  Machine() { memset(&ctx_, 0, sizeof ctx_); }
  virtual ~Machine() = default;
  const char* failure() const { return failure_; }

  void step(Chooser& ch) {
    switch (ch.below(8)) {
      case 0: start(ch); break;
      case 1: case 2: case 3: update(ch); break;
      case 4: finish(ch); break;
      case 5: cleanse(); break;
      default: overwrite(ch); break;
    }
  }

 protected:
  virtual void start(Chooser& ch) = 0;
  virtual void update(Chooser& ch) = 0;
  virtual void finish(Chooser& ch) = 0;
  virtual void cleanse() = 0;

  void check(bool ok, const char* what) {
    if (!ok && failure_ == nullptr) failure_ = what;
  }
  // rc of a call that a live state answers with `live_rc`.
  void check_rc(int rc, int live_rc, const char* what) {
    if (life_ == Life::kLive) return check(rc == live_rc, what);
    if (life_ == Life::kRefused) return check(rc == KS_ERR_INVALID_ARGUMENT, what);
    check(rc == KS_OK || rc == KS_ERR_INVALID_ARGUMENT || rc == KS_ERR_LENGTH ||
              rc == KS_ERR_BAD_PADDING || rc == KS_ERR_TAG_MISMATCH,
          what);
  }
  void begin() {
    life_ = Life::kLive;
    in_.clear();
    out_.clear();
  }
  // Zeros, 0xFF, random bytes, or (a live state) a few bytes poked.
  void overwrite(Chooser& ch) {
    auto* p = reinterpret_cast<uint8_t*>(&ctx_);
    const uint32_t how = ch.below(4);
    if (how == 3) {
      const size_t at = ch.below(sizeof ctx_), n = 1 + ch.below(8);
      ch.fill(p + at, at + n <= sizeof ctx_ ? n : sizeof ctx_ - at);
      // Random bytes in a wiped state leave it wiped (a tag is 32 bits);
      // crafted ones may make one.
      if (life_ == Life::kLive || ch.adversarial()) life_ = Life::kUnknown;
      return;
    }
    if (how == 2) {
      ch.fill(p, sizeof ctx_);
    } else {
      memset(p, how == 0 ? 0 : 0xff, sizeof ctx_);
    }
    life_ = how == 2 && ch.adversarial() ? Life::kUnknown : Life::kRefused;
  }
  size_t length(Chooser& ch) { return ch.below(4) == 0 ? ch.below(600) : ch.below(40); }

  Ctx ctx_;
  Life life_ = Life::kRefused;
  Bytes in_, out_;  // since init (live states only)
  const char* failure_ = nullptr;
};

class Sm3Machine : public Machine<ks_sm3_ctx> {
  void start(Chooser&) override {
    check(ks_sm3_init(&ctx_) == KS_OK, "sm3 init");
    begin();
  }
  void update(Chooser& ch) override {
    const Bytes data = ch.bytes(length(ch));
    check_rc(ks_sm3_update(&ctx_, data.data(), data.size()), KS_OK, "sm3 update");
    in_.insert(in_.end(), data.begin(), data.end());
  }
  void finish(Chooser&) override {
    uint8_t got[32] = {}, want[32];
    check_rc(ks_sm3_final(&ctx_, got), KS_OK, "sm3 final");
    if (life_ != Life::kLive) return;
    ks_sm3(in_.data(), in_.size(), want);
    check(memcmp(got, want, 32) == 0, "sm3 final differs from ks_sm3");
    begin();  // final re-initialises
  }
  void cleanse() override {  // SM3 has no cleanse: a caller's wipe
    memset(&ctx_, 0, sizeof ctx_);
    life_ = Life::kRefused;
  }
};

class HmacMachine : public Machine<ks_hmac_sm3_ctx> {
  void start(Chooser& ch) override {
    key_ = ch.bytes(ch.below(100));
    check(ks_hmac_sm3_init(&ctx_, key_.data(), key_.size()) == KS_OK, "hmac init");
    begin();
  }
  void update(Chooser& ch) override {
    const Bytes data = ch.bytes(length(ch));
    check_rc(ks_hmac_sm3_update(&ctx_, data.data(), data.size()), KS_OK, "hmac update");
    in_.insert(in_.end(), data.begin(), data.end());
  }
  void finish(Chooser&) override {
    uint8_t got[32] = {}, want[32];
    check_rc(ks_hmac_sm3_final(&ctx_, got), KS_OK, "hmac final");
    if (life_ != Life::kLive) return;
    ks_hmac_sm3(key_.data(), key_.size(), in_.data(), in_.size(), want);
    check(memcmp(got, want, 32) == 0, "hmac final differs from ks_hmac_sm3");
    begin();  // final leaves the state keyed
  }
  void cleanse() override {
    ks_hmac_sm3_cleanse(&ctx_);
    life_ = Life::kRefused;
  }
  Bytes key_;
};

class Sm4Machine : public Machine<ks_sm4_ctx> {
  void start(Chooser& ch) override {
    mode_ = int(ch.below(5));
    encrypt_ = int(ch.below(2));
    flags_ = mode_ <= KS_SM4_CBC && ch.below(2) != 0 ? KS_SM4_PAD_PKCS7 : 0;
    key_ = ch.bytes(16);
    iv_ = ch.bytes(16);
    check(ks_sm4_init(&ctx_, mode_, encrypt_, flags_, key_.data(), iv_.data(), iv_len()) == KS_OK,
          "sm4 init");
    begin();
  }
  void update(Chooser& ch) override {
    const Bytes data = ch.bytes(length(ch));
    std::unique_ptr<uint8_t[]> out(new uint8_t[data.size() + 16]);
    size_t n = 0;
    check_rc(ks_sm4_update(&ctx_, data.data(), data.size(), out.get(), data.size() + 16, &n), KS_OK,
             "sm4 update");
    check(n <= data.size() + 16, "sm4 update wrote more than len + 16");
    in_.insert(in_.end(), data.begin(), data.end());
    out_.insert(out_.end(), out.get(), out.get() + (life_ == Life::kLive ? n : 0));
  }
  void finish(Chooser&) override {
    uint8_t last[16];
    size_t n = 0;
    const int rc = ks_sm4_final(&ctx_, last, 16, &n);
    check_rc(rc, expected_final_rc(), "sm4 final");
    if (life_ == Life::kLive && rc == KS_OK) {
      out_.insert(out_.end(), last, last + n);
      check(out_ == one_shot_, "sm4 stream differs from the one-shot call");
    }
    life_ = Life::kRefused;  // final wipes the state, whatever it held
  }
  void cleanse() override {
    ks_sm4_cleanse(&ctx_);
    life_ = Life::kRefused;
  }
  size_t iv_len() const { return mode_ == KS_SM4_ECB ? 0 : 16; }
  // The one-shot call's status on the whole input (its output in one_shot_).
  int expected_final_rc() {
    if (life_ != Life::kLive) return KS_OK;
    one_shot_.assign(in_.size() + 16, 0);
    size_t n = 0;
    const int rc = ks_sm4_crypt(mode_, encrypt_, flags_, key_.data(), iv_.data(), iv_len(),
                                in_.data(), in_.size(), one_shot_.data(), one_shot_.size(), &n);
    one_shot_.resize(n);
    return rc;
  }
  int mode_ = 0, encrypt_ = 0;
  uint32_t flags_ = 0;
  Bytes key_, iv_, one_shot_;
};

class GcmMachine : public Machine<ks_sm4_gcm_ctx> {
  void start(Chooser& ch) override {
    encrypt_ = int(ch.below(2));
    key_ = ch.bytes(16);
    iv_ = ch.bytes(1 + ch.below(24));
    aad_.clear();
    text_started_ = false;
    check(ks_sm4_gcm_init(&ctx_, encrypt_, key_.data(), iv_.data(), iv_.size()) == KS_OK,
          "gcm init");
    begin();
  }
  void update(Chooser& ch) override {
    const Bytes data = ch.bytes(length(ch));
    if (!text_started_ && ch.below(3) == 0) {  // AAD only before the text
      check_rc(ks_sm4_gcm_aad(&ctx_, data.data(), data.size()), KS_OK, "gcm aad");
      aad_.insert(aad_.end(), data.begin(), data.end());
      return;
    }
    Bytes out(data.size());
    check_rc(ks_sm4_gcm_update(&ctx_, data.data(), data.size(), out.data()), KS_OK, "gcm update");
    text_started_ = true;
    in_.insert(in_.end(), data.begin(), data.end());
    out_.insert(out_.end(), out.begin(), out.end());
  }
  // Encrypting: the tag and text are the one-shot seal's. Decrypting: the
  // text decrypted is what sealing it again gives back, under whose tag
  // verify succeeds.
  void finish(Chooser&) override {
    const Bytes& plain = encrypt_ ? in_ : out_;
    Bytes sealed(plain.size());
    uint8_t want[16], got[16];
    ks_sm4_gcm_seal(key_.data(), iv_.data(), iv_.size(), aad_.data(), aad_.size(), plain.data(),
                    plain.size(), sealed.data(), want, 16);
    const int rc = encrypt_ ? ks_sm4_gcm_final(&ctx_, got, 16) : ks_sm4_gcm_verify(&ctx_, want, 16);
    check_rc(rc, KS_OK, "gcm final/verify");
    if (life_ == Life::kLive) {
      check(sealed == (encrypt_ ? out_ : in_), "gcm stream differs from the one-shot seal");
      check(!encrypt_ || memcmp(got, want, 16) == 0, "gcm tag differs from the one-shot seal");
    }
    if (rc != KS_ERR_INVALID_ARGUMENT || life_ != Life::kUnknown) life_ = Life::kRefused;
  }
  void cleanse() override {
    ks_sm4_gcm_cleanse(&ctx_);
    life_ = Life::kRefused;
  }
  int encrypt_ = 0;
  bool text_started_ = false;
  Bytes key_, iv_, aad_;
};

class SkinnyCtrMachine : public Machine<ks_skinny_ctr_ctx> {
  void start(Chooser& ch) override {
    tweakey_ = ch.bytes(32);
    iv_ = ch.bytes(16);
    check(ks_skinny128_256_ctr_init(&ctx_, tweakey_.data(), iv_.data()) == KS_OK, "skinny init");
    begin();
  }
  void update(Chooser& ch) override {
    const Bytes data = ch.bytes(length(ch));
    Bytes out(data.size(), 0);
    check_rc(ks_skinny128_256_ctr_update(&ctx_, data.data(), data.size(), out.data()), KS_OK,
             "skinny update");
    check(life_ != Life::kRefused || out == Bytes(data.size(), 0), "refused skinny update wrote");
    in_.insert(in_.end(), data.begin(), data.end());
    out_.insert(out_.end(), out.begin(), out.end());
  }
  // No final in the API: the stream so far against the one-shot CTR call.
  void finish(Chooser&) override {
    if (life_ != Life::kLive) return;
    Bytes want(in_.size());
    ks_skinny128_256_crypt(KS_SKINNY_CTR, 1, tweakey_.data(), iv_.data(), 16, in_.data(),
                           in_.size(), want.data());
    check(want == out_, "skinny stream differs from the one-shot call");
  }
  void cleanse() override {
    ks_skinny128_256_ctr_cleanse(&ctx_);
    life_ = Life::kRefused;
  }
  Bytes tweakey_, iv_;
};

// Runs `steps` choices on a machine of kind % 5; returns the first failed
// property, or null.
inline const char* run(uint32_t kind, Chooser& ch, size_t steps) {
  Sm3Machine a;
  HmacMachine b;
  Sm4Machine c;
  GcmMachine d;
  SkinnyCtrMachine e;
  auto go = [&](auto& m) {
    for (size_t i = 0; i < steps && m.failure() == nullptr; ++i) m.step(ch);
    return m.failure();
  };
  switch (kind % 5) {
    case 0: return go(a);
    case 1: return go(b);
    case 2: return go(c);
    case 3: return go(d);
    default: return go(e);
  }
}

}  // namespace ks_streams

#endif  // KS_TESTS_STREAM_MACHINES_H_
