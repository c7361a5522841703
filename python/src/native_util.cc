#include "native_util.h"

#include <string.h>

#include "kuaisuo.h"

namespace ks_py {

namespace {
PyObject* g_error = nullptr;        // kuaisuo.KuaisuoError
PyObject* g_gpu_error = nullptr;    // kuaisuo.BackendUnavailableError
PyObject* g_bad_signature = nullptr;  // kuaisuo.InvalidSignature
PyObject* g_bad_tag = nullptr;        // kuaisuo.InvalidTag

// The class a status is raised as: subclasses of KuaisuoError for the
// outcomes callers catch by name (as pyca's InvalidSignature / InvalidTag).
PyObject* error_type(int status) {
  switch (status) {
    case KS_ERR_BACKEND_UNAVAILABLE: return g_gpu_error;
    case KS_ERR_VERIFY_FAILED: return g_bad_signature;
    case KS_ERR_TAG_MISMATCH: return g_bad_tag;
    default: return g_error;
  }
}
}  // namespace

Buffer::Buffer(nb::handle obj, const char* what) {
  if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
    PyErr_Clear();
    throw nb::type_error((std::string(what) +
                          " must be a C-contiguous bytes-like object (bytes, bytearray, "
                          "memoryview, numpy array), not " +
                          nb::type_name(obj.type()).c_str())
                             .c_str());
  }
}

void raise_status(int status, const std::string& message) {
  PyObject* type = error_type(status);
  nb::object exc = nb::borrow(type)(status, nb::str(message.c_str()));
  PyErr_SetObject(type, exc.ptr());
  throw nb::python_error();
}

void check(int status, const char* what) {
  if (status >= 0) return;
  raise_status(status, what == nullptr ? ks_strerror(status)
                                       : std::string(what) + ": " + ks_strerror(status));
}

namespace {

// The (code, message) args of an error raised by check(); an empty tuple
// for one made by hand with other arguments.
nb::tuple library_args(nb::handle self) {
  nb::tuple args = nb::borrow<nb::tuple>(self.attr("args"));
  if (args.size() == 2 && PyLong_Check(args[0].ptr()) && PyUnicode_Check(args[1].ptr()))
    return args;
  return nb::tuple();
}

// KuaisuoError's class body: args stay (code, message), as before, for
// callers that unpack them; str() reads "message (code N)" instead of the
// tuple, and .code / .message name the two (None for errors made by hand).
nb::dict error_members() {
  nb::object property = nb::module_::import_("builtins").attr("property");
  nb::dict body;
  body["__str__"] = nb::cpp_function(
      [](nb::handle self) -> nb::object {
        nb::tuple args = library_args(self);
        if (args.size() == 0) return nb::borrow(PyExc_ValueError).attr("__str__")(self);
        return nb::str("{} (code {})").format(args[1], args[0]);
      },
      nb::is_method());
  body["code"] = property(nb::cpp_function([](nb::handle self) -> nb::object {
    nb::tuple args = library_args(self);
    return args.size() == 0 ? nb::none() : nb::object(args[0]);
  }));
  body["message"] = property(nb::cpp_function([](nb::handle self) -> nb::object {
    nb::tuple args = library_args(self);
    return args.size() == 0 ? nb::none() : nb::object(args[1]);
  }));
  return body;
}

}  // namespace

void register_errors(nb::module_& m) {
  nb::dict body = error_members();
  g_error = PyErr_NewExceptionWithDoc(
      "kuaisuo.KuaisuoError",
      "An error reported by the kuaisuo library: .code (a negative ks_status) and .message; "
      "args are (code, message).",
      PyExc_ValueError, body.ptr());
  if (g_error == nullptr) throw nb::python_error();
  g_gpu_error = PyErr_NewExceptionWithDoc(
      "kuaisuo.BackendUnavailableError",
      "The GPU backend was asked for but is not built or the device does not exist.", g_error,
      nullptr);
  if (g_gpu_error == nullptr) throw nb::python_error();
  g_bad_signature = PyErr_NewExceptionWithDoc(
      "kuaisuo.InvalidSignature",
      "A signature did not verify: wrong, malformed or of the wrong length, or a key that "
      "cannot verify (code KS_ERR_VERIFY_FAILED, or the decoding error).", g_error, nullptr);
  if (g_bad_signature == nullptr) throw nb::python_error();
  g_bad_tag = PyErr_NewExceptionWithDoc(
      "kuaisuo.InvalidTag",
      "An authentication tag (GCM) did not match: nothing was decrypted.", g_error, nullptr);
  if (g_bad_tag == nullptr) throw nb::python_error();
  m.attr("KuaisuoError") = nb::handle(g_error);
  m.attr("BackendUnavailableError") = nb::handle(g_gpu_error);
  m.attr("InvalidSignature") = nb::handle(g_bad_signature);
  m.attr("InvalidTag") = nb::handle(g_bad_tag);
}

std::vector<uint8_t> copy_of(nb::handle obj, const char* what) {
  if (obj.is_none()) return {};
  Buffer b(obj, what);
  return std::vector<uint8_t>(b.data(), b.data() + b.size());
}

void require_size(const Buffer& b, size_t n, const char* what) {
  if (b.size() != n)
    throw nb::value_error((std::string(what) + " must be " + std::to_string(n) + " bytes, not " +
                           std::to_string(b.size()))
                              .c_str());
}

size_t items_of(const Buffer& b, size_t n, const char* what) {
  if (b.size() % n != 0)
    throw nb::value_error((std::string(what) + " must hold " + std::to_string(n) +
                           "-byte items; its length " + std::to_string(b.size()) +
                           " is not a multiple")
                              .c_str());
  return b.size() / n;
}

void check_batch(int rc) {
  if (rc != KS_OK && rc != KS_ERR_BATCH_ITEMS) check(rc);
}

int parse_backend(const std::string& name) {
  if (name == "auto") return KS_BACKEND_AUTO;
  if (name == "cpu") return KS_BACKEND_CPU;
  if (name == "gpu") return KS_BACKEND_GPU;
  throw nb::value_error(("backend must be 'auto', 'cpu' or 'gpu', not '" + name + "'").c_str());
}

std::vector<uint64_t> offsets_from(const Buffer& offsets) {
  const Py_buffer& v = offsets.view();
  const char* fmt = v.format == nullptr ? "B" : v.format;
  if (*fmt == '<' || *fmt == '=' || *fmt == '@') ++fmt;
  const bool is_unsigned = strcmp(fmt, "Q") == 0 || strcmp(fmt, "L") == 0;
  const bool is_signed = strcmp(fmt, "q") == 0 || strcmp(fmt, "l") == 0;
  if (v.itemsize != 8 || !(is_unsigned || is_signed))
    throw nb::type_error("offsets must hold 8-byte integers (numpy uint64/int64, array('Q'))");
  const size_t n = size_t(v.len) / 8;
  if (n == 0) throw nb::value_error("offsets must have count + 1 entries (at least one)");
  std::vector<uint64_t> out(n);
  memcpy(out.data(), v.buf, n * 8);
  if (is_signed)
    for (uint64_t x : out)
      if (int64_t(x) < 0) throw nb::value_error("offsets must not be negative");
  return out;
}

Output::Output(nb::handle out, size_t n, const char* what, bool writable) {
  if (n > size_t(PY_SSIZE_T_MAX)) throw nb::value_error("the result is too large");
  if (!out.is_none()) {
    if (PyObject_GetBuffer(out.ptr(), &view_, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) {
      PyErr_Clear();
      throw nb::type_error(
          (std::string(what) + " must be a writable C-contiguous buffer").c_str());
    }
    if (size_t(view_.len) != n) {
      const std::string message = std::string(what) + " must be " + std::to_string(n) +
                                  " bytes, not " + std::to_string(view_.len);
      PyBuffer_Release(&view_);  // no destructor runs for a throwing constructor
      throw nb::value_error(message.c_str());
    }
    has_view_ = true;
    obj_ = nb::borrow(out);
    data_ = static_cast<uint8_t*>(view_.buf);
  } else if (writable) {
    obj_ = nb::steal(PyByteArray_FromStringAndSize(nullptr, Py_ssize_t(n)));
    if (!obj_.is_valid()) throw nb::python_error();
    data_ = reinterpret_cast<uint8_t*>(PyByteArray_AS_STRING(obj_.ptr()));
  } else {
    obj_ = nb::steal(PyBytes_FromStringAndSize(nullptr, Py_ssize_t(n)));
    if (!obj_.is_valid()) throw nb::python_error();
    data_ = reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(obj_.ptr()));
  }
  size_ = n;
}

void Output::shrink(size_t len) {
  if (len >= size_) return;
  if (has_view_ || !PyBytes_CheckExact(obj_.ptr())) throw nb::value_error("out: not a new result");
  ks_py::wipe(data_ + len, size_ - len);
  PyObject* bytes = obj_.release().ptr();
  if (_PyBytes_Resize(&bytes, Py_ssize_t(len)) < 0) throw nb::python_error();  // freed it
  obj_ = nb::steal(bytes);
  data_ = reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(bytes));
  size_ = len;
}

nb::object Output::finish(int rc, const char* what) const {
  if (rc < 0) wipe();
  check(rc, what);
  return result();
}

StatusOutput::StatusOutput(size_t n, nb::handle out)
    : Output(out, sizeof(int) * n, "status_out", true) {
  if (reinterpret_cast<uintptr_t>(data()) % alignof(int) != 0)
    throw nb::value_error("status_out must be aligned to 4 bytes (an int32 array)");
}

nb::object StatusOutput::finish(int rc, const Output* results) const {
  if (results != nullptr && rc != KS_OK && rc != KS_ERR_BATCH_ITEMS) results->wipe();
  check_batch(rc);
  return result();
}

}  // namespace ks_py
