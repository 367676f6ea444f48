#include "engine/runtime/queue_runner.h"

namespace fb {

QueueRunner::QueueRunner(Session* session, std::vector<std::string> enqueue_targets,
                         std::string close_target)
    : session_(session),
      enqueue_targets_(std::move(enqueue_targets)),
      close_target_(std::move(close_target)) {}

QueueRunner::~QueueRunner() { (void)Stop(); }

Status QueueRunner::Start() {
  if (!threads_.empty()) return FailedPrecondition("QueueRunner already started");
  for (const std::string& t : enqueue_targets_) threads_.emplace_back([this, t] { Loop(t); });
  return Status::OK();
}

void QueueRunner::Loop(const std::string& target) {
  std::vector<Tensor> unused;
  for (;;) {
    Status s = session_->Run({}, {}, {target}, &unused);
    std::lock_guard<std::mutex> l(mu_);
    if (s.ok()) {
      ++enqueue_count_;
      continue;
    }
    if (s.code() != Code::kOutOfRange && s.code() != Code::kCancelled && status_.ok()) status_ = s;
    return;
  }
}

Status QueueRunner::Stop() {
  if (threads_.empty()) return Status::OK();
  std::vector<Tensor> unused;
  Status close = session_->Run({}, {}, {close_target_}, &unused);
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  std::lock_guard<std::mutex> l(mu_);
  return close.ok() ? status_ : close;
}

int64_t QueueRunner::enqueue_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return enqueue_count_;
}

}  // namespace fb
