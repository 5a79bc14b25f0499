#include "calculators/tensor/inference_calculator.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/inference_calculator.pb.h"
#include "calculators/tensor/tflite_custom_op_resolver_calculator.h"
#include "formats/tensor.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "framework/tool/options_util.h"
#include "framework/tool/subgraph_expansion.h"
#include "framework/tool/subgraph_registry.h"
#include "util/status_macros.h"

namespace sluice {

absl::StatusOr<std::shared_ptr<const inference::Model>> LoadSharedModel(const std::string& path) {
  static std::mutex mu;
  static auto* cache = new std::map<std::string, std::weak_ptr<const inference::Model>>;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache->find(path); it != cache->end()) {
    if (auto model = it->second.lock()) return model;
  }
  ASSIGN_OR_RETURN(inference::Model model, inference::Model::Load(path));
  auto shared = std::make_shared<const inference::Model>(std::move(model));
  (*cache)[path] = shared;
  return shared;
}

namespace {

using mediapipe::InferenceCalculatorOptions;

// The selector: same node, implementation calculator chosen from the delegate.
absl::StatusOr<mediapipe::CalculatorGraphConfig> SelectInferenceImplementation(
    const mediapipe::CalculatorGraphConfig::Node& node) {
  mediapipe::CalculatorGraphConfig::Node impl = node;
  impl.set_calculator("InferenceCalculatorCpu");
  return MakeSingleNodeGraph(std::move(impl));
}
const SubgraphFactoryRegistrar kSelector("InferenceCalculator", &SelectInferenceImplementation);

int ThreadCount(const InferenceCalculatorOptions& options) {
  int n = -1;
  if (options.delegate().has_xnnpack()) n = options.delegate().xnnpack().num_threads();
  if (n <= 0) n = options.cpu_num_thread();
  // MediaPipe's default on Linux desktops is one XNNPACK thread: graphs get
  // their parallelism from running nodes concurrently, and several spinning
  // thread pools on few cores slow everything down.
  if (n <= 0) n = 1;
  return n;
}

// The backend for the node's delegate: `gpu` runs on the CUDA backend when it
// is built and a device is present, else on the CPU with a one-line notice
// (MediaPipe's *_gpu graphs still run); every other delegate runs on the best
// CPU backend. Never "auto": a CPU graph must not move to the GPU by itself.
std::string BackendForDelegate(const InferenceCalculatorOptions& options,
                               const std::string& node_name) {
  const char* cpu = inference::FindBackend("xnnpack") != nullptr ? "xnnpack" : "reference";
  if (!options.delegate().has_gpu()) return cpu;
  const inference::Backend* cuda = inference::FindBackend("cuda");
  if (cuda != nullptr && cuda->IsAvailable()) return "cuda";
  static std::once_flag notice;
  std::call_once(notice, [&] {
    std::fprintf(stderr, "sluice: node \"%s\" asks for the GPU delegate, but %s; running on %s\n",
                 node_name.c_str(),
                 cuda == nullptr ? "this build has no CUDA inference backend" : "no CUDA device was found",
                 cpu);
  });
  return cpu;
}

class InferenceCalculatorCpu : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag("TENSORS") || !cc->Outputs().HasTag("TENSORS")) {
      return absl::InvalidArgumentError(
          "InferenceCalculator needs a TENSORS input stream and a TENSORS output stream");
    }
    cc->Inputs().Tag("TENSORS").Set<std::vector<Tensor>>();
    cc->Outputs().Tag("TENSORS").Set<std::vector<Tensor>>();
    if (cc->InputSidePackets().HasTag("MODEL")) {
      cc->InputSidePackets().Tag("MODEL").Set<std::shared_ptr<const inference::Model>>();
    }
    // MediaPipe's graphs pass their custom-op resolver; our engine has those
    // ops built in, so it is accepted and ignored.
    if (cc->InputSidePackets().HasTag("OP_RESOLVER")) {
      cc->InputSidePackets().Tag("OP_RESOLVER").Set<TfLiteOpResolver>().Optional();
    }
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<InferenceCalculatorOptions>();
    if (cc->InputSidePackets().HasTag("MODEL")) {
      model_ = cc->InputSidePackets().Tag("MODEL").Get<std::shared_ptr<const inference::Model>>();
    } else {
      if (options.model_path().empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node \"", cc->NodeName(), "\": InferenceCalculatorOptions.model_path is empty "
            "and no MODEL side packet is connected"));
      }
      ASSIGN_OR_RETURN(std::string path, ResolveModelPath(options.model_path()));
      ASSIGN_OR_RETURN(model_, LoadSharedModel(path));
    }
    if (model_ == nullptr) return absl::InvalidArgumentError("the MODEL side packet is null");
    for (const auto* list : {&model_->inputs(), &model_->outputs()}) {
      for (const inference::TensorInfo& t : *list) {
        if (t.dtype != inference::ir::DType::kFloat32) {
          return absl::UnimplementedError(absl::StrCat(
              "model tensor ", t.name, " is ", std::string(inference::ir::DTypeName(t.dtype)),
              "; InferenceCalculator exchanges float32 tensors only"));
        }
      }
    }
    ASSIGN_OR_RETURN(runner_, model_->CreateRunner(BackendForDelegate(options, cc->NodeName()),
                                                   ThreadCount(options)));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("TENSORS").IsEmpty()) return absl::OkStatus();
    const auto& inputs = cc->Inputs().Tag("TENSORS").Get<std::vector<Tensor>>();
    RETURN_IF_ERROR(SyncToCpu(inputs));
    const auto& model_inputs = runner_->Inputs();
    if (inputs.size() != model_inputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat("the model takes ", model_inputs.size(),
                                                     " input tensors, got ", inputs.size()));
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      const inference::IoTensor& dst = model_inputs[i];
      if (inputs[i].element_type() != Tensor::ElementType::kFloat32 ||
          inputs[i].bytes() != dst.bytes) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input tensor ", i, " (", inputs[i].DebugString(), ") does not match the model's ",
            dst.name, " [", inference::ir::ShapeString(dst.shape), "] float32"));
      }
      auto view = inputs[i].GetCpuReadView();
      std::memcpy(dst.data, view.data(), dst.bytes);
    }
    RETURN_IF_ERROR(runner_->Invoke());
    auto outputs = std::make_unique<std::vector<Tensor>>();
    outputs->reserve(runner_->Outputs().size());
    for (const inference::IoTensor& src : runner_->Outputs()) {
      Tensor::Shape shape(std::vector<int>(src.shape.begin(), src.shape.end()));
      outputs->emplace_back(Tensor::ElementType::kFloat32, std::move(shape));
      auto view = outputs->back().GetCpuWriteView();
      std::memcpy(view.data(), src.data, src.bytes);
    }
    cc->Outputs().Tag("TENSORS").Add(outputs.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const inference::Model> model_;
  std::unique_ptr<inference::Runner> runner_;
};
REGISTER_CALCULATOR(InferenceCalculatorCpu);

}  // namespace
}  // namespace sluice
