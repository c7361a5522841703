// The batching core of kuaisuo-grpcd: the rows of concurrent requests
// coalesced per (operation, key) into the library's batch calls under a
// latency bound. The C++ twin of python/kuaisuo/batching.py's rows form
// (same rules, same statuses), without a Python interpreter between the
// transport and the library: Python's transports cap a process near 2k
// requests/s (docs/design/0006 and 0010), a GPU wants batches of 2^16.
//
// Rules (python/kuaisuo/batching.py's docstring):
//  - a queue per (operation, key); a batch forms when max_batch rows wait
//    or the oldest has waited max_delay, whichever comes first, and takes
//    at most max_batch rows (and max_batch_bytes of variable-length items);
//  - each engine thread runs one batch call at a time, the ready queue
//    whose head is oldest first, so batches grow with the load;
//  - at most max_queued rows accepted and unfinished: a request past it is
//    refused whole with KS_ERR_OVERLOADED (never unbounded memory);
//  - rows whose request deadline has passed when their batch forms get
//    KS_ERR_DEADLINE without running;
//  - close() refuses new requests (KS_ERR_SHUTTING_DOWN) and runs every
//    accepted row before it returns.
// done() runs on finishing threads, not on the engine that ran the last
// rows: gRPC serialises and sends a reply inside Finish(), and an engine
// doing that for each request of its batch is an engine not calling the
// GPU (kuaisuo-grpcd on an H200 capped near 16k requests/s that way).
#ifndef KUAISUO_SERVE_GRPCD_ROW_BATCHER_H_
#define KUAISUO_SERVE_GRPCD_ROW_BATCHER_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kuaisuo.h"

namespace kuaisuo::serve {

using Clock = std::chrono::steady_clock;

// One kind of batched work on rows. A column is fixed-width (in_widths[c]
// bytes a row, contiguous) or kVariable: an item of any length a row, in
// the library's flat layout (data and count + 1 offsets, the top of
// include/kuaisuo.h), as Ed25519 takes whole messages. An op has at most
// one kVariable column. run() gets count rows of each column (offsets: the
// variable column's, null when the op has none) and writes count *
// out_width bytes and count statuses; it returns the call's status (KS_OK
// or KS_ERR_BATCH_ITEMS; any other code fails every row).
struct RowOp {
  static constexpr size_t kVariable = 0;
  using Run = int (*)(ks_ctx* ctx, const void* key, const uint8_t* const* in,
                      const uint64_t* offsets, size_t count, uint8_t* out, int* status);
  const char* name;
  std::vector<size_t> in_widths;
  size_t out_width;
  Run run;

  bool has_variable() const {
    return std::find(in_widths.begin(), in_widths.end(), kVariable) != in_widths.end();
  }
};

// One request's rows. The columns point into the caller's request, which
// must outlive done(); statuses and values are written in place (the
// caller sizes them: count int32 and count * out_width bytes) and done()
// runs once, on an engine thread, after the last row got its status.
struct RowRequest {
  const RowOp* op = nullptr;
  std::shared_ptr<const void> key;     // null where each row carries its own key
  std::vector<const uint8_t*> columns;  // one per op->in_widths
  const uint64_t* offsets = nullptr;    // count + 1 into the kVariable column, if any
  size_t count = 0;
  Clock::time_point deadline;
  int32_t* statuses = nullptr;
  uint8_t* values = nullptr;            // null when op->out_width is 0
  std::function<void()> done;
  std::atomic<size_t> remaining{0};     // rows without a status (the batcher's)
};

struct BatcherConfig {
  size_t max_batch = 4096;
  // Bytes of a kVariable column in one batch (a single larger item still
  // runs alone): the engines' gather buffers grow to the largest batch and
  // stay, so rows alone would not bound them when items are whole messages.
  size_t max_batch_bytes = size_t{64} << 20;
  std::chrono::microseconds max_delay{2000};
  size_t max_queued = size_t{1} << 20;
  unsigned calls_per_context = 1;  // engine threads sharing one ks_ctx
  unsigned finish_threads = 4;     // threads running the requests' done()
};

class RowBatcher {
 public:
  // contexts: one per engine (a GPU each, or one CPU context); not owned.
  RowBatcher(std::vector<ks_ctx*> contexts, BatcherConfig config);
  ~RowBatcher();
  RowBatcher(const RowBatcher&) = delete;
  RowBatcher& operator=(const RowBatcher&) = delete;

  // Queues req's rows: KS_OK, or KS_ERR_OVERLOADED / KS_ERR_SHUTTING_DOWN
  // (nothing queued, done() not called). A request of 0 rows is done now.
  int submit(std::shared_ptr<RowRequest> req);
  // Refuses new requests, runs every accepted row, joins the engines.
  void close();

  size_t queued_rows() const;

 private:
  struct Chunk {
    std::shared_ptr<RowRequest> req;
    size_t first, count;
    Clock::time_point queued;
  };
  struct Queue {
    std::deque<Chunk> chunks;
    size_t rows = 0;
  };
  using QueueKey = std::pair<const RowOp*, const void*>;
  class Engine;
  class Finisher;

  bool take_batch(std::vector<Chunk>* batch);
  Queue* ready_queue(Clock::time_point now, Clock::time_point* wake);
  void cut(Queue* queue, std::vector<Chunk>* batch);
  void settle(const std::vector<Chunk>& batch);

  BatcherConfig config_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::map<QueueKey, Queue> queues_;
  size_t unfinished_ = 0;  // rows accepted and not yet given their status
  bool closing_ = false;
  std::unique_ptr<Finisher> finisher_;  // before the engines: they post to it
  std::vector<std::unique_ptr<Engine>> engines_;
};

}  // namespace kuaisuo::serve

#endif  // KUAISUO_SERVE_GRPCD_ROW_BATCHER_H_
