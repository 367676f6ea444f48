#include "engine/trace/trace_chrome.h"

#include <zlib.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "tests/engine/trace/small_trace.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

std::vector<nlohmann::json> CompleteEvents(const nlohmann::json& j) {
  std::vector<nlohmann::json> out;
  for (const auto& e : j.at("traceEvents"))
    if (e.at("ph") == "X") out.push_back(e);
  return out;
}

const nlohmann::json& Named(const std::vector<nlohmann::json>& events, const std::string& name) {
  for (const auto& e : events)
    if (e.at("name") == name) return e;
  FAIL("no event named " << name);
  return events.front();
}

TEST_CASE("Chrome export: pid per device, microseconds from the first event, transfer args",
          "[trace]") {
  nlohmann::json j = ChromeTraceJson(test::SmallTrace(), {});
  CHECK(j.at("displayTimeUnit") == "ns");
  CHECK(j.at("otherData").at("origin_ns") == 1'000'000'000);
  std::map<int, std::string> process_names;
  for (const auto& e : j.at("traceEvents"))
    if (e.at("ph") == "M" && e.at("name") == "process_name")
      process_names[e.at("pid")] = e.at("args").at("name");
  CHECK(process_names == std::map<int, std::string>{{1, "/device:CPU:0"}, {2, "/device:CPU:1"}});
  auto events = CompleteEvents(j);
  REQUIRE(events.size() == 4);
  const auto& a = Named(events, "a");
  CHECK(a.at("pid") == 1);
  CHECK(a.at("ts").get<double>() == 0.0);
  CHECK(a.at("dur").get<double>() == 100.0);
  CHECK(a.at("cat") == "compute");
  CHECK(a.at("args").at("op") == "MatMul");
  CHECK(a.at("args").at("output_bytes") == 64);
  const auto& r = Named(events, "r");
  CHECK(r.at("cat") == "recv");
  CHECK(r.at("ts").get<double>() == 50.0);
  CHECK(r.at("args").at("bytes") == 4096);
  CHECK(r.at("args").at("peer_device") == "/device:CPU:1");
  const auto& c = Named(events, "c");
  CHECK(c.at("pid") == 2);
  CHECK(c.at("args").at("step") == 1);
}

TEST_CASE("Chrome export: tids are unique per device stream and rows never partially overlap",
          "[trace]") {
  auto events = CompleteEvents(ChromeTraceJson(test::SmallTrace(), {}));
  // Same OS thread id 7 on two devices must not share a tid.
  CHECK(Named(events, "a").at("tid") != Named(events, "c").at("tid"));
  // b nests inside a: same row; r overlaps a without nesting: its own row.
  CHECK(Named(events, "b").at("tid") == Named(events, "a").at("tid"));
  CHECK(Named(events, "r").at("tid") != Named(events, "a").at("tid"));
  std::map<int64_t, std::set<int>> pids_of_tid;
  std::map<int64_t, std::vector<std::pair<double, double>>> rows;
  for (const auto& e : events) {
    pids_of_tid[e.at("tid")].insert(e.at("pid").get<int>());
    double s = e.at("ts"), d = e.at("dur");
    rows[e.at("tid")].push_back({s, s + d});
  }
  for (const auto& [tid, pids] : pids_of_tid) CHECK(pids.size() == 1);
  for (auto& [tid, spans] : rows)
    for (const auto& x : spans)
      for (const auto& y : spans) {
        bool disjoint = x.second <= y.first || y.second <= x.first;
        bool nested = (x.first <= y.first && y.second <= x.second) ||
                      (y.first <= x.first && x.second <= y.second);
        CHECK((disjoint || nested));
      }
}

TEST_CASE("Chrome export: time window and step filters", "[trace]") {
  ChromeExportOptions window;
  window.start_ns = 120'000;  // 120 us after the first event
  window.end_ns = 210'000;
  auto events = CompleteEvents(ChromeTraceJson(test::SmallTrace(), window));
  std::set<std::string> names;
  for (const auto& e : events) names.insert(e.at("name"));
  CHECK(names == std::set<std::string>{"r", "c"});  // r ends at 150, c starts at 200
  ChromeExportOptions step;
  step.step = 1;
  events = CompleteEvents(ChromeTraceJson(test::SmallTrace(), step));
  REQUIRE(events.size() == 1);
  CHECK(events[0].at("name") == "c");
  CHECK(events[0].at("ts").get<double>() == 200.0);  // still relative to the whole trace
}

// `flowbench trace export --step 2` on a benchmark trace (node events only in its last steps)
// wrote a file without events and exited 0.
TEST_CASE("Chrome export refuses a step or window that selects no event", "[trace][errors]") {
  test::TempDir dir;
  Trace t = test::SmallTrace();
  ChromeExportOptions step;
  step.step = 5;
  Status s = WriteChromeTrace(t, dir.file("t.json"), step);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("mem.h5: step 5 (--step) selects none of its 4 events") &&
                              Catch::Contains("2 steps, 0 to 1") &&
                              Catch::Contains("span 0 to 250000 ns"));
  CHECK_FALSE(std::ifstream(dir.file("t.json")).good());

  ChromeExportOptions late;
  late.start_ns = 300'000;
  CHECK_THAT(CheckChromeExportSelection(t, late).message(),
             Catch::Contains("the window [300000, end) ns (--start-ns, --end-ns) selects none"));
  ChromeExportOptions reversed;
  reversed.start_ns = 100;
  reversed.end_ns = 50;
  CHECK_THAT(CheckChromeExportSelection(t, reversed).message(),
             Catch::Contains("window start (--start-ns 100) must be before its end (--end-ns 50)"));
  ChromeExportOptions both = step;
  both.step = 1;
  both.end_ns = 150'000;  // c of step 1 starts at 200 us
  CHECK_THAT(CheckChromeExportSelection(t, both).message(),
             Catch::Contains("step 1 (--step) in the window [0, 150000) ns"));
  both.end_ns = 250'000;
  CHECK(CheckChromeExportSelection(t, both).ok());
  CHECK(CheckChromeExportSelection(Trace{}, step).ok());  // nothing to select from
}

std::string ReadGzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string out;
  char buf[4096];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, n);
  gzclose(f);
  return out;
}

TEST_CASE("Chrome export writes plain or gzip-compressed JSON files", "[trace]") {
  test::TempDir dir;
  Trace t = test::SmallTrace();
  REQUIRE(WriteChromeTrace(t, dir.file("t.json"), {}).ok());
  std::ifstream in(dir.file("t.json"));
  std::stringstream plain;
  plain << in.rdbuf();
  CHECK(CompleteEvents(nlohmann::json::parse(plain.str())).size() == 4);

  REQUIRE(WriteChromeTrace(t, dir.file("t.json.gz"), {}).ok());
  std::string unzipped = ReadGzip(dir.file("t.json.gz"));
  CHECK(unzipped == plain.str());
  ChromeExportOptions gz;
  gz.gzip = true;
  REQUIRE(WriteChromeTrace(t, dir.file("forced.json"), gz).ok());
  CHECK(ReadGzip(dir.file("forced.json")) == plain.str());
  std::ifstream raw(dir.file("forced.json"), std::ios::binary);
  CHECK(raw.get() == 0x1f);  // the gzip magic number
  CHECK(raw.get() == 0x8b);

  Status s = WriteChromeTrace(t, dir.file("missing/t.json"), {});
  CHECK(s.code() == Code::kInternal);
  CHECK_THAT(s.message(), Catch::Contains("missing/t.json: cannot open for writing"));
}

TEST_CASE("Chrome export replaces names that are not UTF-8", "[trace][errors]") {
  // A corrupt trace's string table may hold any bytes; the export threw (and aborted) on them.
  test::TempDir dir;
  Trace t = test::SmallTrace();
  t.strings[3] = "a\x9f\xff";
  REQUIRE(WriteChromeTrace(t, dir.file("t.json"), {}).ok());
  std::ifstream in(dir.file("t.json"));
  std::stringstream text;
  text << in.rdbuf();
  auto events = CompleteEvents(nlohmann::json::parse(text.str()));
  CHECK(Named(events, "a\xef\xbf\xbd\xef\xbf\xbd").at("args").at("op") == "MatMul");
}

}  // namespace
}  // namespace fb
