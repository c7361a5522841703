#include "core/cpu_features.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#define KS_X86_64 1
#endif

namespace ks {
namespace {

#ifdef KS_X86_64
struct Regs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};

Regs cpuid(unsigned leaf, unsigned sub) {
  Regs r;
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}

unsigned long long xgetbv0() {
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
}

CpuFeatures detect() {
  CpuFeatures f;
  const unsigned max_leaf = cpuid(0, 0).a;
  if (max_leaf < 7) return f;
  const Regs l1 = cpuid(1, 0);
  const Regs l7 = cpuid(7, 0);
  const bool osxsave = (l1.c >> 27) & 1;
  const unsigned long long xcr0 = osxsave ? xgetbv0() : 0;
  const bool os_ymm = (xcr0 & 0x6) == 0x6;     // XMM and YMM state
  const bool os_zmm = (xcr0 & 0xe6) == 0xe6;   // plus opmask and ZMM state
  f.bmi2 = (l7.b >> 8) & 1;
  f.adx = (l7.b >> 19) & 1;
  f.sha_ni = (l7.b >> 29) & 1;
  f.avx2 = os_ymm && ((l7.b >> 5) & 1);
  f.avx512f = os_zmm && ((l7.b >> 16) & 1);
  f.avx512ifma = f.avx512f && ((l7.b >> 21) & 1);
  f.avx512bw = f.avx512f && ((l7.b >> 30) & 1);
  f.avx512vl = f.avx512f && ((l7.b >> 31) & 1);
  f.gfni = (l7.c >> 8) & 1;
  f.vaes = os_ymm && ((l7.c >> 9) & 1);
  return f;
}
#else
CpuFeatures detect() { return CpuFeatures{}; }
#endif

// KS_CPU_FEATURES: "portable" clears everything; "-name,-name" clears some.
void apply_env_mask(CpuFeatures* f) {
  const char* env = std::getenv("KS_CPU_FEATURES");
  if (env == nullptr || *env == '\0') return;
  if (std::strcmp(env, "portable") == 0) {
    *f = CpuFeatures{};
    return;
  }
  struct Named {
    const char* name;
    bool CpuFeatures::*flag;
  };
  static const Named kNames[] = {
      {"bmi2", &CpuFeatures::bmi2},         {"adx", &CpuFeatures::adx},
      {"avx2", &CpuFeatures::avx2},         {"avx512f", &CpuFeatures::avx512f},
      {"avx512vl", &CpuFeatures::avx512vl}, {"avx512bw", &CpuFeatures::avx512bw},
      {"avx512ifma", &CpuFeatures::avx512ifma}, {"gfni", &CpuFeatures::gfni},
      {"vaes", &CpuFeatures::vaes},         {"sha_ni", &CpuFeatures::sha_ni},
  };
  for (const Named& n : kNames) {
    std::string needle = std::string("-") + n.name;
    const char* hit = std::strstr(env, needle.c_str());
    if (hit == nullptr) continue;
    const char after = hit[needle.size()];
    if (after == '\0' || after == ',') f->*(n.flag) = false;
  }
  if (!f->avx512f) f->avx512ifma = f->avx512vl = f->avx512bw = false;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    CpuFeatures f = detect();
    apply_env_mask(&f);
    return f;
  }();
  return features;
}

std::string cpu_feature_string(const CpuFeatures& f) {
  std::string s;
  auto add = [&s](bool on, const char* name) {
    if (!on) return;
    if (!s.empty()) s += ' ';
    s += name;
  };
  add(f.bmi2, "bmi2");
  add(f.adx, "adx");
  add(f.avx2, "avx2");
  add(f.avx512f, "avx512f");
  add(f.avx512vl, "avx512vl");
  add(f.avx512bw, "avx512bw");
  add(f.avx512ifma, "avx512ifma");
  add(f.gfni, "gfni");
  add(f.vaes, "vaes");
  add(f.sha_ni, "sha_ni");
  return s.empty() ? "portable" : s;
}

std::string cpu_model_name() {
#ifdef KS_X86_64
  if (cpuid(0x80000000u, 0).a < 0x80000004u) return "unknown x86-64";
  char brand[49] = {0};
  for (unsigned i = 0; i < 3; ++i) {
    Regs r = cpuid(0x80000002u + i, 0);
    std::memcpy(brand + 16 * i, &r, 16);
  }
  std::string s(brand);
  const size_t first = s.find_first_not_of(' ');
  return first == std::string::npos ? "unknown x86-64" : s.substr(first);
#else
  return "unknown";
#endif
}

}  // namespace ks
