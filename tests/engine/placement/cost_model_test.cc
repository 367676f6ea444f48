#include "engine/placement/cost_model.h"

#include <catch2/catch.hpp>

#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"
#include "engine/framework/device_name.h"
#include "engine/placement/device_config.h"
#include "engine/trace/trace_reader.h"
#include "engine/trace/trace_writer.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

DeviceDesc SlowDevice(const std::string& name) {
  DeviceDesc d;
  d.name = name;
  d.type = "CPU";
  d.peak_flops_per_s = 1e9;
  d.memory_bandwidth_bytes_per_s = 1e9;
  d.launch_overhead_ns = 1000;
  return d;
}

CostModel MakeModel(const Graph& g, DeviceSet devices, LinkSet links = {},
                    CostModelOptions options = {}) {
  auto m = CostModel::Create(g, std::move(devices), std::move(links), std::move(options));
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  return std::move(*m);
}

TEST_CASE("Cost model: MatMul bytes and roofline time by hand", "[placement][cost_model]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({-1, 784}));
  auto w = ops::Variable(root.WithOpName("w"), TensorShape({784, 100}), DataType::kFloat);
  auto y = ops::MatMul(root.WithOpName("mm"), x, w);
  REQUIRE(root.ok());
  CostModelOptions opts;
  opts.feed_shapes["x"] = TensorShape({64, 784});
  CostModel m = MakeModel(*root.graph(), {SlowDevice(LocalDeviceName("CPU", 0))}, {}, opts);
  const Node& mm = *y.node();
  CHECK(m.OutputBytes(mm, 0) == 64 * 100 * 4);
  CHECK(m.InputBytes(mm) == 64 * 784 * 4 + 784 * 100 * 4);
  CHECK(m.PersistentBytes(*w.node()) == 784 * 100 * 4);
  CHECK(m.PersistentBytes(mm) == 0);
  // 2*M*N*K FLOPs; bytes read + written.
  CHECK(m.Work(mm).flops == Approx(2.0 * 64 * 100 * 784));
  CHECK(m.Work(mm).bytes_accessed == Approx(539904));
  // Compute-bound: 1000 ns launch + 10,035,200 FLOPs at 1 GFLOP/s.
  CHECK(m.ComputeNs(mm, 0) == Approx(1000 + 10035200));
  // Metadata ops cost only the launch.
  CHECK(m.ComputeNs(*w.node(), 0) == Approx(1000));
}

TEST_CASE("Cost model: UnsortedSegmentSum adds each data element once",
          "[placement][cost_model]") {
  Scope root = Scope::NewRootScope();
  auto data = ops::Placeholder(root.WithOpName("data"), DataType::kFloat, TensorShape({1000, 16}));
  auto ids = ops::Placeholder(root.WithOpName("ids"), DataType::kInt32, TensorShape({1000}));
  // num_segments known only at run time: the output's rows are unknown.
  auto n = ops::Placeholder(root.WithOpName("n"), DataType::kInt32, TensorShape({}));
  auto sum = ops::UnsortedSegmentSum(root.WithOpName("sum"), data, ids, n);
  REQUIRE(root.ok());
  CostModel m = MakeModel(*root.graph(), {SlowDevice(LocalDeviceName("CPU", 0))});
  CHECK(m.Work(*sum.node()).flops == Approx(1000.0 * 16));
}

TEST_CASE("Cost model: Conv2D FLOPs and element-wise memory-bound time",
          "[placement][cost_model]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({8, 28, 28, 1}));
  auto f = ops::Variable(root.WithOpName("f"), TensorShape({5, 5, 1, 32}), DataType::kFloat);
  auto c = ops::Conv2D(root.WithOpName("conv"), x, f, {1, 1}, "SAME");
  auto r = ops::Relu(root.WithOpName("relu"), c);
  REQUIRE(root.ok());
  CostModel m = MakeModel(*root.graph(), {SlowDevice("/job:localhost/replica:0/task:0/device:CPU:0")});
  // 2 * N*OH*OW*OC * KH*KW*IC
  CHECK(m.Work(*c.node()).flops == Approx(2.0 * 8 * 28 * 28 * 32 * 25));
  CHECK(m.OutputBytes(*c.node(), 0) == 8 * 28 * 28 * 32 * 4);
  // Relu: one FLOP per element but 8 bytes moved per element: memory-bound.
  double elems = 8 * 28 * 28 * 32;
  CHECK(m.ComputeNs(*r.node(), 0) == Approx(1000 + 8 * elems));
}

TEST_CASE("Shape refinement folds Shape into Reshape and honours feed shapes",
          "[placement][graph_shapes]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({-1, 6}));
  auto y = ops::Placeholder(root.WithOpName("y"), DataType::kFloat, TensorShape({3, 2, 4}));
  auto r = ops::Reshape(root.WithOpName("r"), x, ops::Shape(root, y));
  REQUIRE(root.ok());
  auto shapes = InferGraphShapes(*root.graph(), {{"x", TensorShape({4, 6})}});
  REQUIRE(shapes.ok());
  CHECK(shapes->output(*x.node(), 0) == PartialShape(TensorShape({4, 6})));
  CHECK(shapes->output(*r.node(), 0) == PartialShape(TensorShape({3, 2, 4})));
  auto unfed = InferGraphShapes(*root.graph());
  REQUIRE(unfed.ok());
  CHECK(unfed->output(*x.node(), 0) == PartialShape(TensorShape({-1, 6})));
  CHECK(EstimatedBytes(DataType::kFloat, unfed->output(*x.node(), 0), 10) == 10 * 6 * 4);
}

TEST_CASE("Shape refinement reports shape-function errors naming the node",
          "[placement][graph_shapes]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DataType::kFloat, TensorShape({-1, 3}));
  auto b = ops::Placeholder(root.WithOpName("b"), DataType::kFloat, TensorShape({4, 5}));
  ops::MatMul(root.WithOpName("bad_mm"), a, b);
  // The feed makes the inner dimensions disagree only at refinement time.
  auto shapes = InferGraphShapes(*root.graph(), {{"b", TensorShape({4, 5})}});
  if (root.ok()) {
    REQUIRE_FALSE(shapes.ok());
    CHECK_THAT(shapes.status().message(), Catch::Contains("bad_mm"));
  } else {
    CHECK_THAT(root.status().message(), Catch::Contains("bad_mm"));
  }
}

TEST_CASE("Cost model: transfer time from the link description", "[placement][cost_model]") {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("c"), 1.0f);
  DeviceSet devs = {SlowDevice(LocalDeviceName("CPU", 0)), SlowDevice(LocalDeviceName("GPU", 0))};
  devs[1].type = "GPU";
  LinkSet links;
  links.default_link = LinkDesc{"", "", 5000, 1e9};
  links.links.push_back(LinkDesc{"/device:CPU:*", "/device:GPU:*", 100, 1e10});
  CostModel m = MakeModel(*root.graph(), devs, links);
  CHECK(m.TransferNs(1000000, 0, 0) == 0);
  CHECK(m.TransferNs(1000000, 0, 1) == Approx(100 + 1e5));  // the CPU->GPU link
  CHECK(m.TransferNs(1000000, 1, 0) == Approx(5000 + 1e6));  // no GPU->CPU link: default
  CHECK(m.DeviceIndex(LocalDeviceName("GPU", 0)) == 1);
  CHECK(m.DeviceIndex("/device:TPU:0") == -1);
}

TEST_CASE("Cost model: measured mode reads node durations from an HDF5 trace",
          "[placement][cost_model]") {
  test::TempDir dir;
  std::string path = dir.file("run.h5");
  const std::string cpu0 = LocalDeviceName("CPU", 0);
  {
    auto w = TraceWriter::Create(path, TraceMetadata{});
    REQUIRE(w.ok());
    REQUIRE((*w)->AddDevice(cpu0, "CPU").ok());
    for (int64_t dur : {10000, 14000}) {
      TraceEvent e;
      e.device = cpu0;
      e.node = "mm";
      e.op = "MatMul";
      e.start_ns = 1000000;
      e.end_ns = 1000000 + dur;
      REQUIRE((*w)->AddEvent(e).ok());
    }
    REQUIRE((*w)->Close().ok());
  }
  auto trace = TraceReader::Open(path);
  REQUIRE(trace.ok());
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root.WithOpName("a"), std::vector<float>(4, 1.f), TensorShape({2, 2}));
  auto mm = ops::MatMul(root.WithOpName("mm"), a, a);
  auto neg = ops::Neg(root.WithOpName("neg"), mm);
  REQUIRE(root.ok());
  CostModelOptions opts;
  opts.measured = std::make_shared<MeasuredCosts>(MeasuredCosts::FromTrace(*trace));
  CostModel m = MakeModel(*root.graph(), {SlowDevice(cpu0)}, {}, opts);
  CHECK(m.IsMeasured(*mm.node(), 0));
  CHECK(m.ComputeNs(*mm.node(), 0) == Approx(12000));  // the median of 10 and 14 us
  CHECK_FALSE(m.IsMeasured(*neg.node(), 0));
  CHECK(m.ComputeNs(*neg.node(), 0) == Approx(AnalyticComputeNs(m.Work(*neg.node()), SlowDevice(cpu0))));
}

TEST_CASE("Measured costs: per-node median by default, mean on request", "[placement][cost_model]") {
  MeasuredCosts median, mean(MeasuredCosts::Statistic::kMean);
  for (double ns : {10.0, 100.0, 11.0}) {  // one preempted execution
    median.Add("n", "CPU", ns);
    mean.Add("n", "CPU", ns);
  }
  CHECK(median.DurationNs("n", "CPU") == 11.0);
  CHECK(mean.DurationNs("n", "CPU") == Approx(121.0 / 3));
  median.Add("n", "CPU", 12.0);
  median.Summarize();
  CHECK(median.DurationNs("n", "CPU") == 11.5);  // even count: the mean of the middle two
  CHECK(median.DurationNs("n", "GPU") < 0);
  CHECK(median.DurationNs("other", "CPU") < 0);
}

TEST_CASE("Device config files: count expansion, links and errors naming the entry",
          "[placement][device_config]") {
  auto p = ParsePlatformJson(R"({"devices": [
      {"name": "/device:CPU:0", "peak_flops_per_s": 1e11},
      {"name": "/job:localhost/device:GPU:0", "count": 2, "memory_limit_bytes": 1000}],
    "links": [{"src": "/device:CPU:*", "dst": "/device:GPU:*", "latency_ns": 7, "bandwidth_bytes_per_s": 1e9}],
    "default_link": {"latency_ns": 3, "bandwidth_bytes_per_s": 2e9}})",
                             "test.json");
  INFO(p.status().ToString());
  REQUIRE(p.ok());
  REQUIRE(p->devices.size() == 3);
  CHECK(p->devices[0].name == "/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(p->devices[0].peak_flops_per_s == 1e11);
  CHECK(p->devices[2].name == "/job:localhost/replica:0/task:0/device:GPU:1");
  CHECK(p->devices[2].type == "GPU");
  CHECK(p->devices[2].memory_limit_bytes == 1000);
  CHECK(p->links.Find(p->devices[0].name, p->devices[1].name).latency_ns == 7);
  CHECK(p->links.Find(p->devices[1].name, p->devices[0].name).latency_ns == 3);

  auto bad = ParsePlatformJson(R"({"devices": [{"name": "/device:CPU:0", "peak_flops_per_s": -1}]})",
                               "bad.json");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("bad.json: devices[0]"));
  CHECK_THAT(bad.status().message(), Catch::Contains("peak_flops_per_s"));
  // Values that hung the placer (a count of 10^9 devices), overflowed int conversions (1e300) or
  // predicted infinite or absurd times (a bandwidth of 1e-308 bytes/s, a 1e300 ns launch).
  for (const char* entry :
       {R"("count": 1e9)", R"("count": 1e300)", R"("count": 0)", R"("count": 2.5)",
        R"("memory_bandwidth_bytes_per_s": 1e-308)", R"("launch_overhead_ns": 1e300)",
        R"("memory_limit_bytes": 1e300)", R"("peak_flops_per_s": "5e10")"}) {
    INFO(entry);
    auto out = ParsePlatformJson(
        std::string(R"({"devices": [{"name": "/device:CPU:0", )") + entry + "}]}", "big.json");
    REQUIRE_FALSE(out.ok());
    CHECK_THAT(out.status().message(), Catch::StartsWith("big.json: devices[0]: '"));
  }
  auto link = ParsePlatformJson(R"({"devices": [{"name": "/device:CPU:0"}],
      "default_link": {"latency_ns": 3, "bandwidth_bytes_per_s": 0}})", "link.json");
  REQUIRE_FALSE(link.ok());
  CHECK_THAT(link.status().message(), Catch::Contains("'bandwidth_bytes_per_s' must be a number in [1, "));
  auto dup = ParsePlatformJson(R"({"devices": [{"name": "/cpu:0"}, {"name": "/device:CPU:0"}]})",
                               "dup.json");
  REQUIRE_FALSE(dup.ok());
  CHECK_THAT(dup.status().message(), Catch::Contains("duplicate device"));
  auto missing = ReadPlatformFile("/nonexistent/devices.json");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.status().message(), Catch::Contains("/nonexistent/devices.json"));
}

}  // namespace
}  // namespace fb
