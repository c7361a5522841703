# gRPC C++, protobuf and OpenSSL for the native server (serve/) and its load
# generator (bench/load/grpc); sets KS_SERVE_GRPC_FOUND. Included by each
# directory that links their targets: an imported target is visible only in
# the directory that found it and below.
# Debian: apt-get install libgrpc++-dev libprotobuf-dev protobuf-compiler-grpc protobuf-compiler
find_package(Protobuf QUIET)
find_package(gRPC CONFIG QUIET)
find_package(OpenSSL QUIET COMPONENTS Crypto)
find_program(KS_GRPC_CPP_PLUGIN grpc_cpp_plugin)
if(Protobuf_FOUND AND gRPC_FOUND AND OpenSSL_FOUND AND KS_GRPC_CPP_PLUGIN)
  set(KS_SERVE_GRPC_FOUND TRUE)
else()
  set(KS_SERVE_GRPC_FOUND FALSE)
endif()
