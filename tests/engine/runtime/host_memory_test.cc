// HostMemory arguments (TensorFlow's memory types) on a device with its own memory, tested on the
// CPU with a fake accelerator "TESTMEM": its allocator reports device memory (it is host memory
// underneath, so kernels can still look) and its copies count. Covers the kernel registry's memory
// types, HostMemory outputs allocated on the host, the executor moving inputs to the kernel's
// memory type inside one partition, and the partitioner's _host_memory mark on _Recv.
#include <atomic>

#include <catch2/catch.hpp>

#include "engine/framework/device_name.h"
#include "engine/framework/op_kernel.h"
#include "engine/framework/tensor_allocate.h"
#include "engine/partition/partition.h"
#include "engine/runtime/executor.h"
#include "tests/test_util.h"

namespace fb {
namespace {

constexpr const char* kTestMem = "TESTMEM";

class FakeDeviceAllocator : public Allocator {
 public:
  std::string Name() const override { return "testmem"; }
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    return DefaultCpuAllocator()->AllocateRaw(alignment, bytes);
  }
  void DeallocateRaw(void* ptr, size_t bytes) override {
    DefaultCpuAllocator()->DeallocateRaw(ptr, bytes);
  }
  bool IsHostMemory() const override { return false; }
};

class FakeDevice : public Device {
 public:
  FakeDevice()
      : Device(DeviceAttributes{LocalDeviceName(kTestMem, 0), kTestMem, 0, "fake accelerator"}),
        allocator_(std::make_shared<FakeDeviceAllocator>()),
        inter_op_("testmem/inter", 2),
        intra_op_("testmem/intra", 1) {}
  Allocator* GetAllocator() override { return allocator_.get(); }
  ThreadPool* inter_op_pool() override { return &inter_op_; }
  ThreadPool* intra_op_pool() override { return &intra_op_; }
  StatusOr<Tensor> CopyToHost(const Tensor& t) override {
    if (InHostMemory(t)) return t;
    ++to_host;
    return t.DeepCopy(DefaultCpuAllocator());
  }
  StatusOr<Tensor> CopyFromHost(const Tensor& t) override {
    if (!InHostMemory(t)) return t;
    ++from_host;
    return t.DeepCopy(allocator_.get());
  }
  std::atomic<int> to_host{0}, from_host{0};

 private:
  std::shared_ptr<FakeDeviceAllocator> allocator_;
  ThreadPool inter_op_, intra_op_;
};

// What the test kernels saw, set as they run.
struct Seen {
  std::atomic<bool> x_on_device{false}, shape_out_on_host{false}, reshape_shape_on_host{false};
  std::atomic<bool> sum_input_on_device{false}, ints_out_on_device{false};
  std::atomic<int> reshape_runs{0};
} g_seen;

REGISTER_OP("TestMemX").Output("x: float").SetIsStateful();
REGISTER_OP("TestMemInts").Output("y: int32").SetIsStateful();
REGISTER_OP("TestMemShape").Input("x: float").Output("shape: int32");
REGISTER_OP("TestMemReshape").Input("x: float").Input("shape: int32").Output("y: float");
REGISTER_OP("TestMemSum").Input("x: int32").Output("y: int32");
REGISTER_OP("TestMemList").Input("xs: N * int32").Input("y: float").Output("z: float")
    .Attr("N: int >= 1");
REGISTER_OP("TestMemBadArg").Input("x: float").Output("y: float");

// Device memory float [2, 3].
class XOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* x;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {2, 3}, &x));
    for (int i = 0; i < 6; ++i) x->data<float>()[i] = static_cast<float>(i);
  }
};
// Device memory int32 {3, 2}.
class IntsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {2}, &y));
    g_seen.ints_out_on_device = !InHostMemory(*y);
    y->data<int32_t>()[0] = 3;
    y->data<int32_t>()[1] = 2;
  }
};
class ShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    g_seen.x_on_device = !InHostMemory(x);
    Tensor* s;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {x.dims()}, &s));
    g_seen.shape_out_on_host = InHostMemory(*s);
    for (int d = 0; d < x.dims(); ++d) s->data<int32_t>()[d] = static_cast<int32_t>(x.dim_size(d));
  }
};
class ReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape = ctx->input(1);
    g_seen.reshape_shape_on_host = InHostMemory(shape);
    ++g_seen.reshape_runs;
    std::vector<int64_t> dims(shape.data<int32_t>(), shape.data<int32_t>() + shape.NumElements());
    ctx->set_output(0, ctx->input(0).Reshaped(TensorShape(dims)));
  }
};
class SumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    g_seen.sum_input_on_device = !InHostMemory(ctx->input(0));
    ctx->set_output(0, ctx->input(0));
  }
};
class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(num_inputs() - 1)); }
};

#define FB_TESTMEM(op) KernelDefBuilder(op).Device(kTestMem)
REGISTER_KERNEL(FB_TESTMEM("TestMemX"), XOp);
REGISTER_KERNEL(FB_TESTMEM("TestMemInts"), IntsOp);
REGISTER_KERNEL(FB_TESTMEM("TestMemShape").HostMemory("shape"), ShapeOp);
REGISTER_KERNEL(FB_TESTMEM("TestMemReshape").HostMemory("shape"), ReshapeOp);
REGISTER_KERNEL(FB_TESTMEM("TestMemSum"), SumOp);
REGISTER_KERNEL(FB_TESTMEM("TestMemList").HostMemory("xs"), ForwardOp);
REGISTER_KERNEL(FB_TESTMEM("TestMemBadArg").HostMemory("shape"), ForwardOp);
#undef FB_TESTMEM

NodeDef MakeNode(const std::string& name, const std::string& op, std::vector<std::string> inputs,
                 AttrMap attrs = {}) {
  return NodeDef{name, op, std::move(inputs), "", std::move(attrs)};
}

TEST_CASE("Kernel memory types expand HostMemory arg names to tensors", "[executor][hostmem]") {
  FakeDevice device;
  std::vector<bool> in, out;
  NodeDef list = MakeNode("l", "TestMemList", {"a", "b", "c", "y"}, {{"N", int64_t{3}}});
  REQUIRE(KernelRegistry::Global()->MemoryTypesForNode(kTestMem, list, &in, &out).ok());
  CHECK(in == std::vector<bool>{true, true, true, false});
  CHECK(out == std::vector<bool>{false});
  auto k = KernelRegistry::Global()->CreateKernel(&device, list);
  REQUIRE(k.ok());
  CHECK((*k)->input_on_host(2));
  CHECK(!(*k)->input_on_host(3));
  CHECK(!(*k)->output_on_host(0));
  // No kernel for the device type, or none declared: nothing on the host.
  REQUIRE(KernelRegistry::Global()->MemoryTypesForNode(DEVICE_CPU, list, &in, &out).ok());
  CHECK(in.empty());
  // A HostMemory name that is no arg of the op is a registration bug, reported by name.
  auto bad = KernelRegistry::Global()->CreateKernel(&device, MakeNode("b", "TestMemBadArg", {"x"}));
  REQUIRE(!bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("HostMemory(\"shape\")") &&
                                         Catch::Contains("TestMemBadArg"));
}

TEST_CASE("The executor hands each kernel its inputs in the memory it declares",
          "[executor][hostmem]") {
  FakeDevice device;
  GraphDef def;
  def.nodes = {MakeNode("x", "TestMemX", {}), MakeNode("ints", "TestMemInts", {}),
               MakeNode("r", "TestMemReshape", {"x", "ints"}),
               MakeNode("s", "TestMemShape", {"x"}), MakeNode("sum", "TestMemSum", {"s"}),
               MakeNode("r2", "TestMemReshape", {"x", "s"})};
  auto g = Graph::FromGraphDef(def);
  REQUIRE(g.ok());
  for (Node* n : (*g)->nodes()) n->set_assigned_device(device.name());
  auto e = Executor::Create(std::move(*g), &device);
  REQUIRE(e.ok());
  g_seen.reshape_runs = 0;
  REQUIRE((*e)->Run(Executor::Args()).ok());
  CHECK(g_seen.reshape_runs == 2);
  CHECK(g_seen.ints_out_on_device);      // a plain output: device memory
  CHECK(g_seen.shape_out_on_host);       // a HostMemory output: host memory
  CHECK(g_seen.x_on_device);             // a plain input stays on the device
  CHECK(g_seen.reshape_shape_on_host);   // device ints -> HostMemory input: copied to the host
  CHECK(g_seen.sum_input_on_device);     // host shape -> plain input: copied to the device
  CHECK(device.to_host == 1);            // ints for r (s feeds r2 from the host as it is)
  CHECK(device.from_host == 1);          // s for sum
}

TEST_CASE("The partitioner keeps on the host a Recv that feeds only HostMemory inputs",
          "[partition][hostmem]") {
  const std::string cpu = LocalDeviceName(DEVICE_CPU, 0);
  const std::string mem = LocalDeviceName(kTestMem, 0);
  GraphDef def;
  def.nodes = {MakeNode("x", "TestMemX", {}), MakeNode("ints", "TestMemInts", {}),
               MakeNode("ints2", "TestMemInts", {}),
               MakeNode("r", "TestMemReshape", {"x", "ints"}),
               MakeNode("r2", "TestMemReshape", {"x", "ints2"}),
               MakeNode("sum", "TestMemSum", {"ints2"})};
  auto g = Graph::FromGraphDef(def);
  REQUIRE(g.ok());
  for (Node* n : (*g)->nodes()) n->set_assigned_device(n->name() == "x" || n->name() == "ints" ||
                                                               n->name() == "ints2"
                                                           ? cpu
                                                           : mem);
  std::map<std::string, GraphDef> parts;
  REQUIRE(Partition(**g, &parts).ok());
  std::map<std::string, bool> host_recv;  // the tensor a _Recv carries -> marked host
  for (const NodeDef& d : parts[mem].nodes) {
    if (d.op != "_Recv") continue;
    std::string tensor;
    REQUIRE(GetNodeAttr(d.attrs, "tensor_name", &tensor).ok());
    host_recv[tensor] = d.attrs.count(kRecvHostMemoryAttr) > 0;
  }
  CHECK(host_recv.at("ints:0"));    // only r's HostMemory shape input
  CHECK(!host_recv.at("ints2:0"));  // also sum's device-memory input: the executor copies for r2
  CHECK(!host_recv.at("x:0"));
  for (const NodeDef& d : parts[cpu].nodes) CHECK(d.attrs.count(kRecvHostMemoryAttr) == 0);
}

}  // namespace
}  // namespace fb
