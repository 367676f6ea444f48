#pragma once
// Progress reporting of `flowbench train`: on a terminal a one-line progress bar redrawn a few
// times per second (epoch, step, loss, steps/s, ETA); otherwise (logs, CI) a plain line every
// few seconds.
#include <chrono>
#include <cstdio>

#include "experiments/training/trainer.h"

namespace fb::apps {

class TrainProgress {
 public:
  // `tty`: draw a bar (usually isatty(fileno(out))).
  TrainProgress(std::FILE* out, bool tty, double line_interval_s = 5.0);
  void Update(const experiments::StepProgress& p);
  // Ends the bar's line.
  void Finish();

 private:
  std::FILE* out_;
  bool tty_;
  double interval_s_;
  std::chrono::steady_clock::time_point last_;
  bool drawn_ = false;
};

}  // namespace fb::apps
