// SM4 in kuaisuo._native: the one-shot modes and GCM over the C API
// (include/kuaisuo.h); the Python layer (kuaisuo/sm4.py) adds the
// cryptography-style classes. The GIL is released for inputs of 16 KiB and
// more; nothing inside a released call touches Python.
#include <nanobind/nanobind.h>
#include <nanobind/stl/tuple.h>

#include <string.h>

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

constexpr size_t kReleaseGilBytes = 1 << 14;  // as native.cc

const uint8_t* key_of(const Buffer& key) {
  if (key.size() != KS_SM4_KEY_BYTES)
    check(KS_ERR_LENGTH, ("SM4 key (16 bytes, not " + std::to_string(key.size()) + ")").c_str());
  return key.data();
}

// Which input a KS_ERR_LENGTH of ks_sm4_encrypt / _decrypt is about.
const char* length_fault(int mode, size_t iv_len, bool padding) {
  if (mode == KS_SM4_ECB ? iv_len != 0 : iv_len != KS_SM4_BLOCK_BYTES)
    return "iv (16 bytes for CBC, CFB, OFB and CTR; none for ECB)";
  return padding ? "data (ciphertext with PKCS#7 padding: whole 16-byte blocks)"
                 : "data (ECB and CBC without padding: whole 16-byte blocks)";
}

// ECB/CBC/CFB/OFB/CTR, one shot: encrypt or decrypt.
nb::bytes crypt(bool encrypt, int mode, nb::handle key_obj, nb::handle iv_obj,
                nb::handle data_obj, bool padding) {
  Buffer key(key_obj, "key"), data(data_obj, "data");
  std::vector<uint8_t> iv_copy;
  if (!iv_obj.is_none()) {
    Buffer iv(iv_obj, "iv");
    iv_copy.assign(iv.data(), iv.data() + iv.size());
  }
  const uint32_t flags = padding ? KS_SM4_PAD_PKCS7 : 0;
  std::vector<uint8_t> out(data.size() + KS_SM4_BLOCK_BYTES);
  size_t out_len = 0;
  const uint8_t* k = key_of(key);
  const auto call = [&] {
    const uint8_t* iv = iv_copy.empty() ? nullptr : iv_copy.data();
    return encrypt ? ks_sm4_encrypt(mode, flags, k, iv, iv_copy.size(), data.data(),
                                    data.size(), out.data(), out.size(), &out_len)
                   : ks_sm4_decrypt(mode, flags, k, iv, iv_copy.size(), data.data(),
                                    data.size(), out.data(), out.size(), &out_len);
  };
  const int rc = ks_py::nogil(call, data.size() >= kReleaseGilBytes);
  check(rc, rc == KS_ERR_LENGTH ? length_fault(mode, iv_copy.size(), padding) : nullptr);
  nb::bytes r = to_bytes(out.data(), out_len);
  ks_py::wipe(out.data(), out.size());
  return r;
}

// (ciphertext, tag)
std::tuple<nb::bytes, nb::bytes> gcm_seal(nb::handle key_obj, nb::handle iv_obj,
                                          nb::handle data_obj, nb::handle aad_obj,
                                          size_t tag_len) {
  Buffer key(key_obj, "key"), iv(iv_obj, "nonce"), data(data_obj, "data"), aad(aad_obj, "aad");
  std::vector<uint8_t> out(data.size() > 0 ? data.size() : 1);
  uint8_t tag[KS_SM4_GCM_TAG_BYTES];
  if (tag_len > sizeof tag) check(KS_ERR_LENGTH, "tag_length (4 to 16)");
  const uint8_t* k = key_of(key);
  const auto call = [&] {
    return ks_sm4_gcm_seal(k, iv.data(), iv.size(), aad.data(), aad.size(), data.data(),
                           data.size(), out.data(), tag, tag_len);
  };
  check(ks_py::nogil(call, data.size() >= kReleaseGilBytes));
  return {to_bytes(out.data(), data.size()), to_bytes(tag, tag_len)};
}

nb::bytes gcm_open(nb::handle key_obj, nb::handle iv_obj, nb::handle data_obj,
                   nb::handle tag_obj, nb::handle aad_obj) {
  Buffer key(key_obj, "key"), iv(iv_obj, "nonce"), data(data_obj, "data"), tag(tag_obj, "tag"),
      aad(aad_obj, "aad");
  std::vector<uint8_t> out(data.size() > 0 ? data.size() : 1);
  const uint8_t* k = key_of(key);
  const auto call = [&] {
    return ks_sm4_gcm_open(k, iv.data(), iv.size(), aad.data(), aad.size(), data.data(),
                           data.size(), tag.data(), tag.size(), out.data());
  };
  check(ks_py::nogil(call, data.size() >= kReleaseGilBytes));
  nb::bytes r = to_bytes(out.data(), data.size());
  ks_py::wipe(out.data(), out.size());
  return r;
}

// One buffer on a context (ks_sm4_crypt_buffer): ECB or CTR, the GIL
// released throughout.
nb::bytes crypt_buffer(ks_py::Context& ctx, int mode, bool encrypt, nb::handle key_obj,
                       nb::handle iv_obj, nb::handle data_obj, bool tables) {
  Buffer key(key_obj, "key"), data(data_obj, "data");
  std::vector<uint8_t> iv_copy;
  if (!iv_obj.is_none()) {
    Buffer iv(iv_obj, "iv");
    iv_copy.assign(iv.data(), iv.data() + iv.size());
  }
  const uint8_t* k = key_of(key);
  std::vector<uint8_t> out(data.size() > 0 ? data.size() : 1);
  check(ks_py::nogil([&] {
    return ks_sm4_crypt_buffer(ctx.get(), mode, encrypt ? 1 : 0, tables ? KS_SM4_GPU_TABLES : 0,
                               k, iv_copy.empty() ? nullptr : iv_copy.data(), iv_copy.size(),
                               data.data(), data.size(), out.data());
  }));
  nb::bytes r = to_bytes(out.data(), data.size());
  ks_py::wipe(out.data(), out.size());
  return r;
}

}  // namespace

void bind_sm4(nb::module_& m, nb::class_<ks_py::Context>& context) {
  context.def("sm4_crypt_buffer", &crypt_buffer, nb::arg("mode"), nb::arg("encrypt"),
              nb::arg("key"), nb::arg("iv").none(), nb::arg("data"), nb::arg("tables") = false);
  m.attr("SM4_ECB") = int(KS_SM4_ECB);
  m.attr("SM4_CBC") = int(KS_SM4_CBC);
  m.attr("SM4_CFB") = int(KS_SM4_CFB);
  m.attr("SM4_OFB") = int(KS_SM4_OFB);
  m.attr("SM4_CTR") = int(KS_SM4_CTR);
  m.def(
      "sm4_encrypt",
      [](int mode, nb::handle key, nb::handle iv, nb::handle data, bool padding) {
        return crypt(true, mode, key, iv, data, padding);
      },
      nb::arg("mode"), nb::arg("key"), nb::arg("iv").none(), nb::arg("data"),
      nb::arg("padding") = false);
  m.def(
      "sm4_decrypt",
      [](int mode, nb::handle key, nb::handle iv, nb::handle data, bool padding) {
        return crypt(false, mode, key, iv, data, padding);
      },
      nb::arg("mode"), nb::arg("key"), nb::arg("iv").none(), nb::arg("data"),
      nb::arg("padding") = false);
  m.def("sm4_gcm_seal", &gcm_seal, nb::arg("key"), nb::arg("nonce"), nb::arg("data"),
        nb::arg("aad"), nb::arg("tag_len") = size_t(KS_SM4_GCM_TAG_BYTES));
  m.def("sm4_gcm_open", &gcm_open, nb::arg("key"), nb::arg("nonce"), nb::arg("data"),
        nb::arg("tag"), nb::arg("aad"));
}
