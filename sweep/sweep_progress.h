#pragma once
// The progress line of `flowbench sweep`: on a terminal a bar redrawn a few times a second
// ("[=====>    ] 120/1000 runs, 3 failed, 2 running, ETA 1m20s"); otherwise (logs, CI) a plain
// line every few seconds. The ETA assumes the remaining runs take as long as the finished ones.
#include <chrono>
#include <cstdio>
#include <string>

namespace fb::sweep {

class SweepProgress {
 public:
  SweepProgress(std::FILE* out, bool tty, size_t total, double line_interval_s = 5.0);
  // `finished` counts failed runs too.
  void Update(size_t finished, size_t failed, size_t running, bool force = false);
  // Ends the bar's line.
  void Finish();
  // "1m20s", "2h03m", "45s".
  static std::string FormatDuration(double seconds);

 private:
  std::FILE* out_;
  bool tty_;
  size_t total_;
  double interval_s_;
  std::chrono::steady_clock::time_point start_, last_;
  bool drawn_ = false;
};

}  // namespace fb::sweep
