// The pass/fail count of a constant-time check program (tests/ct/ct_*.cc):
// each check is one expect(); the program prints the tally and exits 1 on
// any failure. (Taint reports themselves come from valgrind or
// MemorySanitizer, which fail the run on their own.)
#ifndef KS_TESTS_CT_TALLY_H_
#define KS_TESTS_CT_TALLY_H_

#include <stdio.h>

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

}  // namespace ks_ct

#endif  // KS_TESTS_CT_TALLY_H_
