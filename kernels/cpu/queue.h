#pragma once
// The queue resource behind FIFOQueue and RandomShuffleQueue (whitepaper 4.6; TensorFlow's
// QueueBase/FIFOQueue/RandomShuffleQueue). Enqueue and dequeue requests are "attempts" kept in
// arrival order and served as elements and room become available; each calls back exactly once
// (OK, Cancelled, OutOfRange) and never blocks the caller, so kernels wait without holding a
// thread (5.3). Callbacks run on the thread whose request made progress, never under the lock.
// Thread-safe.
#include <deque>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "engine/framework/cancellation.h"
#include "engine/framework/resource_mgr.h"
#include "engine/framework/tensor.h"

namespace fb {

class Queue : public ResourceBase {
 public:
  using Tuple = std::vector<Tensor>;  // one tensor per component
  using DoneFn = std::function<void(const Status&)>;
  using DequeueFn = std::function<void(const Status&, std::vector<Tuple> elements)>;

  struct Options {
    std::string name;  // for messages
    std::vector<DataType> component_types;
    std::vector<TensorShape> shapes;  // empty: any shapes
    int64_t capacity = -1;            // < 0: unbounded
    bool shuffle = false;             // RandomShuffleQueue
    int64_t min_after_dequeue = 0;    // shuffle only
    int64_t seed = 0, seed2 = 0;      // both 0: nondeterministic
  };

  explicit Queue(Options options);
  // Fails waiting requests with Cancelled (the queue was reset).
  ~Queue() override;
  std::string DebugString() const override;
  const Options& options() const { return options_; }

  // InvalidArgument naming the queue when the dtypes or shapes do not match the components.
  Status ValidateTuple(const Tuple& t) const;
  // Adds the elements in order, waiting for room; done(OK) once all are in, Cancelled if the
  // queue is (or gets, with cancel_pending_enqueues) closed first.
  // With `cm` (may be null), the request is withdrawn when `cm` is cancelled: the caller
  // registers a callback calling Cancel(token) after obtaining `token`; a request made after
  // cancellation fails with Cancelled at once.
  void TryEnqueue(std::vector<Tuple> elements, DoneFn done,
                  const CancellationManager* cm = nullptr, CancellationToken token = -1);
  // Takes n elements (as they become available); OutOfRange once the queue is closed and can no
  // longer provide them (elements already taken are put back). `cm`, `token`: as TryEnqueue.
  void TryDequeue(int64_t n, DequeueFn done, const CancellationManager* cm = nullptr,
                  CancellationToken token = -1);
  // Withdraws the waiting request made with `token`: its done gets Cancelled naming the queue
  // (a dequeue puts back what it had taken; elements an enqueue already added stay). No-op
  // when no request waits with that token.
  void Cancel(CancellationToken token);
  void Close(bool cancel_pending_enqueues);
  int64_t Size();
  bool IsClosed();

 private:
  struct EnqueueAttempt {
    std::deque<Tuple> elements;
    DoneFn done;
    CancellationToken token = -1;
  };
  struct DequeueAttempt {
    int64_t n;
    std::vector<Tuple> taken;
    DequeueFn done;
    CancellationToken token = -1;
  };
  using Ready = std::vector<std::function<void()>>;
  void FlushLocked(Ready* ready);
  bool ServeEnqueuesLocked(Ready* ready);
  bool ServeDequeuesLocked(Ready* ready);
  bool CanTakeLocked() const;
  Tuple TakeOneLocked();
  static void Run(Ready* ready);

  const Options options_;
  std::mutex mu_;
  std::deque<Tuple> elements_;
  bool closed_ = false;
  std::deque<EnqueueAttempt> enqueues_;
  std::deque<DequeueAttempt> dequeues_;
  std::mt19937_64 rng_;
};

}  // namespace fb
