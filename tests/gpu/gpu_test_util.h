#pragma once
// Helpers of the GPU tests: run one node's kernel on the CPU device and on GPU:0 with the same
// random inputs and compare the outputs with a stated tolerance. Kernels are created through the
// kernel registry exactly as the executor does and run through Device::Compute / ComputeAsync.
#include <future>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/framework/op_def.h"
#include "engine/framework/op_kernel.h"
#include "kernels/cuda/gpu_device.h"
#include "tests/test_util.h"

namespace fb::gpu::test {

// A CPU device (2 threads) and GPU:0, shared by all tests of the process.
inline Device* Cpu() {
  static auto* d = new CpuDevice("/job:localhost/replica:0/task:0/device:CPU:0", 2);
  return d;
}
inline GpuDevice* Gpu() {
  static GpuDevice* d = [] {
    auto g = GpuDevice::Create(0, DeviceOptions());
    INFO(g.status().ToString());
    REQUIRE(g.ok());
    return g->release();
  }();
  return d;
}

// A node of `op_name` with `num_inputs` data inputs and `attrs` (defaults added).
inline NodeDef Node(const std::string& op_name, int num_inputs, AttrMap attrs) {
  NodeDef n;
  n.name = "test_" + op_name;
  n.op = op_name;
  for (int i = 0; i < num_inputs; ++i) n.inputs.push_back("in" + std::to_string(i));
  n.attrs = std::move(attrs);
  // Defaults (MatMul's transpose_a, ...) as the Session fills them.
  auto op = OpRegistry::Global()->LookUp(op_name);
  REQUIRE(op.ok());
  REQUIRE(AddDefaultsAndValidateAttrs(**op, n.name, &n.attrs).ok());
  return n;
}

// Runs `node` on `device` with host `inputs` (copied to the device first unless the kernel
// declares them HostMemory; Ref inputs as `refs`) and returns the outputs copied back to the
// host, or the kernel's error.
inline StatusOr<std::vector<Tensor>> TryRun(Device* device, const NodeDef& node,
                                            const std::vector<Tensor>& inputs,
                                            const std::vector<Var*>& refs = {}) {
  ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel,
                   KernelRegistry::Global()->CreateKernel(device, node));
  std::vector<TensorValue> values;
  for (Var* v : refs) values.push_back(TensorValue{Tensor(), v});
  for (const Tensor& t : inputs) {
    // HostMemory inputs stay on the host, as the executor delivers them.
    if (kernel->input_on_host(static_cast<int>(values.size()))) {
      values.push_back(TensorValue{t, nullptr});
      continue;
    }
    ASSIGN_OR_RETURN(Tensor on_device, device->CopyFromHost(t));
    values.push_back(TensorValue{on_device, nullptr});
  }
  OpKernelContext::Params params;
  params.device = device;
  params.kernel = kernel.get();
  params.inputs = &values;
  params.step_id = 1;
  OpKernelContext ctx(&params);
  if (AsyncOpKernel* async = kernel->AsAsync()) {
    std::promise<void> finished;
    device->ComputeAsync(async, &ctx, [&finished] { finished.set_value(); });
    finished.get_future().wait();
  } else {
    device->Compute(kernel.get(), &ctx);
  }
  RETURN_IF_ERROR(ctx.status());
  std::vector<Tensor> out;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const TensorValue& v = ctx.output_value(i);
    Tensor t = v.is_ref() ? *v.ref->tensor() : v.tensor;
    ASSIGN_OR_RETURN(Tensor host, device->CopyToHost(t));
    out.push_back(host);
  }
  RETURN_IF_ERROR(device->Sync());
  return out;
}

inline std::vector<Tensor> Run(Device* device, const NodeDef& node,
                               const std::vector<Tensor>& inputs,
                               const std::vector<Var*>& refs = {}) {
  auto out = TryRun(device, node, inputs, refs);
  INFO(node.op << " on " << device->name() << ": " << out.status().ToString());
  REQUIRE(out.ok());
  return *out;
}

// Uniform random values in [lo, hi) (float or double), deterministic per seed.
inline Tensor Random(DataType dt, const TensorShape& shape, double lo = -1, double hi = 1,
                     unsigned seed = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Tensor t(dt, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (dt == DataType::kFloat) t.data<float>()[i] = static_cast<float>(u(gen));
    else t.data<double>()[i] = u(gen);
  }
  return t;
}

// Runs `node` on the CPU and on the GPU with the same inputs; every output must agree within
// |gpu - cpu| <= atol + rtol * |cpu| (bool and integer outputs exactly).
inline void ExpectGpuMatchesCpu(const NodeDef& node, const std::vector<Tensor>& inputs,
                                double rtol, double atol) {
  std::vector<Tensor> cpu = Run(Cpu(), node, inputs);
  std::vector<Tensor> gpu = Run(Gpu(), node, inputs);
  REQUIRE(cpu.size() == gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    INFO(node.op << " output " << i);
    if (cpu[i].dtype() == DataType::kBool) {
      REQUIRE(cpu[i].shape() == gpu[i].shape());
      CHECK(fb::test::Values<bool>(gpu[i]) == fb::test::Values<bool>(cpu[i]));
    } else if (cpu[i].dtype() != DataType::kFloat && cpu[i].dtype() != DataType::kDouble) {
      INFO("cpu " << cpu[i].DebugString() << " gpu " << gpu[i].DebugString());
      CHECK(TensorsEqual(gpu[i], cpu[i]));  // integer outputs (shapes, offsets) exactly
    } else {
      fb::test::ExpectClose(gpu[i], cpu[i], rtol, atol);
    }
  }
}

}  // namespace fb::gpu::test
