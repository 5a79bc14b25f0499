// The harness itself: every standard case runs on every built backend and
// agrees with reference; a deliberately wrong backend is caught.
#include "inference/testing/op_harness.h"

#include "gtest/gtest.h"
#include "inference/backend.h"
#include "inference/reference/reference_kernels.h"

namespace sluice::inference::testing {
namespace {

TEST(OpHarnessTest, CasesCoverTheInventoryOps) {
  const std::vector<OpCase> cases = StandardOpCases();
  EXPECT_GT(cases.size(), 50u);
  for (const OpCase& c : cases) EXPECT_TRUE(c.graph.Validate().ok()) << c.name;
}

TEST(OpHarnessTest, EveryBuiltBackendMatchesReference) {
  for (const std::string& name : BuiltBackendNames()) {
    const Backend* backend = FindBackend(name);
    ASSERT_NE(backend, nullptr);
    if (!backend->IsAvailable()) continue;
    for (const OpCase& c : StandardOpCases()) {
      auto r = CompareWithReference(c, *backend, Tolerance{1e-4f, 1e-4f});
      ASSERT_TRUE(r.ok()) << name << " " << c.name << ": " << r.status();
      EXPECT_TRUE(r->passed) << name << " " << c.name << ": " << r->detail;
    }
  }
}

// Reference with every output nudged: the harness must notice.
class OffByOneBackend : public Backend {
 public:
  std::string_view Name() const override { return "off_by_one"; }
  absl::Status SupportsOp(const ir::Graph& g, int i) const override {
    return reference::CheckOp(g, i);
  }
  absl::StatusOr<std::unique_ptr<CompiledModel>> Compile(const ir::Graph& g,
                                                         const BackendOptions& o) const override {
    ir::Graph shifted = g;
    // Append "+ 0.01" to the first output.
    const int out = shifted.outputs[0];
    ir::Tensor extra = shifted.tensors[out];
    extra.name += "_shifted";
    shifted.tensors.push_back(extra);
    ir::Tensor c;
    c.name = "eps";
    c.shape = {1};
    c.is_constant = true;
    const float eps = 0.01f;
    c.data.resize(4);
    std::memcpy(c.data.data(), &eps, 4);
    shifted.tensors.push_back(c);
    ir::Op add;
    add.type = ir::OpType::kAdd;
    add.inputs = {out, static_cast<int>(shifted.tensors.size()) - 1};
    add.outputs = {static_cast<int>(shifted.tensors.size()) - 2};
    add.options = ir::BinaryOptions{};
    shifted.ops.push_back(add);
    shifted.outputs[0] = add.outputs[0];
    graphs_.push_back(std::make_unique<ir::Graph>(std::move(shifted)));
    return reference::CreateReferenceBackend()->Compile(*graphs_.back(), o);
  }
  mutable std::vector<std::unique_ptr<ir::Graph>> graphs_;
};

TEST(OpHarnessTest, DetectsAWrongBackend) {
  OffByOneBackend bad;
  const OpCase c = StandardOpCases()[0];
  auto r = CompareWithReference(c, bad, Tolerance{1e-4f, 1e-4f});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->passed);
  EXPECT_NEAR(r->max_abs_error, 0.01, 1e-4);
}

TEST(OpHarnessTest, PerfModeTimesACase) {
  auto ms = TimeOpCase(StandardOpCases()[0], *FindBackend("reference"), 1, 3);
  ASSERT_TRUE(ms.ok()) << ms.status();
  EXPECT_GE(*ms, 0.0);
}

}  // namespace
}  // namespace sluice::inference::testing
