// Gradient accumulation through a queue (whitepaper 4.6 with 4.1, synchronous replicas of
// section 7): "worker" steps compute a gradient and enqueue it; the "chief" step dequeues one
// gradient per worker, averages them and applies the update, waiting (without holding a
// thread) until every worker has delivered.
#include <chrono>
#include <future>

#include "engine/autodiff/gradients.h"
#include "engine/client/data_flow_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using namespace std::chrono_literals;

TEST_CASE("Gradients from two workers are averaged through a queue", "[queue]") {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), TensorShape{2}, DataType::kFloat);
  ops::Assign(root.WithOpName("init"), w, ops::Const(root, std::vector<float>{1, 2}, {2}));
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape{2});
  auto loss = ops::Sum(root, ops::Square(root, ops::Mul(root, w, x)), std::vector<int>{0});
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {loss}, {w}, {}, &grads).ok());
  ops::QueueOptions o;
  o.shapes = {TensorShape{2}};
  auto q = ops::FIFOQueue(root.WithOpName("grads"), {DataType::kFloat}, o);
  ops::QueueEnqueue(root.WithOpName("push_grad"), q, {Output(grads[0])});
  auto batch = ops::QueueDequeueMany(root, q, ops::Const(root, int32_t{2}), {DataType::kFloat});
  auto mean = ops::Mean(root, batch[0], std::vector<int>{0});
  ops::AssignSub(root.WithOpName("apply"), w, ops::Mul(root, ops::Const(root, 0.1f), mean));
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef(), 1, 2);
  test::RunOk(session.get(), {}, {}, {"init"});

  // The chief waits for both gradients.
  auto chief = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return session->Run({}, {"apply:0"}, {}, &out);
  });
  CHECK(chief.wait_for(50ms) == std::future_status::timeout);
  Tensor a = Tensor::FromVector<float>({1, 3}), b = Tensor::FromVector<float>({2, -1});
  auto worker = [&](const Tensor& xv) {
    std::vector<Tensor> out;
    return session->Run({{"x:0", xv}}, {}, {"push_grad"}, &out);
  };
  auto w1 = std::async(std::launch::async, worker, a);
  auto w2 = std::async(std::launch::async, worker, b);
  REQUIRE(w1.get().ok());
  REQUIRE(w2.get().ok());
  REQUIRE(chief.wait_for(5s) == std::future_status::ready);
  REQUIRE(chief.get().ok());
  // d loss / d w = 2 w x^2; by hand: w0 = (1, 2), mean over x = (1,3), (2,-1).
  auto w_now = test::RunOk(session.get(), {}, {"w:0"})[0];
  const float g0 = (2 * 1 * 1 + 2 * 1 * 4) / 2.0f, g1 = (2 * 2 * 9 + 2 * 2 * 1) / 2.0f;
  CHECK(w_now.data<float>()[0] == Approx(1 - 0.1f * g0));
  CHECK(w_now.data<float>()[1] == Approx(2 - 0.1f * g1));
}

}  // namespace
}  // namespace fb
