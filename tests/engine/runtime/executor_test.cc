// Executor (whitepaper 3.1, 5.3): ready nodes run concurrently on the inter-op pool, and
// asynchronous kernels wait without holding a thread. Test-only ops are registered here.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/framework/op_kernel.h"
#include "tests/test_util.h"

namespace fb {
namespace {

// Counts how many kernels are inside Compute at once, waiting (up to 5 s) for `target` to be
// reached so that a serial executor shows max 1 instead of deadlocking.
struct Rendezvous {
  std::mutex mu;
  std::condition_variable cv;
  int active = 0, max_active = 0, target = 0;
  void Enter() {
    std::unique_lock<std::mutex> l(mu);
    max_active = std::max(max_active, ++active);
    cv.notify_all();
    cv.wait_for(l, std::chrono::seconds(5), [&] { return active >= target; });
  }
  void Leave() {
    std::lock_guard<std::mutex> l(mu);
    --active;
  }
};
Rendezvous g_sync, g_async;

REGISTER_OP("TestConcurrentSync").Output("y: float").SetIsStateful();
REGISTER_OP("TestConcurrentAsync").Output("y: float").SetIsStateful();

class ConcurrentSyncOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    g_sync.Enter();
    g_sync.Leave();
    ctx->set_output(0, Tensor::Scalar<float>(1));
  }
};
REGISTER_KERNEL(KernelDefBuilder("TestConcurrentSync").Device(DEVICE_CPU), ConcurrentSyncOp);

// Completes from a helper thread once `target` instances are pending at once.
class ConcurrentAsyncOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::thread([ctx, done] {
      g_async.Enter();
      g_async.Leave();
      ctx->set_output(0, Tensor::Scalar<float>(2));
      done();
    }).detach();
  }
};
REGISTER_KERNEL(KernelDefBuilder("TestConcurrentAsync").Device(DEVICE_CPU), ConcurrentAsyncOp);

std::vector<float> RunWide(const std::string& op, int width, int threads) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> leaves;
  for (int i = 0; i < width; ++i) leaves.push_back(Output(ops::AddOp(root, op, {})));
  ops::AddN(root.WithOpName("sum"), leaves);
  REQUIRE(root.ok());
  auto s = test::MakeSession(root.ToGraphDef(), 1, threads);
  return test::Values<float>(test::RunOk(s.get(), {}, {"sum:0"})[0]);
}

TEST_CASE("Independent ready nodes run concurrently on the inter-op pool", "[executor]") {
  g_sync.max_active = 0;
  g_sync.target = 2;
  CHECK(RunWide("TestConcurrentSync", 4, 2) == std::vector<float>{4});
  CHECK(g_sync.max_active == 2);
}

TEST_CASE("Asynchronous kernels wait without holding an executor thread (5.3)", "[executor]") {
  g_async.max_active = 0;
  g_async.target = 6;
  // One inter-op thread, six pending async kernels at once.
  CHECK(RunWide("TestConcurrentAsync", 6, 1) == std::vector<float>{12});
  CHECK(g_async.max_active == 6);
}

}  // namespace
}  // namespace fb
