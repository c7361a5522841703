// kuaisuo._native: the Python binding of the C API (include/kuaisuo.h).
// Inputs are taken through the buffer protocol (bytes, bytearray,
// memoryview, numpy arrays, anything C-contiguous) without copying; the GIL
// is released around work that may take long.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <mutex>
#include <string>
#include <vector>

#include "kuaisuo.h"
#include "native_context.h"
#include "native_util.h"

namespace nb = nanobind;
using ks_py::Buffer;
using ks_py::check;
using ks_py::ObjectLock;

namespace {

// Hashing more than this many bytes releases the GIL.
constexpr size_t kReleaseGilBytes = 1 << 14;

nb::bytes digest_bytes(const uint8_t* d) { return ks_py::to_bytes(d, KS_SM3_DIGEST_BYTES); }

// The streaming objects may be shared by Python threads: each holds its lock
// (ks_py::ObjectLock) across every use of its state, and a large update
// releases the GIL while it holds it.
class Sm3Hash {
 public:
  explicit Sm3Hash(nb::handle data) {
    check(ks_sm3_init(&ctx_));
    if (!data.is_none()) update(data);
  }
  Sm3Hash(const Sm3Hash&) = delete;
  Sm3Hash& operator=(const Sm3Hash&) = delete;

  void update(nb::handle data) {
    Buffer in(data, "data");
    ObjectLock held(mutex_);
    check(ks_py::nogil([&] { return ks_sm3_update(&ctx_, in.data(), in.size()); },
                       in.size() >= kReleaseGilBytes));
  }
  // Like hashlib: digest() does not end the hash.
  nb::bytes digest() {
    uint8_t out[KS_SM3_DIGEST_BYTES];
    {
      ObjectLock held(mutex_);
      ks_sm3_ctx copy = ctx_;
      check(ks_sm3_final(&copy, out));
    }
    return digest_bytes(out);
  }
  Sm3Hash* copy() {
    ObjectLock held(mutex_);
    return new Sm3Hash(ctx_);
  }

 private:
  explicit Sm3Hash(const ks_sm3_ctx& state) : ctx_(state) {}

  std::mutex mutex_;
  ks_sm3_ctx ctx_;
};

class HmacSm3 {
 public:
  HmacSm3(nb::handle key, nb::handle data) {
    // A constructor that throws runs no destructor: wipe the keyed state here.
    try {
      Buffer k(key, "key");
      check(ks_hmac_sm3_init(&ctx_, k.data(), k.size()));
      if (!data.is_none()) update(data);
    } catch (...) {
      ks_hmac_sm3_cleanse(&ctx_);
      throw;
    }
  }
  ~HmacSm3() { ks_hmac_sm3_cleanse(&ctx_); }
  HmacSm3(const HmacSm3&) = delete;
  HmacSm3& operator=(const HmacSm3&) = delete;

  void update(nb::handle data) {
    Buffer in(data, "data");
    ObjectLock held(mutex_);
    check(ks_py::nogil([&] { return ks_hmac_sm3_update(&ctx_, in.data(), in.size()); },
                       in.size() >= kReleaseGilBytes));
  }
  nb::bytes digest() {
    uint8_t out[KS_SM3_DIGEST_BYTES];
    {
      ObjectLock held(mutex_);
      HmacSm3 copy(ctx_);  // keyed: its destructor wipes it
      check(ks_hmac_sm3_final(&copy.ctx_, out));
    }
    return digest_bytes(out);
  }
  HmacSm3* copy() {
    ObjectLock held(mutex_);
    return new HmacSm3(ctx_);
  }

 private:
  explicit HmacSm3(const ks_hmac_sm3_ctx& state) : ctx_(state) {}

  std::mutex mutex_;
  ks_hmac_sm3_ctx ctx_;
};

nb::bytes sm3(nb::handle data) {
  Buffer in(data, "data");
  uint8_t out[KS_SM3_DIGEST_BYTES];
  check(ks_py::nogil([&] { return ks_sm3(in.data(), in.size(), out); },
                     in.size() >= kReleaseGilBytes));
  return digest_bytes(out);
}

// The SM3 KDF of GB/T 32918.4 clause 5.4.3.
nb::bytes sm3_kdf(nb::handle z_obj, size_t length) {
  Buffer z(z_obj, "z");
  ks_py::SecretBuffer out(length > 0 ? length : 1);
  check(ks_py::nogil([&] { return ks_sm3_kdf(z.data(), z.size(), out.data(), length); },
                     length >= kReleaseGilBytes),
        "length (at most (2^32 - 1) x 32 bytes)");
  return ks_py::to_bytes(out.data(), length);
}

nb::bytes hmac_sm3(nb::handle key, nb::handle data) {
  Buffer k(key, "key"), in(data, "data");
  uint8_t out[KS_SM3_DIGEST_BYTES];
  check(ks_py::nogil([&] { return ks_hmac_sm3(k.data(), k.size(), in.data(), in.size(), out); },
                     in.size() >= kReleaseGilBytes));
  return digest_bytes(out);
}

// Password-encrypted PKCS#8 (ks_pkcs8_decrypt_max / _encrypt): the key
// derivation runs without the GIL (it is meant to be slow). max_iterations
// 0 is the library's default maximum (KS_PBES2_DEFAULT_MAX_ITERATIONS).
nb::bytes pkcs8_decrypt(nb::handle data, nb::handle password, uint32_t max_iterations) {
  Buffer in(data, "key"), pw(password, "password");
  ks_py::SecretBuffer out(in.size() + 1);
  size_t len = 0;
  check(ks_py::nogil([&] {
    return ks_pkcs8_decrypt_max(in.data(), in.size(), pw.data(), pw.size(), max_iterations,
                                out.data(), out.size(), &len);
  }), "encrypted private key (PKCS#8 PBES2)");
  return ks_py::to_bytes(out.data(), len);
}

nb::bytes pkcs8_encrypt(nb::handle der, nb::handle password, int scheme, uint32_t iterations,
                        bool pem) {
  Buffer in(der, "key"), pw(password, "password");
  ks_py::SecretBuffer out(2 * in.size() + 512);
  size_t len = 0;
  check(ks_py::nogil([&] {
    return ks_pkcs8_encrypt(in.data(), in.size(), pw.data(), pw.size(), scheme, iterations, pem,
                            out.data(), out.size(), &len);
  }));
  return ks_py::to_bytes(out.data(), len);
}

}  // namespace

void bind_bench(nb::module_& m);
void bind_sm2(nb::module_& m, nb::class_<ks_py::Context>& context);
void bind_curve25519(nb::module_& m, nb::class_<ks_py::Context>& context);
void bind_sm4(nb::module_& m, nb::class_<ks_py::Context>& context);
void bind_skinny(nb::module_& m, nb::class_<ks_py::Context>& context);
void bind_device(nb::module_& m, nb::class_<ks_py::Context>& context);

NB_MODULE(_native, m) {
  m.doc() = "kuaisuo native core (see the kuaisuo package for the documented API)";
  ks_py::register_errors(m);

  m.def("version", [] { return std::string(ks_version_string()); });
  m.def("gpu_built", [] { return ks_gpu_built() != 0; });
  m.def("gpu_device_count", [] { return ks_gpu_device_count(); });
  m.def("cpu_features", [] { return std::string(ks_cpu_features()); });
  m.def("strerror", [](int code) { return std::string(ks_strerror(code)); });

  m.def("sm3", &sm3, nb::arg("data"));
  m.def("sm3_kdf", &sm3_kdf, nb::arg("z"), nb::arg("length"));
  m.def("hmac_sm3", &hmac_sm3, nb::arg("key"), nb::arg("data"));
  m.def("pkcs8_decrypt", &pkcs8_decrypt, nb::arg("data"), nb::arg("password"),
        nb::arg("max_iterations") = 0);
  m.def("pkcs8_encrypt", &pkcs8_encrypt, nb::arg("der"), nb::arg("password"), nb::arg("scheme"),
        nb::arg("iterations"), nb::arg("pem"));

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

  using ks_py::Context;
  auto context = nb::class_<Context>(m, "Context");
  context
      .def(nb::init<const std::string&, int, unsigned, bool>(), nb::arg("backend") = "auto",
           nb::arg("device") = 0, nb::arg("threads") = 0, nb::arg("wide_base_table") = false)
      .def_prop_ro("backend", &Context::backend)
      .def_prop_ro("threads", &Context::threads)
      .def("sm3_batch", &Context::sm3_batch, nb::arg("messages"))
      .def("sm3_batch_flat", &Context::sm3_batch_flat, nb::arg("data"), nb::arg("offsets"),
           nb::arg("out") = nb::none());

  bind_sm2(m, context);
  bind_curve25519(m, context);
  bind_sm4(m, context);
  bind_skinny(m, context);
  bind_device(m, context);
  bind_bench(m);
}
