// RunOptions::timeout_in_ms: a step that does not finish (a dequeue from a queue nothing fills, a
// loop whose condition stays true) is cancelled at the deadline; Run returns DeadlineExceeded
// naming what was pending, the blocked queue request is withdrawn (no element lost afterwards)
// and the Session keeps working.
#include <chrono>

#include "engine/client/control_flow.h"
#include "engine/client/data_flow_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

TEST_CASE("Session::Run timeout cancels a dequeue from an empty queue and names it",
          "[session][timeout]") {
  Scope root = Scope::NewRootScope();
  ops::QueueOptions qo;
  qo.shapes = {TensorShape{}};
  Output q = ops::FIFOQueue(root.WithOpName("q"), {DataType::kInt32}, qo);
  Output x = ops::Placeholder(root.WithOpName("x"), DataType::kInt32);
  ops::QueueEnqueue(root.WithOpName("enq"), q, {x});
  ops::QueueDequeue(root.WithOpName("deq"), q, {DataType::kInt32});
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef());

  RunOptions ro;
  ro.timeout_in_ms = 100;
  Status seen;
  ro.on_deadline = [&](const Status& s) { seen = s; };
  std::vector<Tensor> out;
  const auto t0 = Clock::now();
  Status s = session->Run(ro, {}, {"deq:0"}, {}, &out, nullptr);
  CHECK(SecondsSince(t0) < 5);
  CHECK(s.code() == Code::kDeadlineExceeded);
  CHECK_THAT(s.message(), Catch::Contains("100 ms") && Catch::Contains("QueueDequeue 'deq'"));
  CHECK_THAT(seen.message(), Catch::Contains("QueueDequeue 'deq'"));

  // The withdrawn dequeue took nothing: the next element goes to the next dequeue.
  test::RunOk(session.get(), {{"x:0", Tensor::Scalar<int32_t>(7)}}, {}, {"enq"});
  CHECK(test::RunOk(session.get(), {}, {"deq:0"})[0].scalar<int32_t>() == 7);
}

TEST_CASE("Session::Run timeout stops a loop whose condition stays true", "[session][timeout]") {
  Scope root = Scope::NewRootScope();
  Output zero = ops::Const(root, int32_t{0});
  auto out = ops::WhileLoop(
      root.WithOpName("spin"), {zero},
      [](const Scope& s, const std::vector<Output>& v) {
        return ops::Less(s, v[0], ops::Const(s, int32_t{1}));
      },
      [](const Scope& s, const std::vector<Output>& v) {
        return std::vector<Output>{ops::Add(s, v[0], ops::Const(s, int32_t{0}))};
      });
  ops::Add(root.WithOpName("y"), zero, ops::Const(root, int32_t{2}));
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef());

  RunOptions ro;
  ro.timeout_in_ms = 200;
  std::vector<Tensor> result;
  const auto t0 = Clock::now();
  Status s = session->Run(ro, {}, {out[0].name()}, {}, &result, nullptr);
  CHECK(SecondsSince(t0) < 5);
  CHECK(s.code() == Code::kDeadlineExceeded);
  CHECK_THAT(s.message(), Catch::Contains("200 ms") && Catch::Contains("cancelled") &&
                              Catch::Contains("iteration"));
  // The Session still runs other steps.
  CHECK(test::RunOk(session.get(), {}, {"y:0"})[0].scalar<int32_t>() == 2);
}

TEST_CASE("Session::Run timeout does not fire on a step that finishes", "[session][timeout]") {
  Scope root = Scope::NewRootScope();
  ops::Add(root.WithOpName("y"), ops::Const(root, 1.0f), ops::Const(root, 2.0f));
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef());
  RunOptions ro;
  ro.timeout_in_ms = 10000;
  std::vector<Tensor> out;
  Status s = session->Run(ro, {}, {"y:0"}, {}, &out, nullptr);
  REQUIRE(s.ok());
  CHECK(out[0].scalar<float>() == 3.0f);
}

TEST_CASE("CancellationManager lists pending registrations and runs callbacks once",
          "[session][timeout]") {
  CancellationManager cm;
  int calls = 0;
  const CancellationToken a = cm.get_cancellation_token(), b = cm.get_cancellation_token();
  REQUIRE(cm.RegisterCallback(a, "Recv 'r'", nullptr));
  REQUIRE(cm.RegisterCallback(b, "", [&] { ++calls; }));
  const CancellationToken c = cm.get_cancellation_token();
  REQUIRE(cm.RegisterCallback(c, "gone", [&] { calls += 10; }));
  CHECK(cm.DeregisterCallback(c));
  CHECK(cm.StartCancel() == std::vector<std::string>{"Recv 'r'"});
  CHECK(calls == 1);
  CHECK(cm.IsCancelled());
  CHECK(cm.StartCancel().empty());
  CHECK(calls == 1);
  CHECK_FALSE(cm.RegisterCallback(cm.get_cancellation_token(), "late", nullptr));
}

}  // namespace
}  // namespace fb
