// The C boundary: no C++ exception may cross it (the header promises that
// no function aborts, and an exception unwinding into C code terminates the
// caller's process). Every entry point that can allocate or start threads
// is written as a function-try-block,
//
//   int ks_something(...) try { ... } KS_API_CATCH
//
// so that whatever escapes its body becomes a ks_status here.
#ifndef KS_API_GUARD_H_
#define KS_API_GUARD_H_

#include <new>
#include <stdexcept>
#include <system_error>

#include "kuaisuo/common.h"

namespace ks {
namespace api {

// The ks_status for the exception being handled; call only inside a catch.
inline int status_of_current_exception() noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return KS_ERR_NO_MEMORY;
  } catch (const std::length_error&) {  // a container asked for more than max_size()
    return KS_ERR_NO_MEMORY;
  } catch (const std::system_error& e) {
    // std::thread reports EAGAIN (limits on processes, threads or memory
    // for stacks); a mutex or condition variable failing is a bug.
    const std::error_code code = e.code();
    return code == std::errc::resource_unavailable_try_again ||
                   code == std::errc::not_enough_memory
               ? KS_ERR_THREADS
               : KS_ERR_INTERNAL;
  } catch (...) {
    return KS_ERR_INTERNAL;
  }
}

}  // namespace api
}  // namespace ks

#define KS_API_CATCH \
  catch (...) {      \
    return ks::api::status_of_current_exception(); \
  }

#endif  // KS_API_GUARD_H_
