// fuzz_stream_states: the C API's streaming state machines (SM3, HMAC-SM3,
// SM4 ECB..CTR, SM4-GCM, SKINNY CTR) driven by fuzz-chosen operations,
// lengths, data and state bytes (issue 42).
//
// Input layout: 1 byte picks the machine (mod 5); every later choice
// (operation, length, data, key, the bytes written over a state) is read
// from the rest, as zeros once the input runs out (so a run ends at most
// kSteps operations later).
//
// Properties checked (tests/fuzz/stream_machines.h): a live state matches
// the one-shot call on the same input; a state no init made, wiped, or
// filled with zeros or 0xFF is refused with KS_ERR_INVALID_ARGUMENT; a
// state holding crafted bytes is accepted or refused but never read or
// written out of bounds (ASan, UBSan) and never gives another status.
#include "fuzz_util.h"
#include "stream_machines.h"

namespace {

class InputChooser : public ks_streams::Chooser {
 public:
  InputChooser(const uint8_t* data, size_t size) : r_(data, size) {}
  uint32_t below(uint32_t bound) override {
    const uint32_t v = bound <= 256 ? r_.u8() : r_.u16();
    return v % bound;
  }
  void fill(uint8_t* p, size_t n) override {
    // The input may run out: the rest is zeros. memcpy of nothing from an
    // empty vector's data() (null) is still undefined, hence the guards.
    if (n == 0) return;
    const std::vector<uint8_t> b = r_.bytes(n);
    if (!b.empty()) memcpy(p, b.data(), b.size());
    memset(p + b.size(), 0, n - b.size());
  }
  bool adversarial() const override { return true; }
  size_t left() const { return r_.left(); }

 private:
  ks_fuzz::Reader r_;
};

constexpr size_t kSteps = 64;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  InputChooser ch(data + 1, size - 1);
  const char* failure = ks_streams::run(data[0], ch, kSteps);
  KS_FUZZ_CHECK(failure == nullptr, "machine %u: %s", unsigned(data[0] % 5), failure);
  return 0;
}
