// QueueRunner (whitepaper 4.6): producer threads prefetch batches into a queue while the
// consumer steps dequeue them; Stop closes the queue and joins cleanly.
#include "engine/client/data_flow_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/queue_runner.h"
#include "tests/test_util.h"

namespace fb {
namespace {

TEST_CASE("QueueRunner prefetches batches for the consumer", "[queue]") {
  Scope root = Scope::NewRootScope();
  // Producer: each run enqueues [k, k+1, k+2] with k a counter variable (k += 3 per run).
  auto counter = ops::Variable(root.WithOpName("counter"), TensorShape{}, DataType::kInt32);
  auto init = ops::Assign(root.WithOpName("init"), counter, ops::Const(root, int32_t{0}));
  auto k = ops::AssignAdd(root.WithOpName("next"), counter, ops::Const(root, int32_t{3}));
  auto start = ops::Sub(root, k, ops::Const(root, int32_t{3}));
  auto rows = ops::Add(root, start, ops::Const(root, std::vector<int32_t>{0, 1, 2}, TensorShape{3}));
  ops::QueueOptions o;
  o.capacity = 6;
  o.shapes = {TensorShape{}};
  auto q = ops::FIFOQueue(root.WithOpName("q"), {DataType::kInt32}, o);
  ops::QueueEnqueueMany(root.WithOpName("enqueue"), q, {rows});
  ops::QueueClose(root.WithOpName("close"), q, true);
  auto batch = ops::QueueDequeueMany(root.WithOpName("batch"), q, ops::Const(root, int32_t{4}),
                                     {DataType::kInt32});
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef(), 1, 2);
  test::RunOk(session.get(), {}, {}, {"init"});
  QueueRunner runner(session.get(), {"enqueue"}, "close");
  REQUIRE(runner.Start().ok());
  // One producer thread: batches see consecutive integers, 4 per step.
  for (int step = 0; step < 10; ++step) {
    auto out = test::RunOk(session.get(), {}, {"batch:0"});
    std::vector<int32_t> want{4 * step, 4 * step + 1, 4 * step + 2, 4 * step + 3};
    CHECK(test::Values<int32_t>(out[0]) == want);
  }
  Status s = runner.Stop();
  INFO(s.ToString());
  CHECK(s.ok());
  CHECK(runner.enqueue_count() >= 14);  // 40 elements consumed, 3 per enqueue
}

}  // namespace
}  // namespace fb
