// Optimizer slots (Momentum's accumulator, Adam's m and v) start at zero from a Fill made when
// `init` runs, not from a Const of the Variable's size kept in the GraphDef and the executors.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/client/math_ops.h"
#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb {
namespace {

// The largest Const in `g` by element count.
int64_t LargestConst(const Graph& g) {
  int64_t largest = 0;
  for (Node* n : g.nodes()) {
    Tensor value;
    if (n->op() == "Const" && GetNodeAttr(n->def().attrs, "value", &value).ok())
      largest = std::max(largest, value.NumElements());
  }
  return largest;
}

template <typename Opt>
void CheckSlotsAreZeroFills(Opt opt, const std::vector<std::string>& slots) {
  Scope root = Scope::NewRootScope();
  Output w = ops::Variable(root.WithOpName("w"), {64, 32}, DataType::kFloat);
  Output w_init = ops::Assign(root.WithOpName("w_init"), w,
                              ops::Fill(root, ops::Const(root, std::vector<int>{64, 32}, {2}),
                                        ops::Const(root, 0.5f)));
  Output loss = ops::Sum(root, ops::Mul(root, w, w), std::vector<int>{0, 1});
  Node* train = opt.Minimize(root.WithOpName("train"), loss, {w});
  REQUIRE(train != nullptr);
  ops::Group(root.WithOpName("init"), Concat({w_init}, opt.initializers()));
  for (const std::string& slot : slots) {
    Node* var = root.graph()->FindNode("w/" + slot);
    REQUIRE(var != nullptr);
    ops::Identity(root.WithOpName(slot + "_read"), Output(var, 0));
  }
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  CHECK(LargestConst(*root.graph()) < 64 * 32);
  for (const std::string& slot : slots) {
    Node* zeros = root.graph()->FindNode("w/" + slot + "/Initializer/zeros");
    REQUIRE(zeros != nullptr);
    CHECK(zeros->op() == "Fill");
    std::vector<std::string> loc;
    REQUIRE(GetNodeAttr(zeros->def().attrs, "_class", &loc).ok());
    CHECK(loc == std::vector<std::string>{"loc:@w"});  // made on the slot's device
  }
  auto s = test::MakeSession(root.ToGraphDef());
  test::RunOk(s.get(), {}, {}, {"init"});
  for (const std::string& slot : slots) {
    Tensor t = test::RunOk(s.get(), {}, {slot + "_read:0"})[0];
    CHECK(t.shape() == TensorShape({64, 32}));
    CHECK(test::Values<float>(t) == std::vector<float>(64 * 32, 0.f));
  }
  test::RunOk(s.get(), {}, {}, {train->name()});
  Tensor first = test::RunOk(s.get(), {}, {slots[0] + "_read:0"})[0];
  CHECK(test::Values<float>(first)[0] != 0.f);  // the slot took the step's update
}

TEST_CASE("Momentum and Adam slots start as zero Fills, not Variable-sized Consts",
          "[optimizer]") {
  CheckSlotsAreZeroFills(MomentumOptimizer(0.1, 0.9), {"Momentum"});
  CheckSlotsAreZeroFills(AdamOptimizer(0.01), {"Adam", "Adam_1"});
}

}  // namespace
}  // namespace fb
