// ks_ctx creation: resolves the backend and opens the GPU engine if asked.
#include <stddef.h>
#include <string.h>

#include <algorithm>
#include <new>

#include "api/context.h"
#include "api/guard.h"
#include "kuaisuo/common.h"

void ks_ctx_config_init(ks_ctx_config* config) {
  if (config == nullptr) return;
  config->struct_size = sizeof(ks_ctx_config);
  config->backend = KS_BACKEND_AUTO;
  config->gpu_device = 0;
  config->cpu_threads = 0;
  config->gpu_flags = 0;
}

int ks_ctx_new(const ks_ctx_config* config, ks_ctx** out) try {
  if (out == nullptr) return KS_ERR_NULL_POINTER;
  *out = nullptr;
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  if (config != nullptr) {
    // Callers built before gpu_flags pass the first 16 bytes.
    if (config->struct_size < offsetof(ks_ctx_config, gpu_flags)) return KS_ERR_LENGTH;
    memcpy(&cfg, config, std::min<size_t>(config->struct_size, sizeof cfg));
  }
  if (cfg.backend < KS_BACKEND_AUTO || cfg.backend > KS_BACKEND_GPU) return KS_ERR_INVALID_ARGUMENT;
  if (cfg.gpu_device < 0) return KS_ERR_INVALID_ARGUMENT;
  if (cfg.cpu_threads > 4096) return KS_ERR_INVALID_ARGUMENT;
  if ((cfg.gpu_flags & ~KS_GPU_WIDE_BASE_TABLE) != 0) return KS_ERR_INVALID_ARGUMENT;

  ks_ctx* ctx = new (std::nothrow) ks_ctx(static_cast<ks_backend>(cfg.backend), cfg.cpu_threads);
  if (ctx == nullptr) return KS_ERR_NO_MEMORY;
  ctx->gpu_flags = cfg.gpu_flags;
  if (cfg.backend != KS_BACKEND_CPU) {
    int status = KS_OK;
    ctx->gpu = ks::gpu::open_engine(cfg.gpu_device, &ctx->pool, &status);
    if (ctx->gpu == nullptr && cfg.backend == KS_BACKEND_GPU) {
      delete ctx;
      return status;
    }
  }
  *out = ctx;
  return KS_OK;
} KS_API_CATCH

void ks_ctx_free(ks_ctx* ctx) { delete ctx; }

int ks_ctx_backend(const ks_ctx* ctx) try {
  if (ctx == nullptr) return KS_ERR_NULL_POINTER;
  return ctx->gpu != nullptr ? KS_BACKEND_GPU : KS_BACKEND_CPU;
} KS_API_CATCH

uint32_t ks_ctx_cpu_threads(const ks_ctx* ctx) {
  return ctx == nullptr ? 0 : ctx->pool.threads();
}

int ks_ctx_set_stream(ks_ctx* ctx, void* stream) {
  if (ctx == nullptr) return KS_ERR_NULL_POINTER;
  if (ctx->gpu == nullptr) return KS_ERR_BACKEND_UNAVAILABLE;
  ctx->stream = stream;
  return KS_OK;
}

void* ks_ctx_stream(const ks_ctx* ctx) { return ctx == nullptr ? nullptr : ctx->stream; }
