// Opens a region of a .cc file compiled for the x86 instruction sets named
// by KS_X86_TARGET (a string: "avx2,aes"), so that one file per instruction
// set can hold kernels the rest of the build is not compiled for;
// core/x86_target_end.h closes it. The file includes this after its own
// headers and before the headers whose templates must carry the target
// (e.g. sm4/sm4_x86_lanes.h). <immintrin.h> comes first, outside the
// region.
// No include guard: one region per file.
#ifndef KS_X86_TARGET
#error "define KS_X86_TARGET before including core/x86_target_begin.h"
#endif

// GCC 12 warns that _mm512_undefined_epi32() inside its own AVX-512 headers
// is "used uninitialized" once inlined (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#pragma GCC diagnostic pop

#define KS_X86_PRAGMA(x) _Pragma(#x)
#if defined(__clang__)
#define KS_X86_TARGET_PUSH(t) \
  KS_X86_PRAGMA(clang attribute push(__attribute__((target(t))), apply_to = function))
#else
#define KS_X86_TARGET_PUSH(t) KS_X86_PRAGMA(GCC push_options) KS_X86_PRAGMA(GCC target(t))
#endif
KS_X86_TARGET_PUSH(KS_X86_TARGET)
