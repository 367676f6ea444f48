#pragma once
// Progress reporting of `flowbench train` and `flowbench benchmark`: on a terminal a one-line
// progress bar redrawn a few times per second (epoch or phase, step, loss, steps/s, ETA);
// otherwise (logs, CI) a plain line every few seconds.
#include <chrono>
#include <cstdio>
#include <string>

#include "experiments/training/trainer.h"

namespace fb::apps {

class TrainProgress {
 public:
  // `tty`: draw a bar (usually isatty(fileno(out))).
  TrainProgress(std::FILE* out, bool tty, double line_interval_s = 5.0);
  // Draws `p`; a NaN loss (a step that computes none) is left out.
  void Update(const experiments::StepProgress& p);
  // Labels the following updates with `phase` (e.g. "warm-up") instead of the epoch; "" goes
  // back to epochs. Call Finish first to end the previous phase's bar.
  void SetPhase(std::string phase) { phase_ = std::move(phase); }
  // Ends the bar's line (the next Update starts a new one).
  void Finish();

 private:
  std::FILE* out_;
  bool tty_;
  double interval_s_;
  std::chrono::steady_clock::time_point last_;
  bool drawn_ = false;
  std::string phase_;
};

}  // namespace fb::apps
