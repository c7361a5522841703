// kuaisuo._native: the Python binding of the C API (include/kuaisuo.h).
// Inputs are taken through the buffer protocol (bytes, bytearray,
// memoryview, numpy arrays, anything C-contiguous) without copying; the GIL
// is released around work that may take long.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "kuaisuo.h"
#include "native_util.h"

namespace nb = nanobind;
using ks_py::Buffer;
using ks_py::check;

namespace {

// Hashing more than this many bytes releases the GIL.
constexpr size_t kReleaseGilBytes = 1 << 14;

nb::bytes digest_bytes(const uint8_t* d) {
  return nb::bytes(reinterpret_cast<const char*>(d), KS_SM3_DIGEST_BYTES);
}

class Sm3Hash {
 public:
  explicit Sm3Hash(nb::handle data) {
    check(ks_sm3_init(&ctx_));
    if (!data.is_none()) update(data);
  }
  void update(nb::handle data) {
    Buffer in(data, "data");
    if (in.size() >= kReleaseGilBytes) {
      nb::gil_scoped_release unlocked;
      check(ks_sm3_update(&ctx_, in.data(), in.size()));
    } else {
      check(ks_sm3_update(&ctx_, in.data(), in.size()));
    }
  }
  // Like hashlib: digest() does not end the hash.
  nb::bytes digest() const {
    ks_sm3_ctx copy = ctx_;
    uint8_t out[KS_SM3_DIGEST_BYTES];
    check(ks_sm3_final(&copy, out));
    return digest_bytes(out);
  }
  Sm3Hash copy() const { return *this; }

 private:
  ks_sm3_ctx ctx_;
};

class HmacSm3 {
 public:
  HmacSm3(nb::handle key, nb::handle data) {
    Buffer k(key, "key");
    check(ks_hmac_sm3_init(&ctx_, k.data(), k.size()));
    if (!data.is_none()) update(data);
  }
  ~HmacSm3() { ks_hmac_sm3_cleanse(&ctx_); }
  HmacSm3(const HmacSm3&) = default;
  void update(nb::handle data) {
    Buffer in(data, "data");
    check(ks_hmac_sm3_update(&ctx_, in.data(), in.size()));
  }
  nb::bytes digest() const {
    HmacSm3 copy(*this);
    uint8_t out[KS_SM3_DIGEST_BYTES];
    check(ks_hmac_sm3_final(&copy.ctx_, out));
    return digest_bytes(out);
  }
  HmacSm3 copy() const { return *this; }

 private:
  ks_hmac_sm3_ctx ctx_;
};

nb::bytes sm3(nb::handle data) {
  Buffer in(data, "data");
  uint8_t out[KS_SM3_DIGEST_BYTES];
  if (in.size() >= kReleaseGilBytes) {
    nb::gil_scoped_release unlocked;
    check(ks_sm3(in.data(), in.size(), out));
  } else {
    check(ks_sm3(in.data(), in.size(), out));
  }
  return digest_bytes(out);
}

nb::bytes hmac_sm3(nb::handle key, nb::handle data) {
  Buffer k(key, "key"), in(data, "data");
  uint8_t out[KS_SM3_DIGEST_BYTES];
  nb::gil_scoped_release unlocked;
  check(ks_hmac_sm3(k.data(), k.size(), in.data(), in.size(), out));
  nb::gil_scoped_acquire locked;
  return digest_bytes(out);
}

class Context {
 public:
  Context(const std::string& backend, int device, unsigned threads) {
    ks_ctx_config cfg;
    ks_ctx_config_init(&cfg);
    cfg.backend = ks_py::parse_backend(backend);
    cfg.gpu_device = device;
    cfg.cpu_threads = threads;
    check(ks_ctx_new(&cfg, &ctx_));
  }
  ~Context() { ks_ctx_free(ctx_); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  std::string backend() const {
    return ks_ctx_backend(ctx_) == KS_BACKEND_GPU ? "gpu" : "cpu";
  }
  unsigned threads() const { return ks_ctx_cpu_threads(ctx_); }

  // Messages laid out flat: item i is data[offsets[i]:offsets[i+1]].
  // Returns count * 32 digest bytes.
  nb::bytes sm3_batch_flat(nb::handle data, nb::handle offsets) {
    Buffer in(data, "data");
    Buffer offs(offsets, "offsets");
    const std::vector<uint64_t> checked = ks_py::offsets_from(offs);
    return run_sm3_batch(in.data(), in.size(), checked);
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
    nb::bytes all = run_sm3_batch(flat.data(), flat.size(), offsets);
    std::vector<nb::bytes> out;
    out.reserve(offsets.size() - 1);
    const uint8_t* d = reinterpret_cast<const uint8_t*>(all.c_str());
    for (size_t i = 0; i + 1 < offsets.size(); ++i) out.push_back(digest_bytes(d + 32 * i));
    return out;
  }

 private:
  nb::bytes run_sm3_batch(const uint8_t* data, size_t len, const std::vector<uint64_t>& offsets) {
    const size_t count = offsets.size() - 1;
    std::vector<uint8_t> digests(32 * count);
    int rc;
    {
      nb::gil_scoped_release unlocked;
      rc = ks_sm3_batch(ctx_, data, len, offsets.data(), count, digests.data(), digests.size(),
                        nullptr);
    }
    check(rc);
    return nb::bytes(reinterpret_cast<const char*>(digests.data()), digests.size());
  }

  ks_ctx* ctx_ = nullptr;
};

}  // namespace

void bind_bench(nb::module_& m);

NB_MODULE(_native, m) {
  m.doc() = "kuaisuo native core (see the kuaisuo package for the documented API)";
  ks_py::register_errors(m);

  m.def("version", [] { return std::string(ks_version_string()); });
  m.def("gpu_built", [] { return ks_gpu_built() != 0; });
  m.def("gpu_device_count", [] { return ks_gpu_device_count(); });
  m.def("cpu_features", [] { return std::string(ks_cpu_features()); });

  m.def("sm3", &sm3, nb::arg("data"));
  m.def("hmac_sm3", &hmac_sm3, nb::arg("key"), nb::arg("data"));

  nb::class_<Sm3Hash>(m, "SM3")
      .def(nb::init<nb::handle>(), nb::arg("data") = nb::none())
      .def("update", &Sm3Hash::update, nb::arg("data"))
      .def("digest", &Sm3Hash::digest)
      .def("copy", &Sm3Hash::copy);

  nb::class_<HmacSm3>(m, "HmacSM3")
      .def(nb::init<nb::handle, nb::handle>(), nb::arg("key"), nb::arg("data") = nb::none())
      .def("update", &HmacSm3::update, nb::arg("data"))
      .def("digest", &HmacSm3::digest)
      .def("copy", &HmacSm3::copy);

  nb::class_<Context>(m, "Context")
      .def(nb::init<const std::string&, int, unsigned>(), nb::arg("backend") = "auto",
           nb::arg("device") = 0, nb::arg("threads") = 0)
      .def_prop_ro("backend", &Context::backend)
      .def_prop_ro("threads", &Context::threads)
      .def("sm3_batch", &Context::sm3_batch, nb::arg("messages"))
      .def("sm3_batch_flat", &Context::sm3_batch_flat, nb::arg("data"), nb::arg("offsets"));

  bind_bench(m);
}
