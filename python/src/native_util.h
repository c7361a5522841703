// Glue shared by the binding's files: buffer access, error mapping.
#ifndef KS_PY_NATIVE_UTIL_H_
#define KS_PY_NATIVE_UTIL_H_

#include <nanobind/nanobind.h>

#include <stdint.h>

#include <string>
#include <vector>

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

// Raises kuaisuo.KuaisuoError (or a subclass) for a negative ks_status.
void check(int status);
void register_errors(nb::module_& m);

int parse_backend(const std::string& name);

// The offsets of a flat batch from a buffer of 8-byte integers (numpy
// uint64/int64 or array('Q')); rejects other item types and negatives.
std::vector<uint64_t> offsets_from(const Buffer& offsets);

}  // namespace ks_py

#endif  // KS_PY_NATIVE_UTIL_H_
