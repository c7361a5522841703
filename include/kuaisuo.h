/*
 * kuaisuo (快锁): high-throughput cryptography for GPUs and CPUs. C API.
 *
 * This header includes every part of the API; each algorithm's part is
 * also usable alone (<kuaisuo/sm2.h> and so on). The conventions every
 * function follows are written at the top of <kuaisuo/common.h>.
 */
#ifndef KUAISUO_H_
#define KUAISUO_H_

/* ---- Version (the build and the Python package read it here) ------- */
#define KS_VERSION_MAJOR 0
#define KS_VERSION_MINOR 1
#define KS_VERSION_PATCH 0


#include <kuaisuo/common.h>
#include <kuaisuo/sm3.h>
#include <kuaisuo/sm4.h>
#include <kuaisuo/sm2.h>
#include <kuaisuo/skinny.h>
#include <kuaisuo/curve25519.h>
#include <kuaisuo/pkcs8.h>

#endif /* KUAISUO_H_ */
