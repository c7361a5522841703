// SKINNY-128-256 in kuaisuo._native over the C API (include/kuaisuo.h); the
// Python layer (kuaisuo/skinny.py) names the modes and checks lengths. The
// GIL is released for inputs of 16 KiB and more.
#include <nanobind/nanobind.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <string.h>

#include <mutex>
#include <tuple>
#include <vector>

#include "kuaisuo.h"
#include "native_context.h"
#include "native_util.h"

namespace nb = nanobind;
using ks_py::Buffer;
using ks_py::check;
using ks_py::to_bytes;

namespace {

constexpr size_t kReleaseGilBytes = 1 << 14;

const uint8_t* tweakey_of(const Buffer& tk) {
  ks_py::require_size(tk, KS_SKINNY_TWEAKEY_BYTES, "tweakey");
  return tk.data();
}

// The iv (None for ECB) as a copy that outlives the GIL.
std::vector<uint8_t> iv_of(nb::handle iv) {
  if (iv.is_none()) return {};
  Buffer b(iv, "iv");
  return std::vector<uint8_t>(b.data(), b.data() + b.size());
}

// One shot (ctx null) or one buffer on a context.
nb::object crypt(ks_py::Context* ctx, int mode, bool encrypt, nb::handle tweakey,
                 nb::handle iv_obj, nb::handle data_obj) {
  Buffer tk(tweakey, "tweakey"), data(data_obj, "data");
  const uint8_t* key = tweakey_of(tk);
  const std::vector<uint8_t> iv = iv_of(iv_obj);
  const ks_py::Output out(nb::none(), data.size(), "out");
  const int rc = ks_py::nogil([&] {
    const uint8_t* ivp = iv.empty() ? nullptr : iv.data();
    return ctx == nullptr ? ks_skinny128_256_crypt(mode, encrypt, key, ivp, iv.size(), data.data(),
                                                   data.size(), out.data())
                          : ks_skinny128_256_crypt_buffer(ctx->get(), mode, encrypt, key, ivp,
                                                          iv.size(), data.data(), data.size(),
                                                          out.data());
  }, data.size() >= kReleaseGilBytes);
  return out.finish(rc, rc != KS_ERR_LENGTH ? nullptr
                        : iv.size() != (mode == KS_SKINNY_ECB ? 0 : KS_SKINNY_BLOCK_BYTES)
                            ? "iv (16 bytes for CTR; none for ECB)"
                            : "data (ECB: whole 16-byte blocks)");
}

nb::object tweaked_blocks(bool encrypt, nb::handle key_obj, nb::handle tweaks_obj,
                         nb::handle data_obj) {
  Buffer key(key_obj, "key"), tweaks(tweaks_obj, "tweaks"), data(data_obj, "data");
  ks_py::require_size(key, 16, "key (TK2)");
  const size_t n = ks_py::items_of(data, KS_SKINNY_BLOCK_BYTES, "data");
  if (ks_py::items_of(tweaks, 16, "tweaks") != n)
    throw nb::value_error("tweaks must hold one 16-byte tweak per 16-byte block of data");
  const ks_py::Output out(nb::none(), data.size(), "out");
  return out.finish(ks_py::nogil([&] {
    return ks_skinny128_256_tweaked_blocks(encrypt, key.data(), tweaks.data(), data.data(),
                                           out.data(), n);
  }, data.size() >= kReleaseGilBytes));
}

std::tuple<nb::object, nb::object> batch(ks_py::Context& ctx, int mode, bool encrypt,
                                         nb::handle tweakeys, nb::handle ivs_obj,
                                         nb::handle data_obj, nb::handle offsets) {
  Buffer tk(tweakeys, "tweakeys"), data(data_obj, "data"), o(offsets, "offsets");
  const std::vector<uint64_t> offs = ks_py::offsets_from(o);
  const size_t n = offs.size() - 1;
  if (ks_py::items_of(tk, KS_SKINNY_TWEAKEY_BYTES, "tweakeys") != n)
    throw nb::value_error("one 32-byte tweakey per item");
  const std::vector<uint8_t> ivs = iv_of(ivs_obj);
  if (mode == KS_SKINNY_CTR && ivs.size() != KS_SKINNY_BLOCK_BYTES * n)
    throw nb::value_error("one 16-byte iv per item");
  const ks_py::Output out(nb::none(), data.size(), "out");
  const ks_py::StatusOutput status(n);
  const int rc = ks_py::nogil([&] {
    return ks_skinny128_256_batch(ctx.get(), mode, encrypt, tk.data(),
                                  ivs.empty() ? nullptr : ivs.data(), data.data(), data.size(),
                                  offs.data(), n, out.data(), out.size(), status.ints());
  });
  nb::object codes = status.finish(rc, &out);
  return {out.result(), codes};
}

// Streaming CTR; the state is wiped when the object goes. Python threads
// may share the object: each update holds its lock (ks_py::ObjectLock), as
// SM3 and HmacSM3 do, so that two updates never take the same counter
// blocks (keystream reuse).
class CtrStream {
 public:
  CtrStream(nb::handle tweakey, nb::handle iv) {
    Buffer tk(tweakey, "tweakey"), v(iv, "iv");
    ks_py::require_size(v, KS_SKINNY_BLOCK_BYTES, "iv");
    check(ks_skinny128_256_ctr_init(&c_, tweakey_of(tk), v.data()));
  }
  ~CtrStream() { ks_skinny128_256_ctr_cleanse(&c_); }
  CtrStream(const CtrStream&) = delete;

  nb::object update(nb::handle data_obj) {
    Buffer data(data_obj, "data");
    const ks_py::Output out(nb::none(), data.size(), "out");
    ks_py::ObjectLock held(mutex_);
    return out.finish(ks_py::nogil([&] {
      return ks_skinny128_256_ctr_update(&c_, data.data(), data.size(), out.data());
    }, data.size() >= kReleaseGilBytes));
  }

 private:
  ks_skinny_ctr_ctx c_;
  std::mutex mutex_;
};

}  // namespace

void bind_skinny(nb::module_& m, nb::class_<ks_py::Context>& context) {
  m.attr("SKINNY_ECB") = int(KS_SKINNY_ECB);
  m.attr("SKINNY_CTR") = int(KS_SKINNY_CTR);
  m.def(
      "skinny_crypt",
      [](int mode, bool encrypt, nb::handle tweakey, nb::handle iv, nb::handle data) {
        return crypt(nullptr, mode, encrypt, tweakey, iv, data);
      },
      nb::arg("mode"), nb::arg("encrypt"), nb::arg("tweakey"), nb::arg("iv").none(),
      nb::arg("data"));
  m.def("skinny_tweaked_blocks", &tweaked_blocks, nb::arg("encrypt"), nb::arg("key"),
        nb::arg("tweaks"), nb::arg("data"));
  nb::class_<CtrStream>(m, "SkinnyCtr")
      .def(nb::init<nb::handle, nb::handle>(), nb::arg("tweakey"), nb::arg("iv"))
      .def("update", &CtrStream::update, nb::arg("data"));
  context
      .def(
          "skinny_crypt_buffer",
          [](ks_py::Context& ctx, int mode, bool encrypt, nb::handle tweakey, nb::handle iv,
             nb::handle data) { return crypt(&ctx, mode, encrypt, tweakey, iv, data); },
          nb::arg("mode"), nb::arg("encrypt"), nb::arg("tweakey"), nb::arg("iv").none(),
          nb::arg("data"))
      .def("skinny_batch", &batch, nb::arg("mode"), nb::arg("encrypt"), nb::arg("tweakeys"),
           nb::arg("ivs").none(), nb::arg("data"), nb::arg("offsets"));
}
