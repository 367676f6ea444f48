#include "mpi/mpi_transport.h"

#include "mpi/mpi_transport_impl.h"

namespace fb::mpi {

MpiTransport::MpiTransport() : impl_(std::make_unique<Impl>()) {
  if (const char* w = std::getenv("FLOWBENCH_MPI_WINDOW_BYTES")) set_window_bytes(std::atoll(w));
  if (const char* c = std::getenv("FLOWBENCH_MPI_CHUNK_BYTES")) set_chunk_bytes(std::atoll(c));
  if (const char* b = std::getenv("FLOWBENCH_MPI_INLINE_BYTES"))
    impl_->max_inline_bytes = std::atoll(b);  // -1: every payload in a message of its own
  if (const char* d = std::getenv("FLOWBENCH_MPI_INLINE_DELIVERY_BYTES"))
    impl_->max_inline_delivery_bytes = std::atoll(d);  // -1: every arrival via the delivery pool
  if (const char* m = std::getenv("FLOWBENCH_MPI_MAX_INFLIGHT"))
    impl_->max_inflight_messages = std::max(1, std::atoi(m));
  if (const char* us = std::getenv("FLOWBENCH_MPI_YIELD_US"))
    impl_->yield_interval = std::chrono::microseconds(std::atoll(us));
  if (const char* us = std::getenv("FLOWBENCH_MPI_SPIN_US"))
    impl_->spin_after_activity = std::chrono::microseconds(std::atoll(us));
  if (const char* us = std::getenv("FLOWBENCH_MPI_BACKOFF_US"))
    impl_->backoff_after = std::chrono::microseconds(std::max(0ll, std::atoll(us)));
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  if (flag && ub) impl_->tag_ub = *ub;
  impl_->thread = std::thread([this] {
    pthread_setname_np(pthread_self(), "mpi_progress");
    ProgressThreadScope progress_thread;
    impl_->Loop();
  });
}

MpiTransport::~MpiTransport() { Shutdown(); }

MpiTransport* MpiTransport::Get() {
  static MpiTransport* t = new MpiTransport;
  return t;
}

void MpiTransport::Send(int dst, int64_t step_id, const std::string& key, const Tensor& value,
                        bool is_dead, SendDone done) {
  impl_->Post([this, dst, q = Impl::QueuedSend{step_id, key, value, is_dead, std::move(done)}]() mutable {
    impl_->EnqueueSend(dst, std::move(q));
  });
}

void MpiTransport::RegisterStep(int64_t step_id, Sink sink) {
  std::vector<Impl::Arrival> early;
  {
    std::lock_guard<std::mutex> l(impl_->mu);
    impl_->sinks[step_id] = std::make_shared<const Sink>(sink);
    auto it = impl_->buffered.find(step_id);
    if (it != impl_->buffered.end()) {
      early = std::move(it->second);
      impl_->buffered.erase(it);
    }
  }
  for (auto& a : early) sink(a.key, a.value, a.is_dead);
}

void MpiTransport::UnregisterStep(int64_t step_id) {
  std::lock_guard<std::mutex> l(impl_->mu);
  impl_->sinks.erase(step_id);
  impl_->buffered.erase(step_id);
}

void MpiTransport::SendControl(int dst, std::string bytes) {
  impl_->Post([this, dst, b = std::move(bytes)]() mutable { impl_->StartControlSend(dst, std::move(b)); });
}

void MpiTransport::SetControlHandler(ControlHandler handler) {
  // Runs on the progress thread, which also delivers control messages, so early messages keep
  // their order relative to later ones; waits so that no message reaches the old handler once
  // this returns.
  std::promise<void> installed;
  impl_->Post([this, &installed, handler = std::move(handler)] {
    std::deque<std::pair<int, std::string>> early;
    {
      std::lock_guard<std::mutex> l(impl_->mu);
      impl_->control_handler = handler;
      if (handler) early.swap(impl_->early_control);
    }
    for (auto& [src, bytes] : early) handler(src, bytes);
    installed.set_value();
  });
  installed.get_future().wait();
}

void MpiTransport::Allreduce(MPI_Comm comm, void* data, int64_t count, DataType dtype,
                             SendDone done) {
  impl_->Post([this, comm, data, count, dtype, done = std::move(done)]() mutable {
    impl_->StartAllreduce(comm, data, count, dtype, std::move(done));
  });
}

bool MpiTransport::DriveUntil(const std::function<bool()>& done, std::chrono::steady_clock::time_point deadline) {
  return impl_->DriveUntil(done, deadline);
}

void MpiTransport::Flush() {
  if (!impl_->has_pending.load(std::memory_order_acquire)) return;
  std::unique_lock<std::mutex> d(impl_->drive_mu, std::try_to_lock);
  if (d.owns_lock()) impl_->RunPending();
}

MpiTransport::DrivingScope::DrivingScope(MpiTransport* t) : t_(t) { t_->impl_->BeginDriving(); }
MpiTransport::DrivingScope::~DrivingScope() { t_->impl_->EndDriving(); }

void MpiTransport::Wake() {
  if (tls_driving || impl_->drivers.load() == 0) return;  // no driver, or the caller is the driver
  {
    std::lock_guard<std::mutex> l(impl_->mu);
    impl_->woken = true;
  }
  impl_->driver_wake.notify_all();
}

void MpiTransport::Shutdown() {
  if (!impl_->thread.joinable()) return;
  impl_->stop = true;
  impl_->wake.notify_all();
  impl_->thread.join();
}

void MpiTransport::set_chunk_bytes(int64_t bytes) { impl_->chunk_bytes = std::max<int64_t>(1, bytes); }
void MpiTransport::set_window_bytes(int64_t bytes) { impl_->window_bytes = std::max<int64_t>(1, bytes); }
int64_t MpiTransport::bytes_sent() const { return impl_->bytes_sent.load(); }
int64_t MpiTransport::bytes_received() const { return impl_->bytes_received.load(); }

}  // namespace fb::mpi
