// Variable, Assign, AssignAdd, AssignSub (whitepaper 4.7): hand-computed values, shape and
// dtype errors naming the node, reads that do not change under a later update.
#include <catch2/catch.hpp>

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

}  // namespace
}  // namespace fb
