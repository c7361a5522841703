// One-thread SKINNY-128-256 micro-benchmark: ECB and CTR encryption of the
// constant-time code (the kernel the CPU gets: AVX-512, AVX2 or portable;
// KS_CPU_FEATURES=-avx512f or =portable picks the others) next to the
// table-based baseline (the seed's kind of CPU code), at 1 KiB, 64 KiB and
// 1 MiB per call, and a tweak per block (tweaked_blocks against a whole
// schedule per block); medians of the repetitions, in this thread's CPU
// time.
//
//   cmake --build build --target skinny_micro && build/skinny_micro [repetitions=5]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <functional>
#include <string>
#include <vector>

#include "skinny/skinny128_256.h"
#include "core/cpu_features.h"
#include "micro_timing.h"

// The baseline of the "tweak" row: each block under its own tweakey (TK1
// = the block itself, TK2 = zero), a whole schedule per block and the
// table code.
void table_per_block_schedule(const ks::skinny::Key&, const uint8_t* in, uint8_t* out, size_t n) {
  uint8_t tweakey[32] = {};
  ks::skinny::Key k;
  for (size_t i = 0; i < n; ++i) {
    memcpy(tweakey, in + 16 * i, 16);
    ks::skinny::set_key(&k, tweakey);
    ks::skinny::table_encrypt_blocks(k, in + 16 * i, out + 16 * i, 1);
  }
  ks::skinny::wipe_key(&k);
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, atoi(argv[1])) : 5;
  printf("CPU: %s [%s]; constant-time kernel: %s; %d repetitions, medians, one thread\n\n",
         ks::cpu_model_name().c_str(), ks::cpu_feature_string(ks::cpu_features()).c_str(),
         ks::skinny::kernel_name(), reps);
  const size_t kMax = size_t(1) << 20;
  std::vector<uint8_t> in(kMax), out(kMax);
  uint32_t x = 12345;
  for (uint8_t& b : in) b = uint8_t((x = x * 1103515245u + 12345u) >> 24);
  uint8_t tweakey[32], counter[16] = {0};
  for (int i = 0; i < 32; ++i) tweakey[i] = uint8_t(i * 37 + 1);
  ks::skinny::Key k;
  ks::skinny::set_key(&k, tweakey);
  printf("%-6s %8s  %-22s %10s  %s\n", "mode", "bytes", "implementation", "MB/s", "vs table");
  for (size_t bytes : {size_t(1024), size_t(65536), kMax}) {
    const size_t n = bytes / 16;
    struct Row {
      const char* mode;
      std::function<void()> ct, table;
    } rows[] = {
        {"ecb", [&] { ks::skinny::encrypt_blocks(k, in.data(), out.data(), n); },
         [&] { ks::skinny::table_encrypt_blocks(k, in.data(), out.data(), n); }},
        {"ctr", [&] { ks::skinny::ctr_blocks(k, counter, in.data(), out.data(), n); },
         [&] { ks::skinny::table_ctr_blocks(k, counter, in.data(), out.data(), n); }},
        // A tweak per block (TK1 = the block's 16 bytes of `in`, TK2 of k):
        // ours adds TK1's part to TK2's schedule; the baseline expands a
        // whole schedule per block, as per-block set_key would.
        {"tweak", [&] { ks::skinny::tweaked_blocks(k, true, in.data(), in.data(), out.data(), n); },
         [&] { table_per_block_schedule(k, in.data(), out.data(), n); }},
    };
    for (const Row& r : rows) {
      std::vector<double> ct, table, ratio;
      for (int i = 0; i < reps; ++i) {
        const double a = ks_micro::calls_per_second(r.table, 0.1, 1) * double(bytes) / 1e6;
        const double b = ks_micro::calls_per_second(r.ct, 0.1, 1) * double(bytes) / 1e6;
        table.push_back(a);
        ct.push_back(b);
        ratio.push_back(b / a);
      }
      printf("%-6s %8zu  %-22s %10.1f\n", r.mode, bytes, "table baseline", ks_micro::median(table));
      printf("%-6s %8zu  %-22s %10.1f  %.2fx\n", r.mode, bytes,
             (std::string("constant-time ") + ks::skinny::kernel_name()).c_str(),
             ks_micro::median(ct), ks_micro::median(ratio));
    }
  }
  ks::skinny::wipe_key(&k);
  return 0;
}
