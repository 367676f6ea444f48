#include "mpi/worker_service.h"

#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <thread>

#include <spdlog/spdlog.h>

#include "mpi/control_message.h"
#include "mpi/mpi_status.h"
#include "mpi/mpi_transport.h"

namespace fb::mpi {

namespace {

class WorkerService {
 public:
  WorkerService(Worker* worker, int master) : worker_(worker), master_(master) {}

  // Runs on the transport's progress thread, one message at a time, in arrival order.
  void Handle(int src, const std::string& bytes) {
    auto msg = DecodeControl(bytes);
    if (!msg.ok()) {
      spdlog::error("flowbench worker {}: from rank {}: {}", worker_->task_name(), src,
                    msg.status().ToString());
      return;
    }
    if (msg->type == "run") MaybeHang();
    if (msg->type == "register") {
      Reply({"registered", msg->id, 0, worker_->RegisterGraph(msg->id, msg->partitions)});
    } else if (msg->type == "run") {
      int64_t step = msg->step_id;
      auto stats = msg->trace ? std::make_shared<StepStatsCollector>() : nullptr;
      worker_->RunGraph(msg->id, step, nullptr, stats.get(), [this, step, stats](const Status& s) {
        ControlMessage done{"done", 0, step, s};
        if (stats) done.stats = stats->Take();
        for (NodeExecStats& n : done.stats) n.rank = worker_->rank();
        Reply(std::move(done));
      }, Executor::Args::StartOn::kCallerInexpensive);  // this is the progress thread
    } else if (msg->type == "abort") {
      worker_->AbortStep(msg->step_id, msg->status);
    } else if (msg->type == "ping") {
      Reply({"pong", msg->id, 0, Status::OK()});
    } else if (msg->type == "shutdown") {
      std::lock_guard<std::mutex> l(mu_);
      shutdown_ = true;
      cv_.notify_all();
    }
  }

  void WaitForShutdown() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return shutdown_; });
  }

 private:
  void Reply(ControlMessage m) { MpiTransport::Get()->SendControl(master_, EncodeControl(m)); }

  // Fault injection: an unresponsive process stops answering everything (runs, pings and data:
  // the progress thread sleeps) for a while.
  void MaybeHang() {
    const WorkerOptions& o = worker_->options();
    ++runs_seen_;
    if (o.exit_at_run > 0 && runs_seen_ >= o.exit_at_run) {
      spdlog::warn("flowbench worker {}: exiting at run request {} (fault injection)", worker_->task_name(), runs_seen_);
      std::_Exit(17);
    }
    if (o.hang_at_run <= 0 || hung_ || runs_seen_ < o.hang_at_run) return;
    hung_ = true;
    spdlog::warn("flowbench worker {}: hanging for {} ms (fault injection)", worker_->task_name(), o.hang_ms);
    std::this_thread::sleep_for(std::chrono::milliseconds(o.hang_ms));
  }

  Worker* worker_;
  int master_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool shutdown_ = false;
  int runs_seen_ = 0;
  bool hung_ = false;
};

}  // namespace

Status ServeWorker(const ClusterSpec& cluster, const WorkerOptions& options, int master_rank) {
  ASSIGN_OR_RETURN(std::unique_ptr<Worker> worker, Worker::Create(cluster, WorldRank(), options));
  WorkerService service(worker.get(), master_rank);
  MpiTransport* transport = MpiTransport::Get();
  transport->SetControlHandler([&service](int src, const std::string& bytes) {
    service.Handle(src, bytes);
  });
  ControlMessage hello{"devices", 0, 0, Status::OK()};
  hello.devices = worker->devices();
  transport->SendControl(master_rank, EncodeControl(hello));
  service.WaitForShutdown();
  transport->SetControlHandler(nullptr);
  worker.reset();  // aborts and waits for steps still running
  return Status::OK();
}

}  // namespace fb::mpi
