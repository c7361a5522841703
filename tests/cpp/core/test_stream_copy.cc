// core/stream_copy.h against memcpy: sizes around its thresholds, every
// destination and source misalignment within a cache line.
#include <gtest/gtest.h>
#include <string.h>

#include <vector>

#include "core/stream_copy.h"

namespace {

TEST(StreamCopy, MatchesMemcpyAtEverySizeAndAlignment) {
  std::vector<unsigned char> src(70000), dst(70100), want(70100);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);
  for (size_t bytes : {0, 1, 31, 4095, 4096, 4097, 4096 + 127, 65536, 69000}) {
    for (size_t dst_off : {0, 1, 17, 31, 32, 63}) {
      for (size_t src_off : {0, 3, 32}) {
        if (src_off + bytes > src.size() || dst_off + bytes + 64 > dst.size()) continue;
        memset(dst.data(), 0xEE, dst.size());
        memcpy(want.data(), dst.data(), dst.size());
        memcpy(want.data() + dst_off, src.data() + src_off, bytes);
        ks::stream_copy(dst.data() + dst_off, src.data() + src_off, bytes);
        ASSERT_EQ(dst, want) << bytes << " bytes, dst+" << dst_off << ", src+" << src_off;
      }
    }
  }
}

}  // namespace
