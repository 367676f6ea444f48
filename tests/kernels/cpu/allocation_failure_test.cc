// Sizes a kernel cannot allocate: fed shapes whose tensors exceed any machine's memory are
// ResourceExhausted naming the node, the shape, the bytes and the device (TensorFlow's "OOM when
// allocating tensor with shape[...]"), and shapes whose element count overflows int64 are
// InvalidArgument; neither aborts. Also AllocateTensor and the allocators directly.
#include <catch2/catch.hpp>

#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/framework/bfc_allocator.h"
#include "engine/framework/op_kernel.h"
#include "engine/framework/tensor_allocate.h"
#include "tests/test_util.h"

namespace fb {
namespace {

// Runs the graph of `root`, feeding `feeds`, and returns the status of fetching `fetch`.
Status RunFetch(const Scope& root, const std::vector<Session::NamedTensor>& feeds,
                const Output& fetch) {
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef());
  std::vector<Tensor> out;
  return session->Run(feeds, {fetch.name()}, {}, &out);
}

TEST_CASE("Fill with fed dims 1e6 x 1e6 x 1000 is ResourceExhausted naming node, bytes, device",
          "[kernels][oom]") {
  Scope root = Scope::NewRootScope();
  auto dims = ops::Placeholder(root.WithOpName("dims"), DataType::kInt32);
  auto fill = ops::Fill(root.WithOpName("big_fill"), dims, ops::Const(root, 1.5f));
  Status s = RunFetch(root, {{"dims:0", Tensor::FromVector<int32_t>({1000000, 1000000, 1000})}},
                      fill);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == Code::kResourceExhausted);
  CHECK_THAT(s.message(),
             Catch::Contains("Fill 'big_fill' on /job:localhost/replica:0/task:0/device:CPU:0") &&
                 Catch::Contains("OOM when allocating tensor with shape[1000000,1000000,1000] "
                                 "and type float (4000000000000000 bytes)"));
}

TEST_CASE("MatMul of fed 1e6x0 by 0x1e6 matrices is ResourceExhausted for its 4 TB product",
          "[kernels][oom]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DataType::kFloat);
  auto b = ops::Placeholder(root.WithOpName("b"), DataType::kFloat);
  auto mm = ops::MatMul(root.WithOpName("outer"), a, b);
  Status s = RunFetch(root,
                      {{"a:0", Tensor(DataType::kFloat, TensorShape{1000000, 0})},
                       {"b:0", Tensor(DataType::kFloat, TensorShape{0, 1000000})}},
                      mm);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == Code::kResourceExhausted);
  CHECK_THAT(s.message(), Catch::Contains("MatMul 'outer'") &&
                              Catch::Contains("shape[1000000,1000000] and type float "
                                              "(4000000000000 bytes)"));
}

TEST_CASE("Reshape and Pad to fed shapes whose size overflows int64 are InvalidArgument",
          "[kernels][oom]") {
  {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat);
    auto shape = ops::Placeholder(root.WithOpName("shape"), DataType::kInt64);
    auto r = ops::Reshape(root.WithOpName("reshape"), x, shape);
    const int64_t big = int64_t{1} << 40;
    Status s = RunFetch(root,
                        {{"x:0", Tensor(DataType::kFloat, TensorShape{0})},
                         {"shape:0", Tensor::FromVector<int64_t>({big, big, -1})}},
                        r);
    REQUIRE_FALSE(s.ok());
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains("'reshape'") && Catch::Contains("overflows int64"));
  }
  {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat);
    auto paddings = ops::Placeholder(root.WithOpName("paddings"), DataType::kInt64);
    auto p = ops::Pad(root.WithOpName("pad"), x, paddings);
    const int64_t big = int64_t{1} << 62;
    Status s = RunFetch(root,
                        {{"x:0", Tensor(DataType::kFloat, TensorShape{2})},
                         {"paddings:0", Tensor::FromVector<int64_t>({big, big}, {1, 2})}},
                        p);
    REQUIRE_FALSE(s.ok());
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains("'pad'") && Catch::Contains("overflow int64"));
  }
}

TEST_CASE("AllocateTensor: overflowing shapes are InvalidArgument, huge ones ResourceExhausted",
          "[framework][oom]") {
  CpuAllocator cpu("test_cpu");
  auto overflow = AllocateTensor(DataType::kFloat, TensorShape{int64_t{1} << 32, int64_t{1} << 32},
                                 &cpu);
  REQUIRE_FALSE(overflow.ok());
  CHECK(overflow.status().code() == Code::kInvalidArgument);
  CHECK_THAT(overflow.status().message(),
             Catch::Contains("[4294967296,4294967296]") && Catch::Contains("overflows int64"));
  // 2^61 doubles: the element count fits int64 but the bytes do not fit size_t.
  auto bytes_overflow = AllocateTensor(DataType::kDouble, TensorShape{int64_t{1} << 61}, &cpu);
  REQUIRE_FALSE(bytes_overflow.ok());
  CHECK(bytes_overflow.status().code() == Code::kInvalidArgument);

  auto huge = AllocateTensor(DataType::kFloat, TensorShape{int64_t{1} << 50}, &cpu);
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.status().code() == Code::kResourceExhausted);
  CHECK_THAT(huge.status().message(),
             Catch::Contains("OOM when allocating tensor with shape[1125899906842624] and type "
                             "float (4503599627370496 bytes) from allocator test_cpu"));
  CHECK(cpu.GetStats().bytes_in_use == 0);
  // The allocator still works afterwards.
  auto small = AllocateTensor(DataType::kFloat, TensorShape{4}, &cpu);
  REQUIRE(small.ok());
  CHECK(cpu.GetStats().bytes_in_use == 16);
}

// A kernel that constructs its output Tensor itself (not through allocate_output).
class ConstructsTensorKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor(DataType::kFloat, TensorShape{int64_t{1} << 50}));
  }
};

TEST_CASE("Device::Compute turns a kernel's own failed Tensor allocation into ResourceExhausted",
          "[framework][oom]") {
  CpuDevice device("/job:localhost/replica:0/task:0/device:CPU:0", 1);
  NodeDef def{"makes_its_own", "Fill", {}, "", {}};
  OpDef op_def;
  OpKernelConstruction construction(&device, def, op_def, {}, {DataType::kFloat});
  ConstructsTensorKernel kernel(&construction);
  std::vector<TensorValue> inputs;
  OpKernelContext::Params params;
  params.device = &device;
  params.kernel = &kernel;
  params.inputs = &inputs;
  OpKernelContext ctx(&params);
  device.Compute(&kernel, &ctx);
  CHECK(ctx.status().code() == Code::kResourceExhausted);
  CHECK_THAT(ctx.status().message(), Catch::Contains("OOM in kernel 'makes_its_own'"));
}

TEST_CASE("TensorShape::num_elements saturates instead of overflowing", "[framework][oom]") {
  CHECK(TensorShape({int64_t{1} << 40, int64_t{1} << 40}).num_elements() == INT64_MAX);
  CHECK(TensorShape({int64_t{1} << 40, int64_t{1} << 40, 0}).num_elements() == INT64_MAX);
  CHECK(TensorShape({int64_t{1} << 31, 4}).num_elements() == int64_t{1} << 33);
}

TEST_CASE("A BFC allocator refuses sizes beyond its limit or the address space",
          "[framework][oom]") {
  // Unlimited: region doubling would overflow (and loop forever) for near-SIZE_MAX requests.
  BfcAllocator unlimited(std::make_unique<HostSubAllocator>(), 0, "bfc_unlimited");
  CHECK(unlimited.AllocateRaw(256, SIZE_MAX - 8) == nullptr);
  CHECK(unlimited.AllocateRaw(256, SIZE_MAX / 2) == nullptr);
  BfcAllocator limited(std::make_unique<HostSubAllocator>(), 1 << 20, "bfc_1mib");
  CHECK(limited.AllocateRaw(256, (1 << 20) + 1) == nullptr);
  void* p = limited.AllocateRaw(256, 1024);
  REQUIRE(p != nullptr);
  limited.DeallocateRaw(p, 1024);
}

}  // namespace
}  // namespace fb
