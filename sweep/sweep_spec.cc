#include "sweep/sweep_spec.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "engine/framework/input_file.h"

namespace fb::sweep {

bool FlagCatalog::Has(const std::string& command, const std::string& flag) const {
  auto c = commands.find(command);
  return c != commands.end() && c->second.count(flag) > 0;
}

bool FlagCatalog::TakesValue(const std::string& command, const std::string& flag) const {
  auto c = commands.find(command);
  if (c == commands.end()) return true;
  auto f = c->second.find(flag);
  return f == c->second.end() || f->second;
}

const char* SweepModeName(SweepMode m) {
  switch (m) {
    case SweepMode::kSim:
      return "sim";
    case SweepMode::kReal:
      return "real";
    case SweepMode::kBoth:
      return "both";
  }
  return "?";
}

uint64_t SweepSpec::NumPoints() const {
  uint64_t n = 1;
  for (const AxisGroup& g : groups) {
    n *= g.size();
    if (n > kMaxSweepPoints) return kMaxSweepPoints + 1;
  }
  return n;
}

namespace {

// Builds the messages "FILE:LINE: KEY: what".
struct Where {
  const std::string& path;
  Status Error(const YAML::Node& node, const std::string& key, const std::string& what) const {
    return InvalidArgument(path, ":", node.Mark().line + 1, ": ", key, ": ", what);
  }
};

bool IsInteger(const std::string& s) {
  if (s.empty()) return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

StatusOr<double> Number(const Where& w, const YAML::Node& range, const std::string& key,
                        const char* field, bool* integer) {
  const YAML::Node v = range[field];
  if (!v || !v.IsScalar())
    return w.Error(range, key, fmt::format("range needs a number '{}'", field));
  const std::string s = v.Scalar();
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(d))
    return w.Error(v, key, fmt::format("range '{}' must be a finite number, got '{}'", field, s));
  // Integers beyond 2^53 lose digits as doubles: such a range is expanded as floating point.
  if (!IsInteger(s) || std::abs(d) > 9e15) *integer = false;
  return d;
}

std::string FormatValue(double v, bool integer) {
  return integer ? fmt::format("{}", static_cast<int64_t>(std::llround(v)))
                 : fmt::format("{:.10g}", v);
}

// {from, to, step} or {from, to, times}: both ends included.
StatusOr<std::vector<std::string>> ExpandRange(const Where& w, const YAML::Node& r,
                                               const std::string& key) {
  for (auto it = r.begin(); it != r.end(); ++it) {
    const std::string f = it->first.as<std::string>();
    if (f != "from" && f != "to" && f != "step" && f != "times")
      return w.Error(it->first, key,
                     "unknown range field '" + f + "' (expected from, to, step or times)");
  }
  if (r["step"] && r["times"]) return w.Error(r, key, "a range has 'step' or 'times', not both");
  bool integer = true;
  ASSIGN_OR_RETURN(double from, Number(w, r, key, "from", &integer));
  ASSIGN_OR_RETURN(double to, Number(w, r, key, "to", &integer));
  if (from > to) return w.Error(r, key, fmt::format("range 'from' {} is above 'to' {}", from, to));
  std::vector<std::string> values;
  const bool geometric = static_cast<bool>(r["times"]);
  double by = 1;
  if (geometric || r["step"]) {
    ASSIGN_OR_RETURN(by, Number(w, r, key, geometric ? "times" : "step", &integer));
  }
  if (geometric && (by <= 1 || from <= 0))
    return w.Error(r, key,
                   fmt::format("a geometric range needs 'times' > 1 and 'from' > 0, got "
                               "times {} from {}",
                               by, from));
  if (!geometric && by <= 0)
    return w.Error(r, key, fmt::format("range 'step' must be > 0, got {}", by));
  const double slack = 1e-9 * std::max(std::abs(to), 1.0);
  double previous = 0;
  for (int64_t i = 0;; ++i) {
    const double v = geometric ? from * std::pow(by, static_cast<double>(i)) : from + by * i;
    if (v > to + slack) break;
    if (i > 0 && v <= previous) {  // the step vanishes next to values this large
      if (previous >= to - slack) break;
      return w.Error(r, key,
                     fmt::format("range step {} is too small to move from {}", by, previous));
    }
    previous = v;
    if (values.size() >= kMaxSweepPoints)
      return w.Error(r, key, fmt::format("range has more than {} values", kMaxSweepPoints));
    values.push_back(FormatValue(v, integer));
  }
  return values;
}

StatusOr<std::vector<std::string>> AxisValues(const Where& w, const YAML::Node& node,
                                              const std::string& key) {
  if (node.IsMap()) return ExpandRange(w, node, key);
  if (!node.IsSequence())
    return w.Error(node, key, "an axis is a list [a, b, ...] or a range {from, to, step|times}");
  std::vector<std::string> values;
  for (const YAML::Node& v : node) {
    if (!v.IsScalar()) return w.Error(v, key, "axis values must be scalars");
    values.push_back(v.Scalar());
  }
  if (values.empty()) return w.Error(node, key, "empty axis: give at least one value");
  return values;
}

// The commands a flag name goes to; the error names the flag and the commands asked.
Status CheckFlag(const Where& w, const YAML::Node& node, const std::string& where,
                 const std::string& key, const SweepSpec& spec, const FlagCatalog& flags) {
  std::string flag = key;
  std::vector<std::string> commands = {spec.sim_command, spec.real_command};
  if (key.rfind("sim.", 0) == 0) {
    flag = key.substr(4);
    commands = {spec.sim_command};
  } else if (key.rfind("real.", 0) == 0) {
    flag = key.substr(5);
    commands = {spec.real_command};
  }
  if (flag == "metrics-json" || flag == "trace")
    return w.Error(node, where, "--" + flag + " is set by the sweep (see 'trace: true')");
  for (const std::string& c : commands)
    if (flags.Has(c, flag)) return Status::OK();
  if (commands.size() == 1 || commands[0] == commands[1])
    return w.Error(node, where,
                   "unknown flag --" + flag + ": `flowbench " + commands[0] + "` has no such flag");
  return w.Error(node, where,
                 "unknown flag --" + flag + ": neither `flowbench " + commands[0] +
                     "` nor `flowbench " + commands[1] + "` has it");
}

Status ReadCommands(const Where& w, const YAML::Node& root, const FlagCatalog& flags,
                    SweepSpec* spec) {
  for (const char* k : {"sim_command", "real_command"}) {
    if (!root[k]) continue;
    const std::string c = root[k].as<std::string>();
    if (!flags.commands.count(c)) return w.Error(root[k], k, "unknown command '" + c + "'");
    (std::string(k) == "sim_command" ? spec->sim_command : spec->real_command) = c;
  }
  if (root["mode"]) {
    const std::string m = root["mode"].as<std::string>();
    if (m == "sim")
      spec->mode = SweepMode::kSim;
    else if (m == "real")
      spec->mode = SweepMode::kReal;
    else if (m == "both")
      spec->mode = SweepMode::kBoth;
    else
      return w.Error(root["mode"], "mode", "must be sim, real or both, got '" + m + "'");
  }
  spec->sim_step_metric = DefaultStepTimeMetric(spec->sim_command);
  spec->real_step_metric = DefaultStepTimeMetric(spec->real_command);
  if (const YAML::Node m = root["step_time_metric"]) {
    if (!m.IsMap()) return w.Error(m, "step_time_metric", "expected {sim: NAME, real: NAME}");
    if (m["sim"]) spec->sim_step_metric = m["sim"].as<std::string>();
    if (m["real"]) spec->real_step_metric = m["real"].as<std::string>();
  }
  return Status::OK();
}

Status ReadScalars(const Where& w, const YAML::Node& root, SweepSpec* spec) {
  if (const YAML::Node n = root["name"]) {
    // The default output directory is sweeps/<name>: one path component, so that a spec cannot
    // send its results outside it ("../x", "/etc") or into sweeps/ itself ("").
    spec->name = n.as<std::string>();
    const std::string& name = spec->name;
    if (name.empty() || name == "." || name == ".." || name.size() > 200 ||
        name.find_first_of(std::string("/\0", 2)) != std::string::npos)
      return w.Error(n, "name",
                     "must be 1 to 200 characters without '/' or NUL, not '.' or '..' (the "
                     "default output directory is sweeps/<name>), got '" +
                         name + "'");
  }
  if (const YAML::Node n = root["repetitions"]) {
    const std::string s = n.as<std::string>();
    const long long r = IsInteger(s) && s.size() < 10 ? std::stoll(s) : 0;
    if (r < 1 || r > 10000)
      return w.Error(n, "repetitions", "must be an integer in [1, 10000], got '" + s + "'");
    spec->repetitions = static_cast<int>(r);
  }
  if (const YAML::Node n = root["timeout_s"]) {
    const std::string s = n.as<std::string>();
    char* end = nullptr;
    const double t = std::strtod(s.c_str(), &end);
    if (s.empty() || *end || !(t > 0) || t > 1e7)
      return w.Error(n, "timeout_s", "must be a number of seconds in (0, 1e7], got '" + s + "'");
    spec->timeout_s = t;
  }
  if (const YAML::Node n = root["trace"]) {
    const std::string s = n.as<std::string>();
    if (s != "true" && s != "false")
      return w.Error(n, "trace", "must be true or false, got '" + s + "'");
    spec->trace = s == "true";
  }
  if (const YAML::Node n = root["launcher"]) {
    if (!n.IsSequence()) return w.Error(n, "launcher", "must be a list, e.g. [mpirun, -np, 3]");
    for (const YAML::Node& a : n) spec->launcher.push_back(a.as<std::string>());
  }
  return Status::OK();
}

Status AddName(const Where& w, const YAML::Node& node, const std::string& where,
               const std::string& key, std::set<std::string>* seen) {
  if (!seen->insert(key).second)
    return w.Error(node, where, "given twice (fixed, axes and zip share one name space)");
  return Status::OK();
}

Status ReadSettings(const Where& w, const YAML::Node& root, const FlagCatalog& flags,
                    SweepSpec* spec) {
  std::set<std::string> seen;
  if (const YAML::Node fixed = root["fixed"]) {
    if (!fixed.IsMap()) return w.Error(fixed, "fixed", "expected a map of flag: value");
    for (auto it = fixed.begin(); it != fixed.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      RETURN_IF_ERROR(CheckFlag(w, it->first, "fixed." + key, key, *spec, flags));
      RETURN_IF_ERROR(AddName(w, it->first, "fixed." + key, key, &seen));
      if (!it->second.IsScalar())
        return w.Error(it->second, "fixed." + key,
                       "fixed values are scalars (lists go under axes)");
      spec->fixed.emplace_back(key, it->second.Scalar());
    }
  }
  if (const YAML::Node axes = root["axes"]) {
    if (!axes.IsMap()) return w.Error(axes, "axes", "expected a map of flag: list or range");
    for (auto it = axes.begin(); it != axes.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      RETURN_IF_ERROR(CheckFlag(w, it->first, "axes." + key, key, *spec, flags));
      RETURN_IF_ERROR(AddName(w, it->first, "axes." + key, key, &seen));
      ASSIGN_OR_RETURN(std::vector<std::string> values, AxisValues(w, it->second, "axes." + key));
      spec->groups.push_back({{{key, std::move(values)}}});
    }
  }
  if (const YAML::Node zip = root["zip"]) {
    if (!zip.IsSequence())
      return w.Error(zip, "zip", "expected a list of groups {flag: list, ...}");
    for (size_t g = 0; g < zip.size(); ++g) {
      const YAML::Node group = zip[g];
      const std::string where = fmt::format("zip[{}]", g);
      if (!group.IsMap() || group.size() == 0)
        return w.Error(group, where, "a zipped group is a non-empty map of flag: list");
      AxisGroup out;
      for (auto it = group.begin(); it != group.end(); ++it) {
        const std::string key = it->first.as<std::string>();
        RETURN_IF_ERROR(CheckFlag(w, it->first, where + "." + key, key, *spec, flags));
        RETURN_IF_ERROR(AddName(w, it->first, where + "." + key, key, &seen));
        ASSIGN_OR_RETURN(std::vector<std::string> values,
                         AxisValues(w, it->second, where + "." + key));
        if (!out.members.empty() && values.size() != out.size())
          return w.Error(it->first, where + "." + key,
                         fmt::format("zipped lists differ in length: {} has {} values, {} has {}",
                                     out.members[0].name, out.size(), key, values.size()));
        out.members.push_back({key, std::move(values)});
      }
      spec->groups.push_back(std::move(out));
    }
  }
  return Status::OK();
}

}  // namespace

StatusOr<SweepSpec> ParseSweepSpec(const std::string& text, const std::string& path,
                                   const FlagCatalog& flags) {
  const Where w{path};
  SweepSpec spec;
  spec.path = path;
  spec.text = text;
  spec.name = std::filesystem::path(path).stem().string();
  try {
    const YAML::Node root = YAML::Load(text);
    if (!root.IsMap())
      return InvalidArgument(path, ":1: a sweep spec is a YAML map (docs/sweeps.md)");
    static const std::set<std::string> kKeys = {
        "name",  "mode",     "sim_command", "real_command", "repetitions", "timeout_s",
        "trace", "launcher", "fixed",       "axes",         "zip",         "step_time_metric"};
    for (auto it = root.begin(); it != root.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      if (!kKeys.count(key))
        return w.Error(it->first, key,
                       "unknown key (expected name, mode, sim_command, real_command, "
                       "repetitions, timeout_s, trace, launcher, fixed, axes, zip, "
                       "step_time_metric)");
    }
    RETURN_IF_ERROR(ReadCommands(w, root, flags, &spec));
    RETURN_IF_ERROR(ReadScalars(w, root, &spec));
    RETURN_IF_ERROR(ReadSettings(w, root, flags, &spec));
  } catch (const YAML::Exception& e) {
    return InvalidArgument(path, ":", e.mark.line + 1, ": YAML: ", e.msg);
  }
  if (spec.NumPoints() > kMaxSweepPoints)
    return InvalidArgument(path, ": the axes expand to more than ", kMaxSweepPoints, " points");
  return spec;
}

StatusOr<SweepSpec> ReadSweepSpec(const std::string& path, const FlagCatalog& flags) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read sweep spec '", path, "'");
  RETURN_IF_ERROR(CheckInputFile(path, "sweep spec"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseSweepSpec(ss.str(), path, flags);
}

std::string DefaultStepTimeMetric(const std::string& command) {
  if (command == "sim") return "median_step_time_s";
  if (command == "place") return "predicted_step_ns";
  // benchmark reports the same median as train (its timed steps, after the warm-up).
  if (command == "train" || command == "benchmark") return "ms_per_step_median";
  return "";
}

double MetricSecondsPerUnit(const std::string& m) {
  auto ends = [&](const char* s) {
    const std::string x(s);
    return m.size() >= x.size() && m.compare(m.size() - x.size(), x.size(), x) == 0;
  };
  if (ends("_ns")) return 1e-9;
  if (ends("_us")) return 1e-6;
  if (ends("_ms") || m.rfind("ms_", 0) == 0) return 1e-3;
  return 1;
}

}  // namespace fb::sweep
