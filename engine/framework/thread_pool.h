#pragma once
// ThreadPool: a fixed set of worker threads (Eigen's non-blocking work-stealing pool, as in
// TensorFlow) used for inter-op scheduling by the executor and, through Eigen's ThreadPoolDevice,
// for intra-op parallelism inside kernels (whitepaper 3.1 / 5.4). Thread-safe.
#include <functional>
#include <memory>
#include <string>

namespace Eigen {
class ThreadPoolInterface;
struct ThreadPoolDevice;
}  // namespace Eigen

namespace fb {

class ThreadPool {
 public:
  ThreadPool(std::string name, int num_threads);
  ~ThreadPool();
  void Schedule(std::function<void()> fn);
  int NumThreads() const { return num_threads_; }
  // -1 when called from outside this pool, else the worker index in [0, NumThreads()).
  int CurrentThreadId() const;
  // Splits [0, total) into shards of about `cost_per_unit` ns each and runs them in parallel,
  // returning when all are done. Safe to call from a pool thread.
  void ParallelFor(int64_t total, int64_t cost_per_unit_ns,
                   const std::function<void(int64_t begin, int64_t end)>& fn);
  Eigen::ThreadPoolInterface* AsEigenThreadPool();
  const Eigen::ThreadPoolDevice* eigen_device() const { return device_.get(); }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  int num_threads_;
  std::unique_ptr<Eigen::ThreadPoolInterface> pool_;
  std::unique_ptr<Eigen::ThreadPoolDevice> device_;
};

}  // namespace fb
