// Ed25519 and X25519 in kuaisuo._native: key objects, single operations and
// the batch calls of a Context. Keys, signatures and shared secrets cross
// this boundary raw (32 or 64 bytes); the Python layer (kuaisuo/ed25519.py,
// kuaisuo/x25519.py) adds the cryptography-style classes and defaults.
//
// As for SM2, the GIL is released around every call that hashes a message
// (sign, verify) and around every batch; fixed-size single operations
// (key generation, X25519) keep it.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <string.h>

#include <string>
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

using ks_py::encoded;
using ks_py::items_of;
using ks_py::require_size;

constexpr size_t kKey = 32;  // seeds, public keys, X25519 keys and secrets
constexpr size_t kSig = KS_ED25519_SIGNATURE_BYTES;

// A private key of kKey bytes, or KuaisuoError(KS_ERR_BAD_PRIVATE_KEY)
// saying so: the library's own text for that code also covers SM2's range.
void require_key_length(const Buffer& b, const char* rule) {
  if (b.size() != kKey)
    ks_py::raise_status(KS_ERR_BAD_PRIVATE_KEY,
                        std::string(rule) + ", not " + std::to_string(b.size()) + " bytes");
}

// ---- Ed25519 ---------------------------------------------------------------

class EdPub {
 public:
  explicit EdPub(ks_ed25519_pubkey* k) : k_(k) {}
  ~EdPub() { ks_ed25519_pubkey_free(k_); }
  EdPub(const EdPub&) = delete;

  // 32 bytes; KuaisuoError (KS_ERR_BAD_PUBLIC_KEY) for another length, a
  // non-canonical encoding, a value off the curve or a small-order point.
  static EdPub* from_bytes(nb::handle data) {
    Buffer b(data, "public key");
    ks_ed25519_pubkey* k = nullptr;
    check(ks_ed25519_pubkey_from_bytes(b.data(), b.size(), &k), "Ed25519 public key");
    return new EdPub(k);
  }
  static EdPub* decode(nb::handle data) {
    Buffer b(data, "public key");
    ks_ed25519_pubkey* k = nullptr;
    check(ks_ed25519_pubkey_decode(b.data(), b.size(), &k),
          "Ed25519 public key (SubjectPublicKeyInfo or X.509 certificate, DER or PEM)");
    return new EdPub(k);
  }
  nb::bytes to_bytes_() const {
    uint8_t out[kKey];
    check(ks_ed25519_pubkey_to_bytes(k_, out));
    return to_bytes(out, kKey);
  }
  nb::bytes encode(bool pem) const {
    return encoded([&](uint8_t* o, size_t c, size_t* l) {
      return ks_ed25519_pubkey_encode(k_, pem, o, c, l);
    }, pem);
  }
  // KS_OK, KS_ERR_VERIFY_FAILED or KS_ERR_SIGNATURE_RANGE; raises otherwise
  // (a bad flavor or context, a signature that is not 64 bytes).
  int verify(int flavor, nb::handle context, nb::handle msg, nb::handle sig) const {
    Buffer c(context, "context"), m(msg, "message"), s(sig, "signature");
    require_size(s, kSig, "signature");
    const int rc = ks_py::nogil([&] {
      return ks_ed25519_verify_ex(k_, flavor, c.data(), c.size(), m.data(), m.size(), s.data());
    });
    if (rc != KS_OK && rc != KS_ERR_VERIFY_FAILED && rc != KS_ERR_SIGNATURE_RANGE) check(rc);
    return rc;
  }
  const ks_ed25519_pubkey* get() const { return k_; }

 private:
  ks_ed25519_pubkey* k_;
};

class EdKey {
 public:
  explicit EdKey(ks_ed25519_key* k) : k_(k) {}
  ~EdKey() { ks_ed25519_key_free(k_); }
  EdKey(const EdKey&) = delete;

  static EdKey* generate() {
    ks_ed25519_key* k = nullptr;
    check(ks_ed25519_key_generate(&k));
    return new EdKey(k);
  }
  // Any 32 bytes; KuaisuoError (KS_ERR_BAD_PRIVATE_KEY, as kuaisuo.ed25519
  // documents) for another length, in words of its own: the C library's
  // KS_ERR_LENGTH would change the code Python callers check.
  static EdKey* from_seed(nb::handle data) {
    Buffer b(data, "seed");
    require_key_length(b, "an Ed25519 private key is a 32-byte seed");
    ks_ed25519_key* k = nullptr;
    check(ks_ed25519_key_from_seed(b.data(), b.size(), &k), "Ed25519 private key (32-byte seed)");
    return new EdKey(k);
  }
  static EdKey* decode(nb::handle data) {
    Buffer b(data, "private key");
    ks_ed25519_key* k = nullptr;
    check(ks_ed25519_key_decode(b.data(), b.size(), &k), "Ed25519 private key (PKCS#8, DER or PEM)");
    return new EdKey(k);
  }
  nb::bytes to_seed() const {
    ks_py::SecretBuffer seed(kKey);
    check(ks_ed25519_key_to_seed(k_, seed.data()));
    return to_bytes(seed.data(), seed.size());
  }
  nb::bytes encode(bool pem) const {
    return encoded([&](uint8_t* o, size_t c, size_t* l) {
      return ks_ed25519_key_encode(k_, pem, o, c, l);
    }, pem);
  }
  EdPub* public_key() const {
    ks_ed25519_pubkey* p = nullptr;
    check(ks_ed25519_key_public(k_, &p));
    return new EdPub(p);
  }
  nb::bytes sign(int flavor, nb::handle context, nb::handle msg) const {
    Buffer c(context, "context"), m(msg, "message");
    uint8_t sig[kSig];
    check(ks_py::nogil([&] {
      return ks_ed25519_sign_ex(k_, flavor, c.data(), c.size(), m.data(), m.size(), sig);
    }));
    return to_bytes(sig, kSig);
  }
  const ks_ed25519_key* get() const { return k_; }

 private:
  ks_ed25519_key* k_;
};

// ---- X25519 ----------------------------------------------------------------

// A private key (any 32 bytes, clamped when used) held in memory that is
// wiped when the object is collected. Immutable.
class XKey {
 public:
  XKey() = default;
  ~XKey() { ks_py::wipe(k_, sizeof k_); }
  XKey(const XKey&) = delete;

  static XKey* generate() {
    XKey* key = new XKey;
    uint8_t pub[kKey];
    const int rc = ks_x25519_keygen(key->k_, pub);
    if (rc != KS_OK) {
      delete key;
      check(rc);
    }
    return key;
  }
  // 32 bytes; KuaisuoError (KS_ERR_BAD_PRIVATE_KEY) for another length.
  static XKey* from_bytes(nb::handle data) {
    Buffer b(data, "private key");
    require_key_length(b, "an X25519 private key is 32 bytes");
    XKey* key = new XKey;
    memcpy(key->k_, b.data(), kKey);
    return key;
  }
  static XKey* decode(nb::handle data) {
    Buffer b(data, "private key");
    XKey* key = new XKey;
    const int rc = ks_x25519_private_key_decode(b.data(), b.size(), key->k_);
    if (rc != KS_OK) {
      delete key;
      check(rc, "X25519 private key (PKCS#8, DER or PEM)");
    }
    return key;
  }
  nb::bytes to_bytes_() const { return to_bytes(k_, kKey); }
  nb::bytes encode(bool pem) const {
    return encoded([&](uint8_t* o, size_t c, size_t* l) {
      return ks_x25519_private_key_encode(k_, pem, o, c, l);
    }, pem);
  }
  nb::bytes public_key() const {
    uint8_t pub[kKey];
    check(ks_x25519_public_key(k_, pub));
    return to_bytes(pub, kKey);
  }
  // The shared secret with a peer's 32-byte u; KuaisuoError
  // (KS_ERR_ZERO_SHARED_SECRET) when it would be all zero.
  nb::bytes exchange(nb::handle peer) const {
    Buffer p(peer, "peer public key");
    if (p.size() != kKey) check(KS_ERR_BAD_PUBLIC_KEY, "peer public key (32 bytes)");
    ks_py::SecretBuffer shared(kKey);
    check(ks_x25519(k_, p.data(), shared.data()));
    return to_bytes(shared.data(), kKey);
  }
  const uint8_t* get() const { return k_; }

 private:
  uint8_t k_[kKey] = {};
};

// A public key's 32 bytes from SubjectPublicKeyInfo, DER or PEM.
nb::bytes x25519_public_key_decode(nb::handle data) {
  Buffer b(data, "public key");
  uint8_t pub[kKey];
  check(ks_x25519_public_key_decode(b.data(), b.size(), pub),
        "X25519 public key (SubjectPublicKeyInfo or X.509 certificate, DER or PEM)");
  return to_bytes(pub, kKey);
}

nb::bytes x25519_public_key_encode(nb::handle public_key, bool pem) {
  Buffer b(public_key, "public key");
  if (b.size() != kKey) check(KS_ERR_BAD_PUBLIC_KEY, "X25519 public key (32 bytes)");
  return encoded([&](uint8_t* o, size_t c, size_t* l) {
    return ks_x25519_public_key_encode(b.data(), pem, o, c, l);
  }, pem);
}

// ---- Context batches ---------------------------------------------------------
// Call-level errors raise; per-item statuses come back as ints in a
// bytearray (kuaisuo._items.statuses makes a list or an array of them).

// The C API's batch key generation and public key derivation, of the same
// shape for Ed25519 (seeds) and X25519 (private keys).
using KeygenBatch = int (*)(ks_ctx*, size_t, uint8_t*, size_t, uint8_t*, size_t, int*);
using PublicKeysBatch = int (*)(ks_ctx*, const uint8_t*, size_t, uint8_t*, size_t, int*);

// (seeds or private keys, public keys), count * 32 bytes each, written
// straight into what is returned (Output: the caller's arrays or new
// bytes); the secrets are wiped there if the call fails.
std::tuple<nb::object, nb::object> keygen_pairs(ks_py::Context& ctx, KeygenBatch keygen,
                                                size_t count, nb::handle priv_out,
                                                const char* priv_name, nb::handle pub_out) {
  if (count > SIZE_MAX / kKey) throw nb::value_error("count is too large");
  const ks_py::Output priv(priv_out, kKey * count, priv_name),
      pub(pub_out, kKey * count, "public_out");
  const int rc = ks_py::nogil([&] {
    return keygen(ctx.get(), count, priv.data(), priv.size(), pub.data(), pub.size(), nullptr);
  });
  return {priv.finish(rc), pub.result()};  // braced lists evaluate left to right
}

// The public keys of count * 32 bytes of seeds or private keys.
nb::object public_keys(ks_py::Context& ctx, PublicKeysBatch derive, nb::handle keys,
                       const char* what, nb::handle out) {
  Buffer k(keys, what);
  const size_t n = items_of(k, kKey, what);
  const ks_py::Output pubs(out, kKey * n, "out");
  check(ks_py::nogil([&] {
    return derive(ctx.get(), k.data(), n, pubs.data(), pubs.size(), nullptr);
  }));
  return pubs.result();
}

std::tuple<nb::object, nb::object> ed25519_keygen(ks_py::Context& ctx, size_t count,
                                                  nb::handle seeds_out, nb::handle pubs_out) {
  return keygen_pairs(ctx, ks_ed25519_keygen_batch, count, seeds_out, "seeds_out", pubs_out);
}

nb::object ed25519_public_keys(ks_py::Context& ctx, nb::handle seeds, nb::handle out) {
  return public_keys(ctx, ks_ed25519_public_keys_batch, seeds, "seeds", out);
}

nb::object ed25519_sign_batch(ks_py::Context& ctx, const EdKey& key, nb::handle data,
                              nb::handle offsets, nb::handle out) {
  Buffer d(data, "data"), o(offsets, "offsets");
  const std::vector<uint64_t> offs = ks_py::offsets_from(o);
  const size_t n = offs.size() - 1;
  const ks_py::Output sigs(out, kSig * n, "out");
  check(ks_py::nogil([&] {
    return ks_ed25519_sign_batch(ctx.get(), key.get(), d.data(), d.size(), offs.data(), n,
                                 sigs.data(), sigs.size(), nullptr);
  }));
  return sigs.result();
}

nb::object ed25519_sign_batch_seeds(ks_py::Context& ctx, nb::handle seeds, nb::handle data,
                                    nb::handle offsets, nb::handle out) {
  Buffer s(seeds, "seeds"), d(data, "data"), o(offsets, "offsets");
  const std::vector<uint64_t> offs = ks_py::offsets_from(o);
  const size_t n = offs.size() - 1;
  if (items_of(s, kKey, "seeds") != n)
    throw nb::value_error("seeds and messages must have the same count");
  const ks_py::Output sigs(out, kSig * n, "out");
  check(ks_py::nogil([&] {
    return ks_ed25519_sign_batch_keys(ctx.get(), s.data(), d.data(), d.size(), offs.data(), n,
                                      sigs.data(), sigs.size(), nullptr);
  }));
  return sigs.result();
}

// Signatures of count messages in device memory (kuaisuo/_device.py gives
// the addresses): under one key, or, where key is None, under the seeds
// at `seeds`; signatures and statuses written on the device.
void ed25519_sign_device(ks_py::Context& ctx, const EdKey* key, uintptr_t seeds, uintptr_t data,
                         size_t data_len, uintptr_t offsets, size_t count, uintptr_t sigs,
                         uintptr_t status, uintptr_t stream) {
  const auto* d = reinterpret_cast<const uint8_t*>(data);
  const auto* o = reinterpret_cast<const uint64_t*>(offsets);
  auto* out = reinterpret_cast<uint8_t*>(sigs);
  auto* st = reinterpret_cast<int*>(status);
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return key != nullptr
               ? ks_ed25519_sign_batch(c, key->get(), d, data_len, o, count, out, kSig * count, st)
               : ks_ed25519_sign_batch_keys(c, reinterpret_cast<const uint8_t*>(seeds), d,
                                            data_len, o, count, out, kSig * count, st);
  }));
}

// Key pairs (draw: secrets drawn into `secrets`) or the public keys of
// the secrets at `secrets`, for Ed25519 or X25519, in device memory.
void keys_device(ks_py::Context& ctx, bool ed25519, bool draw, uintptr_t secrets, size_t count,
                 uintptr_t pubs, uintptr_t status, uintptr_t stream) {
  auto* sec = reinterpret_cast<uint8_t*>(secrets);
  auto* pub = reinterpret_cast<uint8_t*>(pubs);
  auto* st = reinterpret_cast<int*>(status);
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    if (draw)
      return (ed25519 ? ks_ed25519_keygen_batch : ks_x25519_keygen_batch)(
          c, count, sec, 32 * count, pub, 32 * count, st);
    return (ed25519 ? ks_ed25519_public_keys_batch : ks_x25519_public_keys_batch)(
        c, sec, count, pub, 32 * count, st);
  }));
}

// Statuses as n ints in a bytearray (kuaisuo._items.statuses).
nb::object ed25519_verify_batch(ks_py::Context& ctx, nb::handle pubs, nb::handle data,
                                nb::handle offsets, nb::handle sigs, nb::handle status_out) {
  Buffer p(pubs, "public_keys"), d(data, "data"), o(offsets, "offsets"), s(sigs, "signatures");
  const std::vector<uint64_t> offs = ks_py::offsets_from(o);
  const size_t n = offs.size() - 1;
  if (items_of(p, kKey, "public_keys") != n || items_of(s, kSig, "signatures") != n)
    throw nb::value_error("public_keys, messages and signatures must have the same count");
  const ks_py::StatusOutput status(n, status_out);
  const int rc = ks_py::nogil([&] {
    return ks_ed25519_verify_batch(ctx.get(), p.data(), d.data(), d.size(), offs.data(), n,
                                   s.data(), status.ints());
  });
  return status.finish(rc);
}

std::tuple<nb::object, nb::object> x25519_keygen(ks_py::Context& ctx, size_t count,
                                                 nb::handle keys_out, nb::handle pubs_out) {
  return keygen_pairs(ctx, ks_x25519_keygen_batch, count, keys_out, "keys_out", pubs_out);
}

nb::object x25519_public_keys(ks_py::Context& ctx, nb::handle private_keys, nb::handle out) {
  return public_keys(ctx, ks_x25519_public_keys_batch, private_keys, "private_keys", out);
}

// Shared secrets (count * 32 bytes, into out or new bytes; failed items
// zero) and per-item statuses (a bytearray of ints). key: the one key, or
// count keys where per_item_keys.
std::tuple<nb::object, nb::object> x25519_shared(ks_py::Context& ctx, const uint8_t* key,
                                                 bool per_item_keys, const Buffer& peers,
                                                 size_t n, nb::handle out) {
  const ks_py::Output shared(out, kKey * n, "out");
  const ks_py::StatusOutput status(n);
  const int rc = ks_py::nogil([&] {
    return per_item_keys ? ks_x25519_derive_batch_keys(ctx.get(), key, peers.data(), n,
                                                       shared.data(), shared.size(), status.ints())
                         : ks_x25519_derive_batch(ctx.get(), key, peers.data(), n, shared.data(),
                                                  shared.size(), status.ints());
  });
  nb::object codes = status.finish(rc, &shared);
  return {shared.result(), codes};
}

// per_item_keys: private_keys holds one key per peer, else exactly one key.
std::tuple<nb::object, nb::object> x25519_batch(ks_py::Context& ctx, nb::handle private_keys,
                                                bool per_item_keys, nb::handle peers,
                                                nb::handle out) {
  Buffer k(private_keys, "private_keys"), p(peers, "peer_public_keys");
  const size_t n = items_of(p, kKey, "peer_public_keys");
  if (per_item_keys) {
    if (items_of(k, kKey, "private_keys") != n)
      throw nb::value_error("private_keys and peer_public_keys must have the same count");
  } else {
    require_size(k, kKey, "private key");
  }
  return x25519_shared(ctx, k.data(), per_item_keys, p, n, out);
}

// An X25519 key object's 32 bytes, for the one-key batch (no copy in Python).
std::tuple<nb::object, nb::object> x25519_batch_key(ks_py::Context& ctx, const XKey& key,
                                                    nb::handle peers, nb::handle out) {
  Buffer p(peers, "peer_public_keys");
  const size_t n = items_of(p, kKey, "peer_public_keys");
  return x25519_shared(ctx, key.get(), false, p, n, out);
}

}  // namespace

void bind_curve25519(nb::module_& m, nb::class_<ks_py::Context>& context) {
  m.attr("ED25519_PURE") = int(KS_ED25519_PURE);
  m.attr("ED25519_CTX") = int(KS_ED25519_CTX);
  m.attr("ED25519_PH") = int(KS_ED25519_PH);
  nb::class_<EdPub>(m, "Ed25519Pub")
      .def_static("from_bytes", &EdPub::from_bytes, nb::arg("data"))
      .def_static("decode", &EdPub::decode, nb::arg("data"))
      .def("to_bytes", &EdPub::to_bytes_)
      .def("encode", &EdPub::encode, nb::arg("pem"))
      .def("verify", &EdPub::verify, nb::arg("flavor"), nb::arg("context"), nb::arg("message"),
           nb::arg("signature"));
  nb::class_<EdKey>(m, "Ed25519Key")
      .def_static("generate", &EdKey::generate)
      .def_static("from_seed", &EdKey::from_seed, nb::arg("seed"))
      .def_static("decode", &EdKey::decode, nb::arg("data"))
      .def("to_seed", &EdKey::to_seed)
      .def("encode", &EdKey::encode, nb::arg("pem"))
      .def("public_key", &EdKey::public_key)
      .def("sign", &EdKey::sign, nb::arg("flavor"), nb::arg("context"), nb::arg("message"));
  nb::class_<XKey>(m, "X25519Key")
      .def_static("generate", &XKey::generate)
      .def_static("from_bytes", &XKey::from_bytes, nb::arg("data"))
      .def_static("decode", &XKey::decode, nb::arg("data"))
      .def("to_bytes", &XKey::to_bytes_)
      .def("encode", &XKey::encode, nb::arg("pem"))
      .def("public_key", &XKey::public_key)
      .def("exchange", &XKey::exchange, nb::arg("peer_public_key"));
  m.def("x25519_public_key_decode", &x25519_public_key_decode, nb::arg("data"));
  m.def("x25519_public_key_encode", &x25519_public_key_encode, nb::arg("public_key"),
        nb::arg("pem"));
  // out / *_out: None, or a writable buffer of the result's exact size to
  // fill (ks_py::Output).
  const auto none = nb::none();
  context
      .def("ed25519_keygen", &ed25519_keygen, nb::arg("count"), nb::arg("seeds_out") = none,
           nb::arg("public_out") = none)
      .def("ed25519_public_keys", &ed25519_public_keys, nb::arg("seeds"), nb::arg("out") = none)
      .def("ed25519_sign_batch", &ed25519_sign_batch, nb::arg("key"), nb::arg("data"),
           nb::arg("offsets"), nb::arg("out") = none)
      .def("curve25519_keys_device", &keys_device, nb::arg("ed25519"), nb::arg("draw"),
           nb::arg("secrets"), nb::arg("count"), nb::arg("public_keys"), nb::arg("status"),
           nb::arg("stream"))
      .def("ed25519_sign_device", &ed25519_sign_device, nb::arg("key").none(),
           nb::arg("seeds"), nb::arg("data"), nb::arg("data_len"), nb::arg("offsets"),
           nb::arg("count"), nb::arg("signatures"), nb::arg("status"), nb::arg("stream"))
      .def("ed25519_sign_batch_seeds", &ed25519_sign_batch_seeds, nb::arg("seeds"),
           nb::arg("data"), nb::arg("offsets"), nb::arg("out") = none)
      .def("ed25519_verify_batch", &ed25519_verify_batch, nb::arg("public_keys"),
           nb::arg("data"), nb::arg("offsets"), nb::arg("signatures"),
           nb::arg("status_out") = none)
      .def("x25519_keygen", &x25519_keygen, nb::arg("count"), nb::arg("keys_out") = none,
           nb::arg("public_out") = none)
      .def("x25519_public_keys", &x25519_public_keys, nb::arg("private_keys"),
           nb::arg("out") = none)
      .def("x25519_batch", &x25519_batch, nb::arg("private_keys"), nb::arg("per_item_keys"),
           nb::arg("peer_public_keys"), nb::arg("out") = none)
      .def("x25519_batch_key", &x25519_batch_key, nb::arg("key"), nb::arg("peer_public_keys"),
           nb::arg("out") = none);
}
