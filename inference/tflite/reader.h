// Reads a .tflite flatbuffer into an ir::Graph. The flatbuffers Verifier always
// runs first; corrupt, truncated or unsupported files give InvalidArgument /
// DataLoss / Unimplemented naming the file (and operator index and op name for
// unsupported ops). No TFLite code is used: the schema subset lives in
// inference/tflite/tflite_schema.fbs.
#ifndef SLUICE_INFERENCE_TFLITE_READER_H_
#define SLUICE_INFERENCE_TFLITE_READER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "inference/ir.h"

namespace sluice::inference::tflite {

// `name` is used in messages (usually the file name). Only subgraph 0 is read.
absl::StatusOr<ir::Graph> ReadModel(std::string_view bytes, std::string_view name);
absl::StatusOr<ir::Graph> ReadModelFile(const std::string& path);

}  // namespace sluice::inference::tflite

#endif  // SLUICE_INFERENCE_TFLITE_READER_H_
