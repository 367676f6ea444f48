#include "engine/framework/thread_pool.h"

#include "engine/framework/progress_thread.h"

#define EIGEN_USE_THREADS
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

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

namespace {
// Below this much work (ns) ParallelFor calls fn(0, total) on the calling thread; shards are at
// least this large.
constexpr int64_t kParallelForMinCostNs = 20000;

// The shards of one ParallelFor, shared by the caller and the helper tasks it schedules (which
// may start after the caller has returned, hence the shared_ptr).
struct ParallelForState {
  ParallelForState(int64_t total, int64_t shard_size, int64_t num_shards,
                   const std::function<void(int64_t, int64_t)>* fn)
      : total(total), shard_size(shard_size), num_shards(num_shards), fn(fn) {}
  // Runs unclaimed shards until none is left. Returns once this thread's last shard is done.
  void RunShards() {
    for (int64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < num_shards;) {
      const int64_t begin = i * shard_size, end = std::min(total, begin + shard_size);
      (*fn)(begin, end);
      if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == num_shards) {
        std::lock_guard<std::mutex> l(mu);
        cv.notify_all();
      }
    }
  }
  const int64_t total, shard_size, num_shards;
  const std::function<void(int64_t, int64_t)>* fn;  // valid until every shard is done
  std::atomic<int64_t> next{0}, done{0};
  std::mutex mu;
  std::condition_variable cv;
};
}  // namespace

void ThreadPool::ParallelFor(int64_t total, int64_t cost_per_unit_ns,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  if (num_threads_ == 1 || total * cost_per_unit_ns < kParallelForMinCostNs) {
    fn(0, total);
    return;
  }
  // Shards of at least kParallelForMinCostNs, about 4 per thread (the caller counts as one).
  const int64_t cost = std::max<int64_t>(1, cost_per_unit_ns);
  const int64_t min_units = std::max<int64_t>(1, kParallelForMinCostNs / cost);
  const int64_t max_shards = 4 * (static_cast<int64_t>(num_threads_) + 1);
  const int64_t shard_size = std::max(min_units, (total + max_shards - 1) / max_shards);
  const int64_t num_shards = (total + shard_size - 1) / shard_size;
  if (num_shards == 1) {
    fn(0, total);
    return;
  }
  // The caller runs shards too, and any that no helper has claimed: on a loaded machine a
  // helper may not be scheduled for milliseconds, and the caller then does the work itself
  // instead of waiting for it (issue 16); it only waits for shards a helper is running.
  auto state = std::make_shared<ParallelForState>(total, shard_size, num_shards, &fn);
  const int helpers = static_cast<int>(std::min<int64_t>(num_threads_, num_shards - 1));
  for (int h = 0; h < helpers; ++h) pool_->Schedule([state] { state->RunShards(); });
  state->RunShards();
  std::unique_lock<std::mutex> l(state->mu);
  state->cv.wait(l, [&] { return state->done.load(std::memory_order_acquire) == num_shards; });
}

Eigen::ThreadPoolInterface* ThreadPool::AsEigenThreadPool() { return pool_.get(); }

}  // namespace fb
