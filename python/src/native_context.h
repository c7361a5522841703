// The Python-side owner of a ks_ctx, shared by the binding's files.
#ifndef KS_PY_NATIVE_CONTEXT_H_
#define KS_PY_NATIVE_CONTEXT_H_

#include <nanobind/nanobind.h>

#include <mutex>
#include <string>
#include <vector>

#include "kuaisuo.h"
#include "native_util.h"

namespace ks_py {

class Context {
 public:
  Context(const std::string& backend, int device, unsigned threads, bool wide_base_table) {
    ks_ctx_config cfg;
    ks_ctx_config_init(&cfg);
    cfg.backend = ks_py::parse_backend(backend);
    cfg.gpu_device = device;
    cfg.cpu_threads = threads;
    cfg.gpu_flags = wide_base_table ? KS_GPU_WIDE_BASE_TABLE : 0;
    // Starting the threads and opening a GPU take long: not under the GIL.
    check(nogil([&] { return ks_ctx_new(&cfg, &ctx_); }));
  }
  ~Context() { ks_ctx_free(ctx_); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  std::string backend() const {
    return ks_ctx_backend(ctx_) == KS_BACKEND_GPU ? "gpu" : "cpu";
  }
  unsigned threads() const { return ks_ctx_cpu_threads(ctx_); }

  // Messages laid out flat: item i is data[offsets[i]:offsets[i+1]].
  // Returns count * 32 digest bytes (in out when given: Output).
  nb::object sm3_batch_flat(nb::handle data, nb::handle offsets, nb::handle out) {
    Buffer in(data, "data");
    Buffer offs(offsets, "offsets");
    const std::vector<uint64_t> checked = ks_py::offsets_from(offs);
    return run_sm3_batch(in.data(), in.size(), checked.data(), checked.size() - 1, out);
  }

  // A sequence of buffers; returns a list of 32-byte digests.
  std::vector<nb::bytes> sm3_batch(nb::handle messages) {
    std::vector<uint8_t> flat;
    std::vector<uint64_t> offsets{0};
    for (nb::handle item : nb::iter(messages)) {
      Buffer b(item, "message");
      flat.insert(flat.end(), b.data(), b.data() + b.size());
      offsets.push_back(flat.size());
    }
    nb::bytes all = nb::borrow<nb::bytes>(
        run_sm3_batch(flat.data(), flat.size(), offsets.data(), offsets.size() - 1, nb::none()));
    std::vector<nb::bytes> out;
    out.reserve(offsets.size() - 1);
    const uint8_t* d = reinterpret_cast<const uint8_t*>(all.c_str());
    for (size_t i = 0; i + 1 < offsets.size(); ++i) out.push_back(to_bytes(d + 32 * i, 32));
    return out;
  }

 private:
  nb::object run_sm3_batch(const uint8_t* data, size_t len, const uint64_t* offsets,
                           size_t count, nb::handle out) {
    if (count > SIZE_MAX / 32) throw nb::value_error("too many messages");
    const Output digests(out, 32 * count, "out");
    check(nogil([&] {
      return ks_sm3_batch(ctx_, data, len, offsets, count, digests.data(), digests.size(),
                          nullptr);
    }));
    return digests.result();
  }

  ks_ctx* ctx_ = nullptr;
  std::mutex stream_mutex_;

 public:
  ks_ctx* get() const { return ctx_; }

  // f(ctx) with the context's stream set to `stream` (a cudaStream_t; 0
  // the legacy default stream) and the GIL released: a call on device
  // memory (kuaisuo/_device.py). The stream is the context's, so one such
  // call at a time sets it and queues its work.
  template <class F>
  int on_stream(uintptr_t stream, const F& f) {
    return nogil([&] {
      std::lock_guard<std::mutex> lock(stream_mutex_);
      const int rc = ks_ctx_set_stream(ctx_, reinterpret_cast<void*>(stream));
      return rc != KS_OK ? rc : f(ctx_);
    });
  }
};

}  // namespace ks_py

#endif  // KS_PY_NATIVE_CONTEXT_H_
