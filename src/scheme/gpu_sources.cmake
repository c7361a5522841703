# CUDA sources of SM2 on the GPU (included by src/CMakeLists.txt).
if(KS_WITH_CUDA)
  target_sources(kuaisuo_obj PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sm2_gpu.cu
                                     ${CMAKE_CURRENT_LIST_DIR}/sm2_gpu_host.cc)
endif()
