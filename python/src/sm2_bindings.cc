// SM2 in kuaisuo._native: key objects, single operations and the batch
// calls of a Context. Signatures cross this boundary as raw r||s (64 bytes);
// the Python layer (kuaisuo/sm2.py) adds DER, defaults and friendly types.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
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

constexpr size_t kReleaseGilBytes = 1 << 14;  // as native.cc

using ks_py::encoded;
using ks_py::items_of;
using ks_py::require_size;

class Pub {
 public:
  explicit Pub(ks_sm2_pubkey* k) : k_(k) {}
  ~Pub() { ks_sm2_pubkey_free(k_); }
  Pub(const Pub&) = delete;

  static Pub* from_bytes(nb::handle data) {
    Buffer b(data, "public key");
    ks_sm2_pubkey* k = nullptr;
    check(ks_sm2_pubkey_from_bytes(b.data(), b.size(), &k), "SM2 public key");
    return new Pub(k);
  }
  static Pub* decode(nb::handle data) {
    Buffer b(data, "public key");
    ks_sm2_pubkey* k = nullptr;
    check(ks_sm2_pubkey_decode(b.data(), b.size(), &k),
          "SM2 public key (SubjectPublicKeyInfo or X.509 certificate, DER or PEM)");
    return new Pub(k);
  }
  nb::bytes to_bytes_(bool compressed) const {
    return encoded([&](uint8_t* o, size_t c, size_t* l) {
      return ks_sm2_pubkey_to_bytes(k_, compressed, o, c, l);
    }, false);
  }
  nb::bytes encode(bool pem) const {
    return encoded([&](uint8_t* o, size_t c, size_t* l) {
      return ks_sm2_pubkey_encode(k_, pem, o, c, l);
    }, pem);
  }
  nb::bytes za(nb::handle id) const {
    Buffer i(id, "id");
    uint8_t out[32];
    check(ks_sm2_za(k_, i.data(), i.size(), out), "id");
    return to_bytes(out, 32);
  }
  nb::bytes digest(nb::handle id, nb::handle msg) const {
    Buffer i(id, "id"), m(msg, "message");
    uint8_t out[32];
    check(ks_sm2_digest(k_, i.data(), i.size(), m.data(), m.size(), out), "id");
    return to_bytes(out, 32);
  }
  // KS_OK, KS_ERR_VERIFY_FAILED or KS_ERR_SIGNATURE_RANGE; raises otherwise.
  int verify(nb::handle id, nb::handle msg, nb::handle sig) const {
    Buffer i(id, "id"), m(msg, "message"), s(sig, "signature");
    require_size(s, 64, "raw signature (r||s)");
    return verdict(ks_py::nogil(
        [&] { return ks_sm2_verify(k_, i.data(), i.size(), m.data(), m.size(), s.data()); }));
  }
  int verify_digest(nb::handle e, nb::handle sig) const {
    Buffer d(e, "digest"), s(sig, "signature");
    require_size(d, 32, "digest");
    require_size(s, 64, "raw signature (r||s)");
    return verdict(ks_sm2_verify_digest(k_, d.data(), s.data()));
  }
  // SM2 encryption (form: KS_SM2_C1C3C2 / C1C2C3 / CIPHER_DER).
  nb::bytes encrypt(nb::handle msg, int form) const {
    Buffer m(msg, "data");
    std::vector<uint8_t> out(ks_sm2_ciphertext_bound(m.size(), form) + 1);
    size_t n = 0;
    check(ks_py::nogil([&] {
            return ks_sm2_encrypt(k_, form, m.data(), m.size(), out.data(), out.size(), &n);
          }, m.size() >= kReleaseGilBytes),
          "format");
    return to_bytes(out.data(), n);
  }
  void precompute() { check(ks_sm2_pubkey_precompute(k_)); }
  const ks_sm2_pubkey* get() const { return k_; }

 private:
  static int verdict(int rc) {
    if (rc != KS_OK && rc != KS_ERR_VERIFY_FAILED && rc != KS_ERR_SIGNATURE_RANGE) check(rc);
    return rc;
  }
  ks_sm2_pubkey* k_;
};

class Key {
 public:
  explicit Key(ks_sm2_key* k) : k_(k) {}
  ~Key() { ks_sm2_key_free(k_); }
  Key(const Key&) = delete;

  static Key* generate() {
    ks_sm2_key* k = nullptr;
    check(ks_sm2_key_generate(&k));
    return new Key(k);
  }
  static Key* from_bytes(nb::handle data) {
    Buffer b(data, "private key");
    ks_sm2_key* k = nullptr;
    check(ks_sm2_key_from_bytes(b.data(), b.size(), &k), "SM2 private key");
    return new Key(k);
  }
  static Key* decode(nb::handle data) {
    Buffer b(data, "private key");
    ks_sm2_key* k = nullptr;
    check(ks_sm2_key_decode(b.data(), b.size(), &k),
          "SM2 private key (PKCS#8 or SEC1, DER or PEM)");
    return new Key(k);
  }
  nb::bytes to_bytes_() const {
    ks_py::SecretBuffer d(32);
    check(ks_sm2_key_to_bytes(k_, d.data()));
    return to_bytes(d.data(), d.size());
  }
  nb::bytes encode(bool pem) const {
    return encoded([&](uint8_t* o, size_t c, size_t* l) {
      return ks_sm2_key_encode(k_, pem, o, c, l);
    }, pem);
  }
  Pub* public_key() const {
    ks_sm2_pubkey* p = nullptr;
    check(ks_sm2_key_public(k_, &p));
    return new Pub(p);
  }
  nb::bytes sign(nb::handle id, nb::handle msg, int nonce) const {
    Buffer i(id, "id"), m(msg, "message");
    uint8_t sig[64];
    check(ks_py::nogil(
        [&] { return ks_sm2_sign(k_, i.data(), i.size(), m.data(), m.size(), nonce, sig); }));
    return to_bytes(sig, 64);
  }
  nb::bytes sign_digest(nb::handle e, int nonce) const {
    Buffer d(e, "digest");
    require_size(d, 32, "digest");
    uint8_t sig[64];
    check(ks_sm2_sign_digest(k_, d.data(), nonce, sig));
    return to_bytes(sig, 64);
  }
  // The plaintext of an SM2 ciphertext; raises on a bad one, releasing
  // nothing (the output buffer is wiped).
  nb::bytes decrypt(nb::handle ct, int form) const {
    Buffer c(ct, "ciphertext");
    ks_py::SecretBuffer out(c.size() + 1);
    size_t n = 0;
    check(ks_py::nogil([&] {
      return ks_sm2_decrypt(k_, form, c.data(), c.size(), out.data(), out.size(), &n);
    }, c.size() >= kReleaseGilBytes));
    return to_bytes(out.data(), n);
  }
  const ks_sm2_key* get() const { return k_; }

 private:
  ks_sm2_key* k_;
};

nb::bytes sig_to_der(nb::handle sig) {
  Buffer s(sig, "signature");
  require_size(s, 64, "raw signature (r||s)");
  return encoded([&](uint8_t* o, size_t c, size_t* l) {
    return ks_sm2_signature_to_der(s.data(), o, c, l);
  }, false);
}

nb::bytes sig_from_der(nb::handle der) {
  Buffer d(der, "DER signature");
  uint8_t rs[64];
  check(ks_sm2_signature_from_der(d.data(), d.size(), rs), "SM2 signature (DER)");
  return to_bytes(rs, 64);
}

// ---- Context batches -----------------------------------------------------------
// (private keys, public keys): 32 and 65 bytes an item, written straight
// into what is returned (ks_py::Output); the keys are wiped there if the
// call fails.
std::tuple<nb::object, nb::object> keygen_batch(ks_py::Context& ctx, size_t count,
                                                nb::handle keys_out, nb::handle public_out) {
  if (count > SIZE_MAX / 65) throw nb::value_error("count is too large");
  const ks_py::Output priv(keys_out, 32 * count, "keys_out"),
      pub(public_out, 65 * count, "public_out");
  const int rc = ks_py::nogil([&] {
    return ks_sm2_keygen_batch(ctx.get(), count, priv.data(), priv.size(), pub.data(),
                               pub.size(), nullptr);
  });
  return {priv.finish(rc), pub.result()};  // braced lists evaluate left to right
}

nb::object sign_batch(ks_py::Context& ctx, const Key& key, nb::handle id, nb::handle data,
                      nb::handle offsets, int nonce, nb::handle out) {
  Buffer i(id, "id"), d(data, "data"), o(offsets, "offsets");
  const std::vector<uint64_t> offs = ks_py::offsets_from(o);
  const size_t n = offs.size() - 1;
  const ks_py::Output sigs(out, 64 * n, "out");
  check(ks_py::nogil([&] {
    return ks_sm2_sign_batch(ctx.get(), key.get(), i.data(), i.size(), d.data(), d.size(),
                             offs.data(), n, nonce, sigs.data(), sigs.size(), nullptr);
  }));
  return sigs.result();
}

nb::object sign_digest_batch(ks_py::Context& ctx, const Key& key, nb::handle digests, int nonce,
                             nb::handle out) {
  Buffer d(digests, "digests");
  const size_t n = items_of(d, 32, "digests");
  const ks_py::Output sigs(out, 64 * n, "out");
  check(ks_py::nogil([&] {
    return ks_sm2_sign_digest_batch(ctx.get(), key.get(), d.data(), n, nonce, sigs.data(),
                                    sigs.size(), nullptr);
  }));
  return sigs.result();
}

// A verification batch's public keys: one key object for every item (the
// _key calls, over its table), or 65-byte keys in a buffer, one an item.
class VerifyKeys {
 public:
  explicit VerifyKeys(nb::handle keys) {
    if (nb::isinstance<Pub>(keys)) {
      one_ = nb::cast<const Pub*>(keys);
    } else {
      bytes_ = std::make_unique<Buffer>(keys, "public_keys");
    }
  }
  const ks_sm2_pubkey* one() const { return one_ != nullptr ? one_->get() : nullptr; }
  const uint8_t* bytes() const { return bytes_ != nullptr ? bytes_->data() : nullptr; }
  bool for_items(size_t n) const {
    return one_ != nullptr || items_of(*bytes_, 65, "public_keys") == n;
  }

 private:
  const Pub* one_ = nullptr;
  std::unique_ptr<Buffer> bytes_;
};

// Statuses as n ints in a bytearray (kuaisuo._items.statuses), here and below.
nb::object verify_batch(ks_py::Context& ctx, nb::handle pubs, nb::handle id, nb::handle data,
                        nb::handle offsets, nb::handle sigs, nb::handle status_out) {
  const VerifyKeys keys(pubs);
  Buffer i(id, "id"), d(data, "data"), o(offsets, "offsets"), s(sigs, "signatures");
  const std::vector<uint64_t> offs = ks_py::offsets_from(o);
  const size_t n = offs.size() - 1;
  if (!keys.for_items(n) || items_of(s, 64, "signatures") != n)
    throw nb::value_error("public_keys, messages and signatures must have the same count");
  const ks_py::StatusOutput status(n, status_out);
  const int rc = ks_py::nogil([&] {
    return keys.one() != nullptr
               ? ks_sm2_verify_batch_key(ctx.get(), keys.one(), i.data(), i.size(), d.data(),
                                         d.size(), offs.data(), n, s.data(), status.ints())
               : ks_sm2_verify_batch(ctx.get(), keys.bytes(), i.data(), i.size(), d.data(),
                                     d.size(), offs.data(), n, s.data(), status.ints());
  });
  return status.finish(rc);
}

nb::object verify_digest_batch(ks_py::Context& ctx, nb::handle pubs, nb::handle digests,
                               nb::handle sigs, nb::handle status_out) {
  const VerifyKeys keys(pubs);
  Buffer d(digests, "digests"), s(sigs, "signatures");
  const size_t n = items_of(d, 32, "digests");
  if (!keys.for_items(n) || items_of(s, 64, "signatures") != n)
    throw nb::value_error("public_keys, digests and signatures must have the same count");
  const ks_py::StatusOutput status(n, status_out);
  const int rc = ks_py::nogil([&] {
    return keys.one() != nullptr
               ? ks_sm2_verify_digest_batch_key(ctx.get(), keys.one(), d.data(), n, s.data(),
                                                status.ints())
               : ks_sm2_verify_digest_batch(ctx.get(), keys.bytes(), d.data(), n, s.data(),
                                            status.ints());
  });
  return status.finish(rc);
}

// Encryption and decryption batches: (out, lengths as n uint64 in bytes,
// statuses); item i's result lies at slot i of out (kuaisuo.sm2 cuts it).
std::tuple<nb::bytes, nb::bytes, nb::object> crypt_batch(ks_py::Context& ctx, bool encrypting,
                                                         const Pub* pub, nb::handle pubs,
                                                         const Key* key, int form,
                                                         nb::handle data, nb::handle offsets) {
  Buffer d(data, "data"), o(offsets, "offsets");
  const std::vector<uint64_t> offs = ks_py::offsets_from(o);
  const size_t n = offs.size() - 1;
  std::unique_ptr<Buffer> keys;
  if (!pubs.is_none()) {
    keys = std::make_unique<Buffer>(pubs, "public_keys");
    if (items_of(*keys, 65, "public_keys") != n)
      throw nb::value_error("one 65-byte public key per message");
  }
  const size_t extra = encrypting ? ks_sm2_ciphertext_bound(0, form) : 0;
  ks_py::SecretBuffer out(d.size() + n * extra + 1);
  std::vector<uint64_t> lengths(n);
  const ks_py::StatusOutput status(n);
  const int rc = ks_py::nogil([&] {
    if (!encrypting)
      return ks_sm2_decrypt_batch(ctx.get(), key->get(), form, d.data(), d.size(), offs.data(), n,
                                  out.data(), out.size(), lengths.data(), status.ints());
    if (keys != nullptr)
      return ks_sm2_encrypt_batch_keys(ctx.get(), keys->data(), form, d.data(), d.size(),
                                       offs.data(), n, out.data(), out.size(), lengths.data(),
                                       status.ints());
    return ks_sm2_encrypt_batch(ctx.get(), pub->get(), form, d.data(), d.size(), offs.data(), n,
                                out.data(), out.size(), lengths.data(), status.ints());
  });
  nb::object statuses = status.finish(rc);
  return {to_bytes(out.data(), out.size() - 1),
          to_bytes(reinterpret_cast<const uint8_t*>(lengths.data()), 8 * n), statuses};
}

std::tuple<nb::object, nb::object> digest_batch(ks_py::Context& ctx, nb::handle pubs,
                                                nb::handle ids, nb::handle id_offsets,
                                                nb::handle data, nb::handle offsets) {
  Buffer p(pubs, "public_keys"), i(ids, "ids"), io(id_offsets, "id_offsets"), d(data, "data"),
      o(offsets, "offsets");
  const std::vector<uint64_t> offs = ks_py::offsets_from(o), id_offs = ks_py::offsets_from(io);
  const size_t n = offs.size() - 1;
  if (items_of(p, 65, "public_keys") != n || id_offs.size() - 1 != n)
    throw nb::value_error("public_keys, ids and messages must have the same count");
  const ks_py::Output digests(nb::none(), 32 * n, "digests");
  const ks_py::StatusOutput status(n);
  const int rc = ks_py::nogil([&] {
    return ks_sm2_digest_batch(ctx.get(), p.data(), i.data(), i.size(), id_offs.data(), d.data(),
                               d.size(), offs.data(), n, digests.data(), digests.size(),
                               status.ints());
  });
  nb::object codes = status.finish(rc);
  return {digests.result(), codes};
}

// One side of an SM2 key exchange (ks_sm2_kx_*). Keys and tags come back
// as bytes; a step the C library refuses raises and fails the exchange.
class Exchange {
 public:
  Exchange(int role, const Key& key, nb::handle id, const Pub& peer, nb::handle peer_id,
           bool confirm) {
    Buffer i(id, "id"), pi(peer_id, "peer_id");
    check(ks_sm2_kx_new(role, key.get(), i.data(), i.size(), peer.get(), pi.data(), pi.size(),
                        confirm ? 1 : 0, &kx_),
          "SM2 key exchange");
  }
  ~Exchange() { ks_sm2_kx_free(kx_); }
  Exchange(const Exchange&) = delete;

  nb::bytes start() {
    uint8_t r[KS_SM2_PUBLIC_KEY_BYTES];
    check(ks_sm2_kx_start(kx_, r));
    return to_bytes(r, sizeof r);
  }
  // (R_B, S_B) with confirmation, (R_B, K) without.
  std::tuple<nb::bytes, nb::bytes> respond(nb::handle peer_r, bool confirm, size_t key_len) {
    Buffer pr(peer_r, "peer R");
    uint8_t r[KS_SM2_PUBLIC_KEY_BYTES], tag[KS_SM2_CONFIRM_BYTES];
    ks_py::SecretBuffer key(confirm ? 0 : key_len);
    check(ks_sm2_kx_respond(kx_, pr.data(), pr.size(), r, confirm ? tag : nullptr,
                            confirm ? nullptr : key.data(), confirm ? 0 : key_len));
    return {to_bytes(r, sizeof r),
            confirm ? to_bytes(tag, sizeof tag) : to_bytes(key.data(), key_len)};
  }
  // (K, S_A); S_A is empty without confirmation.
  std::tuple<nb::bytes, nb::bytes> finish(nb::handle peer_r, nb::handle peer_tag,
                                          size_t key_len) {
    Buffer pr(peer_r, "peer R");
    const bool confirm = !peer_tag.is_none();
    std::unique_ptr<Buffer> pt;
    if (confirm) {
      pt = std::make_unique<Buffer>(peer_tag, "peer tag");
      require_size(*pt, KS_SM2_CONFIRM_BYTES, "peer tag");
    }
    uint8_t tag[KS_SM2_CONFIRM_BYTES];
    ks_py::SecretBuffer key(key_len);
    check(ks_sm2_kx_finish(kx_, pr.data(), pr.size(), confirm ? pt->data() : nullptr, key.data(),
                           key_len, confirm ? tag : nullptr));
    return {to_bytes(key.data(), key_len), to_bytes(tag, confirm ? sizeof tag : 0)};
  }
  nb::bytes confirm(nb::handle peer_tag, size_t key_len) {
    Buffer pt(peer_tag, "peer tag");
    require_size(pt, KS_SM2_CONFIRM_BYTES, "peer tag");
    ks_py::SecretBuffer key(key_len);
    check(ks_sm2_kx_confirm(kx_, pt.data(), key.data(), key_len));
    return to_bytes(key.data(), key_len);
  }

 private:
  ks_sm2_kx* kx_ = nullptr;
};

}  // namespace

// --- Arrays already in GPU memory (kuaisuo/_device.py gives the addresses,
// 0 for none; kuaisuo/common.h, "Device memory"): results and statuses
// written on the device, queued on `stream`.
template <class T>
T* device_at(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

void keygen_device(ks_py::Context& ctx, size_t count, uintptr_t priv, uintptr_t pub,
                   uintptr_t status, uintptr_t stream) {
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return ks_sm2_keygen_batch(c, count, device_at<uint8_t>(priv), 32 * count,
                               device_at<uint8_t>(pub), 65 * count, device_at<int>(status));
  }));
}

// Signatures of digests under key, or (key None) under the private keys
// at `keys`; of flat messages under key with one ID where offsets are
// given (data may be 0: every message empty).
void sign_device(ks_py::Context& ctx, const Key* key, uintptr_t keys, nb::handle id,
                 uintptr_t digests, uintptr_t data, size_t data_len, uintptr_t offsets,
                 size_t count, uintptr_t sigs, uintptr_t status, uintptr_t stream) {
  auto* out = device_at<uint8_t>(sigs);
  auto* st = device_at<int>(status);
  if (offsets != 0) {
    Buffer i(id, "id");
    check(ctx.on_stream(stream, [&](ks_ctx* c) {
      return ks_sm2_sign_batch(c, key->get(), i.data(), i.size(), device_at<const uint8_t>(data),
                               data_len, device_at<const uint64_t>(offsets), count,
                               KS_SM2_NONCE_RANDOM, out, 64 * count, st);
    }));
    return;
  }
  const auto* e = device_at<const uint8_t>(digests);
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return key != nullptr
               ? ks_sm2_sign_digest_batch(c, key->get(), e, count, KS_SM2_NONCE_RANDOM, out,
                                          64 * count, st)
               : ks_sm2_sign_digest_batch_keys(c, device_at<const uint8_t>(keys), e, count,
                                               KS_SM2_NONCE_RANDOM, out, 64 * count, st);
  }));
}

// Verification in device memory under one key object (ks_sm2_verify_*_key:
// the key's device table, not its 65 bytes repeated in an array): of flat
// messages with one ID where offsets are given, else of digests.
void verify_key_device(ks_py::Context& ctx, const Pub& key, nb::handle id, uintptr_t digests,
                       uintptr_t data, size_t data_len, uintptr_t offsets, size_t count,
                       uintptr_t sigs, uintptr_t status, uintptr_t stream) {
  const auto* sig = device_at<const uint8_t>(sigs);
  auto* st = device_at<int>(status);
  if (offsets != 0) {
    Buffer i(id, "id");
    check(ctx.on_stream(stream, [&](ks_ctx* c) {
      return ks_sm2_verify_batch_key(c, key.get(), i.data(), i.size(),
                                     device_at<const uint8_t>(data), data_len,
                                     device_at<const uint64_t>(offsets), count, sig, st);
    }));
    return;
  }
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    return ks_sm2_verify_digest_batch_key(c, key.get(), device_at<const uint8_t>(digests),
                                          count, sig, st);
  }));
}

// Encryption to pub (or, pub None, to the 65-byte keys at `keys`), or
// decryption under key, of flat items; out holds out_len bytes.
void crypt_device(ks_py::Context& ctx, bool encrypting, const Pub* pub, uintptr_t keys,
                  const Key* key, int form, uintptr_t data, size_t data_len, uintptr_t offsets,
                  size_t count, uintptr_t out, size_t out_len, uintptr_t lengths,
                  uintptr_t status, uintptr_t stream) {
  const auto* d = device_at<const uint8_t>(data);
  const auto* o = device_at<const uint64_t>(offsets);
  auto* dst = device_at<uint8_t>(out);
  auto* lens = device_at<uint64_t>(lengths);
  auto* st = device_at<int>(status);
  check(ctx.on_stream(stream, [&](ks_ctx* c) {
    if (!encrypting)
      return ks_sm2_decrypt_batch(c, key->get(), form, d, data_len, o, count, dst, out_len, lens,
                                  st);
    return pub != nullptr
               ? ks_sm2_encrypt_batch(c, pub->get(), form, d, data_len, o, count, dst, out_len,
                                      lens, st)
               : ks_sm2_encrypt_batch_keys(c, device_at<const uint8_t>(keys), form, d, data_len,
                                           o, count, dst, out_len, lens, st);
  }));
}

void bind_sm2(nb::module_& m, nb::class_<ks_py::Context>& context) {
  nb::class_<Pub>(m, "Sm2Pub")
      .def_static("from_bytes", &Pub::from_bytes, nb::arg("data"))
      .def_static("decode", &Pub::decode, nb::arg("data"))
      .def("to_bytes", &Pub::to_bytes_, nb::arg("compressed") = false)
      .def("encode", &Pub::encode, nb::arg("pem"))
      .def("za", &Pub::za, nb::arg("id"))
      .def("digest", &Pub::digest, nb::arg("id"), nb::arg("message"))
      .def("verify", &Pub::verify, nb::arg("id"), nb::arg("message"), nb::arg("signature"))
      .def("verify_digest", &Pub::verify_digest, nb::arg("digest"), nb::arg("signature"))
      .def("encrypt", &Pub::encrypt, nb::arg("data"), nb::arg("form"))
      .def("precompute", &Pub::precompute);
  nb::class_<Key>(m, "Sm2Key")
      .def_static("generate", &Key::generate)
      .def_static("from_bytes", &Key::from_bytes, nb::arg("data"))
      .def_static("decode", &Key::decode, nb::arg("data"))
      .def("to_bytes", &Key::to_bytes_)
      .def("encode", &Key::encode, nb::arg("pem"))
      .def("public_key", &Key::public_key)
      .def("sign", &Key::sign, nb::arg("id"), nb::arg("message"), nb::arg("nonce"))
      .def("sign_digest", &Key::sign_digest, nb::arg("digest"), nb::arg("nonce"))
      .def("decrypt", &Key::decrypt, nb::arg("ciphertext"), nb::arg("form"));
  nb::class_<Exchange>(m, "Sm2Exchange")
      .def(nb::init<int, const Key&, nb::handle, const Pub&, nb::handle, bool>(), nb::arg("role"),
           nb::arg("key"), nb::arg("id"), nb::arg("peer"), nb::arg("peer_id"),
           nb::arg("confirm"))
      .def("start", &Exchange::start)
      .def("respond", &Exchange::respond, nb::arg("peer_r"), nb::arg("confirm"),
           nb::arg("key_len"))
      .def("finish", &Exchange::finish, nb::arg("peer_r"), nb::arg("peer_tag").none(),
           nb::arg("key_len"))
      .def("confirm", &Exchange::confirm, nb::arg("peer_tag"), nb::arg("key_len"));
  m.attr("SM2_C1C3C2") = int(KS_SM2_C1C3C2);
  m.attr("SM2_C1C2C3") = int(KS_SM2_C1C2C3);
  m.attr("SM2_CIPHER_DER") = int(KS_SM2_CIPHER_DER);
  m.def("sm2_ciphertext_bound", &ks_sm2_ciphertext_bound, nb::arg("length"), nb::arg("form"));
  m.def("sm2_signature_to_der", &sig_to_der, nb::arg("signature"));
  m.def("sm2_signature_from_der", &sig_from_der, nb::arg("der"));
  // out / *_out: None, or a writable buffer of the result's exact size to
  // fill (ks_py::Output).
  const auto none = nb::none();
  context
      .def("sm2_keygen", &keygen_batch, nb::arg("count"), nb::arg("keys_out") = none,
           nb::arg("public_out") = none)
      .def("sm2_sign_batch", &sign_batch, nb::arg("key"), nb::arg("id"), nb::arg("data"),
           nb::arg("offsets"), nb::arg("nonce"), nb::arg("out") = none)
      .def("sm2_keygen_device", &keygen_device, nb::arg("count"), nb::arg("private_keys"),
           nb::arg("public_keys"), nb::arg("status"), nb::arg("stream"))
      .def("sm2_sign_device", &sign_device, nb::arg("key").none(), nb::arg("keys"),
           nb::arg("id"), nb::arg("digests"), nb::arg("data"), nb::arg("data_len"),
           nb::arg("offsets"), nb::arg("count"), nb::arg("signatures"), nb::arg("status"),
           nb::arg("stream"))
      .def("sm2_verify_key_device", &verify_key_device, nb::arg("key"), nb::arg("id"),
           nb::arg("digests"), nb::arg("data"), nb::arg("data_len"), nb::arg("offsets"),
           nb::arg("count"), nb::arg("signatures"), nb::arg("status"), nb::arg("stream"))
      .def("sm2_crypt_device", &crypt_device, nb::arg("encrypting"), nb::arg("pub").none(),
           nb::arg("public_keys"), nb::arg("key").none(), nb::arg("form"), nb::arg("data"),
           nb::arg("data_len"), nb::arg("offsets"), nb::arg("count"), nb::arg("out"),
           nb::arg("out_len"), nb::arg("lengths"), nb::arg("status"), nb::arg("stream"))
      .def("sm2_crypt_batch", &crypt_batch, nb::arg("encrypting"), nb::arg("pub").none(),
           nb::arg("public_keys").none(), nb::arg("key").none(), nb::arg("form"),
           nb::arg("data"), nb::arg("offsets"))
      .def("sm2_sign_digest_batch", &sign_digest_batch, nb::arg("key"), nb::arg("digests"),
           nb::arg("nonce"), nb::arg("out") = none)
      .def("sm2_verify_batch", &verify_batch, nb::arg("public_keys"), nb::arg("id"),
           nb::arg("data"), nb::arg("offsets"), nb::arg("signatures"),
           nb::arg("status_out") = none)
      .def("sm2_verify_digest_batch", &verify_digest_batch, nb::arg("public_keys"),
           nb::arg("digests"), nb::arg("signatures"), nb::arg("status_out") = none)
      .def("sm2_digest_batch", &digest_batch, nb::arg("public_keys"), nb::arg("ids"),
           nb::arg("id_offsets"), nb::arg("data"), nb::arg("offsets"));
}
