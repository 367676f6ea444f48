#include "sweep/sweep_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <tuple>

namespace fb::sweep {

namespace fs = std::filesystem;

nlohmann::json RowToJson(const SweepRow& r) {
  nlohmann::json settings = nlohmann::json::array();
  for (const auto& [k, v] : r.settings) settings.push_back({k, v});
  return {{"point", r.point},
          {"repetition", r.repetition},
          {"mode", r.mode},
          {"command", r.command},
          {"hash", r.hash},
          {"settings", settings},
          {"metrics", r.metrics},
          {"exit_status", r.exit_status},
          {"signal", r.signal},
          {"status", r.status},
          {"wall_s", r.wall_s},
          {"start_time", r.start_time},
          {"commit", r.commit},
          {"host", r.host},
          {"trace", r.trace},
          {"error", r.error},
          {"command_line", r.command_line}};
}

StatusOr<SweepRow> RowFromJson(const nlohmann::json& j) {
  SweepRow r;
  try {
    r.point = j.at("point").get<int64_t>();
    r.repetition = j.at("repetition").get<int64_t>();
    r.mode = j.at("mode").get<std::string>();
    r.command = j.at("command").get<std::string>();
    r.hash = j.at("hash").get<std::string>();
    for (const auto& kv : j.at("settings"))
      r.settings.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
    r.metrics = j.at("metrics");
    if (!r.metrics.is_object()) return InvalidArgument("journal row: metrics is not an object");
    r.exit_status = j.at("exit_status").get<int64_t>();
    r.signal = j.at("signal").get<int64_t>();
    r.status = j.at("status").get<std::string>();
    r.wall_s = j.at("wall_s").get<double>();
    r.start_time = j.at("start_time").get<std::string>();
    r.commit = j.at("commit").get<std::string>();
    r.host = j.at("host").get<std::string>();
    r.trace = j.at("trace").get<std::string>();
    r.error = j.at("error").get<std::string>();
    r.command_line = j.at("command_line").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument("journal row: ", e.what());
  }
  return r;
}

Status AppendRow(const std::string& path, const SweepRow& row) {
  const std::string line =
      RowToJson(row).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Internal("cannot open sweep journal '", path, "': ", std::strerror(errno));
  const ssize_t n = write(fd, line.data(), line.size());
  const bool synced = fdatasync(fd) == 0;
  close(fd);
  if (n != static_cast<ssize_t>(line.size()) || !synced)
    return Internal("cannot append to sweep journal '", path, "': ", std::strerror(errno));
  return Status::OK();
}

std::string JournalPath(const std::string& dir, int rank) {
  return (fs::path(dir) / ("journal.rank" + std::to_string(rank) + ".jsonl")).string();
}

StatusOr<std::vector<SweepRow>> ReadJournals(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return NotFound("sweep output directory '", dir, "' does not exist");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("journal", 0) == 0 && e.path().extension() == ".jsonl")
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::map<std::string, SweepRow> by_key;
  for (const std::string& f : files) {
    std::ifstream in(f);
    for (std::string line; std::getline(in, line);) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded()) continue;
      StatusOr<SweepRow> row = RowFromJson(j);
      if (!row.ok()) continue;
      by_key[row->mode + "/" + row->key()] = std::move(*row);
    }
  }
  std::vector<SweepRow> rows;
  for (auto& [k, r] : by_key) rows.push_back(std::move(r));
  // Point by point, the simulated runs before the real ones, repetitions in order.
  std::sort(rows.begin(), rows.end(), [](const SweepRow& a, const SweepRow& b) {
    return std::tuple(a.point, a.mode != "sim", a.mode, a.repetition) <
           std::tuple(b.point, b.mode != "sim", b.mode, b.repetition);
  });
  return rows;
}

namespace {

constexpr size_t kMaxExpandedMembers = 16;
constexpr int kMaxDepth = 6;

void AddStats(const std::string& key, const std::vector<double>& v, nlohmann::json* out) {
  if (v.empty()) return;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  for (double x : v) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    sum += x;
  }
  (*out)[key + ".min"] = lo;
  (*out)[key + ".mean"] = sum / static_cast<double>(v.size());
  (*out)[key + ".max"] = hi;
  (*out)[key + ".sum"] = sum;
}

void Flatten(const std::string& key, const nlohmann::json& j, int depth, nlohmann::json* out);

// A number, or a boolean as 1 or 0 (nlohmann's get<double> throws on a boolean).
double AsNumber(const nlohmann::json& j) {
  return j.is_boolean() ? (j.get<bool>() ? 1.0 : 0.0) : j.get<double>();
}

// An array (or a large object) of values: counts and statistics of its numbers, or of each
// numeric member of its objects.
void Summarise(const std::string& key, const nlohmann::json& items, nlohmann::json* out) {
  (*out)[key + ".count"] = items.size();
  std::vector<double> numbers;
  std::map<std::string, std::vector<double>> members;
  for (const auto& item : items) {
    if (item.is_number() || item.is_boolean()) numbers.push_back(AsNumber(item));
    if (!item.is_object()) continue;
    for (const auto& [m, v] : item.items())
      if (v.is_number() || v.is_boolean()) members[m].push_back(AsNumber(v));
  }
  AddStats(key, numbers, out);
  for (const auto& [m, v] : members) AddStats(key + "." + m, v, out);
}

void Flatten(const std::string& key, const nlohmann::json& j, int depth, nlohmann::json* out) {
  if (j.is_number() || j.is_boolean()) {
    (*out)[key] = AsNumber(j);
  } else if (j.is_string()) {
    (*out)[key] = j;
  } else if (j.is_array()) {
    Summarise(key, j, out);
  } else if (j.is_object()) {
    if (j.size() > kMaxExpandedMembers || depth >= kMaxDepth) {
      nlohmann::json values = nlohmann::json::array();
      for (const auto& [k, v] : j.items()) values.push_back(v);
      Summarise(key, values, out);
      return;
    }
    for (const auto& [k, v] : j.items())
      Flatten(key.empty() ? k : key + "." + k, v, depth + 1, out);
  }
}

}  // namespace

nlohmann::json FlattenMetrics(const nlohmann::json& metrics) {
  nlohmann::json out = nlohmann::json::object();
  if (metrics.is_object()) {
    for (const auto& [k, v] : metrics.items()) Flatten(k, v, 1, &out);
  } else {
    Flatten("value", metrics, 1, &out);
  }
  return out;
}

}  // namespace fb::sweep
