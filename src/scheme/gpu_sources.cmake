# SM2 on the GPU (included by src/CMakeLists.txt): kernels, host helpers and
# the batch jobs; without CUDA the batch entry points answer that no GPU
# backend exists.
if(KS_WITH_CUDA)
  target_sources(kuaisuo_obj PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sm2_gpu.cu
                                     ${CMAKE_CURRENT_LIST_DIR}/sm2_gpu_host.cc
                                     ${CMAKE_CURRENT_LIST_DIR}/sm2_gpu_jobs.cu)
else()
  target_sources(kuaisuo_obj PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sm2_gpu_absent.cc)
endif()

# Curve25519 on the GPU (both GF(2^255-19) fields: FP64 and integer) and
# its batch jobs; the kernels one file a kind of operation, so that their
# ~40 instantiations compile in parallel (one file took 11 minutes of nvcc).
if(KS_WITH_CUDA)
  target_sources(kuaisuo_obj PRIVATE ${CMAKE_CURRENT_LIST_DIR}/curve25519_gpu_x25519.cu
                                     ${CMAKE_CURRENT_LIST_DIR}/curve25519_gpu_verify.cu
                                     ${CMAKE_CURRENT_LIST_DIR}/curve25519_gpu_keys.cu
                                     ${CMAKE_CURRENT_LIST_DIR}/curve25519_gpu_sign.cu
                                     ${CMAKE_CURRENT_LIST_DIR}/curve25519_gpu_tables.cu
                                     ${CMAKE_CURRENT_LIST_DIR}/curve25519_gpu_jobs.cu)
else()
  target_sources(kuaisuo_obj PRIVATE ${CMAKE_CURRENT_LIST_DIR}/curve25519_gpu_absent.cc)
endif()
