// Queue semantics (whitepaper 4.6): FIFO order, capacity blocking, Close waking dequeuers with
// OutOfRange, DequeueMany batching, RandomShuffleQueue reproducibility and min_after_dequeue,
// and many producers and consumers on a device with two threads (the blocking kernels are
// asynchronous, 5.3: a waiting Dequeue holds no thread, so more waiters than threads work).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "engine/client/data_flow_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using test::RunOk;
using namespace std::chrono_literals;

struct QueueGraph {
  Scope root = Scope::NewRootScope();
  Output q, x, batch_n;
  std::vector<Output> one, many;
  Node *enq = nullptr, *enq_many = nullptr, *close = nullptr, *cancel = nullptr;
  Output size;
  std::unique_ptr<Session> session;

  // A queue of int32 scalars; `shuffle` picks RandomShuffleQueue(min_after_dequeue, seed).
  explicit QueueGraph(int64_t capacity, bool shuffle = false, int64_t min_after = 0,
                      int64_t seed = 0) {
    ops::QueueOptions o;
    o.capacity = capacity;
    o.shapes = {TensorShape{}};
    q = shuffle ? ops::RandomShuffleQueue(root.WithOpName("q"), {DataType::kInt32}, min_after, seed,
                                          0, o)
                : ops::FIFOQueue(root.WithOpName("q"), {DataType::kInt32}, o);
    x = ops::Placeholder(root.WithOpName("x"), DataType::kInt32);
    enq = ops::QueueEnqueue(root.WithOpName("enq"), q, {x});
    enq_many = ops::QueueEnqueueMany(root.WithOpName("enq_many"), q, {x});
    one = ops::QueueDequeue(root.WithOpName("deq"), q, {DataType::kInt32});
    batch_n = ops::Placeholder(root.WithOpName("n"), DataType::kInt32);
    many = ops::QueueDequeueMany(root.WithOpName("deq_many"), q, batch_n, {DataType::kInt32});
    close = ops::QueueClose(root.WithOpName("close"), q);
    cancel = ops::QueueClose(root.WithOpName("cancel"), q, true);
    size = ops::QueueSize(root.WithOpName("size"), q);
    INFO(root.status().ToString());
    REQUIRE(root.ok());
    session = test::MakeSession(root.ToGraphDef(), 1, 2);
  }
  Status Enqueue(int v) { return Run({{"x:0", Tensor::Scalar<int32_t>(v)}}, {}, {"enq"}); }
  Status EnqueueMany(const std::vector<int32_t>& v) {
    return Run({{"x:0", Tensor::FromVector<int32_t>(v)}}, {}, {"enq_many"});
  }
  StatusOr<int> Dequeue() {
    std::vector<Tensor> out;
    RETURN_IF_ERROR(session->Run({}, {"deq:0"}, {}, &out));
    return out[0].scalar<int32_t>();
  }
  int Size() { return RunOk(session.get(), {}, {"size:0"})[0].scalar<int32_t>(); }
  Status Run(const std::vector<Session::NamedTensor>& feeds, const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets) {
    std::vector<Tensor> out;
    return session->Run(feeds, fetches, targets, &out);
  }
};

TEST_CASE("FIFOQueue dequeues in enqueue order and reports its size", "[queue]") {
  QueueGraph g(-1);
  REQUIRE(g.EnqueueMany({1, 2, 3}).ok());
  REQUIRE(g.Enqueue(4).ok());
  CHECK(g.Size() == 4);
  for (int want : {1, 2, 3, 4}) CHECK(*g.Dequeue() == want);
  CHECK(g.Size() == 0);
}

TEST_CASE("Enqueue waits while the queue is full", "[queue]") {
  QueueGraph g(2);
  REQUIRE(g.EnqueueMany({1, 2}).ok());
  auto blocked = std::async(std::launch::async, [&] { return g.Enqueue(3); });
  CHECK(blocked.wait_for(50ms) == std::future_status::timeout);
  CHECK(g.Size() == 2);
  CHECK(*g.Dequeue() == 1);
  REQUIRE(blocked.wait_for(5s) == std::future_status::ready);
  CHECK(blocked.get().ok());
  CHECK(*g.Dequeue() == 2);
  CHECK(*g.Dequeue() == 3);
}

TEST_CASE("Close wakes blocked dequeuers with OutOfRange", "[queue]") {
  QueueGraph g(-1);
  auto waiting = std::async(std::launch::async, [&] { return g.Dequeue().status(); });
  CHECK(waiting.wait_for(50ms) == std::future_status::timeout);
  REQUIRE(g.Run({}, {}, {"close"}).ok());
  REQUIRE(waiting.wait_for(5s) == std::future_status::ready);
  Status s = waiting.get();
  CHECK(s.code() == Code::kOutOfRange);
  CHECK_THAT(s.message(), Catch::Contains("Queue 'q' is closed"));
  Status late = g.Enqueue(1);
  CHECK(late.code() == Code::kCancelled);
}

TEST_CASE("Close with cancel_pending_enqueues fails blocked producers", "[queue]") {
  QueueGraph g(1);
  REQUIRE(g.Enqueue(1).ok());
  auto blocked = std::async(std::launch::async, [&] { return g.Enqueue(2); });
  CHECK(blocked.wait_for(50ms) == std::future_status::timeout);
  REQUIRE(g.Run({}, {}, {"cancel"}).ok());
  REQUIRE(blocked.wait_for(5s) == std::future_status::ready);
  CHECK(blocked.get().code() == Code::kCancelled);
  CHECK(*g.Dequeue() == 1);  // what was queued before Close is still served
}

TEST_CASE("DequeueMany stacks elements, short after Close is OutOfRange", "[queue]") {
  QueueGraph g(-1);
  REQUIRE(g.EnqueueMany({5, 6, 7}).ok());
  auto out = RunOk(g.session.get(), {{"n:0", Tensor::Scalar<int32_t>(2)}}, {"deq_many:0"});
  CHECK(out[0].shape() == TensorShape{2});
  CHECK(test::Values<int32_t>(out[0]) == std::vector<int32_t>{5, 6});
  REQUIRE(g.Run({}, {}, {"close"}).ok());
  std::vector<Tensor> o;
  Status s = g.session->Run({{"n:0", Tensor::Scalar<int32_t>(2)}}, {"deq_many:0"}, {}, &o);
  CHECK(s.code() == Code::kOutOfRange);
  CHECK(g.Size() == 1);  // the element taken is put back
  CHECK(*g.Dequeue() == 7);
}

TEST_CASE("Queue ops reject mismatched elements, naming the queue", "[queue]") {
  QueueGraph g(-1);
  Status s = g.Run({{"x:0", Tensor::FromVector<int32_t>({1, 2})}}, {}, {"enq"});
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("Queue 'q' component 0 must have shape []"));
  s = g.Run({{"x:0", Tensor::Scalar<int32_t>(1)}}, {}, {"enq_many"});
  CHECK_THAT(s.message(), Catch::Contains("need a batch dimension"));
}

std::vector<int> ShuffledOrder(int64_t seed) {
  QueueGraph g(-1, true, 0, seed);
  std::vector<int32_t> in(20);
  for (int i = 0; i < 20; ++i) in[i] = i;
  REQUIRE(g.EnqueueMany(in).ok());
  std::vector<int> out;
  for (int i = 0; i < 20; ++i) out.push_back(*g.Dequeue());
  return out;
}

TEST_CASE("RandomShuffleQueue: a permutation, reproducible with a seed", "[queue]") {
  std::vector<int> a = ShuffledOrder(7), b = ShuffledOrder(7), c = ShuffledOrder(8);
  CHECK(a == b);
  CHECK(a != c);
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 20; ++i) CHECK(sorted[i] == i);
  std::vector<int> identity(sorted);
  CHECK(a != identity);
}

TEST_CASE("RandomShuffleQueue keeps min_after_dequeue elements until closed", "[queue]") {
  QueueGraph g(-1, true, 2, 1);
  REQUIRE(g.EnqueueMany({1, 2, 3}).ok());
  REQUIRE(g.Dequeue().ok());  // 3 > 2 held: one may go
  auto waiting = std::async(std::launch::async, [&] { return g.Dequeue().status(); });
  CHECK(waiting.wait_for(50ms) == std::future_status::timeout);
  REQUIRE(g.Enqueue(4).ok());  // 3 held again: the waiter gets one
  REQUIRE(waiting.wait_for(5s) == std::future_status::ready);
  CHECK(waiting.get().ok());
  REQUIRE(g.Run({}, {}, {"close"}).ok());  // after Close the rest drains
  CHECK(g.Dequeue().ok());
  CHECK(g.Dequeue().ok());
  CHECK(g.Dequeue().status().code() == Code::kOutOfRange);
}

TEST_CASE("Many producers and consumers on two threads finish without deadlock", "[queue]") {
  QueueGraph g(4);
  constexpr int kProducers = 6, kConsumers = 6, kPerProducer = 40;
  std::atomic<long> sum{0};
  std::atomic<int> count{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p)
    threads.emplace_back([&, p] {
      for (int i = 0; i < kPerProducer; ++i) REQUIRE(g.Enqueue(p * 1000 + i).ok());
    });
  for (int c = 0; c < kConsumers; ++c)
    threads.emplace_back([&] {
      for (;;) {
        auto v = g.Dequeue();
        if (!v.ok()) {
          CHECK(v.status().code() == Code::kOutOfRange);
          return;
        }
        sum += *v;
        ++count;
      }
    });
  for (int p = 0; p < kProducers; ++p) threads[p].join();
  REQUIRE(g.Run({}, {}, {"close"}).ok());
  for (size_t t = kProducers; t < threads.size(); ++t) threads[t].join();
  long want = 0;
  for (int p = 0; p < kProducers; ++p)
    for (int i = 0; i < kPerProducer; ++i) want += p * 1000 + i;
  CHECK(count == kProducers * kPerProducer);
  CHECK(sum == want);
}

}  // namespace
}  // namespace fb
