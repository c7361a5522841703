// Host/device portability macros. Code written once for the CPU and the GPU
// (SM3's compression function, field and curve formulas) marks its functions
// KS_HD so that nvcc compiles them for both sides and g++ sees plain inline
// functions.
#ifndef KS_CORE_HD_H_
#define KS_CORE_HD_H_

#if defined(__CUDACC__)
#define KS_HD __host__ __device__ __forceinline__
#define KS_DEVICE_CODE 1
#elif defined(KS_HD_HOST_PLAIN_INLINE)
// Tests that compile the GPU's formulas for the host, to check them against
// the CPU code, make them ordinary inline functions: forced inlining of
// whole verifications into every caller cost one such test two minutes of
// g++ (tests/cpp/curve25519/test_ed25519_verify_one.cc).
#define KS_HD inline
#define KS_DEVICE_CODE 0
#else
#define KS_HD inline __attribute__((always_inline))
#define KS_DEVICE_CODE 0
#endif

// Full unrolling of a short loop with a constant trip count, whichever
// compiler sees the code (nvcc, clang, gcc).
#if defined(__CUDACC__) || defined(__clang__)
#define KS_UNROLL _Pragma("unroll")
#else
#define KS_UNROLL _Pragma("GCC unroll 16")
#endif

// No unrolling: a loop over a run-time count, or one whose body is large
// (a field inversion per iteration) and would only grow the code.
#if defined(__CUDACC__) || defined(__clang__)
#define KS_NO_UNROLL _Pragma("unroll 1")
#else
#define KS_NO_UNROLL _Pragma("GCC unroll 1")
#endif

#endif  // KS_CORE_HD_H_
