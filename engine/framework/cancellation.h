#pragma once
// CancellationManager: how a step is cancelled from outside (TensorFlow's CancellationManager,
// tensorflow/core/framework/cancellation.h). Session::Run owns one per step when
// RunOptions::timeout_in_ms is set; the executor checks IsCancelled() before each node and
// registers every asynchronous kernel in flight with a description ("QueueDequeue 'q/dequeue'
// on /cpu:0"), and kernels that wait (queue enqueue and dequeue) register a callback that
// withdraws their request. StartCancel marks the step cancelled, runs the callbacks and returns
// what was still pending. Thread-safe.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace fb {

using CancellationToken = int64_t;

class CancellationManager {
 public:
  // A fresh token for RegisterCallback/DeregisterCallback.
  CancellationToken get_cancellation_token();
  // Registers `callback` (may be empty), run once by StartCancel, and `description` (may be
  // empty: not listed as pending). Returns false, registering nothing, when cancellation has
  // already started: the caller must then give up by itself.
  bool RegisterCallback(CancellationToken token, std::string description,
                        std::function<void()> callback);
  // Removes the registration of `token` (no-op when there is none). Returns false when
  // cancellation has started (its callback may be running or have run).
  bool DeregisterCallback(CancellationToken token);
  // Marks the manager cancelled, then runs every registered callback (outside the lock, in
  // registration order). Returns the non-empty descriptions registered at that moment, in
  // registration order; a second call does nothing and returns {}.
  std::vector<std::string> StartCancel();
  bool IsCancelled() const { return cancelled_.load(); }

 private:
  struct Registration {
    std::string description;
    std::function<void()> callback;
  };
  std::mutex mu_;
  std::atomic<bool> cancelled_{false};
  CancellationToken next_token_ = 0;
  std::map<CancellationToken, Registration> registrations_;
};

}  // namespace fb
