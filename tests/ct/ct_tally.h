// What every constant-time check program (tests/ct/ct_*.cc) shares: the
// pass/fail count (each check is one expect(); the program prints the
// tally and exits 1 on any failure; taint reports themselves come from
// valgrind or MemorySanitizer, which fail the run on their own), random
// secrets, and the planted leak each checker must catch.
#ifndef KS_TESTS_CT_TALLY_H_
#define KS_TESTS_CT_TALLY_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/os_random.h"
#include "core/secure.h"

namespace ks_ct {

struct Tally {
  int failures = 0, passes = 0;
};

inline Tally& tally() {
  static Tally t;
  return t;
}

// Counts one check; names it on stderr if it failed.
inline void expect(bool ok, const char* what) {
  if (ok) {
    ++tally().passes;
  } else {
    ++tally().failures;
    fprintf(stderr, "%s failed\n", what);
  }
}

// Random bytes marked secret.
inline void secret_random(uint8_t* p, size_t n) {
  expect(ks::os_random(p, n), "os_random");
  ks::ct_poison(p, n);
}

// A deliberately leaky computation: a branch on a secret byte. Run with
// --leak, the checker must report it (ctest expects that run to fail),
// which shows the harness would catch a real leak.
inline int leak_on_purpose() {
  uint8_t s[1];
  if (!ks::os_random(s, 1)) return 2;
  ks::ct_poison(s, 1);
  volatile int sink = 0;
  if (s[0] & 1) sink = 1;  // secret-dependent branch
  printf("leak run: %d\n", int(sink));
  return 0;
}

}  // namespace ks_ct

#endif  // KS_TESTS_CT_TALLY_H_
