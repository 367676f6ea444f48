// `flowbench profile --devices gpu:1` as a library (sim/profile_recorder.h, issue 21 item 5):
// LeNet's forward-backward step profiled on GPU:0 at two small batches records the GPU's
// description, the mode, a point per kernel and the untraced steps, survives the HDF5 round trip,
// and the simulator's profile cost model predicts a third batch from it on a platform that
// declares this GPU (sim/profile_device.h). Bounds are sanity bounds (a real GPU's times), not
// accuracy targets: benchmarks/gpu_sim_validation.sh measures the accuracy.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <set>

#include "sim/profile.h"
#include "sim/profile_device.h"
#include "sim/profile_recorder.h"
#include "sim/profile_sim_costs.h"
#include "sim/sim_costs.h"

namespace fb::gpu {
namespace {

using Catch::Contains;

TEST_CASE("flowbench profile on GPU:0 records the GPU and the mode and its kernels",
          "[gpu][profile]") {
  sim::ProfileOptions o;
  o.models = {"lenet"};
  o.batch_sizes = {8, 32};
  o.threads = {1};
  o.devices = "gpu:1";
  o.mode = "forward-backward";
  o.warmup_steps = 2;
  o.timed_steps = 5;
  o.traced_steps = 3;
  auto p = sim::RecordProfile(o);
  INFO(p.status().ToString());
  REQUIRE(p.ok());
  CHECK(p->device_type == "GPU");
  CHECK_THAT(p->device, Contains(", sm_"));
  CHECK(p->mode == "forward-backward");
  REQUIRE(p->steps.size() == 2);
  std::set<std::string> ops;
  for (const sim::ProfilePoint& q : p->points) ops.insert(q.op);
  CHECK(ops.count("Conv2D") == 1);
  CHECK(ops.count("Conv2DBackpropFilter") == 1);
  CHECK(ops.count("ApplyAdam") == 0);  // no update in forward-backward
  for (const sim::ProfileStep& s : p->steps) {
    CHECK(s.median_step_ns > 0);
    CHECK(s.median_step_ns < 1e9);  // LeNet at batch 32: far below a second on any GPU
    CHECK(s.node_sum_ns > 0);
  }

  const std::string path =
      (std::filesystem::temp_directory_path() / "flowbench-gpu-profile-test.h5").string();
  p->host = "test";
  REQUIRE(sim::WriteProfile(path, *p).ok());
  auto back = sim::ReadProfile(path);
  REQUIRE(back.ok());
  CHECK(back->device == p->device);
  CHECK(back->mode == "forward-backward");

  // Batch 16 was not profiled: interpolated from 8 and 32.
  auto graph = sim::LoadSimGraph("", "lenet", 16, back->mode);
  REQUIRE(graph.ok());
  auto costs = sim::MakeProfileSimCosts(*graph->graph, graph->feed_shapes, "profile:" + path);
  INFO(costs.status().ToString());
  REQUIRE(costs.ok());
  CHECK_THAT(costs->description, Contains("GPU '" + p->device + "' forward-backward steps") &&
                                     Contains("extrapolated: 0 nodes"));
  sim::SimDevice gpu;
  gpu.host_name = "gpu0";
  gpu.desc.type = "GPU";
  gpu.model = sim::DeviceModel(p->device);
  CHECK(sim::CheckProfileDevice(*back, path, gpu, "test.xml").ok());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace fb::gpu
