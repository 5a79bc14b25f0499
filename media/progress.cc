#include "media/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice {
namespace {

std::string FormatDuration(double seconds) {
  const int64_t s = static_cast<int64_t>(std::llround(seconds));
  if (s >= 3600) return absl::StrFormat("%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60);
  return absl::StrFormat("%d:%02d", s / 60, s % 60);
}

}  // namespace

std::string FormatProgress(int64_t done, int64_t total, double elapsed_s) {
  const double fps = elapsed_s > 0 ? done / elapsed_s : 0.0;
  std::string line;
  if (total > 0) {
    const double pct = 100.0 * static_cast<double>(done) / static_cast<double>(total);
    line = absl::StrFormat("frame %d/%d (%.0f%%)", done, total, pct);
  } else {
    line = absl::StrFormat("frame %d", done);
  }
  absl::StrAppendFormat(&line, "  %.1f fps  elapsed %s", fps, FormatDuration(elapsed_s));
  if (total > 0 && fps > 0 && done <= total) {
    absl::StrAppend(&line, "  ETA ", FormatDuration((total - done) / fps));
  }
  return line;
}

ProgressLine::ProgressLine(int64_t total) : ProgressLine(total, isatty(STDERR_FILENO) == 1) {}

ProgressLine::ProgressLine(int64_t total, bool enabled)
    : total_(total), enabled_(enabled), start_(Clock::now()), last_draw_(start_) {}

ProgressLine::~ProgressLine() {
  if (drawn_) std::fputc('\n', stderr);
}

void ProgressLine::Update(int64_t done) {
  done_ = done;
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // \r and clear-to-end-of-line redraw in place.
  std::fprintf(stderr, "\r%s\x1b[K", FormatProgress(done, total_, elapsed).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::Finish() {
  if (!enabled_) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  std::fprintf(stderr, "\r%s\x1b[K\n", FormatProgress(done_, total_, elapsed).c_str());
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace sluice
