#include "row_batcher.h"

#include <algorithm>
#include <cstring>

#include "host_buffer.h"

namespace kuaisuo::serve {
namespace {

// How many of the n rows of req from row first fit in *budget bytes of its
// variable-length column (all n for an op without one), taken from the
// budget; at least one when first_in_batch, so that an item larger than
// the budget runs in a batch of its own.
size_t rows_within_budget(const RowRequest& req, size_t first, size_t n, bool first_in_batch,
                          size_t* budget) {
  if (!req.op->has_variable()) return n;
  const uint64_t* o = req.offsets + first;  // non-decreasing: a binary search, under the lock
  size_t k = static_cast<size_t>(std::upper_bound(o + 1, o + n + 1, o[0] + *budget) - (o + 1));
  if (k == 0 && first_in_batch) k = 1;
  *budget -= std::min<uint64_t>(*budget, o[k] - o[0]);
  return k;
}

// Every row of chunk gets status (no value).
void fail_rows(RowRequest* req, size_t first, size_t count, int status) {
  std::fill(req->statuses + first, req->statuses + first + count, status);
  if (req->values != nullptr) {
    const size_t w = req->op->out_width;
    std::memset(req->values + first * w, 0, count * w);
  }
}

}  // namespace

// One thread running one batch call at a time on a shared ks_ctx.
class RowBatcher::Engine {
 public:
  Engine(RowBatcher* owner, ks_ctx* ctx) : owner_(owner), ctx_(ctx), thread_([this] { loop(); }) {}
  ~Engine() {
    if (thread_.joinable()) thread_.join();
  }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  static constexpr size_t kMaxColumns = 4;

  void loop() {
    std::vector<Chunk> batch;
    while (owner_->take_batch(&batch)) {
      run(batch);
      owner_->settle(batch);
      batch.clear();
    }
  }

  // Rows whose deadline passed get KS_ERR_DEADLINE; the others run as one
  // call from contiguous buffers and their results go back to each request.
  void run(const std::vector<Chunk>& batch) {
    const Clock::time_point now = Clock::now();
    std::vector<const Chunk*> live;
    size_t rows = 0;
    for (const Chunk& c : batch) {
      if (now > c.req->deadline) {
        fail_rows(c.req.get(), c.first, c.count, KS_ERR_DEADLINE);
      } else {
        live.push_back(&c);
        rows += c.count;
      }
    }
    if (rows == 0) return;
    const RowOp* op = live.front()->req->op;
    const uint8_t* in[kMaxColumns] = {};
    const uint64_t* offsets = nullptr;
    for (size_t col = 0; col < op->in_widths.size(); ++col) {
      if (op->in_widths[col] == RowOp::kVariable) {
        in[col] = gather_variable(live, col, rows, &offsets);
      } else {
        in[col] = gather(live, col, rows);
      }
      if (in[col] == nullptr) return fail_all(live, KS_ERR_NO_MEMORY);
    }
    uint8_t* out = op->out_width ? out_.get(rows * op->out_width) : nullptr;
    int* status = reinterpret_cast<int*>(status_.get(rows * sizeof(int)));
    if ((op->out_width && out == nullptr) || status == nullptr) {
      return fail_all(live, KS_ERR_NO_MEMORY);
    }
    const int rc = op->run(ctx_, live.front()->req->key.get(), in, offsets, rows, out, status);
    // KS_ERR_BATCH_ITEMS: some rows failed, each with its status.
    if (rc != KS_OK && rc != KS_ERR_BATCH_ITEMS) return fail_all(live, rc);
    scatter(live, out, status);
  }

  const uint8_t* gather(const std::vector<const Chunk*>& live, size_t col, size_t rows) {
    const size_t w = live.front()->req->op->in_widths[col];
    uint8_t* dst = in_[col].get(rows * w);
    if (dst == nullptr) return nullptr;
    for (const Chunk* c : live) {
      std::memcpy(dst, c->req->columns[col] + c->first * w, c->count * w);
      dst += c->count * w;
    }
    return in_[col].get(0);
  }

  // The items of a kVariable column back to back, with their offsets
  // rebased onto the gathered bytes (*offsets: rows + 1 of them).
  const uint8_t* gather_variable(const std::vector<const Chunk*>& live, size_t col, size_t rows,
                                 const uint64_t** offsets) {
    auto* out = reinterpret_cast<uint64_t*>(offsets_.get((rows + 1) * sizeof(uint64_t)));
    size_t bytes = 0;
    for (const Chunk* c : live) {
      const uint64_t* o = c->req->offsets + c->first;
      bytes += o[c->count] - o[0];
    }
    uint8_t* dst = in_[col].get(std::max<size_t>(bytes, 1));  // 1: empty items still need a pointer
    if (out == nullptr || dst == nullptr) return nullptr;
    uint64_t at = 0;
    out[0] = 0;
    for (const Chunk* c : live) {
      const uint64_t* o = c->req->offsets + c->first;
      const size_t len = o[c->count] - o[0];
      if (len > 0) std::memcpy(dst + at, c->req->columns[col] + o[0], len);
      for (size_t i = 1; i <= c->count; ++i) out[i] = at + (o[i] - o[0]);
      out += c->count;
      at += len;
    }
    *offsets = reinterpret_cast<const uint64_t*>(offsets_.get(0));
    return dst;
  }

  static void scatter(const std::vector<const Chunk*>& live, const uint8_t* out,
                      const int* status) {
    for (const Chunk* c : live) {
      RowRequest* req = c->req.get();
      std::copy(status, status + c->count, req->statuses + c->first);
      status += c->count;
      if (req->values != nullptr) {
        const size_t w = req->op->out_width;
        std::memcpy(req->values + c->first * w, out, c->count * w);
        out += c->count * w;
      }
    }
  }

  static void fail_all(const std::vector<const Chunk*>& live, int status) {
    for (const Chunk* c : live) fail_rows(c->req.get(), c->first, c->count, status);
  }

  RowBatcher* owner_;
  ks_ctx* ctx_;
  HostBuffer in_[kMaxColumns], offsets_, out_, status_;
  std::thread thread_;  // last: starts after the buffers exist
};

// Threads that run done() for requests whose last rows an engine settled.
class RowBatcher::Finisher {
 public:
  explicit Finisher(unsigned threads) {
    for (unsigned i = 0; i < std::max(threads, 1u); ++i) threads_.emplace_back([this] { loop(); });
  }
  // Runs every posted done(), then joins.
  ~Finisher() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void post(std::vector<std::shared_ptr<RowRequest>>* finished) {
    if (finished->empty()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& r : *finished) queue_.push_back(std::move(r));
    }
    const size_t n = finished->size();
    finished->clear();
    if (n == 1) {
      ready_.notify_one();
    } else {
      ready_.notify_all();
    }
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      std::shared_ptr<RowRequest> r = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      r->done();
      r.reset();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<RowRequest>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

RowBatcher::RowBatcher(std::vector<ks_ctx*> contexts, BatcherConfig config)
    : config_(config), finisher_(std::make_unique<Finisher>(config.finish_threads)) {
  config_.max_batch = std::max<size_t>(config_.max_batch, 1);
  const unsigned calls = std::max(config_.calls_per_context, 1u);
  for (ks_ctx* ctx : contexts) {
    for (unsigned i = 0; i < calls; ++i) engines_.push_back(std::make_unique<Engine>(this, ctx));
  }
}

RowBatcher::~RowBatcher() { close(); }

int RowBatcher::submit(std::shared_ptr<RowRequest> req) {
  if (req->count == 0) {
    req->done();
    return KS_OK;
  }
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closing_) return KS_ERR_SHUTTING_DOWN;
    if (req->count > config_.max_queued || unfinished_ > config_.max_queued - req->count) {
      return KS_ERR_OVERLOADED;
    }
    unfinished_ += req->count;
    req->remaining.store(req->count, std::memory_order_relaxed);
    Queue& q = queues_[{req->op, req->key.get()}];
    const size_t count = req->count;
    // An engine needs waking only for a new head (a new time to wait for)
    // or a queue that just filled: not once per request, which at 1e5
    // single-row requests a second is 1e5 futex wake-ups for nothing.
    wake = q.chunks.empty() || (q.rows < config_.max_batch && q.rows + count >= config_.max_batch);
    q.rows += count;
    q.chunks.push_back(Chunk{std::move(req), 0, count, Clock::now()});
  }
  if (wake) wake_.notify_one();
  return KS_OK;
}

void RowBatcher::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  wake_.notify_all();
  for (auto& e : engines_) e->join();
  finisher_.reset();  // every done() has run
}

size_t RowBatcher::queued_rows() const {
  std::lock_guard<std::mutex> lock(mu_);
  return unfinished_;
}

// The ready queue whose head waited longest: max_batch rows, or a head
// older than max_delay, or any rows while closing. Otherwise null, with
// *wake lowered to when the first head comes of age.
RowBatcher::Queue* RowBatcher::ready_queue(Clock::time_point now, Clock::time_point* wake) {
  Queue* best = nullptr;
  for (auto& [key, q] : queues_) {
    const Clock::time_point head = q.chunks.front().queued;
    const bool ready = q.rows >= config_.max_batch || now - head >= config_.max_delay || closing_;
    if (!ready) {
      *wake = std::min(*wake, head + config_.max_delay);
    } else if (best == nullptr || head < best->chunks.front().queued) {
      best = &q;
    }
  }
  return best;
}

// Up to max_batch rows (and max_batch_bytes of variable-length items)
// off the queue's head, the last chunk split if it does not fit; an
// emptied queue leaves the map.
void RowBatcher::cut(Queue* q, std::vector<Chunk>* batch) {
  size_t room = config_.max_batch, budget = config_.max_batch_bytes;
  while (room > 0 && !q->chunks.empty()) {
    Chunk& head = q->chunks.front();
    const size_t n = rows_within_budget(*head.req, head.first, std::min(room, head.count),
                                        batch->empty(), &budget);
    if (n == 0) break;
    batch->push_back(Chunk{head.req, head.first, n, head.queued});
    room -= n;
    q->rows -= n;
    if (n == head.count) {
      q->chunks.pop_front();
    } else {
      head.first += n;
      head.count -= n;
    }
  }
  if (q->chunks.empty()) {
    const Chunk& any = batch->back();
    queues_.erase({any.req->op, any.req->key.get()});
  }
}

// Blocks until a batch is ready (true) or the batcher is closed and empty.
bool RowBatcher::take_batch(std::vector<Chunk>* batch) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    Clock::time_point wake = Clock::time_point::max();
    if (Queue* q = ready_queue(Clock::now(), &wake)) {
      cut(q, batch);
      // What is left may be ready too: another engine looks.
      if (!queues_.empty()) wake_.notify_one();
      return true;
    }
    if (closing_) return false;  // closing makes every queue ready: none is left
    if (wake == Clock::time_point::max()) {
      wake_.wait(lock);
    } else {
      wake_.wait_until(lock, wake);
    }
  }
}

// The batch's rows have their statuses: they leave the bound, and each
// request whose last rows these were goes to the finishing threads.
void RowBatcher::settle(const std::vector<Chunk>& batch) {
  size_t rows = 0;
  std::vector<std::shared_ptr<RowRequest>> finished;
  for (const Chunk& c : batch) {
    rows += c.count;
    if (c.req->remaining.fetch_sub(c.count, std::memory_order_acq_rel) == c.count) {
      finished.push_back(c.req);
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    unfinished_ -= rows;
  }
  finisher_->post(&finished);
}

}  // namespace kuaisuo::serve
