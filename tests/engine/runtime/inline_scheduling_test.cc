// Where the executor runs nodes (executor.h): Session::Run starts the step on the calling thread,
// Executor::Args::StartOn chooses between the caller and the inter-op pool, declared-expensive
// kernels measured below 2 us become inexpensive, an asynchronous kernel's completion continues
// with inexpensive successors on its own thread, completions inside the executor's loop do not
// recurse, and slow runs make a cheap kernel expensive only when a whole window of them is slow. Test-only ops are registered here.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/client/state_ops.h"
#include "engine/client/scope.h"
#include "engine/framework/op_kernel.h"
#include "engine/framework/progress_thread.h"
#include "engine/runtime/executor.h"
#include "engine/runtime/executor_impl.h"
#include "engine/runtime/local_rendezvous.h"
#include "tests/test_util.h"

namespace fb {
namespace {

std::mutex g_mu;
std::thread::id g_ran_on, g_completed_on;

void RecordThread() {
  std::lock_guard<std::mutex> l(g_mu);
  g_ran_on = std::this_thread::get_id();
}
std::thread::id RanOn() {
  std::lock_guard<std::mutex> l(g_mu);
  return g_ran_on;
}

REGISTER_OP("TestCheapThread").Input("x: float").Output("y: float").SetIsStateful();
REGISTER_OP("TestExpensiveThread").Output("y: float").SetIsStateful();
REGISTER_OP("TestAsyncOnHelper").Output("y: float").SetIsStateful();
REGISTER_OP("TestAsyncNow").Input("x: float").Output("y: float");
REGISTER_OP("TestSometimesSlow").Output("y: float").SetIsStateful();

// Declared inexpensive: records its thread, forwards its input.
class CheapThreadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    RecordThread();
    ctx->set_output(0, ctx->input(0));
  }
};
REGISTER_KERNEL(KernelDefBuilder("TestCheapThread").Device(DEVICE_CPU), CheapThreadOp);

// Declared expensive (the default) but takes well under 2 us.
class ExpensiveThreadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    RecordThread();
    ctx->set_output(0, Tensor::Scalar<float>(1));
  }
};
REGISTER_KERNEL(KernelDefBuilder("TestExpensiveThread").Device(DEVICE_CPU), ExpensiveThreadOp);

// Declared expensive, takes well under 2 us, except for the next g_slow_runs runs, which take
// 2 ms each (as if preempted, or given larger inputs).
std::atomic<int> g_slow_runs{0};
class SometimesSlowOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    RecordThread();
    if (g_slow_runs.fetch_sub(1) > 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    else g_slow_runs = 0;
    ctx->set_output(0, Tensor::Scalar<float>(1));
  }
};
REGISTER_KERNEL(KernelDefBuilder("TestSometimesSlow").Device(DEVICE_CPU), SometimesSlowOp);

// Completes on a thread of its own, which it records.
class AsyncOnHelperOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::thread([ctx, done] {
      {
        std::lock_guard<std::mutex> l(g_mu);
        g_completed_on = std::this_thread::get_id();
      }
      ctx->set_output(0, Tensor::Scalar<float>(2));
      done();
    }).detach();
  }
};
REGISTER_KERNEL(KernelDefBuilder("TestAsyncOnHelper").Device(DEVICE_CPU), AsyncOnHelperOp);

// Asynchronous, but completes before ComputeAsync returns (like a Recv whose value is there).
class AsyncNowOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ctx->set_output(0, Tensor::Scalar<float>(ctx->input(0).scalar<float>() + 1));
    done();
  }
};
REGISTER_KERNEL(KernelDefBuilder("TestAsyncNow").Device(DEVICE_CPU), AsyncNowOp);

// One executor on a 2-thread CPU device for the graph of `root`.
struct LocalExecutor {
  explicit LocalExecutor(const Scope& root) {
    REQUIRE(root.ok());
    DeviceOptions o;
    o.threads_per_cpu = 2;
    auto m = DeviceMgr::CreateLocal(o);
    REQUIRE(m.ok());
    mgr = *m;
    Device* device = mgr->devices()[0];
    auto g = Graph::FromGraphDef(root.ToGraphDef());
    REQUIRE(g.ok());
    for (Node* n : (*g)->nodes()) n->set_assigned_device(device->name());
    auto e = Executor::Create(std::move(*g), device);
    REQUIRE(e.ok());
    executor = std::move(*e);
  }
  // Runs one step starting as `start_on` says; returns whether `done` ran before RunAsync
  // returned, after waiting for the step.
  bool Run(Executor::Args::StartOn start_on) {
    Executor::Args args;
    args.start_on = start_on;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    executor->RunAsync(args, [&](const Status& s) {
      CHECK(s.ok());
      std::lock_guard<std::mutex> l(mu);
      done = true;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> l(mu);
    bool before_return = done;
    cv.wait(l, [&] { return done; });
    return before_return;
  }
  std::shared_ptr<DeviceMgr> mgr;
  std::unique_ptr<Executor> executor;
};

Scope OneExpensiveNode() {
  Scope root = Scope::NewRootScope();
  ops::AddOp(root.WithOpName("e"), "TestExpensiveThread", {});
  return root;
}

TEST_CASE("Session::Run starts the step on the calling thread", "[executor]") {
  Scope root = Scope::NewRootScope();
  ops::AddOp(root.WithOpName("y"), "TestCheapThread", {ops::Const(root, 1.f)});
  REQUIRE(root.ok());
  auto s = test::MakeSession(root.ToGraphDef(), 1, 2);
  CHECK(test::Values<float>(test::RunOk(s.get(), {}, {"y:0"})[0]) == std::vector<float>{1});
  CHECK(RanOn() == std::this_thread::get_id());
}

TEST_CASE("StartOn::kRunner hands every root to the inter-op pool", "[executor]") {
  Scope root = Scope::NewRootScope();
  ops::AddOp(root.WithOpName("y"), "TestCheapThread", {ops::Const(root, 1.f)});
  LocalExecutor ex(root);
  ex.Run(Executor::Args::StartOn::kRunner);
  CHECK(RanOn() != std::this_thread::get_id());
}

TEST_CASE("A thread that must not be held runs no unmeasured expensive kernel", "[executor]") {
  LocalExecutor ex(OneExpensiveNode());
  ex.Run(Executor::Args::StartOn::kCallerInexpensive);  // unmeasured: expensive
  CHECK(RanOn() != std::this_thread::get_id());
}

TEST_CASE("A waiting caller runs one expensive kernel itself", "[executor]") {
  LocalExecutor ex(OneExpensiveNode());
  CHECK(ex.Run(Executor::Args::StartOn::kCaller));
  CHECK(RanOn() == std::this_thread::get_id());
}

TEST_CASE("A declared-expensive kernel measured below 2 us becomes inexpensive", "[executor]") {
  LocalExecutor ex(OneExpensiveNode());
  // Preemption can inflate a measurement; the mean recovers within a few steps.
  bool inline_run = false;
  for (int i = 0; i < 200 && !inline_run; ++i) {
    ex.Run(Executor::Args::StartOn::kCallerInexpensive);
    inline_run = RanOn() == std::this_thread::get_id();
  }
  CHECK(inline_run);
}

TEST_CASE("Preempted runs do not make a cheap kernel expensive, lasting slowness does",
          "[executor]") {
  Scope root = Scope::NewRootScope();
  ops::AddOp(root.WithOpName("s"), "TestSometimesSlow", {});
  LocalExecutor ex(root);
  auto runs_inline = [&] {
    ex.Run(Executor::Args::StartOn::kCallerInexpensive);
    return RanOn() == std::this_thread::get_id();
  };
  bool cheap = false;
  for (int i = 0; i < 200 && !cheap; ++i) cheap = runs_inline();
  REQUIRE(cheap);
  for (int i = 0; i < 20; ++i) runs_inline();  // recent runs: fast ones
  // Half a window of slow runs in a row: the estimate (the shortest of the last kCostWindow
  // runs) stays that of a fast run. A mean would stay above 2 us for 30 runs.
  const int half = ExecutorImpl::kCostWindow / 2;
  g_slow_runs = half;
  for (int i = 0; i < half; ++i) CHECK(runs_inline());
  CHECK(runs_inline());
  // A whole window of slow runs: the kernel is expensive for its next run, which goes to the
  // pool.
  g_slow_runs = ExecutorImpl::kCostWindow;
  for (int i = 0; i < ExecutorImpl::kCostWindow; ++i) runs_inline();
  CHECK_FALSE(runs_inline());
}

TEST_CASE("An asynchronous kernel's thread continues with the inexpensive nodes it makes ready",
          "[executor]") {
  Scope root = Scope::NewRootScope();
  Output a(ops::AddOp(root, "TestAsyncOnHelper", {}));
  ops::AddOp(root.WithOpName("y"), "TestCheapThread", {a});
  LocalExecutor ex(root);
  ex.Run(Executor::Args::StartOn::kCaller);
  std::lock_guard<std::mutex> l(g_mu);
  CHECK(g_ran_on == g_completed_on);
}

// A _Recv of `elements` floats, fed on a progress thread with a tensor of another allocator (as
// MPI arrivals are), then a cheap successor: whether the successor ran on the progress thread.
bool SuccessorRanOnProgressThread(int64_t elements) {
  Scope root = Scope::NewRootScope();
  Output r = ops::Op(root.WithOpName("r"), "_Recv", {},
                     {{"T", DataType::kFloat}, {"tensor_name", "t"}, {"send_device", "src"}, {"recv_device", "dst"}});
  ops::AddOp(root.WithOpName("y"), "TestCheapThread", {r});
  LocalExecutor ex(root);
  LocalRendezvous rendezvous;
  Executor::Args args;
  args.rendezvous = &rendezvous;
  args.start_on = Executor::Args::StartOn::kCaller;
  std::promise<Status> finished;
  ex.executor->RunAsync(args, [&](const Status& s) { finished.set_value(s); });
  auto other = std::make_shared<CpuAllocator>("transport");
  std::thread::id progress_thread;
  std::thread([&] {
    ProgressThreadScope progress;
    progress_thread = std::this_thread::get_id();
    Tensor t(DataType::kFloat, TensorShape{elements}, other.get());
    for (int64_t i = 0; i < elements; ++i) t.data<float>()[i] = 1.f;
    CHECK(rendezvous.Send({"src", "dst", "t", {}}, t, false).ok());
  }).join();
  REQUIRE(finished.get_future().get().ok());
  return RanOn() == progress_thread;
}

TEST_CASE("A progress thread hands the copy of a large received tensor to the pool", "[executor]") {
  CHECK(SuccessorRanOnProgressThread(16));              // 64 bytes: copied and continued there
  CHECK_FALSE(SuccessorRanOnProgressThread(1 << 20));   // 4 MiB: copied on an inter-op thread
}

TEST_CASE("Completions inside the executor's loop do not recurse", "[executor]") {
  // 30,000 asynchronous kernels in a chain, each completing before ComputeAsync returns: one
  // stack frame per node would overflow the stack.
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, 0.f);
  for (int i = 0; i < 30000; ++i) x = Output(ops::AddOp(root, "TestAsyncNow", {x}));
  REQUIRE(root.ok());
  auto s = test::MakeSession(root.ToGraphDef(), 1, 2);
  CHECK(test::Values<float>(test::RunOk(s.get(), {}, {x.name()})[0]) == std::vector<float>{30000});
}

}  // namespace
}  // namespace fb
