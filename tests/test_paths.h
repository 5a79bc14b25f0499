// Where tests find the shared, read-only material (../shared beside the repo).
#ifndef SLUICE_TESTS_TEST_PATHS_H_
#define SLUICE_TESTS_TEST_PATHS_H_

#include <cstdlib>
#include <string>

namespace sluice::testing {

inline std::string SharedDir() {
  const char* env = std::getenv("SLUICE_SHARED_DIR");
  return env != nullptr && *env != '\0' ? env : "../shared";
}

inline std::string SharedPath(const std::string& relative) {
  return SharedDir() + "/" + relative;
}

}  // namespace sluice::testing

#endif  // SLUICE_TESTS_TEST_PATHS_H_
