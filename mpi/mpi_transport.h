#pragma once
// MpiTransport: moves tensors and control messages between ranks (whitepaper 3.3,
// "cross-machine communication") over Open MPI nonblocking point-to-point, and runs the
// collectives of allreduce training (section 7). One progress thread per process makes the MPI
// calls of the transport, so executor threads never block on MPI (5.3); a thread that would only
// wait for messages (the master awaiting a step) may run the progress engine itself instead
// (DriveUntil). Arrived tensors (not strings) go to their step's sink on the progress thread,
// whose Recv completion continues with the inexpensive nodes it makes ready (executor.h) and
// hands bulk work (copying a large tensor, expensive kernels) to the executor's pool; strings and
// finished collectives are handed to a small delivery pool, finished sends call back on the
// progress thread.
//
// Wire protocol (docs/mpi.md), MPI_COMM_WORLD, tags:
//   kHeaderTag (1)   tensor header, MPI_BYTE: step id, dtype, is_dead, dims, payload tag,
//                    payload bytes, chunk size, the rendezvous key ("src;dst;tensor;frame:iter")
//   kControlTag (2)  a control message (master <-> worker: register, run, done, abort, ping)
//   payload tags     [kFirstPayloadTag, MPI_TAG_UB): drawn by the sender from a per-destination
//                    counter, one tag per tensor; the payload goes in chunks of at most
//                    `chunk_bytes` (default 256 MiB), in order (MPI's non-overtaking rule).
// Sends to one destination are started in order with at most `window_bytes` of payload in flight.
// So a rendezvous key maps to (peer rank = the rank hosting the destination device, tag = the
// payload tag named in its header). The payload is sent from the tensor's buffer itself (no
// copy); strings are length-prefixed. The receiver matches headers from any source
// (MPI_Improbe/MPI_Mrecv), allocates the tensor from a RecvBufferPool, posts MPI_Irecv for its
// chunks and, on completion, hands it to the step's sink (registered by that step's
// MpiRendezvous), buffering arrivals for steps not yet registered. Thread-safe.
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/framework/tensor.h"
#include "mpi/wire_format.h"

namespace fb::mpi {

class MpiTransport {
 public:
  using SendDone = std::function<void(const Status&)>;
  // Receives a step's arrivals; may run on the progress thread, so it must not block.
  using Sink = std::function<void(const std::string& key, const Tensor& value, bool is_dead)>;
  // A control message from rank `src`; runs on the progress thread and must not block (no MPI
  // waits, no waiting for other messages; sending is fine).
  using ControlHandler = std::function<void(int src, const std::string& bytes)>;
  static constexpr int kHeaderTag = 1;
  static constexpr int kControlTag = 2;
  static constexpr int kFirstPayloadTag = 16;

  // The process-wide transport; starts its progress thread on first use. MPI must be initialized
  // with MPI_THREAD_MULTIPLE (see tests/mpi/mpi_test_main.cc).
  static MpiTransport* Get();
  ~MpiTransport();

  // Queues `value` for rank `dst`; `done` runs when the buffer may be reused, with Unavailable
  // naming the peer rank if MPI failed. It runs on the progress thread, so it must not block
  // (waking a thread per finished send cost more than the send of a small tensor).
  void Send(int dst, int64_t step_id, const std::string& key, const Tensor& value, bool is_dead,
            SendDone done);
  // Arrivals for `step_id` go to `sink` (buffered ones at once, on the caller's thread).
  void RegisterStep(int64_t step_id, Sink sink);
  void UnregisterStep(int64_t step_id);

  // Control plane: `bytes` to rank `dst` (may be this rank). Messages that arrive before a
  // handler is set are kept and delivered, in order, when one is set. nullptr drops the handler
  // (later messages are kept again). Returns once the handler is installed; must not be called
  // from a control handler.
  void SendControl(int dst, std::string bytes);
  void SetControlHandler(ControlHandler handler);

  // MPI_Iallreduce (sum, in place) of `count` elements of `dtype` (float, double, int32, int64)
  // at `data` over `comm`; `done` runs on the delivery pool. Every rank of `comm` must issue its
  // collectives in the same order. InvalidArgument (through `done`) for other dtypes or counts
  // beyond INT_MAX.
  void Allreduce(MPI_Comm comm, void* data, int64_t count, DataType dtype, SendDone done);

  // Caller-driven progress: runs the progress engine on the calling thread until `done()` is
  // true (returns true) or `deadline` passes (returns false); meanwhile the progress thread stays
  // idle. For a thread that would otherwise only wait for messages (the master awaiting a
  // step's "done"s): no thread hands work to another, so a step costs no wake-ups on this rank.
  // Messages, arrivals and completions are handled on the calling thread, under the same rules as
  // on the progress thread. When nothing happens for a while it waits in short slices, like the
  // progress thread; Wake() ends such a wait early (call it when `done()` may have become true
  // from another thread). Must not be called from a handler, a sink or a `done` callback.
  bool DriveUntil(const std::function<bool()>& done, std::chrono::steady_clock::time_point deadline);
  void Wake();
  // Starts the sends and control messages posted so far on the calling thread, now, unless
  // another thread is inside the progress engine (then that thread starts them shortly). For a
  // driver that posts messages and then has other work to do before it drives (the master
  // starts rank 0's partition after posting the step's "run" messages): the messages leave
  // before that work instead of after it. Must not be called from a handler, a sink or a `done`
  // callback.
  void Flush();
  // Declares the calling thread a driver for its lifetime, as if inside DriveUntil, so that work
  // it posts before driving (a step's "run" messages and sends) waits for it instead of waking
  // the progress thread.
  class DrivingScope {
   public:
    explicit DrivingScope(MpiTransport* t);
    ~DrivingScope();
    DrivingScope(const DrivingScope&) = delete;
    DrivingScope& operator=(const DrivingScope&) = delete;

   private:
    MpiTransport* t_;
  };

  // Stops the progress thread after outstanding sends complete (call before MPI_Finalize).
  void Shutdown();

  void set_chunk_bytes(int64_t bytes);
  // Flow control: payload bytes in flight per destination before further sends to it wait
  // (default 64 MiB; two tensors are always allowed, so that even tensors larger than the
  // window are pipelined), and at most 16 messages in flight per destination (each progress loop
  // tests every outstanding request: 1,000 messages of 64 KiB in flight made it quadratic and
  // such messages 3-6x slower). The environment variables
  // FLOWBENCH_MPI_WINDOW_BYTES and FLOWBENCH_MPI_CHUNK_BYTES set both at startup, and
  // FLOWBENCH_MPI_YIELD_US after how long of polling without progress a polling thread yields
  // its core (default 10 us), FLOWBENCH_MPI_SPIN_US how long the progress thread keeps polling
  // without sleeping after the last message (default 5000 us; then it waits in 50 us and later
  // 1 ms slices), FLOWBENCH_MPI_BACKOFF_US after how long without a completion a polling thread
  // sleeps 50 us slices between polls even while transfers are in flight (default 0: never; for
  // ranks that share cores, set by scripts/cluster), and
  // FLOWBENCH_MPI_MAX_INFLIGHT the message limit. Payloads up to 4 KiB travel inside their
  // header message (one message per tensor; FLOWBENCH_MPI_INLINE_BYTES sets the limit, -1 sends
  // every payload in a message of its own); FLOWBENCH_MPI_INLINE_DELIVERY_BYTES sets the largest
  // arrival delivered on the progress thread (default: all but strings; -1: all via the
  // delivery pool).
  void set_window_bytes(int64_t bytes);
  int64_t bytes_sent() const;
  int64_t bytes_received() const;

  struct Impl;

 private:
  MpiTransport();
  std::unique_ptr<Impl> impl_;
};


}  // namespace fb::mpi
