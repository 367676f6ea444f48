// Training on GPU:0 end to end (issue 21): LeNet through the real training loop
// (experiments/training/trainer.h) with --devices gpu:1, against the same run on the CPU, and one
// forward+backward pass of a Table 1 convnet (AlexNet at batch 2) on the GPU against the CPU.
// Ops without a GPU kernel fall back to the CPU (engine/placement/host_ops.h and the kNotYetOnGpu
// list of tests/engine/placement/gpu_fallback_test.cc), so these also check the Send/Recv
// wiring between the host and the GPU. Tolerances: the first step's loss 1e-4 (same weights:
// RandomUniform is bit-exact on the GPU; cuDNN/cuBLAS sum in other orders); gradients 1e-3 of
// their norm.
#include <catch2/catch.hpp>

#include <cmath>

#include "datasets/synthetic.h"
#include "engine/runtime/local_devices.h"
#include "engine/runtime/session.h"
#include "experiments/models/models.h"
#include "experiments/training/trainer.h"

namespace fb::gpu {
namespace {

double Mean(const std::vector<double>& v, size_t begin, size_t end) {
  double s = 0;
  for (size_t i = begin; i < end; ++i) s += v[i];
  return s / static_cast<double>(end - begin);
}

TEST_CASE("LeNet trains on GPU:0 through the training loop like on the CPU", "[gpu][training]") {
  datasets::SyntheticOptions so;
  so.num_examples = 32 * 12;
  auto train = datasets::MakeSyntheticDataset(so);
  REQUIRE(train.ok());
  experiments::TrainOptions o;
  o.model = "lenet";
  o.model_options.batch_size = 32;
  o.model_options.optimizer = "momentum";
  o.model_options.learning_rate = 0.05;
  o.max_steps = 12;
  o.threads = 4;
  o.devices = "cpu:1";
  auto cpu = experiments::Train(o, *train, nullptr);
  INFO("cpu: " << cpu.status().ToString());
  REQUIRE(cpu.ok());
  o.devices = "gpu:1";
  auto gpu = experiments::Train(o, *train, *train);
  INFO("gpu: " << gpu.status().ToString());
  REQUIRE(gpu.ok());
  REQUIRE(gpu->devices.size() == 2);
  CHECK_THAT(gpu->devices[1], Catch::Contains("device:GPU:0"));
  REQUIRE(gpu->losses.size() == 12);
  CHECK(std::abs(gpu->losses[0] - cpu->losses[0]) <= 1e-4);
  CHECK(Mean(gpu->losses, 9, 12) < Mean(gpu->losses, 0, 3));
  CHECK(gpu->test_accuracy >= 0);  // evaluation ran: it feeds the GPU model from the host
  for (size_t i = 0; i < gpu->losses.size(); ++i) CHECK(std::isfinite(gpu->losses[i]));
}

// Loss and every gradient of one batch through a Session on `devices`.
std::vector<Tensor> ForwardBackward(const experiments::Model& m, const std::string& devices,
                                    const Tensor& images, const Tensor& labels) {
  SessionOptions so;
  auto mgr = CreateDevicesForFlag(devices, 4);
  INFO(devices << ": " << mgr.status().ToString());
  REQUIRE(mgr.ok());
  so.device_mgr = *mgr;
  auto session = Session::Create(so);
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(m.scope.ToGraphDef()).ok());
  std::vector<Tensor> none;
  Status init = (*session)->Run({}, {}, {m.init}, &none);
  INFO(init.ToString());
  REQUIRE(init.ok());
  std::vector<std::string> fetches = {m.loss};
  fetches.insert(fetches.end(), m.gradients.begin(), m.gradients.end());
  std::vector<Tensor> out;
  Status run = (*session)->Run({{m.images, images}, {m.labels, labels}}, fetches, {}, &out);
  INFO(run.ToString());
  REQUIRE(run.ok());
  for (Tensor& t : out) t = t.DeepCopy();
  return out;
}

double Norm(const Tensor& t) {
  double s = 0;
  for (int64_t i = 0; i < t.NumElements(); ++i) s += double(t.data<float>()[i]) * t.data<float>()[i];
  return std::sqrt(s);
}

TEST_CASE("AlexNet forward and backward on GPU:0 match the CPU at batch 2", "[gpu][training]") {
  auto o = experiments::WithModelDefaults("alexnet", experiments::ModelOptions{});
  REQUIRE(o.ok());
  o->batch_size = 2;
  o->optimizer = "sgd";
  auto m = experiments::BuildModel("alexnet", *o);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  datasets::SyntheticOptions so;
  so.num_examples = 2;
  so.image_shape = o->image_shape;
  so.num_classes = o->num_classes;
  auto batch = datasets::MakeSyntheticDataset(so);
  REQUIRE(batch.ok());
  auto cpu = ForwardBackward(*m, "cpu:1", (*batch)->images, (*batch)->labels);
  auto gpu = ForwardBackward(*m, "gpu:1", (*batch)->images, (*batch)->labels);
  REQUIRE(cpu.size() == m->gradients.size() + 1);
  REQUIRE(gpu.size() == cpu.size());
  CHECK(std::abs(gpu[0].scalar<float>() - cpu[0].scalar<float>()) <= 1e-4);
  for (size_t i = 1; i < cpu.size(); ++i) {
    INFO("gradient of " << m->variables[i - 1].name);
    REQUIRE(gpu[i].shape() == cpu[i].shape());
    Tensor diff = cpu[i].DeepCopy();
    for (int64_t k = 0; k < diff.NumElements(); ++k)
      diff.data<float>()[k] -= gpu[i].data<float>()[k];
    CHECK(Norm(diff) <= 1e-3 * Norm(cpu[i]) + 1e-6);
  }
}

}  // namespace
}  // namespace fb::gpu
