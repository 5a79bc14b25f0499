// Sets an environment variable for a scope (or, with a null value, unsets
// it) and restores it after (tests that flip a switch read by the code under
// test).
#ifndef SLUICE_UTIL_SCOPED_ENV_H_
#define SLUICE_UTIL_SCOPED_ENV_H_

#include <cstdlib>
#include <string>

namespace sluice {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_.c_str(), old_.c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  bool had_ = false;
  std::string old_;
};

}  // namespace sluice

#endif  // SLUICE_UTIL_SCOPED_ENV_H_
