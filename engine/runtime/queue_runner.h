#pragma once
// QueueRunner (whitepaper 4.6, "input operations ... prefetch"): threads that run a Session's
// enqueue ops in a loop, concurrently with the training steps that dequeue, so input batches
// are ready when a step needs them. A loop ends quietly when its enqueue fails with OutOfRange
// or Cancelled (its queue, or the queue it reads from, was closed); other errors are kept and
// returned by Stop. Thread-safe.
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/runtime/session.h"

namespace fb {

class QueueRunner {
 public:
  // enqueue_targets: node names run for effect, one thread each; close_target: a QueueClose
  // node (built with cancel_pending_enqueues, so that blocked producers wake up).
  QueueRunner(Session* session, std::vector<std::string> enqueue_targets,
              std::string close_target);
  ~QueueRunner();  // Stop()s
  // Starts one thread per enqueue target. FailedPrecondition if already started.
  Status Start();
  // Runs the close target, joins the threads, and returns the first unexpected error.
  Status Stop();
  // Number of enqueue runs that succeeded so far.
  int64_t enqueue_count() const;

 private:
  void Loop(const std::string& target);

  Session* session_;
  std::vector<std::string> enqueue_targets_;
  std::string close_target_;
  std::vector<std::thread> threads_;
  mutable std::mutex mu_;
  Status status_;
  int64_t enqueue_count_ = 0;
};

}  // namespace fb
