#include "sweep/sweep_progress.h"

#include <fmt/format.h>

namespace fb::sweep {

SweepProgress::SweepProgress(std::FILE* out, bool tty, size_t total, double line_interval_s)
    : out_(out),
      tty_(tty),
      total_(total),
      interval_s_(tty ? 0.2 : line_interval_s),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

std::string SweepProgress::FormatDuration(double s) {
  const int64_t t = static_cast<int64_t>(s + 0.5);
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, t % 3600 / 60);
  if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

void SweepProgress::Update(size_t finished, size_t failed, size_t running, bool force) {
  if (!out_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && std::chrono::duration<double>(now - last_).count() < interval_s_) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string eta = "?";
  if (finished > 0)
    eta = FormatDuration(elapsed / finished * (total_ - std::min(finished, total_)));
  const std::string stats =
      fmt::format("{}/{} runs, {} failed, {} running, {} elapsed, ETA {}", finished, total_, failed,
                  running, FormatDuration(elapsed), eta);
  if (tty_) {
    constexpr size_t kWidth = 30;
    const size_t filled = total_ ? kWidth * std::min(finished, total_) / total_ : kWidth;
    std::string bar(filled, '=');
    if (filled < kWidth) bar += '>' + std::string(kWidth - filled - 1, ' ');
    std::fprintf(out_, "\r[%s] %s\033[K", bar.c_str(), stats.c_str());
    drawn_ = true;
  } else {
    std::fprintf(out_, "%s\n", stats.c_str());
  }
  std::fflush(out_);
}

void SweepProgress::Finish() {
  if (!out_) return;
  if (tty_ && drawn_) std::fprintf(out_, "\n");
  std::fflush(out_);
}

}  // namespace fb::sweep
