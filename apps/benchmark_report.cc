#include "apps/benchmark_report.h"

#include <cmath>

#include <fmt/format.h>

namespace fb::apps {
namespace {

using experiments::BenchmarkMode;
using experiments::BenchmarkResult;

// 61706 -> "61,706".
std::string WithThousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t d : shape) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

// The optimizer a mode runs: none without an update.
std::string OptimizerText(const BenchmarkRunInfo& info) {
  const auto& m = info.options.model_options;
  if (info.options.mode != BenchmarkMode::kTrain) return "none";
  if (m.optimizer == "momentum") {
    return fmt::format("momentum {} (lr {})", m.momentum, m.learning_rate);
  }
  return fmt::format("{} (lr {})", m.optimizer, m.learning_rate);
}

// A double for JSON, null when not finite (JSON has no NaN).
nlohmann::json Number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nullptr; }

}  // namespace

std::string FormatBytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

std::string BenchmarkHeader(const BenchmarkRunInfo& info, const BenchmarkResult& r) {
  const experiments::BenchmarkOptions& o = info.options;
  std::string flops = "unknown (model statistics not available)";
  if (r.forward_flops_per_example) {
    flops = fmt::format("{:.4g} ({:.3f} GFLOP)", *r.forward_flops_per_example,
                        *r.forward_flops_per_example / 1e9);
  }
  std::string s;
  s += fmt::format("Model:        {}\n", r.model);
  s += fmt::format("Mode:         {} ({})\n", experiments::BenchmarkModeName(r.mode),
                   experiments::BenchmarkModeDescription(r.mode));
  s += fmt::format("Batch size:   {} ({} {} per step)\n", r.batch_size, r.examples_per_step,
                   r.example_unit);
  s +=
      fmt::format("Num batches:  {} timed after {} warm-up\n", o.num_batches, o.num_warmup_batches);
  s += fmt::format("Optimizer:    {}\n", OptimizerText(info));
  s += fmt::format("Threads:      {} (BLAS threads {})\n", o.threads, info.blas_threads);
  s += fmt::format("Devices:      {}{}\n", o.devices,
                   o.placer.empty() ? "" : ", placer " + o.placer);
  for (const std::string& d : r.devices) s += fmt::format("              {}\n", d);
  if (r.example_unit == "words") {
    s += fmt::format("Data:         {}, token ids [batch, {}], vocabulary {}\n", r.data,
                     r.image_shape.empty() ? 0 : r.image_shape[0], r.num_classes);
  } else {
    s += fmt::format("Data:         {}, images {}, {} classes\n", r.data,
                     ShapeText(r.image_shape), r.num_classes);
  }
  s += fmt::format("Parameters:   {}\n", WithThousands(r.parameter_count));
  s += fmt::format("Forward FLOPs per example: {}\n", flops);
  s += "==========\n";
  return s;
}

std::string BenchmarkSummary(const BenchmarkResult& r) {
  const experiments::StepTimeStats& t = r.stats;
  const std::string rule(64, '-');
  std::string s = rule + "\n";
  s += fmt::format("{}/sec: {:.1f} +/- {:.1f} (jitter = {:.1f})\n", r.example_unit,
                   t.examples_per_sec_mean, t.examples_per_sec_uncertainty,
                   t.examples_per_sec_jitter);
  s += fmt::format("{}/sec median: {:.1f}, total: {:.1f}\n", r.example_unit,
                   t.examples_per_sec_median, r.total_examples_per_sec);
  s += fmt::format("ms/step: {:.3f} median, {:.3f} p10, {:.3f} p90 ({} steps)\n", t.ms_median,
                   t.ms_p10, t.ms_p90, t.steps);
  for (const auto& [device, bytes] : r.peak_bytes) {
    s += fmt::format("peak memory {}: {}\n", device, FormatBytes(bytes));
  }
  s += fmt::format("process peak RSS: {}\n", FormatBytes(r.peak_rss_bytes));
  for (const std::string& p : r.pass_reports) s += fmt::format("graph pass {}\n", p);
  if (!std::isnan(r.final_loss)) s += fmt::format("final loss: {:.4f}\n", r.final_loss);
  s += rule + "\n";
  return s;
}

nlohmann::json BenchmarkJson(const BenchmarkRunInfo& info, const BenchmarkResult& r) {
  const experiments::BenchmarkOptions& o = info.options;
  const auto& m = o.model_options;
  const experiments::StepTimeStats& t = r.stats;
  const bool update = r.mode == BenchmarkMode::kTrain;
  nlohmann::json peak = nlohmann::json::object();
  for (const auto& [device, bytes] : r.peak_bytes) peak[device] = bytes;
  return {
      {"schema", kBenchmarkJsonSchema},
      {"model", r.model},
      {"mode", experiments::BenchmarkModeName(r.mode)},
      {"batch_size", r.batch_size},
      {"examples_per_step", r.examples_per_step},
      {"example_unit", r.example_unit},
      {"num_batches", o.num_batches},
      {"num_warmup_batches", o.num_warmup_batches},
      {"optimizer", update ? nlohmann::json(m.optimizer) : nlohmann::json(nullptr)},
      {"learning_rate", update ? Number(m.learning_rate) : nullptr},
      {"threads", o.threads},
      {"blas_threads", info.blas_threads},
      {"devices", o.devices},
      {"device_names", r.devices},
      {"placer", o.placer},
      {"default_passes", o.default_passes},
      {"pass_reports", r.pass_reports},
      {"seed", m.seed},
      {"data", r.data},
      {"image_shape", r.image_shape},
      {"num_classes", r.num_classes},
      {"parameter_count", r.parameter_count},
      {"forward_flops_per_example",
       r.forward_flops_per_example ? Number(*r.forward_flops_per_example) : nullptr},
      {"ms_per_step_median", t.ms_median},
      {"ms_per_step_p10", t.ms_p10},
      {"ms_per_step_p90", t.ms_p90},
      {"ms_per_step_mean", t.ms_mean},
      {"examples_per_sec_mean", t.examples_per_sec_mean},
      {"examples_per_sec_uncertainty", t.examples_per_sec_uncertainty},
      {"examples_per_sec_jitter", t.examples_per_sec_jitter},
      {"examples_per_sec_median", t.examples_per_sec_median},
      {"examples_per_sec_total", r.total_examples_per_sec},
      {"peak_bytes_per_device", peak},
      {"peak_rss_bytes", r.peak_rss_bytes},
      {"final_loss", Number(r.final_loss)},
      {"step_ms", r.step_ms},
      {"trace", o.trace_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.trace_path)},
      {"wall_s", r.wall_s},
  };
}

}  // namespace fb::apps
