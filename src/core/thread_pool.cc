#include "core/thread_pool.h"

#include <atomic>
#include <exception>

namespace ks {

struct ThreadPool::Job {
  size_t n;
  size_t chunk;
  const std::function<void(size_t, size_t)>* body;
  std::atomic<size_t> next{0};
  unsigned active = 0;  // workers still inside run_chunks (guarded by mutex_)
  // The first exception a chunk threw (e.g. std::bad_alloc), rethrown to
  // the caller of parallel_for: one escaping a worker thread would
  // terminate the process.
  std::mutex error_mutex;
  std::exception_ptr error;
};

unsigned ThreadPool::online_cpus() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = online_cpus();
  try {
    workers_.reserve(threads - 1);
    for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
  } catch (...) {
    // The OS refused a thread (process limit, no memory for its stack):
    // the ones already running are stopped and joined before the error
    // leaves, since a joinable std::thread destroyed unjoined terminates.
    stop_workers();
    throw;
  }
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

void ThreadPool::run_chunks(Job* job) {
  try {
    for (;;) {
      const size_t begin = job->next.fetch_add(job->chunk);
      if (begin >= job->n) return;
      const size_t end = begin + job->chunk < job->n ? begin + job->chunk : job->n;
      (*job->body)(begin, end);
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(job->error_mutex);
    if (!job->error) job->error = std::current_exception();
    job->next.store(job->n);  // the other threads take no further chunks
  }
}

void ThreadPool::worker_loop() {
  size_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    Job* job = job_;
    if (job == nullptr) continue;
    ++job->active;
    lock.unlock();
    run_chunks(job);
    lock.lock();
    if (--job->active == 0) done_.notify_all();
  }
}

void ThreadPool::parallel_for(size_t n, size_t min_chunk,
                              const std::function<void(size_t, size_t)>& body) {
  if (n == 0) return;
  if (min_chunk == 0) min_chunk = 1;
  // About four chunks per thread balances uneven items without much traffic.
  size_t chunk = n / (size_t(threads()) * 4);
  if (chunk < min_chunk) chunk = min_chunk;
  if (workers_.empty() || chunk >= n) {
    body(0, n);
    return;
  }
  std::lock_guard<std::mutex> call_lock(call_mutex_);
  Job job;
  job.n = n;
  job.chunk = chunk;
  job.body = &body;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    ++generation_;
  }
  wake_.notify_all();
  run_chunks(&job);
  std::unique_lock<std::mutex> lock(mutex_);
  job_ = nullptr;  // late wakers see no job
  done_.wait(lock, [&] { return job.active == 0; });
  lock.unlock();
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace ks
