// Private hooks for `kuaisuo speed` (kuaisuo/speed.py): the C++ timing
// harness and the machine facts that go into its JSON.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bench.h"
#include "core/cpu_features.h"
#include "gpu/gpu.h"
#include "native_util.h"

namespace nb = nanobind;

void bind_bench(nb::module_& m) {
  m.def("_bench_case",
        [](const std::string& alg, const std::string& op, const std::string& impl,
           const std::string& backend, unsigned threads, size_t batch, size_t msg_bytes,
           double seconds, const std::string& input, bool pinned) {
          ks::bench::Case c{alg, op, impl, backend, threads, batch, msg_bytes, seconds, input,
                            pinned};
          ks::bench::Result r;
          std::string error;
          const bool ok = ks_py::nogil([&] { return ks::bench::run_case(c, &r, &error); });
          nb::dict d;
          if (!ok) {
            d["error"] = error;
            return d;
          }
          d["ops_per_s"] = r.ops_per_s;
          d["bytes_per_s"] = r.bytes_per_s;
          d["runs"] = r.runs;
          d["backend"] = r.backend;
          return d;
        },
        nb::arg("alg"), nb::arg("op"), nb::arg("impl"), nb::arg("backend"), nb::arg("threads"),
        nb::arg("batch"), nb::arg("msg_bytes"), nb::arg("seconds"), nb::arg("input") = "message",
        nb::arg("pinned") = false);
  m.def("_openssl_version", [] { return ks::bench::openssl_version(); });
  m.def("_cpu_model", [] { return ks::cpu_model_name(); });
  m.def("_gpu_info", [](int device) {
    nb::dict d;
    ks::gpu::DeviceInfo info;
    if (!ks::gpu::device_info(device, &info)) return d;
    d["name"] = info.name;
    d["compute_capability"] = std::to_string(info.cc_major) + "." + std::to_string(info.cc_minor);
    d["multiprocessors"] = info.multiprocessors;
    d["memory_bytes"] = info.global_mem_bytes;
    d["l2_bytes"] = info.l2_bytes;
    d["clock_khz"] = info.clock_khz;
    return d;
  });
}
