# What a folder of src/ declares about itself. An algorithm's
# src/<alg>/CMakeLists.txt lists its library sources, its CUDA sources (and
# the file that answers "no GPU backend" without CUDA), its tests, its
# constant-time program, its fuzz targets and its tools; the build options
# decide which of them are made. Adding an algorithm is one folder and one
# line in src/CMakeLists.txt.

# Sources compiled into libkuaisuo (shared and static).
function(ks_library_sources)
  target_sources(kuaisuo_obj PRIVATE ${ARGN})
endfunction()

# ks_gpu_sources(CUDA <.cu and host files> ABSENT <files for a CPU-only build>)
function(ks_gpu_sources)
  cmake_parse_arguments(arg "" "" "CUDA;ABSENT" ${ARGN})
  if(KS_WITH_CUDA)
    target_sources(kuaisuo_obj PRIVATE ${arg_CUDA})
  else()
    target_sources(kuaisuo_obj PRIVATE ${arg_ABSENT})
  endif()
endfunction()

# ks_module_tests(<module>): one GoogleTest binary, test_<module>, made of
# tests/cpp/<module>/test_*.cc (test_gpu_*.cc only in CUDA builds: they call
# the kernels' launchers directly; without a GPU they skip).
function(ks_module_tests module)
  if(NOT KS_BUILD_TESTS)
    return()
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/cpp/${module}/test_*.cc)
  if(NOT KS_WITH_CUDA)
    list(FILTER sources EXCLUDE REGEX "/test_gpu_[^/]*\\.cc$")
  endif()
  add_executable(test_${module} ${sources})
  if(KS_TEST_QUICK_BUILD)
    # The tests' own code (assertions, reference values, loops around
    # library calls) at -O1; the library keeps its build type's flags.
    target_compile_options(test_${module} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O1>)
  endif()
  target_link_libraries(test_${module} PRIVATE kuaisuo_testing OpenSSL::Crypto GTest::gtest_main)
  target_include_directories(test_${module} PRIVATE ${PROJECT_SOURCE_DIR}/tests/cpp)
  gtest_discover_tests(test_${module} DISCOVERY_TIMEOUT 60)
endfunction()

# ks_module_test_run(<name> <module> FILTER <gtest filter> ENV <VAR=value>):
# some of a module's tests once more under another environment (for
# example KS_CPU_FEATURES=portable on a CPU that would pick ADX or AVX-512).
function(ks_module_test_run name module)
  cmake_parse_arguments(arg "" "FILTER;ENV" "" ${ARGN})
  if(NOT KS_BUILD_TESTS OR NOT TARGET test_${module})
    return()
  endif()
  add_test(NAME ${name} COMMAND test_${module} --gtest_filter=${arg_FILTER})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${arg_ENV}")
endfunction()

# ks_ct_program(<name> [VALGRIND_ONLY]): the constant-time check
# tests/ct/<name>.cc, run by the checker of this build (valgrind in a
# KS_CTGRIND build, MemorySanitizer in a KS_CT_MSAN build), each with its
# planted leak that must be caught (tests/ct/CMakeLists.txt says more).
function(ks_ct_program name)
  cmake_parse_arguments(arg "VALGRIND_ONLY" "" "" ${ARGN})
  if(NOT KS_CTGRIND AND NOT (KS_CT_MSAN AND NOT arg_VALGRIND_ONLY))
    return()
  endif()
  add_executable(${name} ${PROJECT_SOURCE_DIR}/tests/ct/${name}.cc)
  target_link_libraries(${name} PRIVATE kuaisuo_testing)
  if(KS_CTGRIND)
    target_compile_definitions(${name} PRIVATE KS_CTGRIND=1)
    add_test(NAME ${name}_valgrind
             COMMAND ${VALGRIND} --error-exitcode=1 --track-origins=yes --quiet
                     $<TARGET_FILE:${name}>)
    add_test(NAME ${name}_valgrind_catches_a_leak
             COMMAND ${VALGRIND} --error-exitcode=1 --quiet $<TARGET_FILE:${name}> --leak)
    set_tests_properties(${name}_valgrind_catches_a_leak PROPERTIES WILL_FAIL TRUE)
  endif()
  if(KS_CT_MSAN)
    target_compile_definitions(${name} PRIVATE KS_CT_MSAN=1)
    add_test(NAME ${name}_msan COMMAND ${name})
    add_test(NAME ${name}_msan_portable COMMAND ${name})
    set_tests_properties(${name}_msan_portable PROPERTIES ENVIRONMENT KS_CPU_FEATURES=portable)
    add_test(NAME ${name}_msan_catches_a_leak COMMAND ${name} --leak)
    set_tests_properties(${name}_msan_catches_a_leak PROPERTIES WILL_FAIL TRUE)
    set_property(TEST ${name}_msan ${name}_msan_portable ${name}_msan_catches_a_leak
                 PROPERTY ENVIRONMENT_MODIFICATION "MSAN_OPTIONS=set:halt_on_error=1:exitcode=1")
  endif()
  set_property(GLOBAL APPEND PROPERTY KS_CT_PROGRAMS ${name})
endfunction()

# ks_fuzz_targets(<name>...): libFuzzer targets tests/fuzz/<name>.cc, one per
# decoder of untrusted input (tests/fuzz/README.md); KS_FUZZ builds only.
function(ks_fuzz_targets)
  if(NOT KS_FUZZ)
    return()
  endif()
  foreach(name IN LISTS ARGN)
    add_executable(${name} ${PROJECT_SOURCE_DIR}/tests/fuzz/${name}.cc)
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,${KS_FUZZ_SANITIZERS}
                           -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,${KS_FUZZ_SANITIZERS})
    target_link_libraries(${name} PRIVATE kuaisuo_testing)
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/fuzz)
    # One place for every target's binary: BUILD/tests/fuzz/<name>.
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                          ${PROJECT_BINARY_DIR}/tests/fuzz)
    add_dependencies(ks_fuzz ${name})
  endforeach()
endfunction()

# ks_tool(<name> <source> [OPENSSL] [GPU]): a benchmark or measuring tool
# under tools/, never part of `all` (build it with --target <name>).
# OPENSSL: it measures OpenSSL's libcrypto beside us (skipped without
# OpenSSL 3). GPU: a CUDA benchmark, made only in CUDA builds configured
# with -DKS_BUILD_GPU_BENCH=ON (scripts/gpu-check does), so that an
# ordinary build compiles no kernel twice.
function(ks_tool name source)
  cmake_parse_arguments(arg "OPENSSL;GPU" "" "" ${ARGN})
  if(arg_GPU AND NOT (KS_WITH_CUDA AND KS_BUILD_GPU_BENCH))
    return()
  endif()
  if(arg_OPENSSL)
    find_package(OpenSSL 3 QUIET COMPONENTS Crypto)
    if(NOT OpenSSL_FOUND)
      return()
    endif()
  endif()
  if(arg_GPU)
    add_executable(${name} ${PROJECT_SOURCE_DIR}/tools/${source})
    # The CPU field's inline asm reaches nvcc's front end through the scheme
    # headers, which reports its output operands as "set but never used".
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=550>)
  else()
    add_executable(${name} EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/tools/${source})
  endif()
  target_link_libraries(${name} PRIVATE kuaisuo_testing)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
  if(arg_OPENSSL)
    target_link_libraries(${name} PRIVATE OpenSSL::Crypto)
  endif()
endfunction()

# ks_generated_table(<generator source> <header name>): a table computed at
# build time by our own generator (header-only field and point formulas),
# written to ${PROJECT_BINARY_DIR}/generated/<header name>.
function(ks_generated_table source header)
  get_filename_component(generator ${source} NAME_WE)
  add_executable(${generator} ${source} ${PROJECT_SOURCE_DIR}/src/field/safegcd.cc
                              ${PROJECT_SOURCE_DIR}/src/core/secure.cc)
  target_include_directories(${generator} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  set(output ${PROJECT_BINARY_DIR}/generated/${header})
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/generated
    COMMAND ${generator} ${output}
    DEPENDS ${generator}
    COMMENT "Generating ${header}"
    VERBATIM)
  add_custom_target(${generator}_output DEPENDS ${output})
  add_dependencies(kuaisuo_obj ${generator}_output)
endfunction()
