// The argument machinery of the batch-call targets (fuzz_batch_args.cc for
// SM3/SM2, fuzz_batch_args_25519.cc for Ed25519/X25519): the plan an input
// starts with (context, status NULL or not, shape, which arguments to
// spoil), counts that stay small, grow large or overflow, flat data with
// offsets that may lie, output buffers that may be short, and the checks
// every batch call's answer gets (the expected error, worked out here from
// the arguments; no status and no output byte written when the arguments
// are rejected; a status for each item and none past them when they are
// accepted).
//
// Every buffer is an exactly-sized heap allocation of the size the call is
// told (offsets: count + 1 entries), so a read or write past one is an
// AddressSanitizer report. For counts whose byte sizes overflow, the
// buffers are small: kuaisuo.h promises the overflow is reported before any
// memory is touched.
#ifndef KS_TESTS_FUZZ_BATCH_ARGS_H_
#define KS_TESTS_FUZZ_BATCH_ARGS_H_

#include <stdint.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <vector>

#include "fuzz_util.h"

namespace ks_fuzz {
namespace batch {

constexpr int kSentinel = 0x5A5A5A5A;  // status entries nobody wrote
constexpr uint8_t kFill = 0xA5;        // output bytes nobody wrote
constexpr size_t kMaxCount = 4096;     // calls with bad arguments
constexpr size_t kMaxDataLen = 16384;
constexpr size_t kChecked = 6;  // large calls: items checked at each end

using Bytes = HeapArray<uint8_t>;

// An output buffer: filled with kFill so that writes can be detected.
struct Output {
  explicit Output(size_t n) : buf(n) {
    if (n != 0) memset(buf.data(), kFill, n);
  }
  // No byte at or past `from` was written.
  bool untouched(size_t from = 0) const {
    for (size_t i = from; i < buf.size(); ++i)
      if (buf[i] != kFill) return false;
    return true;
  }
  Bytes buf;
};

// A status array of n entries (NULL when the input asks for none).
struct Status {
  Status(size_t n, bool null) : arr(null ? 0 : n), null(null) {
    for (size_t i = 0; i < arr.size(); ++i) arr[i] = kSentinel;
  }
  int* ptr() const { return null ? nullptr : arr.data(); }
  bool untouched() const {
    for (size_t i = 0; i < arr.size(); ++i)
      if (arr[i] != kSentinel) return false;
    return true;
  }
  HeapArray<int> arr;
  bool null;
};

// The codes a call may answer for its arguments: empty when they are good.
class Verdict {
 public:
  void bad(int code) {
    if (!allows(code)) codes_.push_back(code);
  }
  bool valid() const { return codes_.empty(); }
  bool allows(int rc) const { return std::find(codes_.begin(), codes_.end(), rc) != codes_.end(); }
  void print() const {
    fprintf(stderr, "expected one of:");
    for (int c : codes_) fprintf(stderr, " %d", c);
    fprintf(stderr, "\n");
  }

 private:
  std::vector<int> codes_;
};

enum Shape { kValidSmall = 0, kValidBig = 1, kBadArgs = 2, kHugeCount = 3 };

// Which arguments kBadArgs spoils (bits of Plan::bad). A bit that has no
// meaning for a call (a nonce for Ed25519) is ignored by it.
enum Bad : uint8_t {
  kBadOffsets = 1,
  kBadOutputLen = 2,
  kBadNullPointer = 4,
  kBadNonce = 8,
  kBadIdLen = 16,
  kBadCtx = 32,
};

// What the control byte and the first op-independent fields say.
struct Plan {
  ks_ctx* ctx;
  bool status_null;
  Shape shape;
  uint8_t bad;         // kBadArgs: which arguments to spoil (Bad bits)
  uint8_t null_which;  // kBadArgs with kBadNullPointer: which pointer is NULL
  bool spoils(Bad b) const { return shape == kBadArgs && (bad & b) != 0; }
  bool huge() const { return shape == kHugeCount; }
};

// The plan: control byte (bit 0 context, bit 1 status NULL, bits 2-3
// shape), then for kBadArgs the Bad bits and the NULL-pointer selector.
// ctx[0] has one CPU thread, ctx[1] two.
inline Plan read_plan(Reader& r, ks_ctx* const ctx[2]) {
  const uint8_t control = r.u8();
  Plan plan;
  plan.ctx = ctx[control & 1];
  plan.status_null = (control & 2) != 0;
  plan.shape = static_cast<Shape>((control >> 2) & 3);
  plan.bad = 0;
  plan.null_which = 0;
  if (plan.shape == kBadArgs) {
    plan.bad = r.u8();
    plan.null_which = r.u8();
    if (plan.bad & kBadCtx) plan.ctx = nullptr;
  }
  return plan;
}

// The CPU contexts of 1 and 2 threads the targets share.
inline void make_contexts(ks_ctx* ctx[2]) {
  for (int i = 0; i < 2; ++i) {
    ks_ctx_config cfg;
    ks_ctx_config_init(&cfg);
    cfg.backend = KS_BACKEND_CPU;
    cfg.cpu_threads = uint32_t(i + 1);
    KS_FUZZ_OK(ks_ctx_new(&cfg, &ctx[i]));
  }
}

// A count for the plan: calls with good arguments stay small enough to run
// quickly (up to `small` or `big` items); bad ones go up to kMaxCount;
// kHugeCount overflows the byte size of an array of `item`-byte items
// (count > SIZE_MAX / item): pass the call's largest item size, so that
// counts for which only some of its arrays overflow occur too.
inline size_t pick_count(Reader& r, const Plan& plan, size_t small, size_t big,
                         size_t item = 32) {
  switch (plan.shape) {
    case kValidSmall: return r.u16() % (small + 1);
    case kValidBig: return r.u16() % (big + 1);
    case kBadArgs: return r.u16() % (kMaxCount + 1);
    case kHugeCount: {
      const uint8_t sel = r.u8();
      const uint64_t v = r.u64();
      if (sel % 4 == 0) return SIZE_MAX;
      if (sel % 4 == 1) return SIZE_MAX / item + 1 + (v % 4);
      return SIZE_MAX - v % (SIZE_MAX - SIZE_MAX / item);
    }
  }
  return 0;
}

// count + 1 offsets into data_len bytes: valid (non-decreasing, last <=
// data_len) unless `spoil`, then spoiled one of several ways (which may, by
// chance, leave them valid: the verdict is worked out from the result).
inline std::unique_ptr<HeapArray<uint64_t>> make_offsets(Reader& r, size_t count,
                                                         size_t data_len, bool spoil) {
  auto off = std::make_unique<HeapArray<uint64_t>>(count + 1);
  HeapArray<uint64_t>& o = *off;
  const size_t step = r.u8() % 4;  // item lengths up to 255 * 4^step bytes
  uint64_t at = data_len == 0 ? 0 : r.u16() % (data_len + 1) / 8;
  for (size_t i = 0; i <= count; ++i) {
    o[i] = at;
    at = std::min<uint64_t>(data_len, at + (uint64_t(r.u8()) << (2 * step)));
  }
  if (!spoil) return off;
  const uint8_t how = r.u8() % 5;
  const size_t k = r.u16() % (count + 1);
  switch (how) {
    case 0: o[count] = data_len + 1 + r.u8(); break;  // past the end
    case 1: o[k] = r.u64(); break;                      // anything
    case 2:                                             // decreasing at k
      if (k < count) o[k] = o[k + 1] + 1 + r.u8();
      break;
    case 3: o[k] = UINT64_MAX - r.u8(); break;
    case 4:
      for (size_t i = 0; i <= count && r.left() >= 8; ++i) o[i] = r.u64();
      break;
  }
  return off;
}

inline bool offsets_ok(const HeapArray<uint64_t>& o, size_t count, size_t data_len) {
  for (size_t i = 0; i < count; ++i)
    if (o[i] > o[i + 1]) return false;
  return o[count] <= data_len;
}

// The items of a call that are checked one by one.
inline bool checked(size_t i, size_t count) {
  return count <= 2 * kChecked || i < kChecked || i >= count - kChecked;
}

inline void fill(Bytes& b, Reader& r) {
  const std::vector<uint8_t> v = r.fixed(b.size());
  if (!v.empty()) memcpy(b.data(), v.data(), v.size());
}

// Adds the verdict for a pointer that may be NULL only with length 0.
inline void check_buffer_arg(Verdict& v, const void* p, size_t len) {
  if (p == nullptr && len != 0) v.bad(KS_ERR_NULL_POINTER);
}

// Adds the verdict for count items of item bytes in a buffer of len bytes.
inline void check_output_arg(Verdict& v, const void* p, size_t len, size_t count, size_t item) {
  if (count == 0) return;
  if (p == nullptr) v.bad(KS_ERR_NULL_POINTER);
  if (count > SIZE_MAX / item) {
    v.bad(KS_ERR_OVERFLOW);
  } else if (len < count * item) {
    v.bad(KS_ERR_LENGTH);
  }
}
// Fixed-size inputs: count items of item bytes.
inline void check_items_arg(Verdict& v, const void* p, size_t count, size_t item) {
  if (count == 0) return;
  if (p == nullptr) v.bad(KS_ERR_NULL_POINTER);
  if (count > SIZE_MAX / item) v.bad(KS_ERR_OVERFLOW);
}

// The length of an output of count items of item bytes: exact, or (for
// huge counts, whose buffers stay small) room for two items; with
// kBadOutputLen 1 .. len bytes short, and otherwise, when `slack` is read
// as nonzero, up to 3 items and 7 bytes longer than needed (what follows
// the items must stay unwritten: see expect_tail).
inline size_t pick_out_len(Reader& r, const Plan& plan, size_t count, size_t item, bool spoil) {
  size_t len = plan.huge() ? 2 * item : count * item;
  if (spoil) {
    if (len > 0) len -= 1 + r.u16() % len;
  } else if (!plan.huge()) {
    const uint8_t slack = r.u8();
    if (slack & 0x80) len += (slack & 3) * item + ((slack >> 2) & 7);
  }
  return len;
}

// Common checks of a call's answer. Returns true when the arguments were
// good (and the answer is KS_OK or KS_ERR_BATCH_ITEMS, with a status
// written for each of the count items and none past them).
inline bool check_answer(const char* call, int rc, const Verdict& v, size_t count,
                         const Status& status, std::initializer_list<const Output*> outputs) {
  if (!v.valid()) {
    if (!v.allows(rc)) {
      v.print();
      KS_FUZZ_FAIL("%s with bad arguments returned %d (%s)", call, rc, ks_strerror(rc));
    }
    KS_FUZZ_CHECK(status.untouched(), "%s rejected its arguments but wrote statuses", call);
    for (const Output* o : outputs)
      KS_FUZZ_CHECK(o->untouched(), "%s rejected its arguments but wrote an output", call);
    return false;
  }
  KS_FUZZ_CHECK(rc == KS_OK || rc == KS_ERR_BATCH_ITEMS, "%s with good arguments returned %d (%s)",
                call, rc, ks_strerror(rc));
  for (size_t i = 0; i < status.arr.size(); ++i)
    KS_FUZZ_CHECK((status.arr[i] == kSentinel) == (i >= count), "%s: status[%zu] = %d, count %zu",
                  call, i, status.arr[i], count);
  return true;
}

// A call with good arguments wrote nothing past its count items of item
// bytes (the buffer may be larger than needed).
inline void expect_tail(const char* call, const Output& out, size_t count, size_t item) {
  KS_FUZZ_CHECK(out.untouched(count * item), "%s wrote past its %zu items of %zu bytes", call,
                count, item);
}

// Checks status[i] (when there is one) against the one-item answer.
inline void expect_item(const char* call, const Status& status, size_t i, int want) {
  if (status.null) return;
  KS_FUZZ_CHECK(status.arr[i] == want, "%s item %zu: status %d, the one-item call says %d", call,
                i, status.arr[i], want);
}

// When every item is checked: the call's rc must follow the items'.
inline void expect_rc(const char* call, int rc, bool all_checked, bool any_failed) {
  if (!all_checked) return;
  KS_FUZZ_CHECK(rc == (any_failed ? KS_ERR_BATCH_ITEMS : KS_OK), "%s returned %d, items say %s",
                call, rc, any_failed ? "some failed" : "all succeeded");
}

// With a status array every item's status is known: the call's rc must
// follow them (KS_ERR_BATCH_ITEMS exactly when one is not KS_OK).
inline void expect_rc_statuses(const char* call, int rc, const Status& status, size_t count) {
  if (status.null) return;
  bool any_failed = false;
  for (size_t i = 0; i < count; ++i) any_failed |= status.arr[i] != KS_OK;
  KS_FUZZ_CHECK(rc == (any_failed ? KS_ERR_BATCH_ITEMS : KS_OK),
                "%s returned %d, its statuses say %s", call, rc,
                any_failed ? "some failed" : "all succeeded");
}

// The data_len and data of a flat batch.
inline std::unique_ptr<Bytes> pick_data(Reader& r, const Plan& plan) {
  size_t len = r.u16() % (kMaxDataLen + 1);
  if (plan.shape != kBadArgs && (len & 1)) len = 0;  // empty data (and NULL) often
  auto data = std::make_unique<Bytes>(len);
  // A pattern, then the input's bytes on top, so that data is not all zeros.
  for (size_t i = 0; i < len; ++i) (*data)[i] = uint8_t(i * 131 + 7);
  const std::vector<uint8_t> v = r.bytes(std::min<size_t>(len, 256));
  if (!v.empty()) memcpy(data->data(), v.data(), v.size());
  return data;
}

// The flat layout of a batch's messages (kuaisuo.h): data, data_len and
// count + 1 offsets, as read from the input (for huge counts: one item's
// worth), and the pointers the call is given, which may be spoiled.
struct Messages {
  // Reads data and n + 1 offsets (spoiled with kBadOffsets).
  Messages(Reader& r, const Plan& plan, size_t n)
      : data(pick_data(r, plan)),
        offsets(make_offsets(r, n, data->size(), plan.spoils(kBadOffsets))),
        data_p(data->data()),
        data_len(data->size()),
        off_p(offsets->data()) {}
  // Reads whether empty data is passed as NULL (which is allowed).
  void read_null(Reader& r) {
    if (data->size() == 0 && (r.u8() & 1)) data_p = nullptr;
  }
  // Spoils data: NULL with a nonzero length.
  void null_data() {
    data_p = nullptr;
    data_len += data_len == 0;
  }
  // Adds the verdict on data, data_len, offsets and count (whose offsets
  // are not looked at when it is huge: there is one item's worth of them).
  void check(Verdict& v, size_t count, bool huge) const {
    if (off_p == nullptr) v.bad(KS_ERR_NULL_POINTER);
    check_buffer_arg(v, data_p, data_len);
    if (count == SIZE_MAX) v.bad(KS_ERR_OVERFLOW);
    if (!huge && off_p != nullptr && !offsets_ok(*offsets, count, data_len))
      v.bad(KS_ERR_OFFSETS);
  }
  // Makes good offsets bad (past data_len).
  void spoil_end(size_t count) { (*offsets)[count] = data_len + 1; }
  // Item i of a call with good arguments.
  const uint8_t* msg(size_t i) const { return data_p == nullptr ? nullptr : data_p + (*offsets)[i]; }
  size_t len(size_t i) const { return size_t((*offsets)[i + 1] - (*offsets)[i]); }

  std::unique_ptr<Bytes> data;
  std::unique_ptr<HeapArray<uint64_t>> offsets;
  const uint8_t* data_p;
  size_t data_len;
  const uint64_t* off_p;
};

}  // namespace batch
}  // namespace ks_fuzz

#endif  // KS_TESTS_FUZZ_BATCH_ARGS_H_
