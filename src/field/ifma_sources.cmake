# AVX-512 IFMA multi-buffer code (8 lanes of 52-bit limbs): SM2's field,
# curve and scheme layers, and GF(2^255 - 19) with the Edwards25519 /
# Curve25519 scalar multiplications; and the same field in 4 ymm lanes with
# the single Curve25519 operations in parallel formulas
# (curve/ed25519_x4.cc). Each .cc carries its own target
# pragma/attributes, so the library still runs on CPUs without IFMA
# (scheme/sm2_mb.cc, the callers of curve/ed25519_mb.h and
# curve/ed25519_curve.cc check available() and fall back to the scalar
# code); off x86-64 the vector
# files compile to nothing.
target_sources(kuaisuo_obj PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/fp_ifma.cc
  ${CMAKE_CURRENT_LIST_DIR}/fe25519_ifma.cc
  ${CMAKE_CURRENT_LIST_DIR}/fe25519_ifma_x4.cc
  ${CMAKE_CURRENT_LIST_DIR}/../curve/sm2_mb.cc
  ${CMAKE_CURRENT_LIST_DIR}/../curve/ed25519_mb.cc
  ${CMAKE_CURRENT_LIST_DIR}/../curve/ed25519_x4.cc
  ${CMAKE_CURRENT_LIST_DIR}/../scheme/sm2_mb.cc)

# tools/sm2_mb_micro.cc: one-thread ops/s of the 8-lane path vs the scalar
# path vs OpenSSL's EVP SM2. Not part of `all` (build with
# `--target sm2_mb_micro`); skipped without OpenSSL 3.
find_package(OpenSSL 3 QUIET COMPONENTS Crypto)
if(OpenSSL_FOUND AND NOT TARGET sm2_mb_micro)
  add_executable(sm2_mb_micro EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/tools/sm2_mb_micro.cc)
  target_link_libraries(sm2_mb_micro PRIVATE kuaisuo_internal OpenSSL::Crypto)
endif()

# tools/ed25519_mb_micro.cc: one-thread ops/s of the 8-lane Curve25519
# operations vs the scalar ones. Not part of `all` (build with
# `--target ed25519_mb_micro`).
if(NOT TARGET ed25519_mb_micro)
  add_executable(ed25519_mb_micro EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/tools/ed25519_mb_micro.cc)
  target_link_libraries(ed25519_mb_micro PRIVATE kuaisuo_internal)
endif()

# tools/ed25519_x4_micro.cc: one-thread ops/s of single X25519 / Ed25519
# operations, the 4-lane path vs the scalar path vs OpenSSL's EVP. Not part
# of `all` (build with `--target ed25519_x4_micro`); skipped without
# OpenSSL 3.
if(OpenSSL_FOUND AND NOT TARGET ed25519_x4_micro)
  add_executable(ed25519_x4_micro EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/tools/ed25519_x4_micro.cc)
  target_link_libraries(ed25519_x4_micro PRIVATE kuaisuo_internal OpenSSL::Crypto)
endif()
