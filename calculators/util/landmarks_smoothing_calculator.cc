// LandmarksSmoothingCalculator: smooths landmark coordinates over time, each
// axis of each landmark with its own filter (MediaPipe's algorithm).
//
//   node {
//     calculator: "LandmarksSmoothingCalculator"
//     input_stream: "NORM_LANDMARKS:landmarks"   # or LANDMARKS (then no IMAGE_SIZE)
//     input_stream: "IMAGE_SIZE:image_size"      # std::pair<int,int>, with NORM_LANDMARKS
//     input_stream: "OBJECT_SCALE_ROI:roi"       # optional: NormalizedRect (Rect with LANDMARKS)
//     output_stream: "NORM_FILTERED_LANDMARKS:filtered"  # or FILTERED_LANDMARKS
//     options: { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
//       one_euro_filter { min_cutoff: 0.05 beta: 80.0 derivate_cutoff: 1.0 } } }
//   }
//
// Normalized landmarks are filtered in pixels (x*W, y*H, z*W) and converted
// back. Timestamps are the packets' (microseconds). Value scale = 1 / object
// scale, the object scale being (roi.w*W + roi.h*H)/2 from the ROI or
// (width + height)/2 of the landmarks' bounding box; below
// min_allowed_object_scale landmarks pass through. `disable_value_scaling`
// uses 1. When the node runs with no landmarks (e.g. IMAGE_SIZE alone, when
// tracking is lost) the filters reset and nothing is emitted.
#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/landmarks_smoothing_calculator.pb.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "util/filtering/one_euro_filter.h"
#include "util/filtering/relative_velocity_filter.h"

namespace sluice {
namespace {

constexpr char kNormLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kLandmarksTag[] = "LANDMARKS";
constexpr char kImageSizeTag[] = "IMAGE_SIZE";
constexpr char kObjectScaleRoiTag[] = "OBJECT_SCALE_ROI";
constexpr char kNormFilteredTag[] = "NORM_FILTERED_LANDMARKS";
constexpr char kFilteredTag[] = "FILTERED_LANDMARKS";

using mediapipe::LandmarkList;
using mediapipe::LandmarksSmoothingCalculatorOptions;
using mediapipe::NormalizedLandmarkList;
using mediapipe::NormalizedRect;
using mediapipe::Rect;

absl::Status Error(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("LandmarksSmoothingCalculator: ", what));
}

// (width + height) / 2 of the landmarks' bounding box in x/y.
float ObjectScaleOf(const LandmarkList& landmarks) {
  if (landmarks.landmark_size() == 0) return 0.0f;
  auto [min_x, max_x] =
      std::minmax_element(landmarks.landmark().begin(), landmarks.landmark().end(),
                          [](const auto& a, const auto& b) { return a.x() < b.x(); });
  auto [min_y, max_y] =
      std::minmax_element(landmarks.landmark().begin(), landmarks.landmark().end(),
                          [](const auto& a, const auto& b) { return a.y() < b.y(); });
  return ((max_x->x() - min_x->x()) + (max_y->y() - min_y->y())) / 2.0f;
}

// Per-axis filters of one landmark list, created on first use.
class LandmarksFilter {
 public:
  virtual ~LandmarksFilter() = default;
  virtual void Reset() {}
  virtual absl::Status Apply(const LandmarkList& in, int64_t timestamp_ns,
                             std::optional<float> object_scale, LandmarkList* out) = 0;
};

class NoFilter : public LandmarksFilter {
 public:
  absl::Status Apply(const LandmarkList& in, int64_t, std::optional<float>,
                     LandmarkList* out) override {
    *out = in;
    return absl::OkStatus();
  }
};

// Shared by the velocity and one-euro filters: value scaling and x/y/z loops.
template <typename Filter>
class AxisFilters : public LandmarksFilter {
 public:
  AxisFilters(float min_allowed_object_scale, bool disable_value_scaling,
              bool create_before_scale_check)
      : min_allowed_object_scale_(min_allowed_object_scale),
        disable_value_scaling_(disable_value_scaling),
        create_before_scale_check_(create_before_scale_check) {}

  void Reset() override { filters_.clear(); }

  absl::Status Apply(const LandmarkList& in, int64_t timestamp_ns,
                     std::optional<float> object_scale, LandmarkList* out) override {
    // MediaPipe creates one-euro filters before the scale check and velocity
    // filters after it; the order decides whether a length change is caught.
    if (create_before_scale_check_) {
      if (absl::Status s = EnsureFilters(in.landmark_size()); !s.ok()) return s;
    }
    float value_scale = 1.0f;
    if (!disable_value_scaling_) {
      const float scale = object_scale ? *object_scale : ObjectScaleOf(in);
      if (scale < min_allowed_object_scale_) {
        *out = in;
        return absl::OkStatus();
      }
      value_scale = 1.0f / scale;
    }
    if (!create_before_scale_check_) {
      if (absl::Status s = EnsureFilters(in.landmark_size()); !s.ok()) return s;
    }
    out->Clear();
    for (int i = 0; i < in.landmark_size(); ++i) {
      const auto& lm = in.landmark(i);
      auto* o = out->add_landmark();
      *o = lm;
      o->set_x(filters_[i][0].Apply(timestamp_ns, lm.x(), value_scale));
      o->set_y(filters_[i][1].Apply(timestamp_ns, lm.y(), value_scale));
      o->set_z(filters_[i][2].Apply(timestamp_ns, lm.z(), value_scale));
    }
    return absl::OkStatus();
  }

 protected:
  virtual Filter MakeFilter() const = 0;

 private:
  absl::Status EnsureFilters(int n) {
    if (filters_.empty()) {
      for (int i = 0; i < n; ++i) filters_.push_back({MakeFilter(), MakeFilter(), MakeFilter()});
      return absl::OkStatus();
    }
    if (static_cast<int>(filters_.size()) != n) {
      return Error(absl::StrCat("the landmark list had ", filters_.size(), " landmarks, now ", n));
    }
    return absl::OkStatus();
  }

  float min_allowed_object_scale_;
  bool disable_value_scaling_;
  bool create_before_scale_check_;
  std::vector<std::vector<Filter>> filters_;
};

class VelocityFilter : public AxisFilters<filtering::RelativeVelocityFilter> {
 public:
  explicit VelocityFilter(const LandmarksSmoothingCalculatorOptions::VelocityFilter& o)
      : AxisFilters(o.min_allowed_object_scale(), o.disable_value_scaling(),
                    /*create_before_scale_check=*/false),
        window_size_(o.window_size()),
        velocity_scale_(o.velocity_scale()) {}

 protected:
  filtering::RelativeVelocityFilter MakeFilter() const override {
    return filtering::RelativeVelocityFilter(window_size_, velocity_scale_);
  }

 private:
  int window_size_;
  float velocity_scale_;
};

class OneEuroFilter : public AxisFilters<filtering::OneEuroFilter> {
 public:
  OneEuroFilter(const LandmarksSmoothingCalculatorOptions::OneEuroFilter& o,
                filtering::OneEuroFilter prototype)
      : AxisFilters(o.min_allowed_object_scale(), o.disable_value_scaling(),
                    /*create_before_scale_check=*/true),
        prototype_(std::move(prototype)) {}

 protected:
  filtering::OneEuroFilter MakeFilter() const override { return prototype_; }

 private:
  filtering::OneEuroFilter prototype_;  // parameters checked once, copied per axis
};

absl::StatusOr<std::unique_ptr<LandmarksFilter>> MakeLandmarksFilter(
    const LandmarksSmoothingCalculatorOptions& options) {
  if (options.has_no_filter()) return std::make_unique<NoFilter>();
  if (options.has_velocity_filter()) {
    if (options.velocity_filter().window_size() < 0) {
      return Error(absl::StrCat("velocity_filter.window_size must be >= 0, got ",
                                options.velocity_filter().window_size()));
    }
    return std::make_unique<VelocityFilter>(options.velocity_filter());
  }
  if (options.has_one_euro_filter()) {
    const auto& o = options.one_euro_filter();
    auto prototype = filtering::OneEuroFilter::Create(o.frequency(), o.min_cutoff(), o.beta(),
                                                      o.derivate_cutoff());
    if (!prototype.ok()) {
      return Error(absl::StrCat("one_euro_filter: ", prototype.status().message()));
    }
    return std::make_unique<OneEuroFilter>(o, *std::move(prototype));
  }
  return Error("set one of the options no_filter, velocity_filter or one_euro_filter");
}

}  // namespace

class LandmarksSmoothingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const bool norm = cc->Inputs().HasTag(kNormLandmarksTag);
    if (norm == cc->Inputs().HasTag(kLandmarksTag)) {
      return Error("connect exactly one of NORM_LANDMARKS and LANDMARKS");
    }
    std::string errors;
    if (norm) {
      if (!cc->Inputs().HasTag(kImageSizeTag)) errors += " NORM_LANDMARKS needs IMAGE_SIZE;";
      if (!cc->Outputs().HasTag(kNormFilteredTag) || cc->Outputs().HasTag(kFilteredTag)) {
        errors += " NORM_LANDMARKS needs a NORM_FILTERED_LANDMARKS output (only);";
      }
    } else {
      if (cc->Inputs().HasTag(kImageSizeTag)) errors += " LANDMARKS takes no IMAGE_SIZE;";
      if (!cc->Outputs().HasTag(kFilteredTag) || cc->Outputs().HasTag(kNormFilteredTag)) {
        errors += " LANDMARKS needs a FILTERED_LANDMARKS output (only);";
      }
    }
    if (!errors.empty()) {
      errors.pop_back();
      return Error(errors.substr(1));
    }
    if (norm) {
      cc->Inputs().Tag(kNormLandmarksTag).Set<NormalizedLandmarkList>();
      cc->Inputs().Tag(kImageSizeTag).Set<std::pair<int, int>>();
      cc->Outputs().Tag(kNormFilteredTag).Set<NormalizedLandmarkList>();
      if (cc->Inputs().HasTag(kObjectScaleRoiTag)) {
        cc->Inputs().Tag(kObjectScaleRoiTag).Set<NormalizedRect>();
      }
    } else {
      cc->Inputs().Tag(kLandmarksTag).Set<LandmarkList>();
      cc->Outputs().Tag(kFilteredTag).Set<LandmarkList>();
      if (cc->Inputs().HasTag(kObjectScaleRoiTag)) {
        cc->Inputs().Tag(kObjectScaleRoiTag).Set<Rect>();
      }
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    auto filter = MakeLandmarksFilter(cc->Options<LandmarksSmoothingCalculatorOptions>());
    if (!filter.ok()) return filter.status();
    filter_ = *std::move(filter);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const bool norm = cc->Inputs().HasTag(kNormLandmarksTag);
    const char* in_tag = norm ? kNormLandmarksTag : kLandmarksTag;
    if (cc->Inputs().Tag(in_tag).IsEmpty()) {
      filter_->Reset();
      return absl::OkStatus();
    }
    const int64_t timestamp_ns = cc->InputTimestamp().Microseconds() * 1000;
    const bool has_roi =
        cc->Inputs().HasTag(kObjectScaleRoiTag) && !cc->Inputs().Tag(kObjectScaleRoiTag).IsEmpty();
    if (!norm) {
      std::optional<float> object_scale;
      if (has_roi) {
        const Rect& roi = cc->Inputs().Tag(kObjectScaleRoiTag).Get<Rect>();
        object_scale = (roi.width() + roi.height()) / 2.0f;
      }
      auto out = std::make_unique<LandmarkList>();
      absl::Status s = filter_->Apply(cc->Inputs().Tag(in_tag).Get<LandmarkList>(), timestamp_ns,
                                      object_scale, out.get());
      if (!s.ok()) return s;
      cc->Outputs().Tag(kFilteredTag).Add(out.release(), cc->InputTimestamp());
      return absl::OkStatus();
    }

    if (cc->Inputs().Tag(kImageSizeTag).IsEmpty()) {
      return Error(absl::StrCat("IMAGE_SIZE missing at ", cc->InputTimestamp().DebugString(),
                                " (needed to filter NORM_LANDMARKS in pixels)"));
    }
    const auto [width, height] = cc->Inputs().Tag(kImageSizeTag).Get<std::pair<int, int>>();
    if (width <= 0 || height <= 0) {
      return Error(absl::StrCat("IMAGE_SIZE must be positive, got ", width, "x", height));
    }
    std::optional<float> object_scale;
    if (has_roi) {
      const NormalizedRect& roi = cc->Inputs().Tag(kObjectScaleRoiTag).Get<NormalizedRect>();
      object_scale = (roi.width() * width + roi.height() * height) / 2.0f;
    }
    // Filter in pixels; z is scaled like x (by the width), as MediaPipe does.
    const auto& in = cc->Inputs().Tag(in_tag).Get<NormalizedLandmarkList>();
    LandmarkList pixels;
    for (const auto& n : in.landmark()) {
      auto* p = pixels.add_landmark();
      p->set_x(n.x() * width);
      p->set_y(n.y() * height);
      p->set_z(n.z() * width);
      if (n.has_visibility()) p->set_visibility(n.visibility());
      if (n.has_presence()) p->set_presence(n.presence());
    }
    LandmarkList filtered;
    absl::Status s = filter_->Apply(pixels, timestamp_ns, object_scale, &filtered);
    if (!s.ok()) return s;
    auto out = std::make_unique<NormalizedLandmarkList>();
    for (const auto& p : filtered.landmark()) {
      auto* n = out->add_landmark();
      n->set_x(p.x() / width);
      n->set_y(p.y() / height);
      n->set_z(p.z() / width);
      if (p.has_visibility()) n->set_visibility(p.visibility());
      if (p.has_presence()) n->set_presence(p.presence());
    }
    cc->Outputs().Tag(kNormFilteredTag).Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<LandmarksFilter> filter_;
};
REGISTER_CALCULATOR(LandmarksSmoothingCalculator);

}  // namespace sluice
