#pragma once
// A small streaming JSON writer: objects, arrays, strings, numbers, booleans. Commas and
// escaping are handled here so the callers only say what goes where.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace triax::bench {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  JsonWriter& begin_object() {
    open('{');
    return *this;
  }
  JsonWriter& end_object() {
    close('}');
    return *this;
  }
  JsonWriter& begin_array() {
    open('[');
    return *this;
  }
  JsonWriter& end_array() {
    close(']');
    return *this;
  }

  /// The next value belongs to this key (inside an object).
  JsonWriter& key(std::string_view k) {
    separate();
    string(k);
    out_ << ": ";
    after_key_ = true;
    return *this;
  }

  JsonWriter& value(std::string_view s) {
    separate();
    string(s);
    return *this;
  }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(bool v) {
    separate();
    out_ << (v ? "true" : "false");
    return *this;
  }
  JsonWriter& value(std::int64_t v) {
    separate();
    out_ << v;
    return *this;
  }
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(double v) {
    separate();
    if (!std::isfinite(v)) {
      out_ << "null";
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", v);
      out_ << buf;
    }
    return *this;
  }
  JsonWriter& value(const std::vector<std::int64_t>& v) {
    begin_array();
    for (auto x : v) value(x);
    return end_array();
  }

  template <class V>
  JsonWriter& field(std::string_view k, const V& v) {
    key(k);
    return value(v);
  }

 private:
  void open(char c) {
    separate();
    out_ << c;
    first_.push_back(true);
  }
  void close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_ << c;
  }
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ << ',';
    first_.back() = false;
    newline();
  }
  void newline() { out_ << '\n' << std::string(2 * first_.size(), ' '); }
  void string(std::string_view s) {
    out_ << '"';
    for (char ch : s) {
      switch (ch) {
        case '"':
          out_ << "\\\"";
          break;
        case '\\':
          out_ << "\\\\";
          break;
        case '\n':
          out_ << "\\n";
          break;
        case '\t':
          out_ << "\\t";
          break;
        default:
          if (static_cast<unsigned char>(ch) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", ch);
            out_ << buf;
          } else {
            out_ << ch;
          }
      }
    }
    out_ << '"';
  }

  std::ostream& out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace triax::bench
