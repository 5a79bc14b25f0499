#include "framework/calculator_context.h"

#include "framework/graph_internal.h"

namespace sluice {
namespace {
const std::string& OrEmpty(const std::string* s) {
  static const std::string kEmpty;
  return s ? *s : kEmpty;
}
}  // namespace

const std::string& InputStreamShard::Name() const { return OrEmpty(name_); }
const std::string& OutputStreamShard::Name() const { return OrEmpty(name_); }

void OutputStreamShard::AddPacket(Packet&& packet) {
  if (!error_.ok()) return;
  const Timestamp ts = packet.Timestamp();
  if (closed_) {
    error_ = absl::FailedPreconditionError("Packet added to output stream \"" + Name() +
                                           "\" after it was closed");
  } else if (packet.IsEmpty()) {
    error_ = absl::InvalidArgumentError("Empty packet added to output stream \"" + Name() + "\"");
  } else if (!ts.IsAllowedInStream()) {
    error_ = absl::InvalidArgumentError("Timestamp " + ts.DebugString() +
                                        " is not allowed for packets of output stream \"" +
                                        Name() + "\"");
  } else if (ts < bound_) {
    error_ = absl::InvalidArgumentError(
        "Packet timestamp mismatch on output stream \"" + Name() +
        "\": the smallest allowed timestamp is " + bound_.DebugString() + " but got " +
        ts.DebugString() + " (timestamps must strictly increase and respect bounds)");
  } else if (type_ != nullptr) {
    absl::Status s = type_->Validate(packet);
    if (!s.ok()) {
      error_ = absl::InvalidArgumentError("On output stream \"" + Name() + "\": " +
                                          std::string(s.message()));
    }
  }
  if (!error_.ok()) return;
  bound_ = ts.NextAllowedInStream();
  packets_.push_back(std::move(packet));
}

void OutputStreamShard::SetNextTimestampBound(Timestamp bound) {
  if (closed_) return;
  if (bound > bound_) bound_ = bound;
}

void OutputStreamShard::Close() {
  closed_ = true;
  bound_ = Timestamp::Done();
}

void OutputSidePacket::Set(const Packet& packet) {
  if (!packet_.IsEmpty()) {
    error_ = absl::AlreadyExistsError("Output side packet \"" + OrEmpty(name_) +
                                      "\" was set twice");
    return;
  }
  packet_ = packet;
}

const std::string& CalculatorContext::NodeName() const { return node_->name; }
const std::string& CalculatorContext::CalculatorType() const { return node_->calculator; }

std::shared_ptr<void> CalculatorContext::FindService(const std::string& key) const {
  return node_->graph()->FindService(key);
}

absl::Status CalculatorContext::GraphStatus() const { return node_->graph()->GraphStatus(); }

}  // namespace sluice
