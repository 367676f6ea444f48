// Buffer forwarding of the element-wise binary kernels (kernels/cpu/forward_input.h): the output
// reuses an input's buffer only when the kernel holds the only reference, and the values are
// those of a fresh output either way (issue 16).
#include <catch2/catch.hpp>

#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/framework/device.h"
#include "engine/framework/op_kernel.h"
#include "tests/kernels/cpu/math_test_util.h"

namespace fb {
namespace {

// Runs the CPU kernel of `op` (float) on inputs the caller passes by value (moved in: the
// kernel's inputs then hold their buffers alone unless the caller kept copies).
struct BinaryRun {
  Tensor out;
  const float* out_data;
};
BinaryRun RunBinary(Output (*op)(const Scope&, Output, Output), Tensor x_value, Tensor y_value) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DataType::kFloat);
  Output y = ops::Placeholder(root, DataType::kFloat);
  Output z = op(root, x, y);
  REQUIRE(root.ok());
  CpuDevice device("/job:localhost/replica:0/task:0/device:CPU:0", 1);
  auto kernel = KernelRegistry::Global()->CreateKernel(&device, z.node()->def());
  REQUIRE(kernel.ok());
  std::vector<TensorValue> inputs(2);
  inputs[0].tensor = std::move(x_value);
  inputs[1].tensor = std::move(y_value);
  OpKernelContext::Params params;
  params.device = &device;
  params.kernel = kernel->get();
  params.inputs = &inputs;
  OpKernelContext ctx(&params);
  device.Compute(kernel->get(), &ctx);
  REQUIRE(ctx.status().ok());
  Tensor out = ctx.output_value(0).tensor;
  inputs.clear();  // as the executor drops a node's inputs after it ran
  return {out, out.data<float>()};
}

TEST_CASE("Add and Mul write over an input buffer that only the kernel holds",
          "[math][forward_input]") {
  Tensor x = test::F({1, 2, 3, 4, 5, 6}, {2, 3}), y = test::F({10, 20, 30}, {3});
  const float* x_data = x.data<float>();
  BinaryRun r = RunBinary(ops::Add, std::move(x), std::move(y));
  CHECK(r.out_data == x_data);  // forwarded: the broadcast row y left x's shape
  test::ExpectEqual(r.out, test::F({11, 22, 33, 14, 25, 36}, {2, 3}));
  // The larger operand second: y is forwarded.
  Tensor a = test::F({2}, {}), b = test::F({1, 2, 3, 4}, {4});
  const float* b_data = b.data<float>();
  r = RunBinary(ops::Mul, std::move(a), std::move(b));
  CHECK(r.out_data == b_data);
  test::ExpectEqual(r.out, test::F({2, 4, 6, 8}, {4}));
}

TEST_CASE("AddN writes over its first input when only the kernel holds it",
          "[math][forward_input]") {
  Scope root = Scope::NewRootScope();
  std::vector<Output> terms;
  for (int i = 0; i < 3; ++i) terms.push_back(ops::Placeholder(root, DataType::kFloat));
  Output sum = ops::AddN(root, terms);
  REQUIRE(root.ok());
  CpuDevice device("/job:localhost/replica:0/task:0/device:CPU:0", 1);
  auto kernel = KernelRegistry::Global()->CreateKernel(&device, sum.node()->def());
  REQUIRE(kernel.ok());
  for (bool shared : {false, true}) {
    std::vector<TensorValue> inputs(3);
    for (int i = 0; i < 3; ++i) inputs[i].tensor = test::F({1.0f * i, 10.0f * i}, {2});
    Tensor keep = shared ? inputs[0].tensor : Tensor();
    const float* first = inputs[0].tensor.data<float>();
    OpKernelContext::Params params;
    params.device = &device;
    params.kernel = kernel->get();
    params.inputs = &inputs;
    OpKernelContext ctx(&params);
    device.Compute(kernel->get(), &ctx);
    REQUIRE(ctx.status().ok());
    CHECK((ctx.output_value(0).tensor.data<float>() == first) == !shared);
    test::ExpectEqual(ctx.output_value(0).tensor, test::F({3, 30}, {2}));
    if (shared) test::ExpectEqual(keep, test::F({0, 0}, {2}));
  }
}

TEST_CASE("A shared input buffer is never overwritten", "[math][forward_input]") {
  Tensor x = test::F({1, 2, 3, 4}, {2, 2}), y = test::F({5, 6, 7, 8}, {2, 2});
  Tensor x_copy = x, y_copy = y;  // other consumers still hold both
  BinaryRun r = RunBinary(ops::Add, x, y);
  CHECK(r.out_data != x_copy.data<float>());
  CHECK(r.out_data != y_copy.data<float>());
  test::ExpectEqual(r.out, test::F({6, 8, 10, 12}, {2, 2}));
  test::ExpectEqual(x_copy, test::F({1, 2, 3, 4}, {2, 2}));
  test::ExpectEqual(y_copy, test::F({5, 6, 7, 8}, {2, 2}));
  // An input whose shape is not the output's (broadcast) is not forwarded either.
  Tensor row = test::F({1, 2}, {2}), col = test::F({10, 20}, {2, 1});
  const float* row_data = row.data<float>();
  r = RunBinary(ops::Add, std::move(row), std::move(col));
  CHECK(r.out_data != row_data);
  test::ExpectEqual(r.out, test::F({11, 12, 21, 22}, {2, 2}));
}

TEST_CASE("Forwarding inside a graph keeps every consumer's value", "[math][forward_input]") {
  // s = a + b is consumed twice (no forwarding of s); t = s * s; u = t + 1 forwards t.
  Tensor got = test::Eval([](const Scope& s) {
    Output a = ops::Const(s, test::F({1, 2, 3}, {3}));
    Output b = ops::Const(s, test::F({1, 1, 1}, {3}));
    Output sum = ops::Add(s, a, b);
    Output t = ops::Mul(s, sum, sum);
    return ops::Sub(s, ops::Add(s, t, ops::Const(s, 1.0f)), sum);
  });
  test::ExpectEqual(got, test::F({3, 7, 13}, {3}));
}

TEST_CASE("A loop invariant is never overwritten by the body's element-wise ops",
          "[math][forward_input][while]") {
  // inv (computed in the step, so only the loop holds it) + 1 is added up 50 times: were inv's
  // buffer forwarded to the Add's output, inv would grow from one iteration to the next.
  Tensor got = test::Eval([](const Scope& s) {
    Output inv = ops::Mul(s, ops::Const(s, test::F({1, 2}, {2})), ops::Const(s, 2.0f));
    auto out = ops::WhileLoop(
        s, {ops::Const(s, int32_t{0}), ops::Const(s, test::F({0, 0}, {2}))},
        [](const Scope& c, const std::vector<Output>& v) {
          return ops::Less(c, v[0], ops::Const(c, int32_t{50}));
        },
        [&](const Scope& b, const std::vector<Output>& v) {
          Output term = ops::Add(b, inv, ops::Const(b, test::F({1, 1}, {2})));
          return std::vector<Output>{ops::Add(b, v[0], ops::Const(b, int32_t{1})),
                                     ops::Add(b, v[1], term)};
        });
    return out[1];
  });
  test::ExpectEqual(got, test::F({150, 250}, {2}));
}

}  // namespace
}  // namespace fb
