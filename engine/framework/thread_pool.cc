#include "engine/framework/thread_pool.h"

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

namespace fb {

ThreadPool::ThreadPool(std::string name, int num_threads)
    : name_(std::move(name)), num_threads_(num_threads < 1 ? 1 : num_threads) {
  pool_ = std::make_unique<Eigen::ThreadPool>(num_threads_);
  device_ = std::make_unique<Eigen::ThreadPoolDevice>(pool_.get(), num_threads_);
}

ThreadPool::~ThreadPool() {
  device_.reset();
  pool_.reset();
}

void ThreadPool::Schedule(std::function<void()> fn) { pool_->Schedule(std::move(fn)); }

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
