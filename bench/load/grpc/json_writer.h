// The JSON report's writer.
#ifndef KUAISUO_BENCH_LOAD_GRPC_JSON_WRITER_H_
#define KUAISUO_BENCH_LOAD_GRPC_JSON_WRITER_H_

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmath>
#include <string>
#include <vector>

namespace kuaisuo::load {

// A JSON document written in order, a member a line (as bench/load's
// json.dump(indent=1)); all this report needs.
class JsonWriter {
 public:
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  void key(const std::string& k) {
    member_prefix();
    append_string(k);
    out_ += ": ";
    after_key_ = true;
  }

  void string(const std::string& s) {
    value_prefix();
    append_string(s);
  }

  void null() {
    value_prefix();
    out_ += "null";
  }

  void uint(uint64_t v) {
    value_prefix();
    out_ += std::to_string(v);
  }

  // Doubles as Python writes floats ("20.0", "1.234"); non-finite as null.
  void number(double v) {
    value_prefix();
    if (!std::isfinite(v)) {
      out_ += "null";
      return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", v);
    out_ += buf;
    if (strpbrk(buf, ".eE") == nullptr) out_ += ".0";
  }

  void member(const std::string& k, const std::string& v) {
    key(k);
    string(v);
  }

  void member(const std::string& k, uint64_t v) {
    key(k);
    uint(v);
  }

  void member(const std::string& k, double v) {
    key(k);
    number(v);
  }

  const std::string& text() const { return out_; }

 private:
  void open(char c) {
    value_prefix();
    out_ += c;
    first_.push_back(true);
  }

  void close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_ += c;
  }

  void value_prefix() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    member_prefix();
  }

  void member_prefix() {
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    newline();
  }

  void newline() {
    out_ += '\n';
    out_.append(first_.size(), ' ');
  }

  void append_string(const std::string& s) {
    out_ += '"';
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += static_cast<char>(c);
      } else if (c < 0x20) {
        char buf[8];
        snprintf(buf, sizeof buf, "\\u%04x", c);
        out_ += buf;
      } else {
        out_ += static_cast<char>(c);
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> first_;  // per open container: no member written yet
  bool after_key_ = false;
};

}  // namespace kuaisuo::load

#endif  // KUAISUO_BENCH_LOAD_GRPC_JSON_WRITER_H_
