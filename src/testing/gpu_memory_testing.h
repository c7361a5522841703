// Device memory for tests and tools that exercise the library's
// device-memory paths (kuaisuo/common.h, "Device memory") from C++
// compiled without the CUDA headers: buffers, streams, and work queued on
// a stream before and after a call. Built into kuaisuo_testing (CUDA
// builds only), not into libkuaisuo.
#ifndef KS_TESTING_GPU_MEMORY_TESTING_H_
#define KS_TESTING_GPU_MEMORY_TESTING_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <vector>

#include "kuaisuo.h"

namespace ks {
namespace testing {

// n bytes of device memory (cudaMalloc, or cudaMallocManaged when
// `managed`) on the current device; freed with the object.
class DeviceBytes {
 public:
  explicit DeviceBytes(size_t n, bool managed = false);
  // A copy of a host vector (ok() false where it could not be made).
  template <class T>
  explicit DeviceBytes(const std::vector<T>& v) : DeviceBytes(sizeof(T) * v.size()) {
    if (ok() && !upload(reinterpret_cast<const uint8_t*>(v.data()), n_)) release();
  }
  ~DeviceBytes();
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  bool ok() const { return ptr_ != nullptr; }
  uint8_t* get() const { return ptr_; }
  size_t size() const { return n_; }
  // Host bytes to [at, at + len), and back (synchronous).
  bool upload(const uint8_t* src, size_t len, size_t at = 0);
  std::vector<uint8_t> download(size_t len, size_t at = 0) const;
  // The first count values of type T (an empty vector on failure).
  template <class T>
  std::vector<T> download_as(size_t count) const {
    const std::vector<uint8_t> raw = download(sizeof(T) * count);
    std::vector<T> out(raw.size() / sizeof(T));
    if (!out.empty()) memcpy(out.data(), raw.data(), raw.size());
    return out;
  }
  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(ptr_);
  }

 private:
  void release();
  uint8_t* ptr_ = nullptr;
  size_t n_;
};

// A non-blocking stream (a cudaStream_t) and its end.
void* stream_create();
void stream_destroy(void* stream);
bool stream_sync(void* stream);  // false on a CUDA error
// Starts (thread-local mode) and ends capturing stream's work into a CUDA
// graph, which is then dropped.
bool capture_begin(void* stream);
bool capture_end(void* stream);
// Queues on stream a kernel that spins about `microseconds`, then copies
// n bytes from src to dst (device memory): work before a call that the
// call must wait for.
bool spin_then_copy(void* stream, uint8_t* dst, const uint8_t* src, size_t n,
                    unsigned microseconds);
// Queues a device-to-device copy on stream (work after a call).
bool copy_async(void* stream, uint8_t* dst, const uint8_t* src, size_t n);

// Runs call() (a ks_* call on ctx) between other work on a new
// non-blocking stream set on ctx: before it, a copy of n bytes from `late`
// to `input` queued behind a spinning kernel (the call's input arrives
// late); after it, a copy of result_n bytes from `result` to `after`.
// Waits for the stream and gives ctx back its default stream. Returns
// call()'s status, or KS_ERR_DEVICE where the stream's own work failed.
template <class Call>
int run_between(ks_ctx* ctx, uint8_t* input, const uint8_t* late, size_t n, const Call& call,
                uint8_t* after, const uint8_t* result, size_t result_n) {
  void* stream = stream_create();
  if (stream == nullptr) return KS_ERR_DEVICE;
  int rc = ks_ctx_set_stream(ctx, stream);
  if (rc == KS_OK) rc = spin_then_copy(stream, input, late, n, 20000) ? call() : KS_ERR_DEVICE;
  const bool copied = rc == KS_OK && copy_async(stream, after, result, result_n);
  if (!stream_sync(stream) || (rc == KS_OK && !copied)) rc = KS_ERR_DEVICE;
  ks_ctx_set_stream(ctx, nullptr);
  stream_destroy(stream);
  return rc;
}

}  // namespace testing
}  // namespace ks

#endif  // KS_TESTING_GPU_MEMORY_TESTING_H_
