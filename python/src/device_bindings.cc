// Arrays already in GPU memory (kuaisuo/common.h, "Device memory") in
// kuaisuo._native: the C calls that take device pointers, with the
// pointers, sizes and the CUDA stream as integers that kuaisuo/_device.py
// reads from DLPack or __cuda_array_interface__ objects (CuPy arrays,
// PyTorch tensors), and the reader of a DLPack capsule. The C library
// checks the pointers (device memory of the context's device, aligned);
// the calls return once the work is queued on the stream, except GCM open,
// which waits for its tag's verdict.
#include <nanobind/nanobind.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <stdint.h>

#include <tuple>
#include <vector>

#include "gpu/gpu.h"
#include "kuaisuo.h"
#include "native_context.h"
#include "native_util.h"

namespace nb = nanobind;
using ks_py::Buffer;
using ks_py::check;
using ks_py::copy_of;

namespace {

// DLPack's C ABI (dlpack.h, v0.8, the layout of a "dltensor" capsule).
struct DLDevice {
  int32_t device_type;  // 2: CUDA, 13: CUDA managed
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;  // 0 int, 1 uint, 2 float, ...
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null for C-contiguous
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};

// (address, device type, device id, shape, strides or None, (code, bits,
// lanes)) of the tensor in a "dltensor" capsule. The capsule is read, not
// consumed: its destructor still releases the tensor, while the caller
// holds the array itself.
nb::tuple dlpack_info(nb::handle capsule) {
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (t == nullptr) {
    PyErr_Clear();
    throw nb::type_error("__dlpack__() did not return a DLPack tensor capsule");
  }
  const DLTensor& d = t->dl_tensor;
  nb::list shape, strides;
  for (int32_t i = 0; i < d.ndim; ++i) {
    shape.append(d.shape[i]);
    if (d.strides != nullptr) strides.append(d.strides[i]);
  }
  const uintptr_t address = reinterpret_cast<uintptr_t>(d.data) + d.byte_offset;
  return nb::make_tuple(address, d.device.device_type, d.device.device_id, nb::tuple(shape),
                        d.strides != nullptr ? nb::object(nb::tuple(strides)) : nb::none(),
                        nb::make_tuple(d.dtype.code, d.dtype.bits, d.dtype.lanes));
}

template <class T>
T* at(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

const uint8_t* iv_of(const std::vector<uint8_t>& iv) { return iv.empty() ? nullptr : iv.data(); }

void sm4_crypt(ks_py::Context& ctx, int mode, bool encrypt, nb::handle key_obj,
               nb::handle iv_obj, uintptr_t in, uintptr_t out, size_t nbytes, uintptr_t stream,
               bool tables) {
  const Buffer key(key_obj, "key");
  const std::vector<uint8_t> iv = copy_of(iv_obj, "iv");
  if (key.size() != KS_SM4_KEY_BYTES) check(KS_ERR_LENGTH, "SM4 key (16 bytes)");
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return ks_sm4_crypt_buffer(c, mode, encrypt ? KS_ENCRYPT : KS_DECRYPT,
                               tables ? KS_SM4_GPU_TABLES : 0, key.data(), iv_of(iv), iv.size(),
                               at<const uint8_t>(in), nbytes, at<uint8_t>(out));
  }));
}

// GCM seal (tag written) or open (tag checked: InvalidTag, and nothing
// written, on a mismatch) of nbytes at in, to out.
void sm4_gcm(ks_py::Context& ctx, bool seal, nb::handle key_obj, nb::handle nonce_obj,
             nb::handle aad_obj, uintptr_t in, uintptr_t out, size_t nbytes, uintptr_t tag,
             size_t tag_len, uintptr_t stream, bool tables) {
  const Buffer key(key_obj, "key"), aad(aad_obj, "aad");
  const std::vector<uint8_t> nonce = copy_of(nonce_obj, "nonce");
  if (key.size() != KS_SM4_KEY_BYTES) check(KS_ERR_LENGTH, "SM4 key (16 bytes)");
  const uint32_t flags = tables ? KS_SM4_GPU_TABLES : 0;
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return seal ? ks_sm4_gcm_seal_buffer(c, flags, key.data(), nonce.data(), nonce.size(),
                                         aad.data(), aad.size(), at<const uint8_t>(in), nbytes,
                                         at<uint8_t>(out), at<uint8_t>(tag), tag_len)
                : ks_sm4_gcm_open_buffer(c, flags, key.data(), nonce.data(), nonce.size(),
                                         aad.data(), aad.size(), at<const uint8_t>(in), nbytes,
                                         at<const uint8_t>(tag), tag_len, at<uint8_t>(out));
  }));
}

void skinny_crypt(ks_py::Context& ctx, int mode, bool encrypt, nb::handle tweakey_obj,
                  nb::handle iv_obj, uintptr_t in, uintptr_t out, size_t nbytes,
                  uintptr_t stream) {
  const Buffer tweakey(tweakey_obj, "tweakey");
  const std::vector<uint8_t> iv = copy_of(iv_obj, "iv");
  if (tweakey.size() != KS_SKINNY_TWEAKEY_BYTES)
    check(KS_ERR_LENGTH, "SKINNY-128-256 tweakey (32 bytes)");
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return ks_skinny128_256_crypt_buffer(c, mode, encrypt ? KS_ENCRYPT : KS_DECRYPT,
                                         tweakey.data(), iv_of(iv), iv.size(),
                                         at<const uint8_t>(in), nbytes, at<uint8_t>(out));
  }));
}

// Statuses (ks_status values, int32) of count triples, written on the
// device; a call-level error raises.
void ed25519_verify(ks_py::Context& ctx, uintptr_t pubs, uintptr_t data, size_t data_len,
                    uintptr_t offsets, size_t count, uintptr_t sigs, uintptr_t status,
                    uintptr_t stream) {
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return ks_ed25519_verify_batch(c, at<const uint8_t>(pubs), at<const uint8_t>(data),
                                   data_len, at<const uint64_t>(offsets), count,
                                   at<const uint8_t>(sigs), at<int>(status));
  }));
}

// SM2 verification of count (key, message, raw signature) items under one
// ID; statuses written on the device.
void sm2_verify(ks_py::Context& ctx, uintptr_t pubs, nb::handle id_obj, uintptr_t data,
                size_t data_len, uintptr_t offsets, size_t count, uintptr_t sigs,
                uintptr_t status, uintptr_t stream) {
  const std::vector<uint8_t> id = copy_of(id_obj, "id");
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return ks_sm2_verify_batch(c, at<const uint8_t>(pubs), id.data(), id.size(),
                               at<const uint8_t>(data), data_len, at<const uint64_t>(offsets),
                               count, at<const uint8_t>(sigs), at<int>(status));
  }));
}

void sm2_verify_digests(ks_py::Context& ctx, uintptr_t pubs, uintptr_t digests, size_t count,
                        uintptr_t sigs, uintptr_t status, uintptr_t stream) {
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return ks_sm2_verify_digest_batch(c, at<const uint8_t>(pubs), at<const uint8_t>(digests),
                                      count, at<const uint8_t>(sigs), at<int>(status));
  }));
}

// X25519 shared secrets and statuses of count peers under one key or a key
// each, written on the device.
void x25519_derive(ks_py::Context& ctx, uintptr_t keys, bool per_item_keys, uintptr_t peers,
                   size_t count, uintptr_t shared, uintptr_t status, uintptr_t stream) {
  const auto derive = per_item_keys ? ks_x25519_derive_batch_keys : ks_x25519_derive_batch;
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return derive(c, at<const uint8_t>(keys), at<const uint8_t>(peers), count,
                  at<uint8_t>(shared), 32 * count, at<int>(status));
  }));
}

// Digests and statuses of count flat messages, written on the device.
void sm3_batch(ks_py::Context& ctx, uintptr_t data, size_t data_len, uintptr_t offsets,
               size_t count, uintptr_t digests, uintptr_t status, uintptr_t stream) {
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return ks_sm3_batch(c, at<const uint8_t>(data), data_len, at<const uint64_t>(offsets), count,
                        at<uint8_t>(digests), 32 * count, at<int>(status));
  }));
}

// ks_sm4_batch with every array on the device (0: none); statuses and
// outputs written there.
void sm4_batch(ks_py::Context& ctx, int mode, bool encrypt, uintptr_t keys, uintptr_t ivs,
               size_t iv_len, uintptr_t data, size_t data_len, uintptr_t offsets, size_t count,
               uintptr_t out, size_t out_len, uintptr_t aad, size_t aad_len,
               uintptr_t aad_offsets, uintptr_t tags, size_t tag_len, uintptr_t status,
               uintptr_t stream) {
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return ks_sm4_batch(c, mode, encrypt ? KS_ENCRYPT : KS_DECRYPT, 0, at<const uint8_t>(keys),
                        at<const uint8_t>(ivs), iv_len, at<const uint8_t>(data), data_len,
                        at<const uint64_t>(offsets), count, at<uint8_t>(out), out_len,
                        at<const uint8_t>(aad), aad_len, at<const uint64_t>(aad_offsets),
                        at<uint8_t>(tags), tag_len, at<int>(status));
  }));
}

// ks_skinny128_256_batch with every array on the device (ivs 0 in ECB).
void skinny_batch(ks_py::Context& ctx, int mode, bool encrypt, uintptr_t tweakeys,
                  uintptr_t ivs, uintptr_t data, size_t data_len, uintptr_t offsets,
                  size_t count, uintptr_t out, size_t out_len, uintptr_t status,
                  uintptr_t stream) {
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return ks_skinny128_256_batch(c, mode, encrypt ? KS_ENCRYPT : KS_DECRYPT,
                                  at<const uint8_t>(tweakeys), at<const uint8_t>(ivs),
                                  at<const uint8_t>(data), data_len, at<const uint64_t>(offsets),
                                  count, at<uint8_t>(out), out_len, at<int>(status));
  }));
}

// e_i = SM3(Z_A_i || M_i) of count items with their own keys and IDs
// (flat, with offsets), written on the device with the statuses.
void sm2_digests(ks_py::Context& ctx, uintptr_t pubs, uintptr_t ids, size_t ids_len,
                 uintptr_t id_offsets, uintptr_t data, size_t data_len, uintptr_t offsets,
                 size_t count, uintptr_t digests, uintptr_t status, uintptr_t stream) {
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return ks_sm2_digest_batch(c, at<const uint8_t>(pubs), at<const uint8_t>(ids), ids_len,
                               at<const uint64_t>(id_offsets), at<const uint8_t>(data),
                               data_len, at<const uint64_t>(offsets), count,
                               at<uint8_t>(digests), 32 * count, at<int>(status));
  }));
}

}  // namespace

void bind_device(nb::module_& m, nb::class_<ks_py::Context>& context) {
  m.def("dlpack_info", &dlpack_info, nb::arg("capsule"));
  m.def(
      "stream_wait",
      [](uintptr_t consumer, uintptr_t producer) {
        check(ks::gpu::stream_wait(reinterpret_cast<void*>(consumer),
                                   reinterpret_cast<void*>(producer)));
      },
      nb::arg("consumer"), nb::arg("producer"));
  context
      .def("sm4_crypt_device", &sm4_crypt, nb::arg("mode"), nb::arg("encrypt"), nb::arg("key"),
           nb::arg("iv").none(), nb::arg("src"), nb::arg("dst"), nb::arg("nbytes"),
           nb::arg("stream"), nb::arg("tables") = false)
      .def("sm4_gcm_device", &sm4_gcm, nb::arg("seal"), nb::arg("key"), nb::arg("nonce"),
           nb::arg("aad"), nb::arg("src"), nb::arg("dst"), nb::arg("nbytes"), nb::arg("tag"),
           nb::arg("tag_len"), nb::arg("stream"), nb::arg("tables") = false)
      .def("skinny_crypt_device", &skinny_crypt, nb::arg("mode"), nb::arg("encrypt"),
           nb::arg("tweakey"), nb::arg("iv").none(), nb::arg("src"), nb::arg("dst"),
           nb::arg("nbytes"), nb::arg("stream"))
      .def("sm4_batch_device", &sm4_batch, nb::arg("mode"), nb::arg("encrypt"),
           nb::arg("keys"), nb::arg("ivs"), nb::arg("iv_len"), nb::arg("data"),
           nb::arg("data_len"), nb::arg("offsets"), nb::arg("count"), nb::arg("out"),
           nb::arg("out_len"), nb::arg("aad"), nb::arg("aad_len"), nb::arg("aad_offsets"),
           nb::arg("tags"), nb::arg("tag_len"), nb::arg("status"), nb::arg("stream"))
      .def("skinny_batch_device", &skinny_batch, nb::arg("mode"), nb::arg("encrypt"),
           nb::arg("tweakeys"), nb::arg("ivs"), nb::arg("data"), nb::arg("data_len"),
           nb::arg("offsets"), nb::arg("count"), nb::arg("out"), nb::arg("out_len"),
           nb::arg("status"), nb::arg("stream"))
      .def("sm2_digests_device", &sm2_digests, nb::arg("public_keys"), nb::arg("ids"),
           nb::arg("ids_len"), nb::arg("id_offsets"), nb::arg("data"), nb::arg("data_len"),
           nb::arg("offsets"), nb::arg("count"), nb::arg("digests"), nb::arg("status"),
           nb::arg("stream"))
      .def("sm3_batch_device", &sm3_batch, nb::arg("data"), nb::arg("data_len"),
           nb::arg("offsets"), nb::arg("count"), nb::arg("digests"), nb::arg("status"),
           nb::arg("stream"))
      .def("sm2_verify_device", &sm2_verify, nb::arg("public_keys"), nb::arg("id"),
           nb::arg("data"), nb::arg("data_len"), nb::arg("offsets"), nb::arg("count"),
           nb::arg("signatures"), nb::arg("status"), nb::arg("stream"))
      .def("sm2_verify_digest_device", &sm2_verify_digests, nb::arg("public_keys"),
           nb::arg("digests"), nb::arg("count"), nb::arg("signatures"), nb::arg("status"),
           nb::arg("stream"))
      .def("x25519_derive_device", &x25519_derive, nb::arg("private_keys"),
           nb::arg("per_item_keys"), nb::arg("peers"), nb::arg("count"), nb::arg("shared"),
           nb::arg("status"), nb::arg("stream"))
      .def("ed25519_verify_device", &ed25519_verify, nb::arg("public_keys"), nb::arg("data"),
           nb::arg("data_len"), nb::arg("offsets"), nb::arg("count"), nb::arg("signatures"),
           nb::arg("status"), nb::arg("stream"));
}
