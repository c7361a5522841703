// kuaisuo-grpcd's batching core (serve/grpcd/row_batcher.h) with a
// recording operation in place of the library: which rows formed which
// batch, under which key, and that every row's result comes back to its
// own request and position.
#include "row_batcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <future>
#include <mutex>
#include <random>
#include <vector>

namespace kuaisuo::serve {
namespace {

using std::chrono::milliseconds;

// Records batch sizes; out row = in row + key's byte (4-byte rows), so a
// row answered under the wrong key or at the wrong place is visible.
struct Recorder {
  std::mutex mu;
  std::vector<size_t> sizes;
  int fail_with = KS_OK;  // a whole-call failure to return
} recorder;

int add_key(ks_ctx*, const void* key, const uint8_t* const* in, const uint64_t*, size_t count,
            uint8_t* out, int* status) {
  {
    std::lock_guard<std::mutex> lock(recorder.mu);
    recorder.sizes.push_back(count);
  }
  if (recorder.fail_with != KS_OK) return recorder.fail_with;
  const uint8_t k = *static_cast<const uint8_t*>(key);
  for (size_t i = 0; i < 4 * count; ++i) out[i] = static_cast<uint8_t>(in[0][i] + k);
  for (size_t i = 0; i < count; ++i) status[i] = in[0][4 * i] == 0xEE ? -44 : KS_OK;
  return KS_OK;
}

const RowOp kAddKey{"add-key", {4}, 4, add_key};

// One request of count rows under key, with its buffers and a future for done().
struct Pending {
  std::vector<uint8_t> in;
  std::vector<int32_t> statuses;
  std::vector<uint8_t> values;
  std::promise<void> done;
  std::shared_ptr<RowRequest> req = std::make_shared<RowRequest>();
};

std::unique_ptr<Pending> request(std::shared_ptr<const uint8_t> key, size_t count,
                                 uint8_t seed, milliseconds timeout = milliseconds(10000)) {
  auto p = std::make_unique<Pending>();
  p->in.resize(4 * count);
  for (size_t i = 0; i < p->in.size(); ++i) p->in[i] = static_cast<uint8_t>(seed + i);
  p->statuses.assign(count, 1);
  p->values.assign(4 * count, 0xAA);
  RowRequest& r = *p->req;
  r.op = &kAddKey;
  r.key = key;
  r.columns = {p->in.data()};
  r.count = count;
  r.deadline = Clock::now() + timeout;
  r.statuses = p->statuses.data();
  r.values = p->values.data();
  r.done = [d = &p->done] { d->set_value(); };
  return p;
}

void expect_answered(Pending& p, uint8_t key) {
  p.done.get_future().get();
  for (size_t i = 0; i < p.statuses.size(); ++i) {
    ASSERT_EQ(p.statuses[i], p.in[4 * i] == 0xEE ? -44 : KS_OK) << "row " << i;
  }
  for (size_t i = 0; i < p.in.size(); ++i) {
    ASSERT_EQ(p.values[i], static_cast<uint8_t>(p.in[i] + key)) << "byte " << i;
  }
}

std::shared_ptr<const uint8_t> key_of(uint8_t k) { return std::make_shared<const uint8_t>(k); }

std::vector<size_t> sizes() {
  std::lock_guard<std::mutex> lock(recorder.mu);
  return recorder.sizes;
}

class RowBatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::lock_guard<std::mutex> lock(recorder.mu);
    recorder.sizes.clear();
    recorder.fail_with = KS_OK;
  }
  BatcherConfig config(size_t max_batch, int delay_ms) {
    BatcherConfig c;
    c.max_batch = max_batch;
    c.max_delay = milliseconds(delay_ms);
    return c;
  }
};

TEST_F(RowBatcherTest, ConcurrentRequestsShareOneBatch) {
  RowBatcher b({nullptr}, config(1000, 300));
  auto key = key_of(7);
  std::vector<std::unique_ptr<Pending>> reqs;
  for (uint8_t i = 0; i < 5; ++i) {
    reqs.push_back(request(key, 10, static_cast<uint8_t>(40 * i)));
    ASSERT_EQ(b.submit(reqs.back()->req), KS_OK);
  }
  for (auto& r : reqs) expect_answered(*r, 7);
  EXPECT_EQ(sizes(), std::vector<size_t>{50});
}

TEST_F(RowBatcherTest, MaxBatchCutsARequestInOrder) {
  RowBatcher b({nullptr}, config(16, 0));
  auto r = request(key_of(1), 40, 3);
  ASSERT_EQ(b.submit(r->req), KS_OK);
  expect_answered(*r, 1);
  EXPECT_EQ(sizes(), (std::vector<size_t>{16, 16, 8}));
}

TEST_F(RowBatcherTest, KeysNeverShareABatch) {
  RowBatcher b({nullptr}, config(1000, 200));
  auto a = request(key_of(1), 8, 0), c = request(key_of(2), 8, 100);
  ASSERT_EQ(b.submit(a->req), KS_OK);
  ASSERT_EQ(b.submit(c->req), KS_OK);
  expect_answered(*a, 1);
  expect_answered(*c, 2);
  EXPECT_EQ(sizes(), (std::vector<size_t>{8, 8}));
}

TEST_F(RowBatcherTest, RowsPastTheirDeadlineDoNotRun) {
  RowBatcher b({nullptr}, config(1000, 100));
  auto late = request(key_of(1), 3, 0, milliseconds(1));
  ASSERT_EQ(b.submit(late->req), KS_OK);
  late->done.get_future().get();
  EXPECT_EQ(late->statuses, std::vector<int32_t>(3, KS_ERR_DEADLINE));
  EXPECT_EQ(late->values, std::vector<uint8_t>(12, 0));
  EXPECT_TRUE(sizes().empty());
}

TEST_F(RowBatcherTest, TheQueueBoundRefusesWholeRequests) {
  BatcherConfig c = config(1000, 200);
  c.max_queued = 10;
  RowBatcher b({nullptr}, c);
  auto key = key_of(1);
  auto big = request(key, 11, 0), fits = request(key, 10, 0), more = request(key, 1, 0);
  EXPECT_EQ(b.submit(big->req), KS_ERR_OVERLOADED);
  EXPECT_EQ(b.submit(fits->req), KS_OK);
  EXPECT_EQ(b.submit(more->req), KS_ERR_OVERLOADED);  // 10 accepted and unfinished
  expect_answered(*fits, 1);
  EXPECT_EQ(b.queued_rows(), 0u);
  auto after = request(key, 10, 0);
  EXPECT_EQ(b.submit(after->req), KS_OK);
  expect_answered(*after, 1);
}

TEST_F(RowBatcherTest, CloseRunsEveryAcceptedRowThenRefuses) {
  RowBatcher b({nullptr}, config(1000, 60000));
  auto key = key_of(9);
  auto r1 = request(key, 5, 0), r2 = request(key, 6, 50);
  ASSERT_EQ(b.submit(r1->req), KS_OK);
  ASSERT_EQ(b.submit(r2->req), KS_OK);
  b.close();  // long before the 60 s delay
  expect_answered(*r1, 9);
  expect_answered(*r2, 9);
  auto late = request(key, 1, 0);
  EXPECT_EQ(b.submit(late->req), KS_ERR_SHUTTING_DOWN);
}

TEST_F(RowBatcherTest, AFailedCallFailsEveryRowAndZeroesValues) {
  recorder.fail_with = KS_ERR_NO_MEMORY;
  RowBatcher b({nullptr}, config(1000, 0));
  auto r = request(key_of(1), 4, 0);
  ASSERT_EQ(b.submit(r->req), KS_OK);
  r->done.get_future().get();
  EXPECT_EQ(r->statuses, std::vector<int32_t>(4, KS_ERR_NO_MEMORY));
  EXPECT_EQ(r->values, std::vector<uint8_t>(16, 0));
}

TEST_F(RowBatcherTest, EmptyRequestsAreDoneAtOnce) {
  RowBatcher b({nullptr}, config(1000, 60000));
  auto r = request(key_of(1), 0, 0);
  ASSERT_EQ(b.submit(r->req), KS_OK);
  EXPECT_EQ(r->done.get_future().wait_for(milliseconds(0)), std::future_status::ready);
}

// Many threads, two keys, four engines: every row back in its place, some
// rows failing on their own (0xEE), nothing lost.
TEST_F(RowBatcherTest, ManyClientsManyEngines) {
  BatcherConfig c = config(64, 1);
  c.calls_per_context = 2;
  RowBatcher b({nullptr, nullptr}, c);
  auto k1 = key_of(3), k2 = key_of(200);
  std::vector<std::thread> clients;
  std::atomic<size_t> rows{0};
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < 150; ++i) {
        const bool first = rng() & 1;
        auto r = request(first ? k1 : k2, 1 + rng() % 50, static_cast<uint8_t>(rng()));
        ASSERT_EQ(b.submit(r->req), KS_OK);
        expect_answered(*r, first ? 3 : 200);
        rows += r->statuses.size();
      }
    });
  }
  for (auto& t : clients) t.join();
  size_t total = 0;
  for (size_t s : sizes()) {
    EXPECT_LE(s, 64u);
    total += s;
  }
  EXPECT_EQ(total, rows.load());
}

// A kVariable column between two fixed ones: each row's out is its item's
// length and byte sum, framed by its fixed columns, so an offset rebased
// wrongly across requests (or chunks cut from one) shows in the values.
int frame_items(ks_ctx*, const void*, const uint8_t* const* in, const uint64_t* offsets,
                size_t count, uint8_t* out, int* status) {
  {
    std::lock_guard<std::mutex> lock(recorder.mu);
    recorder.sizes.push_back(count);
  }
  if (offsets[0] != 0) return KS_ERR_OFFSETS;
  for (size_t i = 0; i < count; ++i) {
    uint8_t sum = 0;
    for (uint64_t j = offsets[i]; j < offsets[i + 1]; ++j) sum = static_cast<uint8_t>(sum + in[1][j]);
    const uint8_t row[4] = {in[0][i], static_cast<uint8_t>(offsets[i + 1] - offsets[i]), sum,
                            in[2][i]};
    std::memcpy(out + 4 * i, row, 4);
    status[i] = KS_OK;
  }
  return KS_OK;
}

const RowOp kFrameItems{"frame-items", {1, RowOp::kVariable, 1}, 4, frame_items};

TEST_F(RowBatcherTest, VariableItemsKeepTheirBoundsAcrossRequestsAndCuts) {
  RowBatcher b({nullptr}, config(7, 200));
  std::mt19937 rng(5);
  struct Items {
    std::vector<uint8_t> head, data, tail, values;
    std::vector<uint64_t> offsets{0};
    std::vector<int32_t> statuses;
    std::promise<void> done;
  };
  std::vector<std::unique_ptr<Items>> all;
  auto key = key_of(0);
  for (int r = 0; r < 4; ++r) {
    auto it = std::make_unique<Items>();
    const size_t count = 3 + r;  // 18 rows in batches of 7: cuts inside requests
    for (size_t i = 0; i < count; ++i) {
      it->head.push_back(static_cast<uint8_t>(rng()));
      it->tail.push_back(static_cast<uint8_t>(rng()));
      const size_t len = rng() % 3 == 0 ? 0 : rng() % 200;  // empty items too
      for (size_t j = 0; j < len; ++j) it->data.push_back(static_cast<uint8_t>(rng()));
      it->offsets.push_back(it->data.size());
    }
    it->statuses.assign(count, 1);
    it->values.assign(4 * count, 0xAA);
    auto req = std::make_shared<RowRequest>();
    req->op = &kFrameItems;
    req->key = key;
    req->columns = {it->head.data(), it->data.data(), it->tail.data()};
    req->offsets = it->offsets.data();
    req->count = count;
    req->deadline = Clock::now() + milliseconds(10000);
    req->statuses = it->statuses.data();
    req->values = it->values.data();
    req->done = [d = &it->done] { d->set_value(); };
    ASSERT_EQ(b.submit(req), KS_OK);
    all.push_back(std::move(it));
  }
  for (auto& it : all) {
    it->done.get_future().get();
    for (size_t i = 0; i < it->statuses.size(); ++i) {
      uint8_t sum = 0;
      for (uint64_t j = it->offsets[i]; j < it->offsets[i + 1]; ++j) {
        sum = static_cast<uint8_t>(sum + it->data[j]);
      }
      const uint8_t want[4] = {it->head[i],
                               static_cast<uint8_t>(it->offsets[i + 1] - it->offsets[i]), sum,
                               it->tail[i]};
      ASSERT_EQ(it->statuses[i], KS_OK) << "row " << i;
      ASSERT_EQ(std::memcmp(it->values.data() + 4 * i, want, 4), 0) << "row " << i;
    }
  }
  EXPECT_EQ(sizes(), (std::vector<size_t>{7, 7, 4}));
}

// max_batch_bytes cuts batches of variable-length items, inside a request
// too; an item over the budget runs alone rather than never.
TEST_F(RowBatcherTest, VariableItemsAreCutByBytes) {
  BatcherConfig c = config(1000, 0);
  c.max_batch_bytes = 100;
  RowBatcher b({nullptr}, c);
  const std::vector<size_t> lengths = {40, 40, 40, 150, 10};
  std::vector<uint8_t> head(lengths.size(), 1), tail(lengths.size(), 2), data;
  std::vector<uint64_t> offsets{0};
  for (size_t len : lengths) {
    data.insert(data.end(), len, 3);
    offsets.push_back(data.size());
  }
  std::vector<int32_t> statuses(lengths.size(), 1);
  std::vector<uint8_t> values(4 * lengths.size());
  std::promise<void> done;
  auto req = std::make_shared<RowRequest>();
  req->op = &kFrameItems;
  req->key = key_of(0);
  req->columns = {head.data(), data.data(), tail.data()};
  req->offsets = offsets.data();
  req->count = lengths.size();
  req->deadline = Clock::now() + milliseconds(10000);
  req->statuses = statuses.data();
  req->values = values.data();
  req->done = [&done] { done.set_value(); };
  ASSERT_EQ(b.submit(req), KS_OK);
  done.get_future().get();
  EXPECT_EQ(statuses, std::vector<int32_t>(lengths.size(), KS_OK));
  for (size_t i = 0; i < lengths.size(); ++i) EXPECT_EQ(values[4 * i + 1], lengths[i]) << i;
  EXPECT_EQ(sizes(), (std::vector<size_t>{2, 1, 1, 1}));
}

}  // namespace
}  // namespace kuaisuo::serve
