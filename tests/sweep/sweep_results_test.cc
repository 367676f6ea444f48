// The sweep's journal, metric flattening, results table (HDF5 schema, round trip, CSV) and the
// validation statistics.
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "sweep/sweep_journal.h"
#include "sweep/sweep_results.h"
#include "sweep/sweep_validation.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb::sweep {
namespace {

SweepRow Row(int64_t point, const std::string& mode, const std::string& placer,
             nlohmann::json metrics, int64_t exit_status = 0) {
  SweepRow r;
  r.point = point;
  r.mode = mode;
  r.command = mode == "sim" ? "sim" : "train";
  r.hash = "h" + std::to_string(point) + mode;
  r.settings = {{"placer", placer}, {"batch-size", std::to_string(16 * (point + 1))}};
  r.metrics = std::move(metrics);
  r.exit_status = exit_status;
  r.status = exit_status ? "exit " + std::to_string(exit_status) : "ok";
  r.wall_s = 0.5;
  r.start_time = "2026-11-26T00:00:00Z";
  r.commit = "abc";
  r.host = "h";
  r.error = exit_status ? "bad, \"quoted\"\nline" : "";
  return r;
}

TEST_CASE("FlattenMetrics keeps scalars and summarises arrays and big objects",
          "[sweep][results]") {
  nlohmann::json m = {
      {"median_step_time_s", 0.5},
      {"compression", true},
      {"config", {{"placer", "greedy"}, {"ps", 2}, {"none", nullptr}}},
      {"step_times_s", {1.0, 2.0, 6.0}},
      {"devices", {{{"name", "a"}, {"busy_s", 1.0}}, {{"name", "b"}, {"busy_s", 3.0}}}}};
  nlohmann::json big = nlohmann::json::object();
  for (int i = 0; i < 20; ++i) big["link" + std::to_string(i)] = i;
  m["link_bytes"] = big;
  nlohmann::json f = FlattenMetrics(m);
  CHECK(f["median_step_time_s"] == 0.5);
  CHECK(f["compression"] == 1.0);
  CHECK(f["config.placer"] == "greedy");
  CHECK(f["config.ps"] == 2.0);
  CHECK_FALSE(f.contains("config.none"));
  CHECK(f["step_times_s.count"] == 3);
  CHECK(f["step_times_s.mean"] == 3.0);
  CHECK(f["step_times_s.max"] == 6.0);
  CHECK(f["devices.count"] == 2);
  CHECK(f["devices.busy_s.sum"] == 4.0);
  CHECK_FALSE(f.contains("devices.name"));
  CHECK(f["link_bytes.count"] == 20);
  CHECK(f["link_bytes.sum"] == 190.0);  // 0 + 1 + ... + 19
  CHECK_FALSE(f.contains("link_bytes.link3"));
}

TEST_CASE("FlattenMetrics counts booleans in arrays and objects as 1 and 0", "[sweep][results]") {
  // A metrics array of objects with a boolean member (e.g. per-device flags) threw
  // nlohmann's type_error 302 and killed the sweep.
  nlohmann::json m = {{"flags", {true, false, true}},
                      {"devices", {{{"oom", true}, {"busy_s", 1.0}}, {{"oom", false}}}}};
  nlohmann::json f = FlattenMetrics(m);
  CHECK(f["flags.count"] == 3);
  CHECK(f["flags.sum"] == 2.0);
  CHECK(f["devices.oom.sum"] == 1.0);
  CHECK(f["devices.oom.max"] == 1.0);
}

TEST_CASE("Sweep journal keeps the last row of each run and skips a torn line",
          "[sweep][results]") {
  test::TempDir dir;
  const std::string j0 = JournalPath(dir.path(), 0), j1 = JournalPath(dir.path(), 1);
  REQUIRE(AppendRow(j0, Row(1, "sim", "greedy", {}, 3)).ok());
  REQUIRE(AppendRow(j1, Row(0, "sim", "single", {{"x", 1}})).ok());
  REQUIRE(AppendRow(j0, Row(1, "sim", "greedy", {{"x", 2}})).ok());  // the retry succeeded
  std::ofstream(j0, std::ios::app) << "{\"point\": 7, \"mo";         // killed mid-write
  StatusOr<std::vector<SweepRow>> rows = ReadJournals(dir.path());
  REQUIRE(rows.ok());
  REQUIRE(rows->size() == 2);
  CHECK((*rows)[0].point == 0);
  CHECK((*rows)[1].point == 1);
  CHECK((*rows)[1].ok());
  CHECK((*rows)[1].metrics["x"] == 2);
  CHECK(ReadJournals(dir.file("missing")).status().code() == Code::kNotFound);
}

TEST_CASE("Sweep results table has its schema and round-trips through HDF5", "[sweep][results]") {
  test::TempDir dir;
  std::vector<SweepRow> rows = {
      Row(0, "sim", "single", {{"median_step_time_s", 0.25}, {"placer", "x"}}),
      Row(1, "sim", "greedy", {}, 105)};
  ResultsTable t = BuildResultsTable(rows, "demo", "demo.yaml", "axes: {}\n", "abc");
  const std::string path = dir.file("results.h5");
  REQUIRE(WriteResultsTable(t, path).ok());
  StatusOr<ResultsTable> back = ReadResultsTable(path);
  INFO(back.status().ToString());
  REQUIRE(back.ok());
  CHECK(back->name == "demo");
  CHECK(back->spec_text == "axes: {}\n");
  CHECK(back->commit == "abc");
  REQUIRE(back->rows() == 2);
  std::vector<std::string> names;
  for (const ResultsColumn& c : back->columns) names.push_back(c.name + ":" + c.kind);
  CHECK(names ==
        std::vector<std::string>{
            "point:provenance", "repetition:provenance", "mode:provenance", "command:provenance",
            "hash:provenance", "status:provenance", "exit_status:provenance", "signal:provenance",
            "wall_s:provenance", "start_time:provenance", "commit:provenance", "host:provenance",
            "trace:provenance", "command_line:provenance", "error:provenance", "placer:setting",
            "batch-size:setting", "median_step_time_s:metric", "metric.placer:metric"});
  const ResultsColumn* batch = back->Find("batch-size");
  REQUIRE(batch);
  CHECK_FALSE(batch->is_string);
  CHECK(batch->numbers == std::vector<double>{16, 32});
  const ResultsColumn* step = back->Find("median_step_time_s");
  REQUIRE(step);
  CHECK(step->numbers[0] == 0.25);
  CHECK(std::isnan(step->numbers[1]));
  CHECK(back->Find("exit_status")->is_integer);
  CHECK(back->Find("exit_status")->numbers[1] == 105);
  CHECK(back->Find("placer")->strings == std::vector<std::string>{"single", "greedy"});
  CHECK(back->Find("error")->strings[1] == "bad, \"quoted\"\nline");
  // No variable-length strings: every string member is fixed-length.
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t ds = H5Dopen2(f, "results", H5P_DEFAULT);
  hid_t type = H5Dget_type(ds);
  for (int i = 0; i < H5Tget_nmembers(type); ++i) {
    hid_t m = H5Tget_member_type(type, static_cast<unsigned>(i));
    if (H5Tget_class(m) == H5T_STRING) CHECK(H5Tis_variable_str(m) == 0);
    H5Tclose(m);
  }
  H5Tclose(type);
  H5Dclose(ds);
  H5Fclose(f);
}

TEST_CASE("Sweep results export as CSV with quoting and empty NaNs", "[sweep][results]") {
  test::TempDir dir;
  ResultsTable t =
      BuildResultsTable({Row(0, "sim", "single", {{"m", 1.5}}), Row(1, "sim", "greedy", {}, 2)},
                        "demo", "demo.yaml", "", "abc");
  REQUIRE(WriteResultsCsv(t, dir.file("r.csv")).ok());
  std::ifstream in(dir.file("r.csv"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK_THAT(text, Catch::StartsWith("point,repetition,mode,command,hash,status,exit_status,"));
  CHECK_THAT(text, Catch::Contains(",placer,batch-size,m\n"));
  CHECK_THAT(text, Catch::Contains("\"bad, \"\"quoted\"\"\nline\",greedy,32,\n"));
  CHECK_THAT(text, Catch::Contains(",single,16,1.5\n"));
}

TEST_CASE("Sweep results reader refuses files that are not sweep tables",
          "[sweep][results][errors]") {
  test::TempDir dir;
  const std::string path = dir.file("other.h5");
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(f);
  StatusOr<ResultsTable> t = ReadResultsTable(path);
  REQUIRE_FALSE(t.ok());
  CHECK_THAT(t.status().message(), Catch::Contains("other.h5") && Catch::Contains("schema"));
  std::ofstream(dir.file("text.h5")) << "not hdf5";
  t = ReadResultsTable(dir.file("text.h5"));
  REQUIRE_FALSE(t.ok());
  CHECK_THAT(t.status().message(), Catch::Contains("text.h5"));
  CHECK(ReadResultsTable(dir.file("none.h5")).status().code() == Code::kNotFound);
}

TEST_CASE("Kendall tau by hand", "[sweep][validation]") {
  CHECK(KendallTau({1, 2, 3, 4}, {10, 20, 30, 40}) == 1.0);
  CHECK(KendallTau({1, 2, 3, 4}, {4, 3, 2, 1}) == -1.0);
  // Pairs: (1,2) C, (1,3) C, (2,3) D -> (2 - 1) / 3.
  CHECK(KendallTau({1, 2, 3}, {1, 3, 2}) == Approx(1.0 / 3));
  // tau-b with a tie in x: (1,2) tie_x, (1,3) C, (2,3) C -> 2 / sqrt(2 * 3).
  CHECK(KendallTau({1, 1, 2}, {1, 2, 3}) == Approx(2 / std::sqrt(6.0)));
  CHECK(KendallTau({1}, {1}) == 0);
}

TEST_CASE("Sweep validation pairs simulated and real points", "[sweep][validation]") {
  std::vector<SweepRow> rows = {Row(0, "sim", "a", {{"median_step_time_s", 0.010}}),
                                Row(0, "real", "a", {{"ms_per_step_median", 8.0}}),
                                Row(1, "sim", "b", {{"median_step_time_s", 0.020}}),
                                Row(1, "real", "b", {{"ms_per_step_median", 25.0}}),
                                Row(2, "sim", "c", {{"median_step_time_s", 0.030}}),
                                Row(2, "real", "c", {}, 1)};  // failed: not paired
  nlohmann::json r = ValidationReport(rows, "median_step_time_s", "ms_per_step_median");
  REQUIRE(r["pairs"] == 2);
  CHECK(r["points"][0]["relative_error"].get<double>() == Approx(0.25));  // 10 / 8 - 1
  CHECK(r["points"][1]["relative_error"].get<double>() == Approx(-0.2));  // 20 / 25 - 1
  CHECK(r["mean_abs_relative_error"].get<double>() == Approx(0.225));
  CHECK(r["kendall_tau"].get<double>() == 1.0);
  CHECK_THAT(FormatValidation(r), Catch::Contains("2 points") && Catch::Contains("22.5 %"));
  CHECK(ValidationReport({}, "a", "b")["pairs"] == 0);
  // `sweep --validate` on a one-point grid printed "Kendall tau 0.00".
  rows.resize(2);
  nlohmann::json one = ValidationReport(rows, "median_step_time_s", "ms_per_step_median");
  REQUIRE(one["pairs"] == 1);
  CHECK_FALSE(one.contains("kendall_tau"));
  CHECK_THAT(FormatValidation(one),
             Catch::Contains("validation: 1 point, ") &&
                 Catch::EndsWith("Kendall tau undefined (one point)"));
}

}  // namespace
}  // namespace fb::sweep
