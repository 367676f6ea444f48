// The default placer with a GPU among the devices (issue 21): compute ops with a GPU kernel go to
// the GPU, host ops (engine/placement/host_ops.h) and ops without a GPU kernel to the CPU, and
// host ops requested on a GPU are soft-placed on the CPU. Needs no GPU: only device descriptions
// and the kernel registry (Identity has a GPU kernel in every build).
#include <algorithm>
#include <cstring>

#include <catch2/catch.hpp>

#include "engine/framework/device.h"
#include "engine/framework/op_kernel.h"
#include "engine/placement/device_config.h"
#include "engine/placement/host_ops.h"
#include "engine/placement/placer.h"

namespace fb {
namespace {

// A compute op with a CPU kernel only (what a missing GPU kernel looks like).
REGISTER_OP("GpuPlacementTestCpuOnly")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .Doc("Test op of gpu_placement_test.cc: returns x, CPU kernel only.");
class CpuOnlyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
};
REGISTER_KERNEL(KernelDefBuilder("GpuPlacementTestCpuOnly").Device(DEVICE_CPU), CpuOnlyOp);

NodeDef Def(const std::string& name, const std::string& op, std::vector<std::string> inputs,
            AttrMap attrs, const std::string& device = "") {
  NodeDef n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  n.device = device;
  return n;
}

// x (Placeholder) -> a (Identity) -> b (CPU-only compute) -> c (Identity), and a queue.
std::unique_ptr<Graph> Chain(const std::string& queue_device) {
  GraphDef def;
  const AttrMap t = {{"T", DataType::kFloat}};
  def.nodes.push_back(Def("x", "Placeholder", {}, {{"dtype", DataType::kFloat},
                                                   {"shape", TensorShape({2, 2})}}));
  def.nodes.push_back(Def("a", "Identity", {"x"}, t));
  def.nodes.push_back(Def("b", "GpuPlacementTestCpuOnly", {"a"}, t));
  def.nodes.push_back(Def("c", "Identity", {"b"}, t));
  def.nodes.push_back(Def("q", "FIFOQueue", {},
                          {{"component_types", std::vector<DataType>{DataType::kFloat}}},
                          queue_device));
  auto g = Graph::FromGraphDef(def);
  INFO(g.status().ToString());
  REQUIRE(g.ok());
  return std::move(*g);
}

std::string DeviceOf(const Graph& g, const std::string& node) {
  return g.FindNode(node)->assigned_device();
}

TEST_CASE("The host-op allowlist is sorted and gives a reason for every op",
          "[placement][host_ops]") {
  const auto& ops = HostOps();
  REQUIRE(ops.size() > 10);
  for (size_t i = 0; i < ops.size(); ++i) {
    INFO(ops[i].op);
    CHECK(std::strlen(ops[i].reason) > 10);
    if (i > 0) CHECK(std::string(ops[i - 1].op) < ops[i].op);
    CHECK(HostOpReason(ops[i].op) == ops[i].reason);
  }
  for (const char* op : {"DatasetBatch", "Save", "Restore", "_Feed", "_Fetch", "_Send", "_Recv",
                         "LogUniformCandidateSampler", "QueueDequeueMany"})
    CHECK(IsHostOp(op));
  for (const char* op : {"MatMul", "Conv2D", "Variable", "ApplyAdam", "", "Zzz"})
    CHECK_FALSE(IsHostOp(op));
}

TEST_CASE("The default placer puts compute ops with a GPU kernel on the GPU",
          "[placement][gpu_placement]") {
  const DeviceSet devices = FlagDevices(DevicesFlag{"GPU", 1});
  const std::string cpu = devices[0].name, gpu = devices[1].name;
  std::unique_ptr<Graph> g = Chain("");
  REQUIRE(PlaceGraph(g.get(), devices, "").ok());
  CHECK(DeviceOf(*g, "x") == cpu);  // a feed: host op
  CHECK(DeviceOf(*g, "a") == gpu);
  CHECK(DeviceOf(*g, "b") == cpu);  // no GPU kernel: falls back
  CHECK(DeviceOf(*g, "c") == gpu);
  CHECK(DeviceOf(*g, "q") == cpu);
  // The same placer over CPUs only is the single-device baseline.
  std::unique_ptr<Graph> h = Chain("");
  const DeviceSet cpus = LocalDevices("CPU", 2);
  REQUIRE(PlaceGraph(h.get(), cpus, "single").ok());
  for (Node* n : h->nodes()) CHECK(n->assigned_device() == cpus[0].name);
}

TEST_CASE("Host ops requested on a GPU are soft-placed on the CPU, compute ops are not",
          "[placement][gpu_placement]") {
  const DeviceSet devices = FlagDevices(DevicesFlag{"GPU", 1});
  std::unique_ptr<Graph> g = Chain("/device:GPU:0");
  Status s = PlaceGraph(g.get(), devices, "");
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(DeviceOf(*g, "q") == devices[0].name);
  // A host op still honours the task of its request.
  std::unique_ptr<Graph> other_task = Chain("/job:worker/task:3/device:GPU:0");
  Status bad_task = PlaceGraph(other_task.get(), devices, "");
  REQUIRE_FALSE(bad_task.ok());
  CHECK_THAT(bad_task.message(), Catch::Contains("'q' (FIFOQueue"));
  // A compute op without a GPU kernel requested on the GPU: no soft placement.
  GraphDef def;
  def.nodes.push_back(Def("x", "Placeholder", {}, {{"dtype", DataType::kFloat}}));
  def.nodes.push_back(Def("b", "GpuPlacementTestCpuOnly", {"x"}, {{"T", DataType::kFloat}},
                          "/device:GPU:0"));
  auto h = Graph::FromGraphDef(def);
  REQUIRE(h.ok());
  Status hard = PlaceGraph(h->get(), devices, "");
  REQUIRE_FALSE(hard.ok());
  CHECK_THAT(hard.message(), Catch::Contains("'b' (GpuPlacementTestCpuOnly, device "
                                             "'/device:GPU:0')") &&
                                 Catch::Contains("no device satisfies the request"));
}

}  // namespace
}  // namespace fb
