// A one-line terminal progress report ("frame 120/900  29.8 fps  ETA 0:26"),
// redrawn in place on stderr, only when stderr is a terminal.
#ifndef SLUICE_MEDIA_PROGRESS_H_
#define SLUICE_MEDIA_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace sluice {

// The text of one progress line. `total` < 0 means unknown (no ETA, no
// percentage); `elapsed_s` is the time since the first frame.
std::string FormatProgress(int64_t done, int64_t total, double elapsed_s);

class ProgressLine {
 public:
  // `enabled` defaults to whether stderr is a TTY.
  explicit ProgressLine(int64_t total);
  ProgressLine(int64_t total, bool enabled);
  ~ProgressLine();  // Ends the line if one was drawn.

  // Records `done` frames; redraws at most ~10 times a second.
  void Update(int64_t done);
  // Draws the final state and ends the line.
  void Finish();

 private:
  using Clock = std::chrono::steady_clock;
  int64_t total_;
  bool enabled_;
  bool drawn_ = false;
  int64_t done_ = 0;
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace sluice

#endif  // SLUICE_MEDIA_PROGRESS_H_
