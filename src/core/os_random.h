// Randomness from the operating system's CSPRNG (getrandom(2) on Linux).
// Every nonce, key and DRBG seed in the library starts here.
#ifndef KS_CORE_OS_RANDOM_H_
#define KS_CORE_OS_RANDOM_H_

#include <stddef.h>
#include <stdint.h>

namespace ks {

// Fills buf with len random bytes. Returns false only if the OS refused
// (which callers turn into KS_ERR_RANDOM); never returns partial data.
bool os_random(uint8_t* buf, size_t len);

}  // namespace ks

#endif  // KS_CORE_OS_RANDOM_H_
