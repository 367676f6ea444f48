// AddSymbolicGradients with gate_gradients (TensorFlow's GATE_OP): the gradients an op produces
// for several inputs are released together, with the same values as ungated gradients; and a
// training step whose update of `w2` could otherwise overtake the gradient that still reads
// `w2` gives the values computed from the pre-update `w2`.
#include <catch2/catch.hpp>

#include "engine/autodiff/gradients.h"
#include "engine/client/math_ops.h"
#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb {
namespace {

// d(sum(x . w))/dx and /dw for x [2,3], w [3,2] of ones and twos.
struct MatMulGrads {
  Scope root = Scope::NewRootScope();
  std::vector<NodeOut> grads;
  explicit MatMulGrads(bool gate) {
    Output x = ops::Const(root, std::vector<float>(6, 1.f), TensorShape{2, 3});
    Output w = ops::Const(root, std::vector<float>(6, 2.f), TensorShape{3, 2});
    Output y = ops::MatMul(root, x, w);
    REQUIRE(AddSymbolicGradients(root.graph(), {y}, {x, w}, {}, &grads, "gradients", gate).ok());
  }
};

bool HasControlEdgeFrom(const Node* n, const Node* src) {
  for (const Edge* e : n->in_edges())
    if (e->IsControlEdge() && e->src == src) return true;
  return false;
}

TEST_CASE("Gated gradients of one op wait for each other and keep their values", "[grad]") {
  MatMulGrads ungated(false), gated(true);
  REQUIRE(gated.grads.size() == 2);
  const Node* dx = gated.grads[0].node;
  const Node* dw = gated.grads[1].node;
  CHECK(dx->op() == "Identity");
  CHECK(dw->op() == "Identity");
  CHECK(HasControlEdgeFrom(dx, dw->input_edge(0)->src));
  CHECK(HasControlEdgeFrom(dw, dx->input_edge(0)->src));
  CHECK(ungated.grads[0].node->op() == "MatMul");
  auto a = test::MakeSession(ungated.root.ToGraphDef());
  auto b = test::MakeSession(gated.root.ToGraphDef());
  for (int i = 0; i < 2; ++i) {
    std::string u = Output(ungated.grads[i]).name(), g = Output(gated.grads[i]).name();
    CHECK(test::Values<float>(test::RunOk(a.get(), {}, {u})[0]) ==
          test::Values<float>(test::RunOk(b.get(), {}, {g})[0]));
  }
}

TEST_CASE("An optimizer's update never overtakes a gradient that reads the same variable",
          "[grad]") {
  // loss = sum((x . w1) . w2), x = I: dw2 = w1^T . ones does not wait for dh = ones . w2^T,
  // which reads w2 (and feeds dw1). Ungated, w2's update may run before dh reads w2.
  // By hand (lr 1): dw2 = [[4,4],[6,6]], dh = dw1 = [[1,2],[1,2]].
  for (int run = 0; run < 20; ++run) {
    Scope root = Scope::NewRootScope();
    Output w1 = ops::Variable(root.WithOpName("w1"), TensorShape{2, 2}, DataType::kFloat);
    Output w2 = ops::Variable(root.WithOpName("w2"), TensorShape{2, 2}, DataType::kFloat);
    ops::Group(root.WithOpName("init"),
               {ops::Assign(root, w1, ops::Const(root, std::vector<float>{1, 2, 3, 4}, TensorShape{2, 2})),
                ops::Assign(root, w2, ops::Const(root, std::vector<float>{1, 0, 0, 2}, TensorShape{2, 2}))});
    Output x = ops::Const(root, std::vector<float>{1, 0, 0, 1}, TensorShape{2, 2});
    Output loss = ops::Sum(root, ops::MatMul(root, ops::MatMul(root, x, w1), w2), std::vector<int>{0, 1});
    GradientDescentOptimizer opt(1.0);
    Node* train = opt.Minimize(root.WithOpName("train"), loss, {w1, w2});
    REQUIRE(train);
    auto s = test::MakeSession(root.ToGraphDef(), 1, 2);
    test::RunOk(s.get(), {}, {}, {"init"});
    test::RunOk(s.get(), {}, {}, {train->name()});
    auto after = test::RunOk(s.get(), {}, {"w1:0", "w2:0"});
    INFO("run " << run);
    CHECK(test::Values<float>(after[0]) == std::vector<float>{0, 0, 2, 2});
    CHECK(test::Values<float>(after[1]) == std::vector<float>{-3, -4, -6, -4});
  }
}

TEST_CASE("Gating leaves out the gradient of an input that leads to no x", "[grad]") {
  // d(sum(x . w))/dw only: MatMul's gradient for x (a Const, not differentiated) is not built
  // into the gate, so no node waits for it and a step computing dw does not compute it (the
  // images' gradient at a convnet's first convolution).
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, std::vector<float>(6, 1.f), TensorShape{2, 3});
  Output w = ops::Const(root, std::vector<float>(6, 2.f), TensorShape{3, 2});
  Output y = ops::MatMul(root, x, w);
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {y}, {w}, {}, &grads, "gradients", true).ok());
  REQUIRE(grads.size() == 1);
  CHECK(grads[0].node->op() == "MatMul");  // one gradient: nothing to gate
  // The gradient function built dx too; nothing may consume it (the Session prunes it).
  int unused = 0;
  for (const Node* n : root.graph()->nodes())
    if (n->op() == "MatMul" && n != y.node() && n != grads[0].node) {
      ++unused;
      CHECK(n->out_edges().empty());
    }
  CHECK(unused == 1);
  auto s = test::MakeSession(root.ToGraphDef());
  CHECK(test::Values<float>(test::RunOk(s.get(), {}, {Output(grads[0]).name()})[0]) ==
        std::vector<float>(6, 2.f));
}

}  // namespace
}  // namespace fb
