#include "sim/profile_cost_model.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "sim/profile_calibration.h"

namespace fb::sim {
namespace {

using Curve = ProfileCostModel::Curve;

// Least squares t = a + b * w over the points, with a >= 0 and b > 0 (a roofline with a launch
// cost); degenerate sets fall back to the line through the origin and the largest point.
void FitRoofline(Curve* c) {
  const auto& p = c->points;
  if (p.empty()) return;
  const double n = static_cast<double>(p.size());
  double sw = 0, st = 0, sww = 0, swt = 0;
  for (const auto& [w, t] : p) sw += w, st += t, sww += w * w, swt += w * t;
  const double den = n * sww - sw * sw;
  double b = den > 0 ? (n * swt - sw * st) / den : 0;
  double a = (st - b * sw) / n;
  if (!(b > 0) || !(a >= 0)) {
    a = 0;
    b = p.back().second / p.back().first;
  }
  c->fit_a_ns = a;
  c->fit_ns_per_work = b;
}

// One measured execution: (work, time_ns) and the node's FLOPs and bytes.
struct Sample {
  double work, time_ns;
  OpWork full;
  bool operator<(const Sample& o) const { return work < o.work; }
};

// Sorts by work, averages points within 1% of each other, fits the roofline.
Curve MakeCurve(bool by_flops, std::vector<Sample> points,
                const std::vector<double>& zero_work_ns) {
  Curve c;
  c.by_flops = by_flops;
  std::sort(points.begin(), points.end());
  for (size_t i = 0; i < points.size();) {
    size_t j = i;
    double w = 0, t = 0, f = 0, b = 0;
    while (j < points.size() && points[j].work <= points[i].work * 1.01) {
      w += points[j].work, t += points[j].time_ns;
      f += points[j].full.flops, b += points[j].full.bytes_accessed, ++j;
    }
    const double k = static_cast<double>(j - i);
    c.points.emplace_back(w / k, t / k);
    c.point_work.push_back(OpWork{f / k, b / k});
    i = j;
  }
  if (!zero_work_ns.empty()) {
    c.has_constant = true;
    for (double t : zero_work_ns) c.constant_ns += t;
    c.constant_ns /= static_cast<double>(zero_work_ns.size());
  }
  FitRoofline(&c);
  return c;
}

double Work(bool by_flops, double flops, double bytes) { return by_flops ? flops : bytes; }

bool InRange(const Curve& c, double work) {
  return !c.points.empty() && work >= c.points.front().first / 1.01 &&
         work <= c.points.back().first * 1.01;
}

// Distance in log(work) from the curve's measured range (0 inside).
double RangeDistance(const Curve& c, double work) {
  if (c.points.empty()) return INFINITY;
  const double lo = c.points.front().first, hi = c.points.back().first;
  if (work < lo) return std::log(lo / work);
  if (work > hi) return std::log(work / hi);
  return 0;
}

}  // namespace

double CurveTimeNs(const Curve& c, double work, bool* inside) {
  *inside = InRange(c, work);
  const auto& p = c.points;
  if (!*inside) return c.fit_a_ns + c.fit_ns_per_work * work;
  if (p.size() == 1 || work <= p.front().first) return p.front().second;
  if (work >= p.back().first) return p.back().second;
  auto hi = std::lower_bound(p.begin(), p.end(), std::make_pair(work, -HUGE_VAL));
  auto lo = hi - 1;
  const double f = std::log(work / lo->first) / std::log(hi->first / lo->first);
  return std::exp(std::log(lo->second) + f * std::log(hi->second / lo->second));
}

double ScaledFromNearestPoint(const Curve& c, const std::string& op, const OpWork& work,
                              const OpEfficiency& model, const DeviceDesc& device) {
  if (c.points.empty() || c.point_work.size() != c.points.size()) return 0;
  const double w = c.by_flops ? work.flops : work.bytes_accessed;
  const size_t i = w < c.points.front().first ? 0 : c.points.size() - 1;
  const double at_point = EfficientComputeNs(model, op, c.point_work[i], device);
  const double at_work = EfficientComputeNs(model, op, work, device);
  if (!(at_point > 0) || !(at_work > 0)) return c.fit_a_ns + c.fit_ns_per_work * w;
  return c.points[i].second * at_work / at_point;
}

StatusOr<ProfileCostModel> ProfileCostModel::Create(const Profile& profile, int threads,
                                                    const std::string& path,
                                                    bool use_step_costs) {
  ProfileCostModel m;
  m.gpu_ = profile.device_type == "GPU";
  m.threads_ = threads;
  std::set<int> counts;
  std::map<std::string, std::vector<const ProfilePoint*>> by_op;
  for (const ProfilePoint& p : profile.points) {
    counts.insert(p.threads);
    if (p.threads != threads) continue;
    by_op[p.op].push_back(&p);
    m.model_nodes_[p.model].insert(p.node);
  }
  if (by_op.empty()) {
    std::ostringstream held;
    for (int t : counts) held << (held.tellp() ? ", " : "") << t;
    return InvalidArgument("profile '", path, "' has no measurement with ", threads,
                           " threads (it holds thread counts: ",
                           counts.empty() ? "none" : held.str(), ")");
  }
  for (const auto& [op, points] : by_op) {
    bool by_flops = false;
    for (const ProfilePoint* p : points) by_flops |= p->flops > 0;
    // Per op type, and per (op type, node name, model).
    std::map<std::string, std::pair<std::vector<Sample>, std::vector<double>>> groups;
    auto& all = groups[""];
    for (const ProfilePoint* p : points) {
      const double w = Work(by_flops, p->flops, p->bytes);
      for (auto* g : {&all, &groups[p->model + "\n" + p->node]}) {
        if (w > 0 && p->time_ns > 0) g->first.push_back({w, p->time_ns, {p->flops, p->bytes}});
        else g->second.push_back(p->time_ns);
      }
    }
    for (auto& [key, g] : groups) {
      Curve c = MakeCurve(by_flops, std::move(g.first), g.second);
      if (key.empty()) {
        m.by_op_[op] = std::move(c);
      } else {
        c.model = key.substr(0, key.find('\n'));
        m.by_node_[{op, key.substr(key.find('\n') + 1)}].push_back(std::move(c));
      }
    }
  }
  if (!m.gpu_) {  // the size-dependent roofline for extrapolation (sim/profile_calibration.h)
    std::vector<const ProfilePoint*> mine;
    for (const ProfilePoint& p : profile.points)
      if (p.threads == threads) mine.push_back(&p);
    if (auto fit = FitOpEfficiency(mine, path); fit.ok()) {
      m.extrapolation_device_ = CalibratedDevice(*fit);
      m.extrapolation_ = CalibratedEfficiency(*fit);
      m.has_extrapolation_model_ = true;
    }
  }
  for (const ProfileExecutor& e : profile.executor)
    if (e.threads == threads) {
      m.executor_ = e;
      m.step_costs_ = use_step_costs && e.has_step_costs;
    }
  for (const ProfileStep& s : profile.steps)
    if (s.threads == threads) m.steps_.push_back(s);
  return m;
}

ProfileCostModel::StepCorrection ProfileCostModel::Correction(const std::string& model) const {
  // (node sum, residual): step - node sum, less the measured executor overheads when used;
  // nodes: the configuration's traced nodes (0 in schema-1 profiles).
  std::vector<std::pair<double, double>> xy;
  std::vector<int32_t> nodes;
  for (bool all : {false, true}) {
    for (const ProfileStep& s : steps_) {
      if (!(all || s.model == model) || s.node_sum_ns <= 0 || s.median_step_ns <= 0) continue;
      double residual = s.median_step_ns - s.node_sum_ns;
      if (step_costs_)
        residual -= executor_.run_ns + s.nodes * executor_.node_gap_ns +
                    s.handoffs * executor_.handoff_ns;
      xy.emplace_back(s.node_sum_ns, residual);
      nodes.push_back(s.nodes);
    }
    if (!xy.empty()) break;
  }
  StepCorrection out;
  out.configurations = static_cast<int>(xy.size());
  if (xy.empty()) return out;
  // One thread: kernels cannot overlap, so what is left is the tracing's cost per node, c in
  // r_i = -c * nodes_i + noise_i. The noise is relative (a few percent of the step, in the untraced
  // step and in the traced kernels alike, so either sign), hence weighted least squares with
  // weights 1 / node_sum_i^2: c = -sum(r n / x^2) / sum(n^2 / x^2), at least 0. (The largest
  // -r_i / n_i took a 4% dip of LeNet's 21 ms batch-256 kernels, 5 us per node, off its 1.5 ms
  // batch-16 steps: -46%.)
  // Otherwise a shared machine's noise only adds time (preemption), so the smallest residual is the
  // best estimate: relative to the node sum when negative (several threads: kernels overlapping;
  // a GPU: traced steps synchronising), absolute otherwise. (The median ratio instead predicted
  // the five hold-outs of 2026-11-26/27 worse: 8 cases beyond 25% against 6.)
  double min_ratio = INFINITY, min_residual = INFINITY;
  bool counted = true;
  for (size_t i = 0; i < xy.size(); ++i) {
    min_ratio = std::min(min_ratio, xy[i].second / xy[i].first);
    min_residual = std::min(min_residual, xy[i].second);
    counted = counted && nodes[i] > 0;
  }
  if (!gpu_ && threads_ == 1 && counted) {
    double num = 0, den = 0;
    for (size_t i = 0; i < xy.size(); ++i) {
      const auto& [x, y] = xy[i];
      num += y * nodes[i] / (x * x);
      den += static_cast<double>(nodes[i]) * nodes[i] / (x * x);
    }
    out.node_trace_ns = std::max(0.0, -num / den);
    if (!step_costs_ && min_residual > 0) out.step_overhead_ns = min_residual;  // schema 1's fit
    return out;
  }
  if (min_ratio < 0) out.node_time_factor = std::max(min_ratio, gpu_ ? -0.95 : -0.5);
  else if (!step_costs_) out.step_overhead_ns = min_residual;  // measured costs: noise, not added
  return out;
}

double ProfileCostModel::StepFixedNs(const StepCorrection& c) const {
  return step_costs_ ? executor_.run_ns : executor_.per_step_ns + c.step_overhead_ns;
}

double ProfileCostModel::NodeOverheadNs(bool handed_off) const {
  if (!step_costs_) return executor_.per_node_inline_ns;
  return executor_.node_gap_ns + (handed_off ? executor_.handoff_ns : 0);
}

std::string ProfileCostModel::MatchingModel(const std::vector<std::string>& nodes,
                                            const std::vector<NodeWork>& works) const {
  std::string best;
  size_t best_found = 0;
  double best_distance = INFINITY;
  for (const auto& [model, names] : model_nodes_) {
    size_t found = 0;
    for (const std::string& n : nodes) found += names.count(n);
    if (found < 0.6 * static_cast<double>(nodes.size()) ||
        found < 0.9 * static_cast<double>(names.size()) || found < best_found)
      continue;
    // Ties (AlexNet's and Overfeat's graphs have the same node names): the model whose nodes'
    // measured sizes are nearest, in log(work) summed over the nodes.
    double distance = 0;
    for (const NodeWork& n : works) {
      auto it = by_node_.find({n.op, n.name});
      if (it == by_node_.end()) continue;
      for (const Curve& c : it->second)
        if (c.model == model)
          if (const double w = Work(c.by_flops, n.work.flops, n.work.bytes_accessed); w > 0)
            distance += RangeDistance(c, w);
    }
    if (found > best_found || distance < best_distance)
      best = model, best_found = found, best_distance = distance;
  }
  return best;
}

ProfilePrediction ProfileCostModel::Predict(const std::string& op, const std::string& node,
                                            const OpWork& work, const std::string& model) const {
  ProfilePrediction out;
  auto op_it = by_op_.find(op);
  if (op_it == by_op_.end()) return out;
  const Curve& op_curve = op_it->second;
  const double w = Work(op_curve.by_flops, work.flops, work.bytes_accessed);
  auto node_it = by_node_.find({op, node});
  // The node's curves: those of `model` when it has any, else every profiled model's.
  std::vector<const Curve*> node_curves;
  if (node_it != by_node_.end()) {
    for (const Curve& c : node_it->second)
      if (c.model == model) node_curves.push_back(&c);
    if (node_curves.empty())
      for (const Curve& c : node_it->second) node_curves.push_back(&c);
  }
  if (w <= 0) {
    // No work: the node's own mean where it was profiled without work, else the op type's.
    for (const Curve* c : node_curves)
      if (c->has_constant) return {c->constant_ns, ProfilePrediction::Source::kInterpolated};
    if (op_curve.has_constant)
      return {op_curve.constant_ns, ProfilePrediction::Source::kInterpolated};
    return {op_curve.points.front().second, ProfilePrediction::Source::kExtrapolated};
  }
  // The curve to read: the node's own within range, the op type's within range, else the curve
  // nearest in work (extrapolated).
  const Curve* best = nullptr;
  double best_distance = INFINITY;
  auto consider = [&](const Curve& c) {
    const double d = RangeDistance(c, w);
    if (d < best_distance) best = &c, best_distance = d;
  };
  for (const Curve* c : node_curves) consider(*c);
  // A node profiled at other sizes is extrapolated from its own points when the size-dependent
  // roofline can scale them; the op type's pooled curve mixes other nodes' shapes (AlexNet's
  // fc6 MatMul at batch 16 read off Overfeat's weight-bound fc layers of similar FLOPs).
  const bool own_points = best != nullptr && has_extrapolation_model_ && !model.empty() &&
                          best->model == model;
  if (best == nullptr || (!InRange(*best, w) && !own_points)) consider(op_curve);
  if (best == nullptr || best->points.empty())
    return {op_curve.has_constant ? op_curve.constant_ns : 0,
            ProfilePrediction::Source::kExtrapolated};
  bool inside = false;
  out.time_ns = CurveTimeNs(*best, w, &inside);
  if (!inside && has_extrapolation_model_)
    out.time_ns = ScaledFromNearestPoint(*best, op, work, extrapolation_, extrapolation_device_);
  out.source = inside ? ProfilePrediction::Source::kInterpolated
                      : ProfilePrediction::Source::kExtrapolated;
  return out;
}

}  // namespace fb::sim
