# libFuzzer builds (-DKS_FUZZ=ON, clang): the library itself is instrumented
# too (coverage for libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer
# with no recovery), so that a report inside src/ stops the run. The targets
# are declared by their algorithm's folder (ks_fuzz_targets); scripts/fuzz
# builds and runs them. Two kinds of tree use it: scripts/fuzz's own
# (RelWithDebInfo, the faster to fuzz in), and scripts/sanitize's
# unoptimized ASan + UBSan tree, which builds the tests and the fuzz targets
# over one library (CI fuzzes there, sparing a third build of it).
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "KS_FUZZ needs clang with libFuzzer: configure with CC=clang CXX=clang++")
endif()
if(KS_WITH_CUDA)
  message(FATAL_ERROR "KS_FUZZ instruments the CPU library only: configure with -DKS_ENABLE_CUDA=OFF")
endif()

set(KS_FUZZ_SANITIZERS address,undefined)
set(KS_FUZZ_LIB_FLAGS -fsanitize=fuzzer-no-link,${KS_FUZZ_SANITIZERS}
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
if(CMAKE_BUILD_TYPE STREQUAL "Debug")
  # The SIMD message schedules of SHA-512 and SM3 took clang 58-105 s each
  # at -O0 under both sanitizers, 10 s at -O1 (2-core dev machine): a third
  # of the tree's compile time, for code that -O1 leaves as instrumented.
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/hash/sha512_x86_avx2.cc
                              ${PROJECT_SOURCE_DIR}/src/hash/sha512_x86_avx512.cc
                              ${PROJECT_SOURCE_DIR}/src/sm3/sm3_x86_avx2.cc
                              ${PROJECT_SOURCE_DIR}/src/sm3/sm3_x86_avx512.cc
                              PROPERTIES COMPILE_OPTIONS -O1)
else()
  # Without UBSan's pointer-overflow check in the optimized library: in the
  # fully unrolled GFNI AVX-512 SM4 kernel it more than doubled clang's time
  # (11 minutes to 5 on the 2-core dev machine; the -O0 tree keeps it).
  list(APPEND KS_FUZZ_LIB_FLAGS -fno-sanitize=pointer-overflow)
  # The fully unrolled AVX-512 SM4 kernels take clang minutes at -O2 under
  # these sanitizers (the GFNI one 369 s of a CI run's fuzz build, against
  # 10 s at -O0): they are fuzzed unoptimized, the same code with the same
  # instrumentation, only slower to run.
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/sm4/sm4_x86_gfni_avx512.cc
                              ${PROJECT_SOURCE_DIR}/src/sm4/sm4_x86_aesni_avx512.cc
                              PROPERTIES COMPILE_OPTIONS -O0)
endif()
# The library's object files (shared by libkuaisuo.so and libkuaisuo.a).
target_compile_options(kuaisuo_obj PRIVATE ${KS_FUZZ_LIB_FLAGS})
# `cmake --build BUILD --target ks_fuzz` builds every target (and no more).
add_custom_target(ks_fuzz)
