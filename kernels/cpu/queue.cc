#include "kernels/cpu/queue.h"

namespace fb {

namespace {
std::mt19937_64 MakeRng(int64_t seed, int64_t seed2) {
  if (seed == 0 && seed2 == 0) return std::mt19937_64(std::random_device{}());
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(seed2), static_cast<uint32_t>(seed2 >> 32)};
  return std::mt19937_64(seq);
}
}  // namespace

Queue::Queue(Options options)
    : options_(std::move(options)), rng_(MakeRng(options_.seed, options_.seed2)) {}

Queue::~Queue() {
  Ready ready;
  for (auto& a : enqueues_)
    ready.push_back([d = a.done, n = options_.name] { d(Cancelled("Queue '", n, "' was reset")); });
  for (auto& a : dequeues_)
    ready.push_back([d = a.done, n = options_.name] {
      d(Cancelled("Queue '", n, "' was reset"), {});
    });
  Run(&ready);
}

std::string Queue::DebugString() const {
  return (options_.shuffle ? "RandomShuffleQueue '" : "FIFOQueue '") + options_.name + "'";
}

Status Queue::ValidateTuple(const Tuple& t) const {
  const auto& types = options_.component_types;
  if (t.size() != types.size())
    return InvalidArgument("Queue '", options_.name, "' has ", types.size(),
                           " components, got a tuple of ", t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].dtype() != types[i])
      return InvalidArgument("Queue '", options_.name, "' component ", i, " must be ",
                             DataTypeString(types[i]), ", got ", DataTypeString(t[i].dtype()));
    if (!options_.shapes.empty() && t[i].shape() != options_.shapes[i])
      return InvalidArgument("Queue '", options_.name, "' component ", i, " must have shape ",
                             options_.shapes[i].DebugString(), ", got ",
                             t[i].shape().DebugString());
  }
  return Status::OK();
}

void Queue::Run(Ready* ready) {
  for (auto& fn : *ready) fn();
}

void Queue::TryEnqueue(std::vector<Tuple> elements, DoneFn done, const CancellationManager* cm,
                       CancellationToken token) {
  Ready ready;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) {
      ready.push_back([done, n = options_.name] { done(Cancelled("Queue '", n, "' is closed")); });
    } else if (cm != nullptr && cm->IsCancelled()) {
      ready.push_back([done, n = options_.name] {
        done(Cancelled("enqueue to queue '", n, "' cancelled: the step was cancelled"));
      });
    } else {
      enqueues_.push_back({std::deque<Tuple>(std::make_move_iterator(elements.begin()),
                                             std::make_move_iterator(elements.end())),
                           std::move(done), token});
      FlushLocked(&ready);
    }
  }
  Run(&ready);
}

void Queue::TryDequeue(int64_t n, DequeueFn done, const CancellationManager* cm,
                       CancellationToken token) {
  Ready ready;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (cm != nullptr && cm->IsCancelled()) {
      ready.push_back([done, name = options_.name] {
        done(Cancelled("dequeue from queue '", name, "' cancelled: the step was cancelled"), {});
      });
    } else {
      dequeues_.push_back({n, {}, std::move(done), token});
      FlushLocked(&ready);
    }
  }
  Run(&ready);
}

void Queue::Cancel(CancellationToken token) {
  if (token < 0) return;
  Ready ready;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto it = enqueues_.begin(); it != enqueues_.end(); ++it) {
      if (it->token != token) continue;
      ready.push_back([d = std::move(it->done), n = options_.name] {
        d(Cancelled("enqueue to queue '", n, "' cancelled: the queue had no room"));
      });
      enqueues_.erase(it);
      break;
    }
    for (auto it = dequeues_.begin(); it != dequeues_.end(); ++it) {
      if (it->token != token) continue;
      for (auto t = it->taken.rbegin(); t != it->taken.rend(); ++t)
        elements_.push_front(std::move(*t));
      ready.push_back([d = std::move(it->done), n = options_.name, want = it->n] {
        d(Cancelled("dequeue from queue '", n, "' cancelled: waiting for ", want,
                    " element(s) that never arrived"), {});
      });
      dequeues_.erase(it);
      break;
    }
    FlushLocked(&ready);  // a withdrawn request may unblock the ones behind it
  }
  Run(&ready);
}

void Queue::Close(bool cancel_pending_enqueues) {
  Ready ready;
  {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
    if (cancel_pending_enqueues) {
      for (auto& a : enqueues_)
        ready.push_back([d = a.done, n = options_.name] { d(Cancelled("Queue '", n, "' is closed")); });
      enqueues_.clear();
    }
    FlushLocked(&ready);
  }
  Run(&ready);
}

int64_t Queue::Size() {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<int64_t>(elements_.size());
}

bool Queue::IsClosed() {
  std::lock_guard<std::mutex> l(mu_);
  return closed_;
}

bool Queue::CanTakeLocked() const {
  const int64_t size = static_cast<int64_t>(elements_.size());
  if (size == 0) return false;
  return !options_.shuffle || closed_ || size > options_.min_after_dequeue;
}

Queue::Tuple Queue::TakeOneLocked() {
  size_t i = 0;
  if (options_.shuffle) i = std::uniform_int_distribution<size_t>(0, elements_.size() - 1)(rng_);
  Tuple t = std::move(elements_[i]);
  if (i != elements_.size() - 1 && options_.shuffle) elements_[i] = std::move(elements_.back());
  if (options_.shuffle) elements_.pop_back(); else elements_.pop_front();
  return t;
}

bool Queue::ServeEnqueuesLocked(Ready* ready) {
  bool progress = false;
  while (!enqueues_.empty()) {
    EnqueueAttempt& a = enqueues_.front();
    while (!a.elements.empty() &&
           (options_.capacity < 0 || static_cast<int64_t>(elements_.size()) < options_.capacity)) {
      elements_.push_back(std::move(a.elements.front()));
      a.elements.pop_front();
      progress = true;
    }
    if (!a.elements.empty()) break;
    ready->push_back([d = std::move(a.done)] { d(Status::OK()); });
    enqueues_.pop_front();
    progress = true;
  }
  return progress;
}

bool Queue::ServeDequeuesLocked(Ready* ready) {
  bool progress = false;
  while (!dequeues_.empty()) {
    DequeueAttempt& a = dequeues_.front();
    while (static_cast<int64_t>(a.taken.size()) < a.n && CanTakeLocked()) {
      a.taken.push_back(TakeOneLocked());
      progress = true;
    }
    if (static_cast<int64_t>(a.taken.size()) == a.n) {
      ready->push_back([d = std::move(a.done), t = std::move(a.taken)]() mutable {
        d(Status::OK(), std::move(t));
      });
    } else if (closed_ && enqueues_.empty()) {
      Status s = OutOfRange("Queue '", options_.name, "' is closed and has insufficient elements ",
                            "(requested ", a.n, ", current size ",
                            elements_.size() + a.taken.size(), ")");
      for (auto it = a.taken.rbegin(); it != a.taken.rend(); ++it) elements_.push_front(std::move(*it));
      ready->push_back([d = std::move(a.done), s] { d(s, {}); });
    } else {
      break;
    }
    dequeues_.pop_front();
    progress = true;
  }
  return progress;
}

void Queue::FlushLocked(Ready* ready) {
  bool progress = true;
  while (progress) {
    progress = ServeEnqueuesLocked(ready);
    progress = ServeDequeuesLocked(ready) || progress;
  }
}

}  // namespace fb
