#include "library_run.h"

#include <stdio.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "host_buffer.h"
#include "util.h"

namespace kuaisuo::load {
namespace {

// The rate kuaisuo-grpcd's engines can reach without a transport: threads
// sharing one context (the server runs two per GPU), each gathering
// --items pool rows into page-locked buffers, as an engine gathers a
// batch, and calling the op's batch function, closed loop. Windows go
// round robin over the pool, so no call repeats the last one's items.
class LibraryRun {
 public:
  LibraryRun(const Options& o, const Pool& pool, ks_ctx* ctx, const ks_sm2_key* key)
      : o_(o), pool_(pool), ctx_(ctx), key_(key) {}

  // Items per second from the start until the last call that began within
  // --seconds returned, after one unrecorded call per thread; a negative
  // value when a call failed or a row did not get status 0.
  double items_per_second() {
    std::vector<std::thread> threads;
    const auto start = Clock::now() + std::chrono::milliseconds(200);
    for (uint64_t t = 0; t < o_.threads; ++t) {
      threads.emplace_back([this, t, start] { loop(t, start); });
    }
    for (auto& t : threads) t.join();
    if (failed_) return -1.0;
    return static_cast<double>(items_.load()) / seconds_between(start, Clock::now());
  }

 private:
  // Gathers window j's rows into the buffers (as an engine gathers a
  // batch) and makes the call; true when every row got status 0.
  bool call(size_t j, uint8_t* digests, uint8_t* keys, uint8_t* sigs, uint8_t* out,
            int* status) {
    const size_t n = o_.items;
    copy_window(pool_, pool_.digests, kDigestBytes, n, j, digests);
    if (o_.sign()) {
      return ks_sm2_sign_digest_batch(ctx_, key_, digests, n, KS_SM2_NONCE_RANDOM, out,
                                      n * kSignatureBytes, status) == KS_OK;
    }
    copy_window(pool_, pool_.public_keys, kPublicKeyBytes, n, j, keys);
    copy_window(pool_, pool_.signatures, kSignatureBytes, n, j, sigs);
    return ks_sm2_verify_digest_batch(ctx_, keys, digests, n, sigs, status) == KS_OK;
  }

  void loop(uint64_t t, Clock::time_point start) {
    const size_t n = o_.items, windows = (pool_.count + n - 1) / n;
    kuaisuo::serve::HostBuffer buffers[5];
    uint8_t* digests = buffers[0].get(n * kDigestBytes);
    uint8_t* keys = buffers[1].get(n * kPublicKeyBytes);
    uint8_t* sigs = buffers[2].get(n * kSignatureBytes);
    uint8_t* out = buffers[3].get(n * kSignatureBytes);
    int* st = reinterpret_cast<int*>(buffers[4].get(n * sizeof(int)));
    if (!digests || !keys || !sigs || !out || !st) {
      failed_ = true;
      return;
    }
    size_t j = t;
    if (!call(j % windows, digests, keys, sigs, out, st)) failed_ = true;  // warm-up
    sleep_until(start);
    const auto end = start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(o_.seconds));
    uint64_t items = 0;
    while (Clock::now() < end && !failed_) {
      j += o_.threads;
      if (!call(j % windows, digests, keys, sigs, out, st)) failed_ = true;
      items += n;
    }
    items_ += items;
  }

  const Options& o_;
  const Pool& pool_;
  ks_ctx* ctx_;
  const ks_sm2_key* key_;
  std::atomic<uint64_t> items_{0};
  std::atomic<bool> failed_{false};
};

}  // namespace

int run_library(const Options& o, const Pool& pool) {
  ks_ctx_config config;
  ks_ctx_config_init(&config);
  config.backend = o.library == "cpu" ? KS_BACKEND_CPU
                   : o.library == "gpu" ? KS_BACKEND_GPU : KS_BACKEND_AUTO;
  ks_ctx* raw_ctx = nullptr;
  if (!ks_check(ks_ctx_new(&config, &raw_ctx), "--library: context")) return kExitSetup;
  CtxPtr ctx(raw_ctx);
  ks_sm2_key* raw_key = nullptr;
  if (!ks_check(ks_sm2_key_generate(&raw_key), "--library: keygen")) return kExitSetup;
  KeyPtr key(raw_key);
  const double rate = LibraryRun(o, pool, ctx.get(), key.get()).items_per_second();
  if (rate < 0) {
    fprintf(stderr, "%s: --library: a batch call failed\n", kTool);
    return kExitSetup;
  }
  printf("{\"mode\": \"library\", \"op\": \"%s\", \"backend\": \"%s\", \"threads\": %llu, "
         "\"items_per_call\": %llu, \"pool\": %zu, \"seconds\": %.3g, \"items_per_s\": %.0f}\n",
         o.op.c_str(), o.library.c_str(), static_cast<unsigned long long>(o.threads),
         static_cast<unsigned long long>(o.items), pool.count, o.seconds, rate);
  return 0;
}

}  // namespace kuaisuo::load
