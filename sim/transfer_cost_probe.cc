#include "sim/transfer_cost_probe.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "engine/client/math_ops.h"
#include "engine/client/scope.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/session.h"
#include "sim/profile.h"

namespace fb::sim {
namespace {

constexpr int kStages = 16;  // stages (and transfers) of each chain
// The probe's tensor sizes, float32 elements: 1 KiB, 16 KiB, kTransferProbeBytes, 1 and 4 MiB.
constexpr int64_t kSizes[] = {256, 4096, kTransferProbeBytes / 4, 1 << 18, 1 << 20};
constexpr int64_t kLargestBytes = 4 << 20;
constexpr int64_t kLargeRunsDivisor = 4;  // chains above 256 KiB run runs / 4 times (>= 3)

std::string Suffix(int64_t elements, int i) {
  return std::to_string(elements) + "_" + std::to_string(i);
}

// One stage of a chain: for tensors of kTransferProbeBytes and more, a Neg of the tensor (an
// expensive kernel); for smaller ones, a stage that keeps its device busy as a model's layer
// does: Add(b, in) broadcasting `in` ([n]) over a Const b of about 65536 floats ([rows, n]) on
// the stage's device, then Sum over the rows back to [n]. So a small tensor's consumer is an
// expensive kernel handed to the receiving device's thread (as LeNet's biases and shapes feed
// its layers), not a cheap one the sender runs inline.
Output Stage(const Scope& root, const std::string& name, const std::string& device, Output in,
             int64_t n, std::map<std::string, Output>* consts) {
  if (4 * n >= kTransferProbeBytes) return ops::Neg(root.WithOpName(name).WithDevice(device), in);
  const int64_t rows = std::max<int64_t>(1, (kTransferProbeBytes / 4) / n);
  const std::string b_name = "b_" + std::to_string(n) + "_" + device.substr(device.rfind(':') + 1);
  auto it = consts->find(b_name);
  if (it == consts->end()) {
    Tensor b(DataType::kFloat, TensorShape({rows, n}));
    std::fill(b.data<float>(), b.data<float>() + rows * n, 0.25f);
    it = consts->emplace(b_name, ops::Const(root.WithOpName(b_name).WithDevice(device), b)).first;
  }
  auto sum = ops::Add(root.WithOpName(name + "_add").WithDevice(device), it->second, in);
  return ops::Sum(root.WithOpName(name).WithDevice(device), sum, std::vector<int>{0});
}

// For one size: x_<n> (fed on CPU:0), local_<n>_<i> all on CPU:0 and ring_<n>_<i> on
// CPU:((i + 1) mod devices), each a Stage of the stage before.
StatusOr<GraphDef> ProbeChains(int devices) {
  Scope root = Scope::NewRootScope();
  auto cpu = [](int d) { return "/device:CPU:" + std::to_string(d); };
  std::map<std::string, Output> consts;
  for (int64_t n : kSizes) {
    auto x = ops::Placeholder(root.WithOpName("x_" + std::to_string(n)).WithDevice(cpu(0)),
                              DataType::kFloat, TensorShape({n}));
    Output local = x, ring = x;
    for (int i = 0; i < kStages; ++i) {
      local = Stage(root, "local_" + Suffix(n, i), cpu(0), local, n, &consts);
      ring = Stage(root, "ring_" + Suffix(n, i), cpu((i + 1) % devices), ring, n, &consts);
    }
  }
  RETURN_IF_ERROR(root.status());
  return root.ToGraphDef();
}

StatusOr<std::unique_ptr<Session>> ProbeSession(const TransferProbeOptions& o, const GraphDef& def,
                                                bool compression) {
  SessionOptions so;
  so.device_options.num_cpu_devices = o.devices;
  so.device_options.threads_per_cpu = o.threads;
  so.default_passes = false;  // CSE must not merge the chains' first nodes
  if (compression) so.passes = {"compression"};
  ASSIGN_OR_RETURN(auto session, Session::Create(so));
  RETURN_IF_ERROR(session->Extend(def));
  return session;
}

std::vector<Session::NamedTensor> Feed(int64_t n) {
  Tensor t(DataType::kFloat, TensorShape({n}));
  std::fill(t.data<float>(), t.data<float>() + n, 0.5f);
  return {{"x_" + std::to_string(n), t}};
}

// Median wall time (ns) of `runs` untraced Runs fetching `fetch`, after 3 warm-up Runs.
StatusOr<double> MedianRun(Session* s, const std::vector<Session::NamedTensor>& feed,
                           const std::string& fetch, int runs) {
  std::vector<double> wall;
  std::vector<Tensor> out;
  for (int i = 0; i < runs + 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(s->Run(feed, {fetch}, {}, &out));
    const auto end = std::chrono::steady_clock::now();
    if (i >= 3) wall.push_back(std::chrono::duration<double, std::nano>(end - start).count());
  }
  return MedianNs(wall);
}

// Medians of the traced conversion kernels of the compressed ring of `n` elements.
Status ConversionKernels(Session* s, int64_t n, int runs, TransferProbeSample* sample) {
  RunOptions traced;
  traced.trace = true;
  std::vector<double> compress, decompress;
  std::vector<Tensor> out;
  const auto feed = Feed(n);
  for (int r = 0; r < runs + 3; ++r) {
    RunMetadata meta;
    RETURN_IF_ERROR(s->Run(traced, feed, {"ring_" + Suffix(n, kStages - 1)}, {}, &out, &meta));
    if (r < 3) continue;
    for (const NodeExecStats& st : meta.step_stats) {
      const double ns = static_cast<double>(st.end_ns - st.start_ns);
      if (st.op == "_CompressFloat32") compress.push_back(ns);
      if (st.op == "_DecompressFloat32") decompress.push_back(ns);
    }
  }
  if (compress.empty() || decompress.empty())
    return Internal("transfer probe: the compression pass inserted no conversion into ring_",
                    n, "_*");
  sample->compress_ns = MedianNs(compress);
  sample->decompress_ns = MedianNs(decompress);
  return Status::OK();
}

// One size: `blocks` blocks of (local, ring, compressed ring) medians; per-block estimates, then
// their medians.
StatusOr<TransferProbeSample> MeasureSize(const TransferProbeOptions& o, Session* plain,
                                          Session* compressed, int64_t n) {
  const int runs = 4 * n > kTransferProbeBytes
                       ? std::max<int>(3, static_cast<int>(o.runs / kLargeRunsDivisor))
                       : o.runs;
  const auto feed = Feed(n);
  const std::string last = Suffix(n, kStages - 1);
  std::vector<double> transfer, with_conversion;
  for (int b = 0; b < o.blocks; ++b) {
    ASSIGN_OR_RETURN(double local, MedianRun(plain, feed, "local_" + last, runs));
    ASSIGN_OR_RETURN(double ring, MedianRun(plain, feed, "ring_" + last, runs));
    ASSIGN_OR_RETURN(double ring_c, MedianRun(compressed, feed, "ring_" + last, runs));
    transfer.push_back((ring - local) / kStages);
    with_conversion.push_back((ring_c - ring) / kStages);
  }
  TransferProbeSample sample;
  sample.bytes = 4 * n;
  sample.transfer_ns = std::max(0.0, MedianNs(transfer));
  RETURN_IF_ERROR(ConversionKernels(compressed, n, runs, &sample));
  sample.conversion_overhead_ns =
      MedianNs(with_conversion) - sample.compress_ns - sample.decompress_ns;
  return sample;
}

}  // namespace

double MedianNs(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

TransferCosts CostsFromSamples(std::vector<TransferProbeSample> samples) {
  std::sort(samples.begin(), samples.end(),
            [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  std::vector<double> overhead;
  for (const TransferProbeSample& s : samples)
    if (s.bytes <= kTransferProbeBytes) overhead.push_back(s.conversion_overhead_ns);
  const double half_overhead = std::max(0.0, MedianNs(overhead)) / 2;
  std::vector<std::pair<double, double>> transfer, compress, decompress;
  for (const TransferProbeSample& s : samples) {
    const double bytes = static_cast<double>(s.bytes);
    transfer.emplace_back(bytes, s.transfer_ns);
    compress.emplace_back(bytes, s.compress_ns + half_overhead);
    decompress.emplace_back(bytes, s.decompress_ns + half_overhead);
  }
  TransferCosts c;
  c.transfer = MonotoneCurve(std::move(transfer));
  c.compress = MonotoneCurve(std::move(compress));
  c.decompress = MonotoneCurve(std::move(decompress));
  c.samples = std::move(samples);
  return c;
}

StatusOr<TransferCosts> MeasureTransferCosts(const TransferProbeOptions& o) {
  if (o.devices < 2 || o.threads < 1 || o.runs < 1 || o.blocks < 1)
    return InvalidArgument("transfer probe: expected devices >= 2, threads, runs and blocks >= 1;"
                           " got devices ", o.devices, ", threads ", o.threads, ", runs ", o.runs,
                           ", blocks ", o.blocks);
  ASSIGN_OR_RETURN(GraphDef def, ProbeChains(o.devices));
  ASSIGN_OR_RETURN(auto plain, ProbeSession(o, def, false));
  ASSIGN_OR_RETURN(auto compressed, ProbeSession(o, def, true));
  std::vector<TransferProbeSample> samples;
  for (int64_t n : kSizes) {
    ASSIGN_OR_RETURN(TransferProbeSample s, MeasureSize(o, plain.get(), compressed.get(), n));
    samples.push_back(s);
  }
  return CostsFromSamples(std::move(samples));
}

Status MeasureTransferProfile(int threads, int runs, ProfileExecutor* e) {
  TransferProbeOptions o;
  o.threads = threads;
  if (runs < 100) o.blocks = 1;  // a quick probe (tests)
  o.runs = std::max(1, runs / o.blocks);
  ASSIGN_OR_RETURN(TransferCosts c, MeasureTransferCosts(o));
  e->transfer_points.clear();
  for (size_t i = 0; i < c.transfer.points.size(); ++i)
    e->transfer_points.push_back({o.devices, c.transfer.points[i].first,
                                  c.transfer.points[i].second, c.compress.points[i].second,
                                  c.decompress.points[i].second});
  const double probe = static_cast<double>(kTransferProbeBytes);
  const double largest = static_cast<double>(kLargestBytes);
  e->transfer_ns = c.transfer.At(probe);
  e->transfer_ns_per_byte =
      std::max(0.0, (c.transfer.At(largest) - e->transfer_ns) / (largest - probe));
  e->compress_ns_per_byte = c.compress.At(largest) / largest;
  e->decompress_ns_per_byte = c.decompress.At(largest) / largest;
  e->has_transfer_cost = true;
  return Status::OK();
}

std::vector<std::string> TransferPointLines(const ProfileExecutor& e) {
  std::vector<std::string> lines;
  for (const ProfileTransferPoint& t : e.transfer_points) {
    std::ostringstream s;
    s << "threads " << e.threads << ", " << t.devices << " devices, " << t.bytes / 1024
      << " KiB: transfer " << t.transfer_ns * 1e-3 << " us, compress " << t.compress_ns * 1e-3
      << " us, decompress " << t.decompress_ns * 1e-3 << " us";
    lines.push_back(s.str());
  }
  return lines;
}

Status RemeasureTransferCosts(Profile* p, const std::function<void(const std::string&)>& log) {
  if (p->executor.empty())
    return InvalidArgument("profile has no /executor row to measure the transfer costs for "
                           "(record it with flowbench profile first)");
  for (ProfileExecutor& e : p->executor) {
    RETURN_IF_ERROR(MeasureTransferProfile(e.threads, 200, &e));
    if (log)
      for (const std::string& line : TransferPointLines(e)) log(line);
  }
  return Status::OK();
}

}  // namespace fb::sim
