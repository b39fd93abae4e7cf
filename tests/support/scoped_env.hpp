#pragma once
// Sets an environment variable for one scope and restores what it was (the plans read their
// switches when they are made).
#include <cstdlib>
#include <optional>
#include <string>

namespace triax::test {

/// Sets `name` to `value` (nullptr: removes it) until the end of the scope. A null name sets
/// nothing, for tables of variants of which some have no switch.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (name_ == nullptr) return;
    if (const char* old = std::getenv(name)) saved_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ScopedEnv(const char* name, const std::string& value) : ScopedEnv(name, value.c_str()) {}
  ~ScopedEnv() {
    if (name_ == nullptr) return;
    if (saved_) {
      setenv(name_, saved_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

}  // namespace triax::test
