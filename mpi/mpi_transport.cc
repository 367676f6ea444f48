#include "mpi/mpi_transport.h"

#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "engine/framework/thread_pool.h"
#include "mpi/mpi_status.h"
#include "mpi/recv_buffer_pool.h"
#include "mpi/serial_queue.h"

namespace fb::mpi {

namespace {

constexpr int64_t kDefaultChunkBytes = 256ll << 20;

StatusOr<MPI_Datatype> MpiType(DataType dt) {
  switch (dt) {
    case DataType::kFloat: return MPI_FLOAT;
    case DataType::kDouble: return MPI_DOUBLE;
    case DataType::kInt32: return MPI_INT32_T;
    case DataType::kInt64: return MPI_INT64_T;
    default: return InvalidArgument("MPI allreduce does not support dtype ", DataTypeString(dt));
  }
}

}  // namespace

struct MpiTransport::Impl {
  // One message or collective in flight. `finish` runs once every request has completed, on the
  // delivery pool (or the control queue), with the first MPI error if any.
  struct Op {
    std::vector<MPI_Request> requests;
    std::string header, bytes;  // buffers that must outlive the requests
    Tensor tensor;
    Status error;
    bool control = false;  // finish on the control queue (in order)
    std::function<void(Op*)> finish;
  };
  struct Arrival {
    std::string key;
    Tensor value;
    bool is_dead;
  };

  std::mutex mu;
  std::condition_variable wake;               // new work for the progress thread
  std::deque<std::function<void()>> pending;  // work to start on the progress thread
  std::map<int64_t, Sink> sinks;
  std::map<int64_t, std::vector<Arrival>> buffered;
  ControlHandler control_handler;
  std::deque<std::pair<int, std::string>> early_control;
  std::vector<std::unique_ptr<Op>> ops;  // progress thread only
  std::map<int, int> next_tag;            // progress thread only
  int tag_ub = 32767;
  std::atomic<int64_t> chunk_bytes{kDefaultChunkBytes};
  std::atomic<int64_t> bytes_sent{0}, bytes_received{0};
  std::atomic<bool> stop{false};
  RecvBufferPool recv_pool;
  ThreadPool delivery{"mpi_delivery", 2};
  SerialQueue control_queue;
  std::thread thread;

  void Post(std::function<void()> fn) {
    {
      std::lock_guard<std::mutex> l(mu);
      pending.push_back(std::move(fn));
    }
    wake.notify_one();
  }

  int NextTag(int dst) {
    int& t = next_tag[dst];
    if (t < kFirstPayloadTag || t >= tag_ub) t = kFirstPayloadTag;
    return t++;
  }

  void PostChunks(Op* op, char* data, int64_t bytes, int64_t chunk, int peer, int tag, bool send) {
    for (int64_t off = 0; off < bytes && op->error.ok(); off += chunk) {
      int n = static_cast<int>(std::min(chunk, bytes - off));
      MPI_Request r;
      int rc = send ? MPI_Isend(data + off, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r)
                    : MPI_Irecv(data + off, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r);
      op->error = MpiStatus(rc, send ? "MPI_Isend" : "MPI_Irecv");
      if (op->error.ok()) op->requests.push_back(r);
    }
  }

  void StartSend(int dst, int64_t step_id, const std::string& key, const Tensor& value,
                 bool is_dead, SendDone done) {
    auto op = std::make_unique<Op>();
    op->tensor = value;
    op->finish = [done = std::move(done), dst](Op* o) {
      if (done) done(o->error.ok() ? o->error : o->error.WithPrefix("send to rank " + std::to_string(dst) + ": "));
    };
    TensorHeader h;
    h.step_id = step_id;
    h.is_dead = is_dead;
    h.key = key;
    char* data = nullptr;
    if (!is_dead && value.IsInitialized()) {
      h.dtype = static_cast<int32_t>(value.dtype());
      h.dims = value.shape().dim_sizes();
      if (value.dtype() == DataType::kString) {
        op->bytes = SerializeStrings(value);
        data = op->bytes.data();
        h.payload_bytes = op->bytes.size();
      } else {
        data = static_cast<char*>(const_cast<void*>(static_cast<const void*>(value.raw_data())));
        h.payload_bytes = value.ByteSize();
      }
    } else {
      h.is_dead = 1;
    }
    h.chunk_bytes = chunk_bytes.load();
    h.payload_tag = NextTag(dst);
    op->header = EncodeHeader(h);
    MPI_Request r;
    op->error = MpiStatus(MPI_Isend(op->header.data(), static_cast<int>(op->header.size()), MPI_BYTE,
                                    dst, kHeaderTag, MPI_COMM_WORLD, &r),
                          "MPI_Isend (header)");
    if (op->error.ok()) op->requests.push_back(r);
    PostChunks(op.get(), data, h.payload_bytes, h.chunk_bytes, dst, h.payload_tag, true);
    bytes_sent += h.payload_bytes;
    ops.push_back(std::move(op));
  }

  void StartControlSend(int dst, std::string bytes) {
    auto op = std::make_unique<Op>();
    op->bytes = std::move(bytes);
    op->finish = [dst](Op* o) {
      if (!o->error.ok()) spdlog::error("flowbench mpi: control message to rank {}: {}", dst, o->error.ToString());
    };
    MPI_Request r;
    op->error = MpiStatus(MPI_Isend(op->bytes.data(), static_cast<int>(op->bytes.size()), MPI_BYTE,
                                    dst, kControlTag, MPI_COMM_WORLD, &r),
                          "MPI_Isend (control)");
    if (op->error.ok()) op->requests.push_back(r);
    ops.push_back(std::move(op));
  }

  void StartAllreduce(MPI_Comm comm, void* data, int64_t count, DataType dtype, SendDone done) {
    auto op = std::make_unique<Op>();
    op->finish = [done = std::move(done)](Op* o) { done(o->error); };
    auto type = MpiType(dtype);
    if (!type.ok()) op->error = type.status();
    else if (count > INT_MAX) op->error = InvalidArgument("MPI allreduce of ", count, " elements exceeds INT_MAX");
    MPI_Request r;
    if (op->error.ok()) {
      op->error = MpiStatus(MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count), *type,
                                           MPI_SUM, comm, &r),
                            "MPI_Iallreduce");
      if (op->error.ok()) op->requests.push_back(r);
    }
    ops.push_back(std::move(op));
  }

  // Receives one message of `tag` if there is one; returns whether it did.
  bool Receive(int tag) {
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    if (MPI_Improbe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &msg, &st) != MPI_SUCCESS || !flag)
      return false;
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    std::string buf(count, '\0');
    MPI_Mrecv(buf.data(), count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    if (tag == kControlTag) {
      int src = st.MPI_SOURCE;
      control_queue.Schedule([this, src, b = std::move(buf)] { HandleControl(src, b); });
    } else {
      StartRecv(st.MPI_SOURCE, buf);
    }
    return true;
  }

  void StartRecv(int src, const std::string& header) {
    TensorHeader h;
    Status s = DecodeHeader(header, &h);
    if (!s.ok()) {
      spdlog::error("flowbench mpi: from rank {}: {}", src, s.ToString());
      return;
    }
    auto op = std::make_unique<Op>();
    char* data = nullptr;
    if (!h.is_dead) {
      auto dt = static_cast<DataType>(h.dtype);
      op->tensor = Tensor(dt, TensorShape(h.dims), &recv_pool);
      if (dt == DataType::kString) {
        op->bytes.resize(h.payload_bytes);
        data = op->bytes.data();
      } else {
        data = static_cast<char*>(op->tensor.raw_data());
      }
    }
    op->finish = [this, step = h.step_id, key = h.key, dead = h.is_dead != 0, src](Op* o) {
      if (!o->error.ok()) {
        spdlog::error("flowbench mpi: receive of '{}' from rank {}: {}", key, src, o->error.ToString());
        return;
      }
      if (!dead && o->tensor.dtype() == DataType::kString) {
        Status s = DeserializeStrings(o->bytes, &o->tensor);
        if (!s.ok()) spdlog::error("flowbench mpi: key {}: {}", key, s.ToString());
      }
      Deliver(step, key, o->tensor, dead);
    };
    PostChunks(op.get(), data, h.payload_bytes, h.chunk_bytes, src, h.payload_tag, false);
    bytes_received += h.payload_bytes;
    ops.push_back(std::move(op));
  }

  void Deliver(int64_t step_id, const std::string& key, const Tensor& value, bool is_dead) {
    Sink sink;
    {
      std::lock_guard<std::mutex> l(mu);
      auto it = sinks.find(step_id);
      if (it == sinks.end()) {
        buffered[step_id].push_back({key, value, is_dead});
        return;
      }
      sink = it->second;
    }
    sink(key, value, is_dead);
  }

  void HandleControl(int src, const std::string& bytes) {
    ControlHandler h;
    {
      std::lock_guard<std::mutex> l(mu);
      if (!control_handler) {
        early_control.emplace_back(src, bytes);
        return;
      }
      h = control_handler;
    }
    h(src, bytes);
  }

  // Tests every op once; completed ones are finished off the progress thread.
  bool TestOps() {
    bool progress = false;
    for (size_t i = 0; i < ops.size();) {
      Op* op = ops[i].get();
      int flag = 1;
      if (!op->requests.empty()) {
        int rc = MPI_Testall(static_cast<int>(op->requests.size()), op->requests.data(), &flag,
                             MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS && op->error.ok()) op->error = MpiStatus(rc, "MPI_Testall"), flag = 1;
      }
      if (!flag) {
        ++i;
        continue;
      }
      progress = true;
      std::shared_ptr<Op> done(std::move(ops[i]));
      ops[i] = std::move(ops.back());
      ops.pop_back();
      auto fn = [done] { done->finish(done.get()); };
      if (done->control) control_queue.Schedule(fn); else delivery.Schedule(fn);
    }
    return progress;
  }

  void Loop() {
    int idle = 0;
    for (;;) {
      std::deque<std::function<void()>> work;
      {
        std::lock_guard<std::mutex> l(mu);
        work.swap(pending);
      }
      bool progress = !work.empty();
      for (auto& fn : work) fn();
      while (Receive(kHeaderTag)) progress = true;
      while (Receive(kControlTag)) progress = true;
      progress = TestOps() || progress;
      if (stop.load() && ops.empty()) {
        std::lock_guard<std::mutex> l(mu);
        if (pending.empty()) return;
      }
      Idle(progress, &idle);
    }
  }

  // Transfers in flight progress only inside MPI calls: poll without sleeping while any is
  // outstanding (as MPI_Waitall does), yielding now and then for oversubscribed ranks. When
  // nothing is in flight, wait on `wake` with a timeout that grows with the idle time (20 us up
  // to 1 ms) so incoming headers are still noticed quickly.
  void Idle(bool progress, int* idle) {
    if (progress) {
      *idle = 0;
      return;
    }
    ++*idle;
    if (!ops.empty()) {
      if (*idle % 64 == 0) std::this_thread::yield();
      return;
    }
    if (*idle < 64) {
      std::this_thread::yield();
      return;
    }
    auto timeout = std::chrono::microseconds(*idle < 2000 ? 20 : 1000);
    std::unique_lock<std::mutex> l(mu);
    wake.wait_for(l, timeout, [&] { return !pending.empty() || stop.load(); });
  }
};

MpiTransport::MpiTransport() : impl_(std::make_unique<Impl>()) {
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  if (flag && ub) impl_->tag_ub = *ub;
  impl_->thread = std::thread([this] { impl_->Loop(); });
}

MpiTransport::~MpiTransport() { Shutdown(); }

MpiTransport* MpiTransport::Get() {
  static MpiTransport* t = new MpiTransport;
  return t;
}

void MpiTransport::Send(int dst, int64_t step_id, const std::string& key, const Tensor& value,
                        bool is_dead, SendDone done) {
  impl_->Post([this, dst, step_id, key, value, is_dead, done = std::move(done)]() mutable {
    impl_->StartSend(dst, step_id, key, value, is_dead, std::move(done));
  });
}

void MpiTransport::RegisterStep(int64_t step_id, Sink sink) {
  std::vector<Impl::Arrival> early;
  {
    std::lock_guard<std::mutex> l(impl_->mu);
    impl_->sinks[step_id] = sink;
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
  // Runs on the control queue so early messages keep their order relative to later ones; waits
  // so that no message reaches the old handler once this returns.
  std::promise<void> installed;
  impl_->control_queue.Schedule([this, &installed, handler = std::move(handler)] {
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

void MpiTransport::Shutdown() {
  if (!impl_->thread.joinable()) return;
  impl_->stop = true;
  impl_->wake.notify_all();
  impl_->thread.join();
}

void MpiTransport::set_chunk_bytes(int64_t bytes) { impl_->chunk_bytes = std::max<int64_t>(1, bytes); }
int64_t MpiTransport::bytes_sent() const { return impl_->bytes_sent.load(); }
int64_t MpiTransport::bytes_received() const { return impl_->bytes_received.load(); }

}  // namespace fb::mpi
