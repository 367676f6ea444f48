#include "apps/train_progress.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace fb::apps {

TrainProgress::TrainProgress(std::FILE* out, bool tty, double line_interval_s)
    : out_(out), tty_(tty), interval_s_(tty ? 0.2 : line_interval_s), last_(std::chrono::steady_clock::now()) {}

void TrainProgress::Update(const experiments::StepProgress& p) {
  const auto now = std::chrono::steady_clock::now();
  const bool last_step = p.step == p.total_steps;
  if (std::chrono::duration<double>(now - last_).count() < interval_s_ && !last_step) return;
  last_ = now;
  const double rate = p.elapsed_s > 0 ? p.steps_this_run / p.elapsed_s : 0;
  const double eta = rate > 0 ? (p.total_steps - p.step) / rate : 0;
  const int64_t epoch = p.steps_per_epoch > 0 ? (p.step - 1) / p.steps_per_epoch + 1 : 1;
  const int64_t epochs = p.steps_per_epoch > 0 ? p.total_steps / p.steps_per_epoch : 1;
  std::string stats = phase_.empty() ? fmt::format("epoch {}/{}", epoch, epochs) : phase_;
  stats += fmt::format(" step {}/{}", p.step, p.total_steps);
  if (!std::isnan(p.loss)) stats += fmt::format(" loss {:.4f}", p.loss);
  stats += fmt::format(" {:.1f} steps/s ETA {:.0f}s", rate, eta);
  if (tty_) {
    constexpr int kWidth = 30;
    const int filled = p.total_steps > 0 ? static_cast<int>(kWidth * p.step / p.total_steps) : 0;
    std::string bar(filled, '=');
    if (filled < kWidth) bar += '>' + std::string(kWidth - filled - 1, ' ');
    std::fprintf(out_, "\r[%s] %s\033[K", bar.c_str(), stats.c_str());
    drawn_ = true;
  } else {
    std::fprintf(out_, "%s\n", stats.c_str());
  }
  std::fflush(out_);
}

void TrainProgress::Finish() {
  if (tty_ && drawn_) std::fprintf(out_, "\n");
  drawn_ = false;
  std::fflush(out_);
}

}  // namespace fb::apps
