#include "sweep/sweep_results.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

namespace fb::sweep {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool ParseNumber(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return *end == '\0' && std::isfinite(*out);
}

ResultsColumn NumberColumn(const std::string& name, const std::string& kind, bool integer) {
  ResultsColumn c;
  c.name = name;
  c.kind = kind;
  c.is_integer = integer;
  return c;
}

ResultsColumn StringColumn(const std::string& name, const std::string& kind) {
  ResultsColumn c;
  c.name = name;
  c.kind = kind;
  c.is_string = true;
  return c;
}

std::vector<ResultsColumn> ProvenanceColumns(const std::vector<SweepRow>& rows) {
  std::vector<ResultsColumn> cols = {NumberColumn("point", "provenance", true),
                                     NumberColumn("repetition", "provenance", true),
                                     StringColumn("mode", "provenance"),
                                     StringColumn("command", "provenance"),
                                     StringColumn("hash", "provenance"),
                                     StringColumn("status", "provenance"),
                                     NumberColumn("exit_status", "provenance", true),
                                     NumberColumn("signal", "provenance", true),
                                     NumberColumn("wall_s", "provenance", false),
                                     StringColumn("start_time", "provenance"),
                                     StringColumn("commit", "provenance"),
                                     StringColumn("host", "provenance"),
                                     StringColumn("trace", "provenance"),
                                     StringColumn("command_line", "provenance"),
                                     StringColumn("error", "provenance")};
  for (const SweepRow& r : rows) {
    cols[0].numbers.push_back(static_cast<double>(r.point));
    cols[1].numbers.push_back(static_cast<double>(r.repetition));
    cols[2].strings.push_back(r.mode);
    cols[3].strings.push_back(r.command);
    cols[4].strings.push_back(r.hash);
    cols[5].strings.push_back(r.status);
    cols[6].numbers.push_back(static_cast<double>(r.exit_status));
    cols[7].numbers.push_back(static_cast<double>(r.signal));
    cols[8].numbers.push_back(r.wall_s);
    cols[9].strings.push_back(r.start_time);
    cols[10].strings.push_back(r.commit);
    cols[11].strings.push_back(r.host);
    cols[12].strings.push_back(r.trace);
    cols[13].strings.push_back(r.command_line);
    cols[14].strings.push_back(r.error);
  }
  return cols;
}

// Settings: numbers when every row's value parses as one.
void AddSettingColumns(const std::vector<SweepRow>& rows, const std::set<std::string>& taken,
                       std::vector<ResultsColumn>* cols) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const SweepRow& r : rows)
    for (const auto& [k, v] : r.settings)
      if (seen.insert(k).second) names.push_back(k);
  for (const std::string& name : names) {
    std::vector<std::string> values;
    bool numeric = true;
    for (const SweepRow& r : rows) {
      std::string v;
      for (const auto& [k, val] : r.settings)
        if (k == name) v = val;
      double d;
      if (!ParseNumber(v, &d)) numeric = false;
      values.push_back(v);
    }
    ResultsColumn c =
        numeric ? NumberColumn(name, "setting", false) : StringColumn(name, "setting");
    if (taken.count(name)) c.name = "setting." + name;
    for (const std::string& v : values) {
      double d = kNaN;
      if (numeric) ParseNumber(v, &d);
      numeric ? c.numbers.push_back(d) : c.strings.push_back(v);
    }
    cols->push_back(std::move(c));
  }
}

void AddMetricColumns(const std::vector<SweepRow>& rows, const std::set<std::string>& taken,
                      std::vector<ResultsColumn>* cols) {
  std::map<std::string, bool> is_string;  // sorted by name
  for (const SweepRow& r : rows)
    for (const auto& [k, v] : r.metrics.items()) is_string[k] = is_string[k] || v.is_string();
  for (const auto& [name, str] : is_string) {
    ResultsColumn c = str ? StringColumn(name, "metric") : NumberColumn(name, "metric", false);
    if (taken.count(name)) c.name = "metric." + name;
    for (const SweepRow& r : rows) {
      const auto it = r.metrics.find(name);
      if (str) {
        c.strings.push_back(it == r.metrics.end() ? ""
                            : it->is_string()     ? it->get<std::string>()
                                                  : it->dump());
      } else {
        c.numbers.push_back(it == r.metrics.end() || !it->is_number() ? kNaN : it->get<double>());
      }
    }
    cols->push_back(std::move(c));
  }
}

}  // namespace

size_t ResultsTable::rows() const {
  if (columns.empty()) return 0;
  return columns[0].is_string ? columns[0].strings.size() : columns[0].numbers.size();
}

const ResultsColumn* ResultsTable::Find(const std::string& name) const {
  for (const ResultsColumn& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

ResultsTable BuildResultsTable(const std::vector<SweepRow>& rows, const std::string& name,
                               const std::string& spec_path, const std::string& spec_text,
                               const std::string& commit) {
  ResultsTable t;
  t.name = name;
  t.spec_path = spec_path;
  t.spec_text = spec_text;
  t.commit = commit;
  t.columns = ProvenanceColumns(rows);
  std::set<std::string> taken;
  for (const ResultsColumn& c : t.columns) taken.insert(c.name);
  AddSettingColumns(rows, taken, &t.columns);
  for (const ResultsColumn& c : t.columns) taken.insert(c.name);
  AddMetricColumns(rows, taken, &t.columns);
  return t;
}

static std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

Status WriteResultsCsv(const ResultsTable& table, const std::string& path) {
  std::ofstream out(path);
  if (!out) return Internal("cannot write CSV '", path, "'");
  for (size_t c = 0; c < table.columns.size(); ++c)
    out << (c ? "," : "") << CsvField(table.columns[c].name);
  out << "\n";
  for (size_t r = 0; r < table.rows(); ++r) {
    for (size_t c = 0; c < table.columns.size(); ++c) {
      const ResultsColumn& col = table.columns[c];
      if (c) out << ',';
      if (col.is_string) {
        out << CsvField(col.strings[r]);
      } else if (std::isfinite(col.numbers[r])) {
        out << (col.is_integer ? fmt::format("{}", static_cast<int64_t>(col.numbers[r]))
                               : fmt::format("{:.17g}", col.numbers[r]));
      }
    }
    out << "\n";
  }
  out.close();
  if (!out) return Internal("error writing CSV '", path, "'");
  return Status::OK();
}

}  // namespace fb::sweep
