// Run-time CPU feature detection (x86-64 CPUID/XGETBV; all false elsewhere).
// Read once, on first use; every dispatch decision in the library goes
// through cpu_features() so that KS_CPU_FEATURES=portable in the environment
// can force the portable paths for testing on any machine.
#ifndef KS_CORE_CPU_FEATURES_H_
#define KS_CORE_CPU_FEATURES_H_

#include <stddef.h>

#include <string>

namespace ks {

struct CpuFeatures {
  bool bmi2 = false;
  bool adx = false;
  bool avx2 = false;
  bool avx512f = false;
  bool avx512vl = false;
  bool avx512bw = false;
  bool avx512ifma = false;
  bool gfni = false;
  bool vaes = false;
  bool sha_ni = false;
};

// The features the library may use: those the CPU and OS support, minus any
// named in KS_CPU_FEATURES=-avx512ifma,-avx2 (or all of them for "portable").
const CpuFeatures& cpu_features();

// "adx bmi2 avx2 ..." for reports.
std::string cpu_feature_string(const CpuFeatures& f);

// The CPU's brand string, e.g. "AMD EPYC 9R14 96-Core Processor".
std::string cpu_model_name();

// The first usable entry of a variant table ({name, usable, ...} entries,
// returned with their count by table_of; the last one is always usable):
// how every dispatched primitive picks its implementation.
template <class Variant>
const Variant& first_usable(const Variant* (*table_of)(size_t*)) {
  size_t count = 0;
  const Variant* table = table_of(&count);
  size_t i = 0;
  while (i + 1 < count && !table[i].usable) ++i;
  return table[i];
}

// Whether v is a usable entry of the table: a pointer read back from
// caller memory (a streaming state of the C API) is called through only
// if it is one of the table's own, never wherever its bytes point.
template <class Variant>
bool is_usable_variant(const Variant* v, const Variant* (*table_of)(size_t*)) {
  size_t count = 0;
  const Variant* table = table_of(&count);
  for (size_t i = 0; i < count; ++i)
    if (v == &table[i]) return table[i].usable;
  return false;
}

}  // namespace ks

#endif  // KS_CORE_CPU_FEATURES_H_
