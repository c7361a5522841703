# GPU tools (included by the top-level CMakeLists.txt): the SM2 and
# Curve25519 kernel benchmarks. Not part of the library.
if(KS_WITH_CUDA)
  add_executable(sm2_gpu_bench ${CMAKE_CURRENT_LIST_DIR}/sm2_gpu_bench.cu)
  target_link_libraries(sm2_gpu_bench PRIVATE kuaisuo_internal)
  # scheme/sm2.h brings the CPU field's inline asm, whose output operands
  # nvcc's front end reports as "set but never used" (warning 550).
  target_compile_options(sm2_gpu_bench PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=550>)
  add_executable(curve25519_gpu_bench ${CMAKE_CURRENT_LIST_DIR}/curve25519_gpu_bench.cu)
  target_link_libraries(curve25519_gpu_bench PRIVATE kuaisuo_internal)
  target_compile_options(curve25519_gpu_bench PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=550>)
endif()

# SM4 on the GPU (cipher/sm4_gpu.h): both kernels in ECB, CTR and GCM,
# kernel-only and end to end, checked against the CPU.
if(KS_WITH_CUDA)
  add_executable(sm4_gpu_bench ${CMAKE_CURRENT_LIST_DIR}/sm4_gpu_bench.cu)
  target_link_libraries(sm4_gpu_bench PRIVATE kuaisuo_internal)
  # SKINNY-128-256 on the GPU (cipher/skinny_gpu.h): three kernels, ECB and
  # CTR, kernel-only and end to end, checked against the CPU.
  add_executable(skinny_gpu_bench ${CMAKE_CURRENT_LIST_DIR}/skinny_gpu_bench.cu)
  target_link_libraries(skinny_gpu_bench PRIVATE kuaisuo_internal)
endif()
