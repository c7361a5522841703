#include "bench.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "core/os_random.h"
#include "kuaisuo.h"
#include "openssl_peer.h"

namespace ks {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

// run(iters) performs iters rounds and returns the operations done.
using RoundFn = std::function<size_t(size_t iters)>;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Warm-up and calibration, then kRuns timed runs; the median rate.
Result measure(double seconds, size_t bytes_per_op, const RoundFn& run) {
  constexpr int kRuns = 7;
  const double run_seconds = std::max(seconds / kRuns, 0.005);
  size_t iters = 1;
  for (;;) {  // grow until one call takes a tenth of a run (this warms up too)
    const Clock::time_point t0 = Clock::now();
    run(iters);
    const double dt = seconds_since(t0);
    if (dt >= run_seconds / 10) {
      iters = std::max<size_t>(1, size_t(double(iters) * run_seconds / dt));
      break;
    }
    iters *= 4;
  }
  std::vector<double> rates;
  for (int r = 0; r < kRuns; ++r) {
    const Clock::time_point t0 = Clock::now();
    const size_t ops = run(iters);
    rates.push_back(double(ops) / seconds_since(t0));
  }
  std::sort(rates.begin(), rates.end());
  Result res;
  res.ops_per_s = rates[kRuns / 2];
  res.bytes_per_s = res.ops_per_s * double(bytes_per_op);
  res.runs = kRuns;
  return res;
}

// Runs body(thread_index) on `threads` threads and waits for all.
void on_threads(unsigned threads, const std::function<void(unsigned)>& body) {
  if (threads <= 1) {
    body(0);
    return;
  }
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(body, t);
  for (std::thread& t : pool) t.join();
}

std::vector<uint8_t> random_bytes(size_t n) {
  std::vector<uint8_t> v(n);
  if (!os_random(v.data(), n)) v.assign(n, 0x5a);  // timing only; never keys
  return v;
}

// Single-operation SM3 on `threads` threads, each over its own messages.
RoundFn sm3_single_round(bool openssl, unsigned threads, size_t msg_bytes,
                         std::vector<uint8_t>* pool) {
  constexpr size_t kMsgsPerThread = 8;  // rotate so no single buffer stays hot
  *pool = random_bytes(size_t(threads) * kMsgsPerThread * std::max<size_t>(msg_bytes, 1));
  const uint8_t* base = pool->data();
  return [=](size_t iters) {
    on_threads(threads, [&](unsigned t) {
      uint8_t out[32];
      const uint8_t* mine = base + size_t(t) * kMsgsPerThread * std::max<size_t>(msg_bytes, 1);
      for (size_t i = 0; i < iters; ++i) {
        const uint8_t* msg = mine + (i % kMsgsPerThread) * msg_bytes;
        if (openssl) {
          OpenSslPeer::get().sm3(msg, msg_bytes, out);
        } else {
          ks_sm3(msg, msg_bytes, out);
        }
      }
    });
    return iters * threads;
  };
}

struct CtxDeleter {
  void operator()(ks_ctx* c) const { ks_ctx_free(c); }
};
using CtxPtr = std::unique_ptr<ks_ctx, CtxDeleter>;


bool run_sm3(const Case& c, Result* result, std::string* error) {
  const bool openssl = c.impl == "openssl";
  if (openssl && !OpenSslPeer::get().ok()) {
    *error = OpenSslPeer::get().error();
    return false;
  }
  std::vector<uint8_t> pool;
  if (openssl || c.batch <= 1) {
    *result = measure(c.seconds, c.msg_bytes, sm3_single_round(openssl, c.threads, c.msg_bytes, &pool));
    result->backend = "cpu";
    return true;
  }
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  cfg.backend = c.backend == "gpu" ? KS_BACKEND_GPU : KS_BACKEND_CPU;
  cfg.cpu_threads = c.threads;
  ks_ctx* raw = nullptr;
  int rc = ks_ctx_new(&cfg, &raw);
  if (rc != KS_OK) {
    *error = ks_strerror(rc);
    return false;
  }
  CtxPtr ctx(raw);
  pool = random_bytes(c.batch * c.msg_bytes);
  std::vector<uint64_t> offsets(c.batch + 1);
  for (size_t i = 0; i <= c.batch; ++i) offsets[i] = i * c.msg_bytes;
  std::vector<uint8_t> digests(32 * c.batch);
  int status = KS_OK;
  *result = measure(c.seconds, c.msg_bytes, [&](size_t iters) {
    for (size_t i = 0; i < iters && status == KS_OK; ++i)
      status = ks_sm3_batch(ctx.get(), pool.data(), pool.size(), offsets.data(), c.batch,
                            digests.data(), digests.size(), nullptr);
    return iters * c.batch;
  });
  if (status != KS_OK) {
    *error = ks_strerror(status);
    return false;
  }
  result->backend = c.backend;
  return true;
}

}  // namespace

bool run_case(const Case& c, Result* result, std::string* error) {
  if (c.threads == 0 || c.batch == 0 || c.seconds <= 0) {
    *error = "threads, batch and seconds must be positive";
    return false;
  }
  if (c.impl == "kuaisuo" && c.backend != "cpu" && c.backend != "gpu") {
    *error = "backend must be resolved to cpu or gpu";
    return false;
  }
  if (c.alg == "sm3" && c.op == "hash") return run_sm3(c, result, error);
  *error = "no benchmark for " + c.alg + " " + c.op;
  return false;
}

std::string openssl_version() {
  const OpenSslPeer& peer = OpenSslPeer::get();
  return peer.ok() ? peer.version() : std::string();
}

}  // namespace bench
}  // namespace ks
