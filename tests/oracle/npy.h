// Minimal reader/writer for NumPy .npy files holding little-endian float32
// arrays in C order: the exchange format between our engine and the oracle.
#ifndef SLUICE_TESTS_ORACLE_NPY_H_
#define SLUICE_TESTS_ORACLE_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice::oracle {

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

// Parses format versions 1.0-3.0; only dtype '<f4', fortran_order False.
absl::StatusOr<NpyArray> ReadNpy(const std::string& path);
absl::Status WriteNpy(const std::string& path, const std::vector<int64_t>& shape,
                      const float* data);

}  // namespace sluice::oracle

#endif  // SLUICE_TESTS_ORACLE_NPY_H_
