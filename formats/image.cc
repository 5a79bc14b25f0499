#include "formats/image.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace sluice {

Image::Image(std::shared_ptr<ImageFrame> frame) {
  if (frame == nullptr) return;
  state_ = std::make_shared<State>();
  state_->format = frame->Format();
  state_->width = frame->Width();
  state_->height = frame->Height();
  state_->channels = frame->NumberOfChannels();
  state_->cpu = std::move(frame);
}

Image::Image(ImageFrame&& frame) : Image(std::make_shared<ImageFrame>(std::move(frame))) {}

Image::Image(ImageFormat::Format format, int width, int height,
             std::shared_ptr<ImageGpuStorage> gpu) {
  if (gpu == nullptr) return;
  state_ = std::make_shared<State>();
  state_->format = format;
  state_->width = width;
  state_->height = height;
  absl::StatusOr<int> ch = ImageFrame::NumberOfChannelsForFormat(format);
  state_->channels = ch.ok() ? *ch : 0;
  state_->gpu = std::move(gpu);
}

bool Image::UsesGpu() const {
  if (!state_) return false;
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->gpu != nullptr;
}

bool Image::HasCpuView() const {
  if (!state_) return false;
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->cpu != nullptr;
}

absl::StatusOr<std::shared_ptr<const ImageFrame>> Image::CpuView() const {
  if (!state_) return absl::FailedPreconditionError("Image::CpuView: the image is empty");
  std::lock_guard<std::mutex> l(state_->mu);
  if (state_->cpu) return std::shared_ptr<const ImageFrame>(state_->cpu);
  // Only the GPU side exists: download once and cache.
  absl::StatusOr<ImageFrame> frame =
      ImageFrame::Create(state_->format, state_->width, state_->height);
  if (!frame.ok()) return frame.status();
  absl::Status s = state_->gpu->DownloadTo(*frame);
  if (!s.ok()) {
    return absl::Status(s.code(),
                        absl::StrCat("Image::CpuView: GPU download failed: ", s.message()));
  }
  state_->cpu = std::make_shared<ImageFrame>(std::move(*frame));
  return std::shared_ptr<const ImageFrame>(state_->cpu);
}

std::shared_ptr<const ImageFrame> Image::GetImageFrameSharedPtr() const {
  absl::StatusOr<std::shared_ptr<const ImageFrame>> v = CpuView();
  return v.ok() ? *v : nullptr;
}

std::shared_ptr<ImageGpuStorage> Image::GpuStorage() const {
  if (!state_) return nullptr;
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->gpu;
}

void Image::SetGpuStorage(std::shared_ptr<ImageGpuStorage> gpu) const {
  if (!state_) return;
  std::lock_guard<std::mutex> l(state_->mu);
  state_->gpu = std::move(gpu);
}

}  // namespace sluice
