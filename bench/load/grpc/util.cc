#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

namespace kuaisuo::load {

bool read_file(const std::string& path, std::string* out) {
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  out->clear();
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  const bool ok = !ferror(f);
  fclose(f);
  return ok;
}

bool write_file(const std::string& path, const std::string& text) {
  FILE* f = fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  const bool written = fwrite(text.data(), 1, text.size(), f) == text.size();
  return fclose(f) == 0 && written;
}

bool writable(const std::string& path) {
  if (access(path.c_str(), F_OK) == 0) return access(path.c_str(), W_OK) == 0;
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  return access(dir.c_str(), W_OK | X_OK) == 0;
}

bool ks_check(int rc, const char* what, const std::vector<int>* status) {
  if (rc == KS_OK) return true;
  if (rc == KS_ERR_BATCH_ITEMS && status != nullptr) {
    for (size_t i = 0; i < status->size(); ++i) {
      const int s = (*status)[i];
      if (s != KS_OK) {
        fprintf(stderr, "%s: %s: item %zu: %s (%d)\n", kTool, what, i, ks_strerror(s), s);
        return false;
      }
    }
  }
  fprintf(stderr, "%s: %s: %s (%d)\n", kTool, what, ks_strerror(rc), rc);
  return false;
}

bool fill_random(uint8_t* out, size_t len) {
  while (len > 0) {
    const ssize_t n = getrandom(out, len, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "%s: getrandom: %s\n", kTool, strerror(errno));
      return false;
    }
    out += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

CtxPtr cpu_context() {
  ks_ctx_config config;
  ks_ctx_config_init(&config);
  config.backend = KS_BACKEND_CPU;
  ks_ctx* raw = nullptr;
  if (!ks_check(ks_ctx_new(&config, &raw), "CPU context")) return nullptr;
  return CtxPtr(raw);
}

int32_t load_le32(const char* p) {
  const auto* b = reinterpret_cast<const uint8_t*>(p);
  return static_cast<int32_t>(uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 |
                              uint32_t{b[3]} << 24);
}

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void sleep_until(Clock::time_point t) {
  if (Clock::now() >= t) return;
  const int64_t ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  if (ns <= 0) return;
  timespec ts;
  ts.tv_sec = static_cast<time_t>(ns / 1000000000);
  ts.tv_nsec = static_cast<long>(ns % 1000000000);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

}  // namespace kuaisuo::load
