#include "engine/framework/thread_pool.h"

#include "engine/framework/progress_thread.h"

#define EIGEN_USE_THREADS
#include <pthread.h>

#include <algorithm>

#include <unsupported/Eigen/CXX11/Tensor>

namespace fb {

namespace {
// Eigen's thread environment, with each thread named after its pool ("CPU0/inter/3" for
// "/job:ps/replica:0/task:0/device:CPU:0/inter"; the kernel keeps 15 characters), so profilers
// (perf, top -H, gdb) tell the pools apart.
struct NamedThreadEnvironment : Eigen::StlThreadEnvironment {
  EnvThread* CreateThread(std::function<void()> f) {
    std::string base = name.substr(name.rfind("device:") == std::string::npos ? 0 : name.rfind("device:") + 7);
    base.erase(std::remove(base.begin(), base.end(), ':'), base.end());
    std::string thread_name = base.substr(0, 12) + "/" + std::to_string(next++ % 100);
    return new EnvThread([thread_name, f = std::move(f)] {
      pthread_setname_np(pthread_self(), thread_name.c_str());
      f();
    });
  }
  std::string name;
  int next = 0;
};
}  // namespace

ThreadPool::ThreadPool(std::string name, int num_threads)
    : name_(std::move(name)), num_threads_(num_threads < 1 ? 1 : num_threads) {
  NamedThreadEnvironment env;
  env.name = name_;
  // No spinning: a worker that runs out of work sleeps at once instead of polling the other
  // queues for a while (Eigen's default). On the 2-core machines these pools run on, a spinning
  // worker takes the core that the step's next kernel needs; the character LSTM (issue 16) used
  // 8-12% less CPU per step without it, and the empty while loop's latency per iteration did
  // not change measurably (docs/benchmarks.md, "LSTM and while loops").
  pool_ = std::make_unique<Eigen::ThreadPoolTempl<NamedThreadEnvironment>>(num_threads_,
                                                                           /*allow_spinning=*/false,
                                                                           env);
  device_ = std::make_unique<Eigen::ThreadPoolDevice>(pool_.get(), num_threads_);
}

ThreadPool::~ThreadPool() {
  device_.reset();
  pool_.reset();
}

void ThreadPool::Schedule(std::function<void()> fn) {
  if (IsProgressThread()) ++internal::progress_thread_handoffs;
  pool_->Schedule(std::move(fn));
}

int ThreadPool::CurrentThreadId() const { return pool_->CurrentThreadId(); }

void ThreadPool::ParallelFor(int64_t total, int64_t cost_per_unit_ns,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  if (num_threads_ == 1 || total * cost_per_unit_ns < 20000) {
    fn(0, total);
    return;
  }
  // Eigen's cost model: compute cycles per unit (about 3 cycles per ns on this class of CPU).
  Eigen::TensorOpCost cost(0, 0, static_cast<double>(cost_per_unit_ns) * 3.0);
  device_->parallelFor(total, cost, [&fn](Eigen::Index b, Eigen::Index e) { fn(b, e); });
}

Eigen::ThreadPoolInterface* ThreadPool::AsEigenThreadPool() { return pool_.get(); }

}  // namespace fb
