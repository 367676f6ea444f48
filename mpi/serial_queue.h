#pragma once
// SerialQueue: one thread running closures in the order they were scheduled. The MPI transport
// delivers control messages through one, so a worker sees "register" before "run" and "run"
// before "abort" of the same step when the master sent them in that order. Thread-safe.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace fb::mpi {

class SerialQueue {
 public:
  SerialQueue();
  // Runs what was scheduled before, then joins the thread.
  ~SerialQueue();
  void Schedule(std::function<void()> fn);

 private:
  void Loop();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace fb::mpi
