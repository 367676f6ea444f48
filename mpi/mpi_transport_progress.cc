// The progress loop of MpiTransport (mpi_transport_impl.h): one MPI_Testsome over every request
// in flight, pending work, the progress thread's loop, callers driving progress themselves
// (DriveUntil) and the polling policy between passes (Idle).
#include "mpi/mpi_transport_impl.h"

namespace fb::mpi {

bool MpiTransport::Impl::TestRequests() {
  if (requests.empty()) return false;
  int n = static_cast<int>(requests.size()), count = 0;
  completed.resize(n);
  int rc = MPI_Testsome(n, requests.data(), &count, completed.data(), MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) {  // a failed request: fail every op (MPI's state is unknown)
    Status s = MpiStatus(rc, "MPI_Testsome");
    std::vector<std::unique_ptr<Op>> failed;
    failed.swap(ops);
    requests.clear(), request_ops.clear();
    for (auto& op : failed) {
      if (op->error.ok()) op->error = s;
      Finish(std::move(op));
    }
    return true;
  }
  if (count <= 0) return false;  // 0, or MPI_UNDEFINED
  bool any_done = false;
  for (int i = 0; i < count; ++i) any_done |= --request_ops[completed[i]]->outstanding == 0;
  // Drop completed requests (MPI set them to MPI_REQUEST_NULL), keeping the order.
  size_t keep = 0;
  for (size_t i = 0; i < requests.size(); ++i)
    if (requests[i] != MPI_REQUEST_NULL) requests[keep] = requests[i], request_ops[keep++] = request_ops[i];
  requests.resize(keep), request_ops.resize(keep);
  if (any_done) {
    std::vector<std::unique_ptr<Op>> still;
    std::vector<std::unique_ptr<Op>> done;
    for (auto& op : ops) (op->outstanding == 0 ? done : still).push_back(std::move(op));
    ops.swap(still);
    for (auto& op : done) Finish(std::move(op));
  }
  return true;
}

bool MpiTransport::Impl::PollOnce() {
  bool progress = RunPending();
  while (Receive(kHeaderTag)) progress = true;
  while (Receive(kControlTag)) progress = true;
  // What the arrivals' handlers posted (a worker's result tensors and its "done") goes out now,
  // not after another round of probes.
  progress |= RunPending();
  return TestRequests() || progress;
}

bool MpiTransport::Impl::RunPending() {
  if (!has_pending.load(std::memory_order_acquire)) return false;  // no lock when idle
  {
    std::lock_guard<std::mutex> l(mu);
    polled_work.swap(pending);
    has_pending.store(false, std::memory_order_relaxed);
  }
  bool any = !polled_work.empty();
  for (auto& fn : polled_work) fn();
  polled_work.clear();
  return any;
}

void MpiTransport::Impl::Loop() {
  Spin spin;
  for (;;) {
    if (drivers.load() > 0) {  // a waiting thread drives progress (DriveUntil): stay out of its way
      std::unique_lock<std::mutex> l(mu);
      wake.wait_for(l, kDrivenPollInterval, [&] { return drivers.load() == 0 || stop.load(); });
      spin.last_activity = Clock::now();
      continue;
    }
    bool progress, in_flight;
    {
      std::lock_guard<std::mutex> d(drive_mu);
      progress = PollOnce();
      in_flight = !ops.empty();
      if (stop.load() && !in_flight) {
        std::lock_guard<std::mutex> l(mu);
        if (pending.empty()) return;
      }
    }
    Idle(progress, in_flight, &spin, &wake);
  }
}

void MpiTransport::Impl::BeginDriving() {
  ++drivers;
  ++tls_driving;
}

void MpiTransport::Impl::EndDriving() {
  --tls_driving;
  --drivers;
  bool busy;
  {
    std::lock_guard<std::mutex> d(drive_mu);
    busy = !ops.empty();
  }
  {
    std::lock_guard<std::mutex> l(mu);
    busy = busy || !pending.empty();
  }
  if (busy) wake.notify_all();
}

bool MpiTransport::Impl::DriveUntil(const std::function<bool()>& done, Clock::time_point deadline) {
  ProgressThreadScope progress_thread;
  BeginDriving();
  Spin spin;
  bool finished = false;
  for (;;) {
    if ((finished = done()) || Clock::now() >= deadline || stop.load()) break;
    bool progress = false, in_flight = true;
    {
      std::unique_lock<std::mutex> d(drive_mu, std::try_to_lock);
      if (d.owns_lock()) progress = PollOnce(), in_flight = !ops.empty();
    }
    Idle(progress, in_flight, &spin, &driver_wake);
  }
  EndDriving();
  return finished;
}

void MpiTransport::Impl::Idle(bool progress, bool in_flight, Spin* spin, std::condition_variable* cv) {
  auto now = Clock::now();
  if (progress) {
    spin->last_activity = spin->last_yield = now;
    return;
  }
  const bool back_off = backoff_after > Clock::duration::zero() &&
                        now - spin->last_activity >= backoff_after;
  if (!back_off && (in_flight || now - spin->last_activity < spin_after_activity)) {
    const uint64_t handoffs = ProgressThreadHandoffs();
    if (handoffs != spin->handoffs || now - spin->last_yield >= yield_interval) {
      spin->handoffs = handoffs;
      std::this_thread::yield();
      spin->last_yield = Clock::now();
    }
    return;
  }
  const bool recent = in_flight || now - spin->last_activity < std::chrono::seconds(1);
  auto timeout = recent ? kBackoffSlice : std::chrono::microseconds(1000);
  std::unique_lock<std::mutex> l(mu);
  cv->wait_for(l, timeout, [&] {
    return !pending.empty() || stop.load() || (cv == &driver_wake && woken.exchange(false));
  });
}

}  // namespace fb::mpi
