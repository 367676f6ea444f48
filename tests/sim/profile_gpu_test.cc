// GPU profiles for the simulator (issue 21, item 5): the profiled device and mode in the profile
// file (sim/profile.h), the device and mode checks of `flowbench sim --cost-model profile:FILE`
// (sim/profile_device.h) and predictions from a GPU profile written here (no GPU needed; the
// GPU run itself is tests/gpu/profile_recorder_gpu_test.cc).
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/scope.h"
#include "engine/client/state_ops.h"
#include "engine/placement/cost_model.h"
#include "engine/runtime/local_devices.h"
#include "experiments/models/model_graph.h"
#include "sim/profile.h"
#include "sim/profile_calibration.h"
#include "sim/profile_cost_model.h"
#include "sim/profile_device.h"
#include "sim/profile_recorder.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using Catch::Contains;

constexpr const char* kH200 = "NVIDIA H200, sm_90, 143155 MiB";

// The TinyProfile of profile_test.cc, as a forward-backward profile of an H200: MatMul points at
// 100 and 400 FLOPs (1000 and 2000 ns), metadata ops with constant times, one configuration
// whose step is 5000 ns for 1800 ns of nodes, the executor's costs.
Profile GpuTinyProfile() {
  Profile p;
  p.host = "gpu-host";
  p.device_type = "GPU";
  p.device = kH200;
  p.mode = "forward-backward";
  p.points = {{"tiny", "mm", "MatMul", 1, 1, 100, 800, 1000, 10},
              {"tiny", "mm", "MatMul", 4, 1, 400, 2000, 2000, 10},
              {"tiny", "x", "Placeholder", 1, 1, 0, 0, 500, 10},
              {"tiny", "w", "Const", 1, 1, 0, 0, 300, 10}};
  p.steps = {{"tiny", 1, 1, 5000, 5200, 1800, 20, 1.5}};
  p.executor = {{1, 1000, 10, 20}};
  return p;
}

// x: Placeholder [batch, 5] (fed), w: Const [5, 10], mm = x w: 2 * batch * 10 * 5 FLOPs.
std::string TinyGraphFile(const fb::test::TempDir& dir) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({-1, 5}));
  auto w = ops::Const(root.WithOpName("w"), Tensor(DataType::kFloat, {5, 10}));
  ops::MatMul(root.WithOpName("mm"), x, w);
  const std::string path = dir.file("g.json");
  REQUIRE(WriteGraphDefFile(root.ToGraphDef(), path).ok());
  return path;
}

// A platform of one GPU host declaring `model` (no device_model property when empty).
std::string GpuPlatform(const fb::test::TempDir& dir, const std::string& model) {
  const std::string path = dir.file("gpu.xml");
  std::ofstream out(path);
  out << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\"><host id=\"gpu0\" "
      << "speed=\"10Tf\"><prop id=\"device_type\" value=\"GPU\"/>"
      << (model.empty() ? "" : "<prop id=\"device_model\" value=\"" + model + "\"/>")
      << "</host></zone></platform>\n";
  return path;
}

// Runs `flowbench ARGS`, returns the exit status and fills `output` (stdout and stderr).
int Flowbench(const fb::test::TempDir& dir, const std::string& args, std::string* output) {
  const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench " + args + " > " +
                          dir.file("out.txt") + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(dir.file("out.txt"));
  output->assign(std::istreambuf_iterator<char>(in), {});
  return rc;
}

TEST_CASE("GPU profile device and mode round trip through HDF5", "[sim][profile][gpuprofile]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("h200.h5");
  REQUIRE(WriteProfile(path, GpuTinyProfile()).ok());
  auto r = ReadProfile(path);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->schema_version == kProfileSchemaVersion);
  CHECK(r->device_type == "GPU");
  CHECK(r->device == kH200);
  CHECK(r->mode == "forward-backward");
  CHECK(r->points.size() == 4);
  // A version-1 file (before devices, written by the schema-1 flowbench) reads as what it
  // measured: a CPU's training steps.
  auto v1 = ReadProfile(std::string(FB_SOURCE_DIR) + "/tests/data/profile_schema1.h5");
  INFO(v1.status().ToString());
  REQUIRE(v1.ok());
  CHECK(v1->schema_version == 1);
  CHECK(v1->device_type == "CPU");
  CHECK(v1->device.empty());
  CHECK(v1->mode == "train");
}

// A traced GPU step synchronises after every node: LeNet's 1.3 ms step on an H200 traced to
// 5.5 ms of nodes, beyond the CPU profiles' bound of -50% (two threads overlapping).
TEST_CASE("A GPU profile's step correction scales traced nodes below the CPU bound",
          "[sim][profile][gpuprofile]") {
  Profile gpu = GpuTinyProfile();
  gpu.steps = {{"tiny", 1, 1, 1000, 1100, 4000, 20, 1.5}};  // untraced 1 us, traced nodes 4 us
  auto g = ProfileCostModel::Create(gpu, 1, "gpu.h5");
  REQUIRE(g.ok());
  CHECK(g->Correction("tiny").node_time_factor == Approx(-0.75));
  CHECK(g->Correction("tiny").step_overhead_ns == 0);
  Profile cpu = gpu;
  cpu.device_type = "CPU";
  cpu.device = "host";
  auto c = ProfileCostModel::Create(cpu, 1, "cpu.h5");
  REQUIRE(c.ok());
  CHECK(c->Correction("tiny").node_time_factor == Approx(-0.5));
  gpu.steps = {{"tiny", 1, 1, 100, 110, 4000, 20, 1.5}};  // 40x: still bounded
  auto bounded = ProfileCostModel::Create(gpu, 1, "gpu.h5");
  REQUIRE(bounded.ok());
  CHECK(bounded->Correction("tiny").node_time_factor == Approx(-0.95));
}

// Found by the H200 validation: LeNet's input/images Placeholder read AlexNet's (1 ms, a 227x227
// batch) because both models have a node of that name; the simulated model's own measurement wins.
TEST_CASE("Profile predictions of a node name two models share read the simulated model's",
          "[sim][profile][gpuprofile]") {
  Profile p = GpuTinyProfile();
  p.points = {{"alexnet", "input/images", "Placeholder", 32, 1, 0, 0, 1000000, 3},
              {"lenet", "input/images", "Placeholder", 32, 1, 0, 0, 20000, 3},
              {"alexnet", "fc", "MatMul", 32, 1, 100, 800, 9000, 3},
              {"lenet", "fc", "MatMul", 32, 1, 100, 800, 1000, 3}};
  auto m = ProfileCostModel::Create(p, 1, "two.h5");
  REQUIRE(m.ok());
  CHECK(m->Predict("Placeholder", "input/images", {0, 0}, "lenet").time_ns == Approx(20000));
  CHECK(m->Predict("Placeholder", "input/images", {0, 0}, "alexnet").time_ns == Approx(1000000));
  CHECK(m->Predict("MatMul", "fc", {100, 0}, "lenet").time_ns == Approx(1000));
  CHECK(m->Predict("MatMul", "fc", {100, 0}, "alexnet").time_ns == Approx(9000));
  // A model the profile lacks: any profiled model's node (the first), as before.
  const double other = m->Predict("Placeholder", "input/images", {0, 0}, "vgg").time_ns;
  CHECK((other == Approx(20000) || other == Approx(1000000)));
}

// The H200 profiles committed under sim/profiles/h200/: the first written by the short-lived
// schema 2 that added the device attributes to schema 1's tables, the second by schema 3.
TEST_CASE("Committed H200 profiles of both GPU layouts load", "[sim][profile][gpuprofile]") {
  const std::string dir = std::string(FB_SOURCE_DIR) + "/sim/profiles/h200/";
  auto v2 = ReadProfile(dir + "lenet_alexnet_fb.h5");
  INFO(v2.status().ToString());
  REQUIRE(v2.ok());
  CHECK(v2->schema_version == 2);
  CHECK(v2->device_type == "GPU");
  CHECK(v2->mode == "forward-backward");
  CHECK(v2->steps.size() == 4);
  CHECK_FALSE(v2->executor.at(0).has_step_costs);
  auto v3 = ReadProfile(dir + "lenet_alexnet_fb_passes.h5");
  INFO(v3.status().ToString());
  REQUIRE(v3.ok());
  CHECK(v3->schema_version == 3);
  CHECK(v3->device_type == "GPU");
  CHECK(v3->steps.size() == 4);
  CHECK(v3->executor.at(0).has_step_costs);
  CHECK_FALSE(v3->executor.at(0).has_transfer_cost);  // schema 4 added it
  CHECK(v3->steps[0].nodes > 0);
}

TEST_CASE("Profile with an unknown device type or mode is refused naming the file",
          "[sim][profile][gpuprofile]") {
  fb::test::TempDir dir;
  Profile p = GpuTinyProfile();
  p.device_type = "TPU";
  REQUIRE(WriteProfile(dir.file("tpu.h5"), p).ok());
  auto r = ReadProfile(dir.file("tpu.h5"));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Contains("tpu.h5") && Contains("device_type is 'TPU'"));
  p = GpuTinyProfile();
  p.mode = "inference";
  REQUIRE(WriteProfile(dir.file("mode.h5"), p).ok());
  r = ReadProfile(dir.file("mode.h5"));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Contains("mode.h5") && Contains("mode is 'inference'"));
  p = GpuTinyProfile();
  p.device = std::string(300, 'g');
  const Status s = WriteProfile(dir.file("long.h5"), p);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Contains("device") && Contains("longer than 255"));
}

TEST_CASE("A GPU profile does not calibrate a CPU platform", "[sim][profile][gpuprofile]") {
  auto c = CalibrateCpu(GpuTinyProfile(), 1, "h200.h5");
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(c.status().message(), Contains("h200.h5") && Contains("GPU 'NVIDIA H200"));
}

TEST_CASE("Device model strips the memory size of a GPU description", "[sim][profile][gpuprofile]") {
  CHECK(DeviceModel(kH200) == "NVIDIA H200, sm_90");
  CHECK(DeviceModel("NVIDIA H200, sm_90") == "NVIDIA H200, sm_90");
  CHECK(DeviceModel("vm") == "vm");
  CHECK(DeviceModel("a, b MiB") == "a, b MiB");  // not a size
  CHECK(DeviceDescriptionOfType({"/job:localhost/replica:0/task:0/device:CPU:0 (2 threads)",
                                 std::string("/job:localhost/replica:0/task:0/device:GPU:0 (") +
                                     kH200 + ")"},
                                "GPU") == kH200);
  CHECK(DeviceDescriptionOfType({"/job:localhost/replica:0/task:0/device:CPU:0 (2 threads)"},
                                "GPU")
            .empty());
}

TEST_CASE("sim refuses a GPU profile for a device it did not measure and names the file",
          "[sim][profile][gpuprofile]") {
  fb::test::TempDir dir;
  const std::string profile = dir.file("h200.h5"), graph = TinyGraphFile(dir);
  REQUIRE(WriteProfile(profile, GpuTinyProfile()).ok());
  const std::string base = "sim --graph " + graph + " --batch 2 --cost-model profile:" + profile;
  std::string out;
  // A CPU host.
  CHECK(Flowbench(dir, base + " --platform this_machine.xml", &out) != 0);
  CHECK_THAT(out, Contains("FailedPrecondition") && Contains(profile) &&
                      Contains("measured GPU 'NVIDIA H200") && Contains("is a CPU device"));
  // Another GPU.
  CHECK(Flowbench(dir, base + " --platform " + GpuPlatform(dir, "NVIDIA A100-SXM4-80GB, sm_80"),
                  &out) != 0);
  CHECK_THAT(out, Contains(profile) && Contains("device_model 'NVIDIA A100-SXM4-80GB, sm_80'") &&
                      Contains("not the profiled 'NVIDIA H200, sm_90'"));
  // A GPU that does not say which (the V100-class GPUs of the generated node platforms).
  CHECK(Flowbench(dir, base + " --platform " + GpuPlatform(dir, ""), &out) != 0);
  CHECK_THAT(out, Contains(profile) && Contains("declares no device_model"));
  // A CPU profile is not a GPU's either.
  Profile cpu = GpuTinyProfile();
  cpu.device_type = "CPU";
  cpu.device = "vm";
  REQUIRE(WriteProfile(dir.file("cpu.h5"), cpu).ok());
  CHECK(Flowbench(dir, "sim --graph " + graph + " --batch 2 --cost-model profile:" +
                           dir.file("cpu.h5") + " --platform h200",
                  &out) != 0);
  CHECK_THAT(out, Contains("cpu.h5") && Contains("is a GPU device"));
}

TEST_CASE("GPU profile predicts an unprofiled batch on the H200 platform",
          "[sim][profile][gpuprofile]") {
  fb::test::TempDir dir;
  const std::string profile = dir.file("h200.h5"), graph = TinyGraphFile(dir);
  REQUIRE(WriteProfile(profile, GpuTinyProfile()).ok());
  std::string out;
  const std::string args = "sim --graph " + graph + " --batch 2 --platform h200 --cost-model "
                           "profile:" + profile + " --metrics-json " + dir.file("m.json");
  INFO(args);
  REQUIRE(Flowbench(dir, args, &out) == 0);
  INFO(out);
  CHECK_THAT(out, Contains("GPU 'NVIDIA H200, sm_90, 143155 MiB' forward-backward steps") &&
                      Contains("interpolated: 3 nodes"));
  std::ifstream in(dir.file("m.json"));
  const nlohmann::json m = nlohmann::json::parse(in);
  // Batch 2 was not profiled: mm's 200 FLOPs lie between the points at 100 (1000 ns) and 400
  // (2000 ns), log-log interpolation gives 1000 * sqrt(2) ns. The step: per_step_ns (1000) plus
  // the configuration's residual (5000 - 1800), then x, w and mm one after the other, each with
  // the executor's 10 ns per node (hand computation, as the CPU profile's test).
  const double expected_ns = 1000 + 3200 + (500 + 10) + (300 + 10) + (1000 * std::sqrt(2.0) + 10);
  CHECK(m["median_step_time_s"].get<double>() * 1e9 == Approx(expected_ns).epsilon(1e-6));
}

// A forward-backward GPU profile of LeNet at batches 32 and 128 (each node: 2 us plus 1 ns per
// 10,000 FLOPs or per 1,000 bytes), its configurations' steps the sums of their nodes.
Profile LenetGpuProfile() {
  Profile p = GpuTinyProfile();
  p.points.clear();
  p.steps.clear();
  for (int64_t batch : {32, 128}) {
    auto g = experiments::BuildModelGraph("lenet", batch, "forward-backward");
    REQUIRE(g.ok());
    CostModelOptions co;
    co.feed_shapes = g->feed_shapes;
    auto cm = CostModel::Create(*g->graph, DeviceSet{DeviceDesc{}}, {}, co);
    REQUIRE(cm.ok());
    ProfileStep step{"lenet", batch, 1, 0, 0, 0, 20, 0};
    for (Node* n : g->graph->nodes()) {
      const OpWork& w = cm->Work(*n);
      const double ns = 2000 + w.flops / 1e4 + w.bytes_accessed / 1e3;
      p.points.push_back({"lenet", n->name(), n->op(), batch, 1, w.flops, w.bytes_accessed, ns, 2});
      step.node_sum_ns += ns;
    }
    step.median_step_ns = step.mean_step_ns = step.node_sum_ns;
    p.steps.push_back(step);
  }
  return p;
}

double PredictedStepMs(const std::string& output) {
  const std::string key = "predicted median step time: ";
  const size_t at = output.find(key);
  REQUIRE(at != std::string::npos);
  return std::atof(output.c_str() + at + key.size());
}

TEST_CASE("GPU profile of LeNet predicts its forward-backward step at another batch size",
          "[sim][profile][gpuprofile]") {
  fb::test::TempDir dir;
  const std::string profile = dir.file("lenet-h200.h5");
  const Profile p = LenetGpuProfile();
  REQUIRE(WriteProfile(profile, p).ok());
  // The profile holds every node of the graph BuildModelGraph builds: simulated as built.
  const std::string base =
      "sim --model lenet --platform h200 --no-default-passes --cost-model profile:" + profile;
  std::string out;
  // --model-mode defaults to the profile's: every node of the forward-backward step is profiled.
  REQUIRE(Flowbench(dir, base + " --batch 64", &out) == 0);
  INFO(out);
  CHECK_THAT(out, Contains("forward-backward steps") && Contains("extrapolated: 0 nodes") &&
                      Contains("unprofiled (analytic): 0 nodes"));
  // Between the profiled batches' steps (per_step_ns 1000 ns added; no step correction, their
  // residuals are 0).
  const double step64 = PredictedStepMs(out);
  CHECK(step64 > p.steps[0].median_step_ns * 1e-6);
  CHECK(step64 < p.steps[1].median_step_ns * 1e-6 + 0.001);
  // The profiled batch itself comes back as measured (every node on its own point).
  REQUIRE(Flowbench(dir, base + " --batch 32", &out) == 0);
  const double expected32 = (p.steps[0].median_step_ns + 1000 +
                             10.0 * static_cast<double>(p.points.size() / 2)) * 1e-6;
  CHECK(PredictedStepMs(out) == Approx(expected32).epsilon(1e-4));
  // By default the model's graph goes through the Session's default passes first, as `flowbench
  // benchmark` runs it: fewer nodes (LeNet's forward-backward: 101 -> 81 in a Session).
  REQUIRE(Flowbench(dir, "sim --model lenet --platform h200 --batch 32 --cost-model profile:" +
                             profile, &out) == 0);
  CHECK(PredictedStepMs(out) < expected32);
  CHECK_THAT(out, !Contains("interpolated: " + std::to_string(p.points.size() / 2) + " nodes"));
  // A training step holds the optimizer's nodes, which the profile never ran.
  CHECK(Flowbench(dir, base + " --batch 64 --model-mode train", &out) != 0);
  CHECK_THAT(out, Contains(profile) && Contains("measured forward-backward steps") &&
                      Contains("--model-mode train"));
}

TEST_CASE("flowbench profile --devices gpu:1 without a GPU names the flag",
          "[sim][profile][gpuprofile]") {
  if (CreateDevicesForFlag("gpu:1", 1).ok()) return;  // a GPU machine: tests/gpu covers it
  ProfileOptions o;
  o.models = {"lenet"};
  o.batch_sizes = {2};
  o.threads = {1};
  o.devices = "gpu:1";
  auto r = RecordProfile(o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(r.status().message(), Contains("--devices gpu:1") && Contains("no GPU visible"));
  fb::test::TempDir dir;
  std::string out;
  CHECK(Flowbench(dir, "profile --out " + dir.file("p.h5") + " --devices gpu:1 --models lenet",
                  &out) != 0);
  CHECK_THAT(out, Contains("FailedPrecondition") && Contains("--devices gpu:1"));
  o.devices = "gpu:2";
  r = RecordProfile(o);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Contains("cpu:1 or gpu:1") && Contains("gpu:2"));
  o.devices = "cpu:1";
  o.mode = "inference";
  r = RecordProfile(o);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Contains("--mode") && Contains("inference"));
}

}  // namespace
}  // namespace fb::sim
