#pragma once
// MpiTransport::Impl, private to mpi/mpi_transport*.cc: the progress thread's state, the wire
// protocol of sends, receives and control messages (mpi_transport.cc) and the progress loop
// driven by the progress thread or by callers of DriveUntil (mpi_transport_progress.cc).
#include "mpi/mpi_transport.h"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <climits>
#include <cstdlib>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "engine/framework/progress_thread.h"
#include "engine/framework/thread_pool.h"
#include "mpi/mpi_status.h"
#include "mpi/recv_buffer_pool.h"

// Defaults and helpers of the implementation files (tuning knobs are environment variables, see
// the MpiTransport constructor).
namespace fb::mpi::transport_internal {

inline constexpr int64_t kDefaultChunkBytes = 256ll << 20;
inline constexpr int64_t kDefaultWindowBytes = 64ll << 20;
// Messages in flight per destination: every progress loop tests each outstanding request, so an
// unbounded burst (1,000 messages of 64 KiB fit in the byte window) makes the loop quadratic.
inline constexpr int kDefaultMaxInflightMessages = 16;
// Payloads up to this size travel inside their header message (wire_format.h): below Open MPI's
// eager limits, where a second message costs more than copying the bytes.
inline constexpr int64_t kDefaultMaxInlineBytes = 4096;
// Arrivals up to this size (all but strings by default) are delivered to their sink on the
// progress thread; a Recv kernel that must copy a large one hands the copy to its executor's
// runner (engine/framework/progress_thread.h). Handing each arrival to the delivery pool instead
// cost 2-8x in bandwidth from 256 KiB to 4 MiB with one core per rank (a thread wake-up per
// message).
inline constexpr int64_t kDefaultMaxInlineDeliveryBytes = INT64_MAX;
using Clock = std::chrono::steady_clock;
inline constexpr auto kSpinAfterActivity = std::chrono::milliseconds(5);
inline constexpr auto kYieldInterval = std::chrono::microseconds(10);
// The sleep between passes of a polling thread that backs off (backoff_after).
inline constexpr auto kBackoffSlice = std::chrono::microseconds(50);
// While a thread drives progress, the progress thread checks this often whether it still does.
inline constexpr auto kDrivenPollInterval = std::chrono::milliseconds(1);
inline thread_local int tls_driving = 0;  // this thread's DriveUntil calls and DrivingScopes

inline StatusOr<MPI_Datatype> MpiType(DataType dt) {
  switch (dt) {
    case DataType::kFloat: return MPI_FLOAT;
    case DataType::kDouble: return MPI_DOUBLE;
    case DataType::kInt32: return MPI_INT32_T;
    case DataType::kInt64: return MPI_INT64_T;
    default: return InvalidArgument("MPI allreduce does not support dtype ", DataTypeString(dt));
  }
}


}  // namespace fb::mpi::transport_internal

namespace fb::mpi {

using namespace transport_internal;  // NOLINT: the implementation files' own constants

struct MpiTransport::Impl {
  // One message or collective in flight. `finish` runs once all its requests have completed, on
  // the delivery pool, with the first MPI error if any.
  struct Op {
    int outstanding = 0;        // requests not yet complete
    std::string header, bytes;  // buffers that must outlive the requests
    Tensor tensor;
    Status error;
    int window_peer = -1;  // sends: the destination whose window this op holds
    int64_t window_bytes = 0;
    bool finish_inline = false;  // run `finish` on the progress thread (small arrivals)
    std::function<void(Op*)> finish;
  };
  // A tensor waiting for room in its destination's window.
  struct QueuedSend {
    int64_t step_id;
    std::string key;
    Tensor value;
    bool is_dead;
    SendDone done;
  };
  struct Peer {
    int next_tag = kFirstPayloadTag;
    int64_t inflight_bytes = 0;
    int inflight_messages = 0;
    std::deque<QueuedSend> waiting;
  };
  struct Arrival {
    std::string key;
    Tensor value;
    bool is_dead;
  };

  std::mutex mu;
  std::condition_variable wake;               // new work for the progress thread
  std::condition_variable driver_wake;        // new work, or Wake(), for threads in DriveUntil
  std::deque<std::function<void()>> pending;  // work to start on the progress thread
  std::atomic<bool> has_pending{false};       // !pending.empty(), readable without `mu`
  std::deque<std::function<void()>> polled_work;  // PollOnce's batch (under drive_mu)
  std::map<int64_t, std::shared_ptr<const Sink>> sinks;  // shared: a delivery copies no closure
  std::map<int64_t, std::vector<Arrival>> buffered;
  ControlHandler control_handler;
  std::deque<std::pair<int, std::string>> early_control;
  // Progress thread only: the ops in flight, all their requests in one array (one MPI_Testsome
  // per loop instead of one test per op: under MPI_THREAD_MULTIPLE every call takes Open MPI's
  // locks and runs its progress engine) with the op of each request, and per-peer state.
  std::vector<std::unique_ptr<Op>> ops;
  std::vector<MPI_Request> requests;
  std::vector<Op*> request_ops;
  std::vector<int> completed;
  std::map<int, Peer> peers;
  int tag_ub = 32767;
  std::atomic<int64_t> chunk_bytes{kDefaultChunkBytes};
  std::atomic<int64_t> window_bytes{kDefaultWindowBytes};
  Clock::duration spin_after_activity = kSpinAfterActivity;
  Clock::duration yield_interval = kYieldInterval;
  // FLOWBENCH_MPI_BACKOFF_US: after this long without a completion, a polling thread sleeps in
  // kBackoffSlice slices between passes instead of yielding (zero: never, the default).
  Clock::duration backoff_after = Clock::duration::zero();
  int max_inflight_messages = kDefaultMaxInflightMessages;
  int64_t max_inline_bytes = kDefaultMaxInlineBytes;
  int64_t max_inline_delivery_bytes = kDefaultMaxInlineDeliveryBytes;
  std::atomic<int64_t> bytes_sent{0}, bytes_received{0};
  std::atomic<bool> stop{false};
  // Caller-driven progress: threads inside DriveUntil, and `drive_mu`, held by whichever thread
  // runs a PollOnce (so ops, requests and peers stay single-threaded).
  std::atomic<int> drivers{0};
  std::mutex drive_mu;
  std::atomic<bool> woken{false};  // Wake(): end a driver's Idle wait early
  RecvBufferPool recv_pool;
  ThreadPool delivery{"mpi_delivery", 2};
  std::thread thread;

  void Post(std::function<void()> fn) {
    {
      std::lock_guard<std::mutex> l(mu);
      pending.push_back(std::move(fn));
      has_pending.store(true, std::memory_order_release);
    }
    if (drivers.load() > 0) driver_wake.notify_all();
    else wake.notify_one();
  }

  int NextTag(int dst) {
    int& t = peers[dst].next_tag;
    if (t < kFirstPayloadTag || t >= tag_ub) t = kFirstPayloadTag;
    return t++;
  }

  // Records request `r` of `op` (posted with return code `rc`).
  void Track(Op* op, int rc, MPI_Request r, const char* what) {
    Status s = MpiStatus(rc, what);
    if (!s.ok()) {
      if (op->error.ok()) op->error = s;
      return;
    }
    requests.push_back(r);
    request_ops.push_back(op);
    ++op->outstanding;
  }

  // Takes an op whose requests are posted (or that failed before posting any).
  void Add(std::unique_ptr<Op> op) {
    if (op->outstanding == 0) return Finish(std::move(op));
    ops.push_back(std::move(op));
  }

  // Releases the op's window share (starting sends that now fit) and runs `finish` off the
  // progress thread.
  void Finish(std::unique_ptr<Op> op) {
    if (op->window_peer >= 0) {
      Peer& peer = peers[op->window_peer];
      peer.inflight_bytes -= op->window_bytes;
      --peer.inflight_messages;
      StartWaiting(op->window_peer);
    }
    if (op->finish_inline) return op->finish(op.get());
    std::shared_ptr<Op> done(std::move(op));
    delivery.Schedule([done] { done->finish(done.get()); });
  }

  void PostChunks(Op* op, char* data, int64_t bytes, int64_t chunk, int peer, int tag, bool send) {
    for (int64_t off = 0; off < bytes && op->error.ok(); off += chunk) {
      int n = static_cast<int>(std::min(chunk, bytes - off));
      MPI_Request r;
      int rc = send ? MPI_Isend(data + off, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r)
                    : MPI_Irecv(data + off, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r);
      Track(op, rc, r, send ? "MPI_Isend" : "MPI_Irecv");
    }
  }

  static int64_t PayloadBytes(const Tensor& v, bool is_dead) {
    if (is_dead || !v.IsInitialized()) return 0;
    return v.dtype() == DataType::kString ? static_cast<int64_t>(v.TotalBytes()) : v.ByteSize();
  }

  // Flow control: at most window_bytes of payload (at least two tensors) and
  // max_inflight_messages messages in flight per destination, so a burst of sends does not make
  // the receiver allocate every buffer at once and Open MPI does not schedule hundreds of
  // rendezvous transfers against each other.
  void EnqueueSend(int dst, QueuedSend q) {
    peers[dst].waiting.push_back(std::move(q));
    StartWaiting(dst);
  }

  void StartWaiting(int dst) {
    Peer& peer = peers[dst];
    while (!peer.waiting.empty()) {
      int64_t bytes = PayloadBytes(peer.waiting.front().value, peer.waiting.front().is_dead);
      if (peer.inflight_messages >= 2 && peer.inflight_bytes + bytes > window_bytes.load()) return;
      if (peer.inflight_messages >= max_inflight_messages) return;
      QueuedSend q = std::move(peer.waiting.front());
      peer.waiting.pop_front();
      peer.inflight_bytes += bytes;
      ++peer.inflight_messages;
      StartSend(dst, std::move(q), bytes);
    }
  }

  void StartSend(int dst, QueuedSend q, int64_t window_share) {
    auto op = std::make_unique<Op>();
    op->tensor = q.value;
    op->finish_inline = true;  // `done` must not block (see the header): no handoff per send
    op->window_peer = dst;
    op->window_bytes = window_share;
    op->finish = [done = std::move(q.done), dst](Op* o) {
      if (done) done(o->error.ok() ? o->error : o->error.WithPrefix("send to rank " + std::to_string(dst) + ": "));
    };
    TensorHeader h;
    h.step_id = q.step_id;
    h.is_dead = q.is_dead || !q.value.IsInitialized();
    h.key = std::move(q.key);
    char* data = nullptr;
    if (!h.is_dead) {
      h.dtype = static_cast<int32_t>(q.value.dtype());
      h.dims = q.value.shape().dim_sizes();
      if (q.value.dtype() == DataType::kString) {
        op->bytes = SerializeStrings(q.value);
        data = op->bytes.data();
        h.payload_bytes = op->bytes.size();
      } else {
        data = static_cast<char*>(const_cast<void*>(static_cast<const void*>(q.value.raw_data())));
        h.payload_bytes = q.value.ByteSize();
      }
    }
    h.chunk_bytes = chunk_bytes.load();
    const bool inline_payload = h.payload_bytes <= max_inline_bytes;
    h.payload_tag = inline_payload ? kInlinePayload : NextTag(dst);
    if (inline_payload && h.payload_bytes > 0) h.inline_payload.assign(data, h.payload_bytes);
    op->header = EncodeHeader(h);
    MPI_Request r;
    int rc = MPI_Isend(op->header.data(), static_cast<int>(op->header.size()), MPI_BYTE, dst,
                       kHeaderTag, MPI_COMM_WORLD, &r);
    Track(op.get(), rc, r, "MPI_Isend (header)");
    if (!inline_payload)
      PostChunks(op.get(), data, h.payload_bytes, h.chunk_bytes, dst, h.payload_tag, true);
    bytes_sent += h.payload_bytes;
    Add(std::move(op));
  }

  void StartControlSend(int dst, std::string bytes) {
    auto op = std::make_unique<Op>();
    op->bytes = std::move(bytes);
    op->finish_inline = true;  // logs only
    op->finish = [dst](Op* o) {
      if (!o->error.ok()) spdlog::error("flowbench mpi: control message to rank {}: {}", dst, o->error.ToString());
    };
    MPI_Request r;
    int rc = MPI_Isend(op->bytes.data(), static_cast<int>(op->bytes.size()), MPI_BYTE, dst,
                       kControlTag, MPI_COMM_WORLD, &r);
    Track(op.get(), rc, r, "MPI_Isend (control)");
    Add(std::move(op));
  }

  void StartAllreduce(MPI_Comm comm, void* data, int64_t count, DataType dtype, SendDone done) {
    auto op = std::make_unique<Op>();
    op->finish = [done = std::move(done)](Op* o) { done(o->error); };
    auto type = MpiType(dtype);
    if (!type.ok()) op->error = type.status();
    else if (count > INT_MAX) op->error = InvalidArgument("MPI allreduce of ", count, " elements exceeds INT_MAX");
    MPI_Request r;
    if (op->error.ok()) {
      int rc = MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count), *type, MPI_SUM, comm, &r);
      Track(op.get(), rc, r, "MPI_Iallreduce");
    }
    Add(std::move(op));
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
      HandleControl(st.MPI_SOURCE, buf);  // inline: handlers never block (see the header)
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
    // Arrivals go to their Recv from this thread (a handoff to the delivery pool costs more than
    // the delivery); strings are deserialized on the pool.
    op->finish_inline = h.dtype != static_cast<int32_t>(DataType::kString) &&
                        h.payload_bytes <= max_inline_delivery_bytes;
    if (h.payload_tag == kInlinePayload) {
      if (data != nullptr) std::memcpy(data, h.inline_payload.data(), h.inline_payload.size());
    } else {
      PostChunks(op.get(), data, h.payload_bytes, h.chunk_bytes, src, h.payload_tag, false);
    }
    bytes_received += h.payload_bytes;
    Add(std::move(op));
  }

  void Deliver(int64_t step_id, const std::string& key, const Tensor& value, bool is_dead) {
    std::shared_ptr<const Sink> sink;
    {
      std::lock_guard<std::mutex> l(mu);
      auto it = sinks.find(step_id);
      if (it == sinks.end()) {
        buffered[step_id].push_back({key, value, is_dead});
        return;
      }
      sink = it->second;
    }
    (*sink)(key, value, is_dead);
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


  // A polling thread's state between passes (Idle).
  struct Spin {
    Clock::time_point last_activity = Clock::now();
    Clock::time_point last_yield = last_activity;
    uint64_t handoffs = ProgressThreadHandoffs();
  };

  // One MPI_Testsome over every request in flight; finishes the ops whose requests all completed.
  bool TestRequests();
  // One pass of the progress engine: starts posted work, receives what has arrived, completes
  // what has finished. Returns whether anything happened. Caller holds `drive_mu`.
  bool PollOnce();
  // Starts the work posted so far (sends, control messages, collectives). Caller holds
  // `drive_mu`. Returns whether there was any.
  bool RunPending();
  void Loop();
  void BeginDriving();
  // Ends a driver's turn; wakes the progress thread only if work is in flight or posted (it
  // resumes within kDrivenPollInterval anyway, and a wake-up costs the next step more than it
  // saves). Checked after the decrement, so work posted later wakes it by itself.
  void EndDriving();
  bool DriveUntil(const std::function<bool()>& done, Clock::time_point deadline);
  // Transfers in flight progress only inside MPI calls: poll without sleeping while any is
  // outstanding (as MPI_Waitall does), yielding the core for oversubscribed ranks and for pool
  // threads sharing it: after yield_interval of polling without progress, and at once when this
  // thread has just handed work to a pool (an expensive kernel made ready by an arrival). A
  // sched_yield costs 1.6 us on the development VM: yielding every 16 polls (a few microseconds)
  // put one into most waits of a null step (8.5 -> 7.1 us with 10 us), and yielding after every
  // pass that made progress slowed small steps (7.0 -> 8.6 us) more than it sped large ones up
  // (docs/benchmarks.md). When nothing is in flight, keep polling (yielding) for
  // kSpinAfterActivity after the last activity, since the next message of a step (a header,
  // "run", "done") usually follows within microseconds, then wait on `wake` with timeouts of
  // 50 us, and of 1 ms after a second of idleness, so an idle rank costs little CPU but still
  // notices incoming headers. With backoff_after set (ranks sharing cores, e.g. the emulated
  // cluster's hosts: docs/cluster.md), a thread that has polled that long without a completion
  // sleeps kBackoffSlice between passes even while transfers are in flight: TCP keeps moving
  // the socket buffers' bytes meanwhile, and the cores go to the ranks that compute.
  void Idle(bool progress, bool in_flight, Spin* spin, std::condition_variable* cv);
};

}  // namespace fb::mpi
