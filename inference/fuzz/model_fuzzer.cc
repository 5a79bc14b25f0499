// libFuzzer target for the model loader: any byte string must give a model or a
// clear error, never a crash, a hang or a sanitizer report. Loading runs the
// flatbuffers Verifier, the reader, the load-time passes and every op's checks.
//
//   CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DSLUICE_BUILD_FUZZERS=ON
//   ninja -C build-fuzz model_fuzzer
//   build-fuzz/inference/fuzz/model_fuzzer -max_total_time=60 ../shared/testdata/tiny_models
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "inference/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto model = sluice::inference::Model::LoadFromBuffer(bytes, "fuzz-input");
  if (model.ok()) {
    // A model that loads must also compile on the reference backend.
    (void)model->CreateRunner("reference", 1);
  }
  return 0;
}
