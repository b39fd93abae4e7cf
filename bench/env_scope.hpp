#pragma once
// Environment switches set for one scope and restored after (EnvVariant, case.hpp): the library
// reads its tuning switches when a plan is made or a solve is chosen, so a variant's plan is
// made and timed inside the scope.
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace triax::bench {

class EnvScope {
 public:
  explicit EnvScope(const std::vector<std::pair<std::string, std::string>>& env) {
    for (const auto& [name, value] : env) {
      const char* old = std::getenv(name.c_str());
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~EnvScope() {
    // Backwards, so that a name set twice ends as it was before the first.
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }
  EnvScope(const EnvScope&) = delete;
  EnvScope& operator=(const EnvScope&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace triax::bench
