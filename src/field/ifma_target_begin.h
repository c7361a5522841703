// Opens a region compiled for AVX-512 IFMA; field/ifma_target_end.h closes
// it. A .cc file of the multi-buffer SM2 path includes this FIRST, then the
// headers whose inline functions and templates must carry the target
// (field/fp_ifma_simd.h, curve/jacobian.h, which must not have been included
// before), then the end header. Nothing else may be included inside: an
// inline function shared with other files would be compiled for AVX-512
// here and could be the copy the linker keeps.
// No include guard: one region per file.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,avx512bw,avx512ifma"))), \
                             apply_to = function)
#else
// gcc 12 flags the _mm512_undefined operand inside its own shift
// intrinsics as uninitialized when they are inlined under a target pragma.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512ifma")
#endif
