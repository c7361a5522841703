// The CPU batch runner every scheme's batch calls share: items or groups of
// SIMD lanes spread over the context's threads, per-item statuses, and the
// statuses a GPU batch leaves behind. Scheme-agnostic: a scheme supplies
// what one item (or one group of lanes) does.
#ifndef KS_API_BATCH_H_
#define KS_API_BATCH_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <atomic>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "api/checks.h"
#include "api/context.h"
#include "kuaisuo/common.h"

namespace ks {
namespace api {

inline int check_ctx(const ks_ctx* ctx) { return ctx == nullptr ? KS_ERR_NULL_POINTER : KS_OK; }

// A fixed-size input array of count items of item_bytes each.
inline int check_items(const void* p, size_t count, size_t item_bytes) {
  if (count == 0) return KS_OK;
  if (p == nullptr) return KS_ERR_NULL_POINTER;
  return count > SIZE_MAX / item_bytes ? KS_ERR_OVERFLOW : KS_OK;
}

// Batches at least this large scan their offsets and write their statuses
// on the context's threads. Traced on an H100 host with one thread doing
// both, a 4M-item Ed25519 call spent 8.3 ms of its 36 ms outside the GPU
// pipeline (signing: 32 MB of offsets and a 16 MB status array), 5.6 ms
// verifying (the offsets) and 2.3 ms in keygen (the statuses):
// bench/results/h100-pipeline-trace-2026-11-28-s18.json.
constexpr size_t kParallelScanMin = size_t(1) << 16;

// The check of checked_offsets, on the offsets the call will read.
inline int check_offsets(ks_ctx* ctx, size_t data_len, const uint64_t* offsets, size_t count) {
  std::atomic<bool> descending{false};
  ctx->pool.parallel_for(count, kParallelScanMin, [&](size_t begin, size_t end) {
    uint64_t any = 0;
    for (size_t i = begin; i < end; ++i) any |= uint64_t(offsets[i] > offsets[i + 1]);
    if (any != 0) descending.store(true, std::memory_order_relaxed);
  });
  if (descending.load()) return KS_ERR_OFFSETS;
  return offsets[count] > data_len ? KS_ERR_OFFSETS : KS_OK;
}

// A caller buffer the batch call writes (outputs, tags, statuses).
struct Written {
  const void* at;
  size_t len;
};

// The statuses a call writes, as a Written (none where status is null).
inline Written statuses_written(const int* status, size_t count) {
  return {status, status == nullptr || count > SIZE_MAX / sizeof(int) ? 0 : count * sizeof(int)};
}

inline bool overlap(const void* a, size_t a_len, const void* b, size_t b_len) {
  const uintptr_t x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return a != nullptr && b != nullptr && a_len != 0 && b_len != 0 && x < y + b_len &&
         y < x + a_len;
}

// Where a batch's offsets are read from (issue 42): the caller's array in
// place when it is aligned and no output of the call overlaps it (the
// caller may not change its inputs during a call: kuaisuo.h), else a copy
// made once, checked and then used, so that an output written over the
// array cannot move the work out of bounds. Copying always cost 3-4 ms at
// 2^22 items on the H200 host, 12-15% of an Ed25519 signing batch there
// (fresh pages each call; bench/results/h200-2026-12-01-offsets-copy-ab.json).
class OffsetsCopy {
 public:
  // Room for n offsets (uninitialised: they are copied over at once), or
  // null without memory.
  uint64_t* allocate(size_t n) {
    words_.reset(new (std::nothrow) uint64_t[n]);
    return words_.get();
  }

 private:
  std::unique_ptr<uint64_t[]> words_;
};

// Checks count + 1 offsets into data[0 .. data_len): non-decreasing, the
// last within data_len (branch-free in the scan). *offsets is then what the
// call reads: the caller's array, or (misaligned, or overlapped by one of
// written) its copy in *copy, read byte-wise.
inline int checked_offsets(ks_ctx* ctx, const uint8_t* data, size_t data_len,
                        const uint64_t** offsets, size_t count, OffsetsCopy* copy,
                        std::initializer_list<Written> written) {
  if (*offsets == nullptr) return KS_ERR_NULL_POINTER;
  if (count >= SIZE_MAX / sizeof(uint64_t)) return KS_ERR_OVERFLOW;
  const int rc = check_buffer(data, data_len);
  if (rc != KS_OK) return rc;
  const size_t bytes = sizeof(uint64_t) * (count + 1);
  bool in_place = reinterpret_cast<uintptr_t>(*offsets) % alignof(uint64_t) == 0;
  for (const Written& w : written) in_place = in_place && !overlap(w.at, w.len, *offsets, bytes);
  if (in_place) return check_offsets(ctx, data_len, *offsets, count);
  uint64_t* to = copy->allocate(count + 1);
  if (to == nullptr) return KS_ERR_NO_MEMORY;
  const auto* from = reinterpret_cast<const unsigned char*>(*offsets);
  ctx->pool.parallel_for(count + 1, kParallelScanMin, [&](size_t begin, size_t end) {
    memcpy(to + begin, from + sizeof(uint64_t) * begin, sizeof(uint64_t) * (end - begin));
  });
  *offsets = to;
  return check_offsets(ctx, data_len, to, count);
}

// fill_status on the context's threads.
inline void fill_status(ks_ctx* ctx, int* status, size_t count, int value) {
  if (status == nullptr) return;
  ctx->pool.parallel_for(count, kParallelScanMin, [&](size_t begin, size_t end) {
    fill_status(status + begin, end - begin, value);
  });
}

// Runs item(i) -> ks_status for every i on the context's threads, records
// the statuses (status may be null), and returns KS_OK or
// KS_ERR_BATCH_ITEMS. One parallel pass: a serial scan of a GPU batch's
// millions of statuses would cost the host more than the batch's copies.
template <class Item>
int run_items(ks_ctx* ctx, size_t count, size_t min_chunk, int* status, const Item& item) {
  std::atomic<bool> failed{false};
  ctx->pool.parallel_for(count, min_chunk, [&](size_t begin, size_t end) {
    bool any = false;
    for (size_t i = begin; i < end; ++i) {
      const int st = item(i);
      if (status != nullptr) store_status(status, i, st);
      any |= st != KS_OK;
    }
    if (any) failed.store(true, std::memory_order_relaxed);
  });
  return failed.load() ? KS_ERR_BATCH_ITEMS : KS_OK;
}

// Runs group(idx, n) over groups of up to kLanes items (a SIMD path's
// lanes) on the context's threads. Items whose status is already an error
// are left out of the groups; group writes the statuses of its own.
template <size_t kLanes, class Group>
void run_groups(ks_ctx* ctx, size_t count, std::vector<int>& status, const Group& group) {
  ctx->pool.parallel_for(count, 64, [&](size_t begin, size_t end) {
    size_t idx[kLanes];
    size_t n = 0;
    for (size_t i = begin; i < end; ++i) {
      if (status[i] != KS_OK) continue;
      idx[n++] = i;
      if (n == kLanes) {
        group(idx, n);
        n = 0;
      }
    }
    if (n > 0) group(idx, n);
  });
}

// Copies per-item statuses to the caller's array (may be null) and
// returns KS_OK or KS_ERR_BATCH_ITEMS.
inline int finish_statuses(const std::vector<int>& status, int* out) {
  int rc = KS_OK;
  for (size_t i = 0; i < status.size(); ++i) {
    if (out != nullptr) store_status(out, i, status[i]);
    if (status[i] != KS_OK) rc = KS_ERR_BATCH_ITEMS;
  }
  return rc;
}

// Where the engine writes a GPU batch's per-item scheme statuses: the
// caller's status array, mapped to ks_status in place afterwards (and
// copied into directly when pinned), or scratch when the caller passed
// none. Written for every item by the engine, so never initialized here.
class DeviceResults {
 public:
  // A misaligned caller array is not handed to the engine (which writes
  // ints): scratch takes its place, and run_on_gpu copies byte-wise.
  DeviceResults(int* caller_status, size_t count) : out_(caller_status) {
    if (out_ == nullptr || reinterpret_cast<uintptr_t>(out_) % alignof(int) != 0) {
      own_.reset(new (std::nothrow) int[count > 0 ? count : 1]);
      out_ = own_.get();
    }
  }
  int* get() const { return out_; }
  int operator[](size_t i) const { return out_[i]; }

 private:
  std::unique_ptr<int[]> own_;
  int* out_;
};

// A batch on the context's GPU whose items the CPU may finish: run(device
// statuses) under the GPU lock returns the call's ks_status; item(i, device
// status i) -> ks_status then runs for every item on the CPU threads (it
// may redo an item the device left) into the caller's array.
template <class Run, class Item>
int run_on_gpu_items(ks_ctx* ctx, size_t count, int* status, const Run& run, const Item& item) {
  const DeviceResults device(status, count);
  if (device.get() == nullptr) return KS_ERR_NO_MEMORY;
  int rc;
  {
    std::lock_guard<std::mutex> lock(ctx->gpu_mutex);
    rc = run(device.get());
  }
  if (rc != KS_OK) return rc;
  return run_items(ctx, count, 4096, status, [&](size_t i) { return item(i, device[i]); });
}

// The same where each item's scheme status is only mapped by to_status.
template <class Run, class ToStatus>
int run_on_gpu(ks_ctx* ctx, size_t count, int* status, const Run& run, const ToStatus& to_status) {
  return run_on_gpu_items(ctx, count, status, run,
                          [&](size_t, int device) { return to_status(device); });
}

// A batch on the context's GPU whose items cannot fail one by one (digests,
// public keys, signatures): run() under the GPU lock returns the call's
// ks_status, which every item's status then repeats.
template <class Run>
int run_on_gpu_whole(ks_ctx* ctx, size_t count, int* status, const Run& run) {
  int rc;
  {
    std::lock_guard<std::mutex> lock(ctx->gpu_mutex);
    rc = run();
  }
  fill_status(ctx, status, count, rc);
  return rc;
}

}  // namespace api
}  // namespace ks

#endif  // KS_API_BATCH_H_
