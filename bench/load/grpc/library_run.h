// --library: the same rows straight into the library, no server.
#ifndef KUAISUO_BENCH_LOAD_GRPC_LIBRARY_RUN_H_
#define KUAISUO_BENCH_LOAD_GRPC_LIBRARY_RUN_H_

#include "flags.h"
#include "pool.h"

namespace kuaisuo::load {

// Runs --library: prints one JSON line; returns the exit status.
int run_library(const Options& o, const Pool& pool);

}  // namespace kuaisuo::load

#endif  // KUAISUO_BENCH_LOAD_GRPC_LIBRARY_RUN_H_
