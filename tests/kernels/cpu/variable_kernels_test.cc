// Variable, Assign, AssignAdd, AssignSub (whitepaper 4.7): hand-computed values, shape and
// dtype errors naming the node, reads that do not change under a later update.
#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/random_ops.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb {
namespace {

struct Counter {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), {2}, DataType::kFloat);
  Output init = ops::Assign(root.WithOpName("init"), v, ops::Const(root, std::vector<float>{1, 2}, {2}));
  Output add = ops::AssignAdd(root.WithOpName("add"), v, ops::Const(root, std::vector<float>{10, 20}, {2}));
  Output sub = ops::AssignSub(root.WithOpName("sub"), v, ops::Const(root, std::vector<float>{0.5f, 0.5f}, {2}));
  Output read = ops::Identity(root.WithOpName("read"), v);
};

TEST_CASE("Assign, AssignAdd and AssignSub update a Variable in place", "[state]") {
  Counter c;
  REQUIRE(c.root.ok());
  auto s = test::MakeSession(c.root.ToGraphDef());
  CHECK(test::Values<float>(test::RunOk(s.get(), {}, {"init:0"})[0]) == std::vector<float>{1, 2});
  CHECK(test::Values<float>(test::RunOk(s.get(), {}, {"add:0"})[0]) == std::vector<float>{11, 22});
  Tensor before = test::RunOk(s.get(), {}, {"read:0"})[0];
  CHECK(test::Values<float>(test::RunOk(s.get(), {}, {"sub:0"})[0]) ==
        std::vector<float>{10.5f, 21.5f});
  // A tensor read earlier is a snapshot: the update copied on write.
  CHECK(test::Values<float>(before) == std::vector<float>{11, 22});
  CHECK(test::Values<float>(test::RunOk(s.get(), {}, {"read:0"})[0]) ==
        std::vector<float>{10.5f, 21.5f});
}

TEST_CASE("Assigning the wrong shape or updating an uninitialized Variable names the node",
          "[state][errors]") {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root.WithOpName("v"), {2}, DataType::kFloat);
  ops::AssignAdd(root.WithOpName("early"), v, ops::Const(root, std::vector<float>{1, 1}, {2}));
  ops::Assign(root.WithOpName("bad_init"), v, ops::Const(root, std::vector<float>{1, 2, 3}, {3}));
  REQUIRE(root.ok());
  auto s = test::MakeSession(root.ToGraphDef());
  std::vector<Tensor> out;
  Status early = s->Run({}, {"early:0"}, {}, &out);
  CHECK(early.code() == Code::kFailedPrecondition);
  CHECK_THAT(early.message(), Catch::Contains("'early'"));
  Status bad = s->Run({}, {"bad_init:0"}, {}, &out);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.message(), Catch::Contains("'bad_init'"));
  CHECK_THAT(bad.message(), Catch::Contains("[3]"));
}

// A weight initializer's value (RandomUniform -> Mul -> Sub, computed for the Assign only) becomes
// the Variable's buffer instead of being copied: initializing holds one buffer of the weight's
// size, not two (overfeat's 557 MiB of weights). A Const's value is still copied, so a later
// update never changes what the Const produces.
TEST_CASE("Assign takes a computed value's buffer and still copies a Const", "[state]") {
  constexpr int64_t kN = 1 << 20;  // 4 MiB of floats
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), {kN}, DataType::kFloat);
  Output u = ops::RandomUniform(root.WithOpName("u"), {kN}, DataType::kFloat, 7, 3);
  Output scaled = ops::Sub(root.WithOpName("scaled"),
                           ops::Mul(root, u, ops::Const(root, 2.0f)), ops::Const(root, 1.0f));
  ops::Assign(root.WithOpName("init"), v, scaled);
  Output c = ops::Variable(root.WithOpName("c"), {2}, DataType::kFloat);
  ops::Assign(root.WithOpName("c_init"), c, ops::Const(root, std::vector<float>{1, 2}, {2}));
  ops::AssignAdd(root.WithOpName("c_add"), c, ops::Const(root, std::vector<float>{10, 20}, {2}));
  ops::Identity(root.WithOpName("v_read"), v);
  REQUIRE(root.ok());
  auto s = test::MakeSession(root.ToGraphDef());
  std::vector<Tensor> out;
  RunMetadata md;
  REQUIRE(s->Run(RunOptions(), {}, {}, {"init"}, &out, &md).ok());
  REQUIRE(md.peak_bytes.size() == 1);
  const int64_t bytes = kN * static_cast<int64_t>(sizeof(float));
  CHECK(md.peak_bytes.begin()->second >= bytes);
  CHECK(md.peak_bytes.begin()->second < 2 * bytes);  // a copy would need two buffers at once
  // The same values as the expression computed by itself.
  auto reference = test::MakeSession(root.ToGraphDef());
  Tensor want = test::RunOk(reference.get(), {}, {"scaled:0"})[0];
  CHECK(test::Values<float>(test::RunOk(s.get(), {}, {"v_read:0"})[0]) ==
        test::Values<float>(want));
  test::RunOk(s.get(), {}, {}, {"c_init"});
  test::RunOk(s.get(), {}, {}, {"c_add"});
  CHECK(test::Values<float>(test::RunOk(s.get(), {}, {"c_init:0"})[0]) ==
        std::vector<float>{1, 2});
}

}  // namespace
}  // namespace fb
