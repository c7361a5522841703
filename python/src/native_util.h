// Glue shared by the binding's files: buffer access, error mapping.
#ifndef KS_PY_NATIVE_UTIL_H_
#define KS_PY_NATIVE_UTIL_H_

#include <nanobind/nanobind.h>

#include <stdint.h>

#include <mutex>
#include <string>
#include <vector>

#include "kuaisuo.h"

namespace ks_py {

namespace nb = nanobind;

// A read-only view of any C-contiguous buffer-protocol object, released on
// destruction. `what` names the argument in error messages.
class Buffer {
 public:
  Buffer(nb::handle obj, const char* what);
  ~Buffer() { PyBuffer_Release(&view_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  const uint8_t* data() const { return static_cast<const uint8_t*>(view_.buf); }
  size_t size() const { return size_t(view_.len); }
  const Py_buffer& view() const { return view_; }

 private:
  Py_buffer view_;
};

inline nb::bytes to_bytes(const uint8_t* p, size_t n) {
  return nb::bytes(reinterpret_cast<const char*>(p), n);
}

// Zeroes a buffer that held secrets (volatile stores are not elided).
inline void wipe(void* p, size_t n) {
  volatile uint8_t* v = static_cast<volatile uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) v[i] = 0;
}

// A heap buffer for secrets (private keys, their encodings): wiped before
// it is freed on every way out of a scope, exceptions included.
class SecretBuffer {
 public:
  explicit SecretBuffer(size_t n) : v_(n) {}
  ~SecretBuffer() { wipe(v_.data(), v_.size()); }
  SecretBuffer(const SecretBuffer&) = delete;
  SecretBuffer& operator=(const SecretBuffer&) = delete;

  uint8_t* data() { return v_.data(); }
  size_t size() const { return v_.size(); }

 private:
  std::vector<uint8_t> v_;
};

// Runs f() with the GIL released and returns what it returns (a ks_status).
// Nothing in f may touch Python: check() the status once the GIL is back.
template <class F>
auto nogil(F&& f, bool release = true) -> decltype(f()) {
  if (!release) return f();
  nb::gil_scoped_release unlocked;
  return f();
}

// The lock of one streaming object, held across every use of its state, as
// CPython's hashlib does: a large update releases the GIL while it holds the
// lock. Taken with the GIL held; a thread that finds it busy waits with the
// GIL released, so that the holder can get the GIL back and finish (waiting
// while holding the GIL would deadlock with it).
class ObjectLock {
 public:
  explicit ObjectLock(std::mutex& m) : m_(m) {
    if (!m_.try_lock()) {
      nb::gil_scoped_release unlocked;
      m_.lock();
    }
  }
  ~ObjectLock() { m_.unlock(); }
  ObjectLock(const ObjectLock&) = delete;
  ObjectLock& operator=(const ObjectLock&) = delete;

 private:
  std::mutex& m_;
};

// Raises kuaisuo.KuaisuoError (or a subclass) for a negative ks_status;
// its message starts with what (the input at fault) when one is given.
void check(int status, const char* what = nullptr);
// Raises KuaisuoError(status, message) with message as given, for a fault
// the binding words better than ks_strerror(status) can.
[[noreturn]] void raise_status(int status, const std::string& message);
void register_errors(nb::module_& m);

// The bytes of a bytes-like object (empty for None), copied: for small
// inputs such as IVs that a call reads with the GIL released.
std::vector<uint8_t> copy_of(nb::handle obj, const char* what);

// Exactly n bytes, or ValueError naming the argument.
void require_size(const Buffer& b, size_t n, const char* what);

// A whole number of n-byte items, or ValueError; returns the count.
size_t items_of(const Buffer& b, size_t n, const char* what);

// Runs a ks_* encoder under the out/out_cap/out_len rule of kuaisuo.h
// (nul_terminated for PEM, whose output carries a NUL). The buffer may hold a private key: it is
// wiped before it is freed, errors included.
template <class Encode>
nb::bytes encoded(Encode encode, bool nul_terminated) {
  size_t len = 0;
  int rc = encode(nullptr, 0, &len);
  if (rc != KS_ERR_LENGTH) check(rc);
  SecretBuffer out(len + (nul_terminated ? 1 : 0));
  check(encode(out.data(), out.size(), &len));
  return to_bytes(out.data(), len);
}

// A batch call that returned rc: a call-level error (anything but KS_OK
// and KS_ERR_BATCH_ITEMS, which per-item statuses describe) raises.
void check_batch(int rc);

int parse_backend(const std::string& name);

// The offsets of a flat batch from a buffer of 8-byte integers (numpy
// uint64/int64 or array('Q')); rejects other item types and negatives.
// Copied, not read in place: the library checks them and then reads them
// again with the GIL released, when another Python thread could change an
// array it still holds.
std::vector<uint64_t> offsets_from(const Buffer& offsets);

// Where a batch call writes a result of n bytes before Python sees it:
//  - `out`, a writable C-contiguous buffer of exactly n bytes that the
//    Python layer made (for as_numpy=True, a numpy array it returns;
//    TypeError for a read-only buffer, ValueError for another size), or
//  - where out is None, a new object left uninitialised
//    (PyBytes_FromStringAndSize(NULL, n), or a bytearray for `writable`
//    results such as statuses, which numpy then views without a copy).
// Either way the call writes the results once: a std::vector would cost a
// zero fill and then a copy, two passes over results as large as 268 MB
// (4M signatures). result() is what the binding returns: out itself or the
// new object.
class Output {
 public:
  Output(nb::handle out, size_t n, const char* what, bool writable = false);
  ~Output() {
    if (has_view_) PyBuffer_Release(&view_);
  }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  nb::object result() const { return obj_; }
  // Zeroes the result: what a failed call leaves of secrets.
  void wipe() const { ks_py::wipe(data_, size_); }
  // The result of a call that returned rc: for an error, the result wiped
  // and check(rc, what) raising.
  nb::object finish(int rc, const char* what = nullptr) const;
  // A new bytes result (out None) cut to its first len bytes, the rest
  // wiped first: for a call that writes less than the bound it was given
  // (SM4's PKCS#7 decryption).
  void shrink(size_t len);

 private:
  nb::object obj_;
  Py_buffer view_{};
  bool has_view_ = false;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// A batch call's per-item statuses: n ints in `out` (an int32 array of n)
// or in a new bytearray (the kuaisuo._items.statuses helper makes that a
// list or an int32 array).
class StatusOutput : public Output {
 public:
  explicit StatusOutput(size_t n, nb::handle out = nb::none());
  int* ints() const { return reinterpret_cast<int*>(data()); }
  // rc checked by check_batch; returns the statuses. On a call-level
  // error `results` (the call's other output, if any) is wiped first.
  nb::object finish(int rc, const Output* results = nullptr) const;
};

}  // namespace ks_py

#endif  // KS_PY_NATIVE_UTIL_H_
