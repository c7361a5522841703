// SM4 in kuaisuo._native: the one-shot modes and GCM over the C API
// (include/kuaisuo.h); the Python layer (kuaisuo/sm4.py) adds the
// cryptography-style classes. The GIL is released for inputs of 16 KiB and
// more; nothing inside a released call touches Python.
#include <nanobind/nanobind.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

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

// Which input a KS_ERR_LENGTH of ks_sm4_crypt is about.
const char* length_fault(int mode, size_t iv_len, bool padding) {
  if (mode == KS_SM4_ECB ? iv_len != 0 : iv_len != KS_SM4_BLOCK_BYTES)
    return "iv (16 bytes for CBC, CFB, OFB and CTR; none for ECB)";
  return padding ? "data (ciphertext with PKCS#7 padding: whole 16-byte blocks)"
                 : "data (ECB and CBC without padding: whole 16-byte blocks)";
}

// ECB/CBC/CFB/OFB/CTR, one shot: encrypt or decrypt, through
// run(direction, flags, iv, iv_len, in, in_len, out, out_cap, out_len):
// ks_sm4_crypt under key bytes, or ks_sm4_schedule_crypt under a schedule.
template <class Run>
nb::bytes crypt_with(bool encrypt, int mode, nb::handle iv_obj, nb::handle data_obj,
                     bool padding, const Run& run) {
  Buffer data(data_obj, "data");
  std::vector<uint8_t> iv_copy;
  if (!iv_obj.is_none()) {
    Buffer iv(iv_obj, "iv");
    iv_copy.assign(iv.data(), iv.data() + iv.size());
  }
  const uint32_t flags = padding ? KS_SM4_PAD_PKCS7 : 0;
  // Written once, into the bytes returned: the output's exact length
  // (ks_sm4_crypt's), or for PKCS#7 decryption the ciphertext's, cut to
  // what unpadding leaves.
  const size_t bound = padding && encrypt
                           ? data.size() / KS_SM4_BLOCK_BYTES * KS_SM4_BLOCK_BYTES +
                                 KS_SM4_BLOCK_BYTES
                           : data.size();
  ks_py::Output out(nb::none(), bound, "out");
  size_t out_len = 0;
  const auto call = [&] {
    const uint8_t* iv = iv_copy.empty() ? nullptr : iv_copy.data();
    return run(encrypt ? KS_ENCRYPT : KS_DECRYPT, flags, iv, iv_copy.size(), data.data(),
               data.size(), out.data(), out.size(), &out_len);
  };
  const int rc = ks_py::nogil(call, data.size() >= kReleaseGilBytes);
  out.finish(rc, rc == KS_ERR_LENGTH ? length_fault(mode, iv_copy.size(), padding) : nullptr);
  out.shrink(out_len);
  return nb::borrow<nb::bytes>(out.result());
}

nb::bytes crypt(bool encrypt, int mode, nb::handle key_obj, nb::handle iv_obj,
                nb::handle data_obj, bool padding) {
  Buffer key(key_obj, "key");
  const uint8_t* k = key_of(key);
  return crypt_with(encrypt, mode, iv_obj, data_obj, padding,
                    [&](int dir, uint32_t flags, auto... rest) {
                      return ks_sm4_crypt(mode, dir, flags, k, rest...);
                    });
}

// An expanded key (ks_sm4_schedule) behind SM4Key's encrypt and decrypt:
// the key schedule once per key, wiped when the object goes.
struct Schedule {
  ks_sm4_schedule s;
  explicit Schedule(nb::handle key_obj) {
    Buffer key(key_obj, "key");
    check(ks_sm4_schedule_init(&s, key_of(key)));
  }
  ~Schedule() { ks_sm4_schedule_cleanse(&s); }
  nb::bytes crypt(bool encrypt, int mode, nb::handle iv_obj, nb::handle data_obj,
                  bool padding) const {
    return crypt_with(encrypt, mode, iv_obj, data_obj, padding, [&](int dir, auto... args) {
      return ks_sm4_schedule_crypt(&s, mode, dir, args...);
    });
  }
};

// ciphertext || tag, written once into the bytes returned.
nb::bytes gcm_seal(nb::handle key_obj, nb::handle iv_obj, nb::handle data_obj,
                   nb::handle aad_obj, size_t tag_len) {
  Buffer key(key_obj, "key"), iv(iv_obj, "nonce"), data(data_obj, "data"), aad(aad_obj, "aad");
  if (tag_len > KS_SM4_GCM_TAG_BYTES) check(KS_ERR_LENGTH, "tag_length (4 to 16)");
  const ks_py::Output out(nb::none(), data.size() + tag_len, "out");
  const uint8_t* k = key_of(key);
  const auto call = [&] {
    return ks_sm4_gcm_seal(k, iv.data(), iv.size(), aad.data(), aad.size(), data.data(),
                           data.size(), out.data(), out.data() + data.size(), tag_len);
  };
  out.finish(ks_py::nogil(call, data.size() >= kReleaseGilBytes));
  return nb::borrow<nb::bytes>(out.result());
}

nb::bytes gcm_open(nb::handle key_obj, nb::handle iv_obj, nb::handle data_obj,
                   nb::handle tag_obj, nb::handle aad_obj) {
  Buffer key(key_obj, "key"), iv(iv_obj, "nonce"), data(data_obj, "data"), tag(tag_obj, "tag"),
      aad(aad_obj, "aad");
  const ks_py::Output out(nb::none(), data.size(), "out");  // wiped if the tag fails
  const uint8_t* k = key_of(key);
  const auto call = [&] {
    return ks_sm4_gcm_open(k, iv.data(), iv.size(), aad.data(), aad.size(), data.data(),
                           data.size(), tag.data(), tag.size(), out.data());
  };
  out.finish(ks_py::nogil(call, data.size() >= kReleaseGilBytes));
  return nb::borrow<nb::bytes>(out.result());
}

// One buffer on a context (ks_sm4_crypt_buffer): ECB or CTR, the GIL
// released throughout.
nb::object crypt_buffer(ks_py::Context& ctx, int mode, bool encrypt, nb::handle key_obj,
                        nb::handle iv_obj, nb::handle data_obj, bool tables) {
  Buffer key(key_obj, "key"), data(data_obj, "data");
  std::vector<uint8_t> iv_copy;
  if (!iv_obj.is_none()) {
    Buffer iv(iv_obj, "iv");
    iv_copy.assign(iv.data(), iv.data() + iv.size());
  }
  const uint8_t* k = key_of(key);
  const ks_py::Output out(nb::none(), data.size(), "out");
  return out.finish(ks_py::nogil([&] {
    return ks_sm4_crypt_buffer(ctx.get(), mode, encrypt ? 1 : 0, tables ? KS_SM4_GPU_TABLES : 0,
                               k, iv_copy.empty() ? nullptr : iv_copy.data(), iv_copy.size(),
                               data.data(), data.size(), out.data());
  }));
}

// One GCM buffer on a context (ks_sm4_gcm_seal_buffer / _open_buffer):
// (ciphertext, tag of tag_len) when sealing, (plaintext, b"") when
// opening `tag`; a failed open releases nothing.
std::tuple<nb::object, nb::bytes> gcm_buffer(ks_py::Context& ctx, bool seal, nb::handle key_obj,
                                             nb::handle nonce_obj, nb::handle aad_obj,
                                             nb::handle data_obj, nb::handle tag_obj,
                                             size_t tag_len, bool tables) {
  Buffer key(key_obj, "key"), data(data_obj, "data"), aad(aad_obj, "aad"), tag_in(tag_obj, "tag");
  const std::vector<uint8_t> nonce = ks_py::copy_of(nonce_obj, "nonce");
  uint8_t tag[KS_SM4_GCM_TAG_BYTES] = {};
  if (seal && (tag_len == 0 || tag_len > sizeof tag)) check(KS_ERR_LENGTH, "tag_length (4 to 16)");
  const uint8_t* k = key_of(key);
  const uint32_t flags = tables ? KS_SM4_GPU_TABLES : 0;
  const ks_py::Output out(nb::none(), data.size(), "out");
  const int rc = ks_py::nogil([&] {
    return seal ? ks_sm4_gcm_seal_buffer(ctx.get(), flags, k, nonce.data(), nonce.size(),
                                         aad.data(), aad.size(), data.data(), data.size(),
                                         out.data(), tag, tag_len)
                : ks_sm4_gcm_open_buffer(ctx.get(), flags, k, nonce.data(), nonce.size(),
                                         aad.data(), aad.size(), data.data(), data.size(),
                                         tag_in.data(), tag_in.size(), out.data());
  });
  nb::object result = out.finish(rc);
  return {result, to_bytes(tag, seal ? tag_len : 0)};
}

// Many messages, each with its own key and IV (ks_sm4_batch): outputs at
// the inputs' offsets, the GCM tags (empty for other modes) and per-item
// statuses. aad_offsets is None for no AAD; tags are read when decrypting
// GCM and written when encrypting.
std::tuple<nb::object, nb::bytes, nb::object> batch(
    ks_py::Context& ctx, int mode, bool encrypt, nb::handle keys_obj, nb::handle ivs_obj,
    size_t iv_len, nb::handle data_obj, nb::handle offsets_obj, nb::handle aad_obj,
    nb::handle aad_offsets_obj, nb::handle tags_obj, size_t tag_len) {
  Buffer keys(keys_obj, "keys"), ivs(ivs_obj, "ivs"), data(data_obj, "data"),
      o(offsets_obj, "offsets"), aad(aad_obj, "aad"), tags_in(tags_obj, "tags");
  const std::vector<uint64_t> offs = ks_py::offsets_from(o);
  const size_t n = offs.size() - 1;
  if (ks_py::items_of(keys, KS_SM4_KEY_BYTES, "keys") != n)
    throw nb::value_error("one 16-byte key per item");
  if (ivs.size() != iv_len * n) throw nb::value_error("one iv of iv_len bytes per item");
  std::vector<uint64_t> aad_offs;
  if (!aad_offsets_obj.is_none()) {
    Buffer ao(aad_offsets_obj, "aad_offsets");
    aad_offs = ks_py::offsets_from(ao);
    if (aad_offs.size() != n + 1) throw nb::value_error("aad_offsets: one more than the items");
  }
  const bool gcm = mode == KS_SM4_GCM;
  std::vector<uint8_t> tags(gcm ? tag_len * n + 1 : 1);
  if (gcm && !encrypt) {
    if (tags_in.size() != tag_len * n) throw nb::value_error("one tag of tag_len bytes per item");
    if (tags_in.size() > 0) memcpy(tags.data(), tags_in.data(), tags_in.size());
  }
  const ks_py::Output out(nb::none(), data.size(), "out");
  const ks_py::StatusOutput status(n);
  const int rc = ks_py::nogil([&] {
    return ks_sm4_batch(ctx.get(), mode, encrypt ? 1 : 0, 0, keys.data(), ivs.data(), iv_len,
                        data.data(), data.size(), offs.data(), n, out.data(), out.size(),
                        aad.data(), aad.size(), aad_offs.empty() ? nullptr : aad_offs.data(),
                        gcm ? tags.data() : nullptr, gcm ? tag_len : 0, status.ints());
  });
  nb::object codes = status.finish(rc, &out);
  return {out.result(), to_bytes(tags.data(), gcm ? tag_len * n : 0), codes};
}

nb::bytes key_encode(nb::handle key_obj, bool pem) {
  Buffer key(key_obj, "key");
  const uint8_t* k = key_of(key);
  return ks_py::encoded(
      [&](uint8_t* out, size_t cap, size_t* len) { return ks_sm4_key_encode(k, pem, out, cap, len); },
      pem);
}

nb::bytes key_decode(nb::handle data_obj) {
  Buffer data(data_obj, "data");
  ks_py::SecretBuffer key(KS_SM4_KEY_BYTES);
  check(ks_sm4_key_decode(data.data(), data.size(), key.data()));
  return to_bytes(key.data(), key.size());
}

}  // namespace

void bind_sm4(nb::module_& m, nb::class_<ks_py::Context>& context) {
  context.def("sm4_crypt_buffer", &crypt_buffer, nb::arg("mode"), nb::arg("encrypt"),
              nb::arg("key"), nb::arg("iv").none(), nb::arg("data"), nb::arg("tables") = false);
  context.def("sm4_gcm_buffer", &gcm_buffer, nb::arg("seal"), nb::arg("key"), nb::arg("nonce"),
              nb::arg("aad"), nb::arg("data"), nb::arg("tag"), nb::arg("tag_len"),
              nb::arg("tables") = false);
  context.def("sm4_batch", &batch, nb::arg("mode"), nb::arg("encrypt"), nb::arg("keys"),
              nb::arg("ivs"), nb::arg("iv_len"), nb::arg("data"), nb::arg("offsets"),
              nb::arg("aad"), nb::arg("aad_offsets").none(), nb::arg("tags"),
              nb::arg("tag_len"));
  nb::class_<Schedule>(m, "Sm4Schedule")
      .def(nb::init<nb::handle>(), nb::arg("key"))
      .def("crypt", &Schedule::crypt, nb::arg("encrypt"), nb::arg("mode"), nb::arg("iv").none(),
           nb::arg("data"), nb::arg("padding") = false);
  m.def("sm4_key_encode", &key_encode, nb::arg("key"), nb::arg("pem"));
  m.def("sm4_key_decode", &key_decode, nb::arg("data"));
  m.attr("SM4_ECB") = int(KS_SM4_ECB);
  m.attr("SM4_CBC") = int(KS_SM4_CBC);
  m.attr("SM4_CFB") = int(KS_SM4_CFB);
  m.attr("SM4_OFB") = int(KS_SM4_OFB);
  m.attr("SM4_CTR") = int(KS_SM4_CTR);
  m.attr("SM4_GCM") = int(KS_SM4_GCM);
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
