// The actor replaying one partition for one replica (or the shared parameter-server instance of
// a synchronous run): the executor's pending counts and ready queue (whitepaper 3.1, 3.2.2),
// compute as SimGrid Execs, _Send/_Recv as SimGrid Comms.
#include <algorithm>
#include <deque>
#include <memory>
#include <queue>

#include "sim/replay_state.h"
#include "sim/step_variation.h"

namespace sg4 = simgrid::s4u;

namespace fb::sim {

void ReplayState::FinishGroupStep(int32_t group, int64_t step, double start_s, double end_s) {
  auto [it, inserted] = group_steps[group].try_emplace(step, SimStep{step, group, start_s, end_s});
  if (!inserted) {
    it->second.start_s = std::min(it->second.start_s, start_s);
    it->second.end_s = std::max(it->second.end_s, end_s);
  }
  auto rem = group_remaining[group].try_emplace(step, group_size[group]).first;
  if (--rem->second > 0) return;
  group_remaining[group].erase(rem);
  while (group_steps[group].count(group_done_upto[group]) &&
         !group_remaining[group].count(group_done_upto[group]) &&
         group_done_upto[group] < options.workload.steps)
    ++group_done_upto[group];
  std::unique_lock<sg4::Mutex> lock(*mutex);
  step_done->notify_all();
}

const std::vector<sg4::Link*>& ReplayState::Route(sg4::Host* a, sg4::Host* b) {
  auto [it, inserted] = routes.try_emplace({a, b});
  if (inserted && a != b) {
    double latency = 0;
    a->route_to(b, it->second, &latency);
  }
  return it->second;
}

int64_t ReplayState::EagerLimit(sg4::Host* a, sg4::Host* b, bool collective) {
  if (a == b) return 0;  // one process or one host: no MPI message
  if (options.workload.mpi_eager_limit_bytes != kEagerLimitFromPlatform)
    return options.workload.mpi_eager_limit_bytes;
  int64_t limit = collective ? kOpenMpiTcpEagerLimit : 0;
  bool overridden = false;
  for (const sg4::Link* l : Route(a, b)) {
    auto it = link_eager_limit.find(l);
    if (it != link_eager_limit.end()) limit = CombineEagerLimit(limit, it->second, &overridden);
  }
  return limit;
}

double ReplayState::Slowdown(int32_t partition, int32_t replica, int64_t step) const {
  if (partition_shared[partition] || partition_is_ps[partition]) return 1;  // workers only
  return ComputeSlowdown(options.workload, replica, step);
}

bool ReplayState::Allocate(int32_t device, int64_t bytes, const std::string& node, int64_t step) {
  mem_in_use[device] += bytes;
  mem_peak[device] = std::max(mem_peak[device], mem_in_use[device]);
  const int64_t capacity = mem_capacity[device];
  if (capacity <= 0 || mem_in_use[device] <= capacity) return true;
  if (error.ok())
    error = ResourceExhausted("OOM on device ", result->device_names[device], " (host ",
                              (*devices)[device].host_name, "): needs ", mem_in_use[device],
                              " bytes, capacity ", capacity, " (allocating ", bytes,
                              " bytes for node '", node, "'",
                              step >= 0 ? ", step " + std::to_string(step) : std::string(), ")");
  return false;
}

namespace {

struct ReadyItem {
  double priority;
  int64_t seq;
  int64_t step;
  int32_t node;
  bool operator<(const ReadyItem& o) const {  // max-heap: higher priority, then earlier seq
    return priority < o.priority || (priority == o.priority && seq > o.seq);
  }
};

struct Instance {
  int64_t step = 0;
  double start_s = 0;
  double slowdown = 1;
  int32_t remaining = 0;
  std::vector<int32_t> pending;   // per node
  std::vector<int32_t> live;      // per node: data edges still to read its outputs
  std::vector<int32_t> arrivals;  // per _Recv node
  std::vector<double> first_sent_s;  // per _Recv node: when its data left the sender
};

// A message being handled by its host's message queue until `at_s` (sim/message_cost.h).
struct Handling {
  double at_s;
  SimMessage message;
  bool operator<(const Handling& o) const { return at_s > o.at_s; }  // min-heap
};

struct DeferredSend {
  double at_s;
  int64_t step;
  int32_t node;
  // -1: a send not yet serialised (Put: to every receiver of the transfer). >= 0: one message to
  // this replica whose serialisation on the host's handler ends at at_s (sim/message_cost.h).
  int32_t replica = -1;
  bool operator<(const DeferredSend& o) const { return at_s > o.at_s; }  // min-heap
};

void DeleteMessage(void* p) { delete static_cast<SimMessage*>(p); }

// MPI's rendezvous of one message from `from` to `to` (sim/mpi_protocol.h), in an actor of its
// own so that the sender goes on (the runtime's MPI_Isend returns at once): the first part, the
// receiver's acknowledgement (a header: latency, no bandwidth), then the rest, whose arrival in
// `mailbox` delivers `m`.
void PutByRendezvous(sg4::Host* from, sg4::Host* to, sg4::Mailbox* mailbox, SimMessage* m,
                     MessagePhases phases) {
  sg4::Actor::create("rendezvous", from, [=] {
    sg4::Comm::sendto(from, to, static_cast<uint64_t>(phases.first));
    sg4::Comm::sendto(to, from, 0);
    mailbox->put_init(m, static_cast<uint64_t>(phases.rest))->detach(DeleteMessage);
  });
}

class DeviceActor {
 public:
  DeviceActor(ReplayState* st, int32_t slot)
      : st_(*st), slot_(st->slots[slot]), part_(st->program->partitions[slot_.partition]),
        host_(sg4::this_actor::get_host()), speed_(st->template_speed[slot_.partition]),
        membw_((*st->devices)[slot_.device].desc.memory_bandwidth_bytes_per_s),
        shared_(st->partition_shared[slot_.partition]) {
    for (size_t i = 0; i < part_.nodes.size(); ++i) {
      const SimNode& n = part_.nodes[i];
      if (n.kind == SimNodeKind::kRecv) msgs_per_instance_ += Need(n, /*expected=*/true);
    }
    total_msgs_ = msgs_per_instance_ * st->options.workload.steps;
    // Variables: one copy per device (the parameter-server partitions that async runs give every
    // replica are one set of variables).
    if (!st->partition_is_ps[slot_.partition] || slot_.replica <= 0)
      st->Allocate(slot_.device, part_.resident_bytes, "(variables)", -1);
  }

  void Run() {
    const int64_t steps = st_.options.workload.steps;
    // Receives are posted before the first step blocks on its run request (or dispatch delay):
    // a SimGrid transfer starts only once its receive is posted, and the parameters a worker
    // needs travel beside the run request.
    PostGets();
    // Replica r's first step begins late (--start-spread, sim/step_variation.h).
    const double offset = shared_ ? 0 : StartOffsetSeconds(st_.options.workload, slot_.replica);
    if (offset > 0) sg4::this_actor::sleep_for(offset);
    while (st_.error.ok()) {
      StartInstances();
      PostGets();
      Harvest();
      HandleDue();
      IssueDeferred();
      if (!ready_.empty()) {
        RunBatch();
        continue;
      }
      if (instances_.empty() && next_step_ >= steps && received_ == total_msgs_ &&
          deferred_.empty() && handling_.empty())
        break;
      if (instances_.empty() && next_step_ < steps) {
        WaitForGroup();
        continue;
      }
      if (!WaitForEvent()) break;
    }
  }

 private:
  double Now() const { return sg4::Engine::get_clock() - st_.origin_s; }

  // Messages a _Recv needs (or, expected=true, will get) per step.
  int32_t Need(const SimNode& n, bool expected) const {
    const SimTransfer& t = st_.program->transfers[n.transfer];
    if (!shared_ || st_.partition_shared[t.src_partition]) return 1;
    return expected ? st_.num_replicas : st_.num_replicas - st_.options.workload.backup_workers;
  }

  Instance* Find(int64_t step) {
    for (auto& inst : instances_)
      if (inst.step == step) return &inst;
    return nullptr;
  }

  void StartInstances() {
    const WorkloadOptions& w = st_.options.workload;
    while (static_cast<int>(instances_.size()) < w.concurrent_steps && next_step_ < w.steps &&
           st_.StepGateOpen(slot_.group, next_step_ - w.concurrent_steps)) {
      Instance inst;
      inst.step = next_step_++;
      inst.start_s = Now();
      ReceiveRunRequest(&st_, slot_.device);  // the control plane (sim/control_plane.h)
      if (part_.dispatch_s > 0) sg4::this_actor::sleep_for(part_.dispatch_s);  // the run request
      inst.slowdown = st_.Slowdown(slot_.partition, slot_.replica, inst.step);
      inst.remaining = static_cast<int32_t>(part_.nodes.size());
      inst.pending.resize(part_.nodes.size());
      inst.arrivals.assign(part_.nodes.size(), 0);
      inst.first_sent_s.assign(part_.nodes.size(), -1);
      for (size_t i = 0; i < part_.nodes.size(); ++i) inst.pending[i] = part_.nodes[i].num_preds;
      for (const SimNode& n : part_.nodes) inst.live.push_back(n.data_consumers);
      instances_.push_back(std::move(inst));
      Instance& in = instances_.back();
      for (size_t i = 0; i < part_.nodes.size(); ++i)
        if (in.pending[i] == 0) MaybeReady(in, static_cast<int32_t>(i));
      auto early = early_.find(in.step);
      if (early != early_.end()) {
        for (const SimMessage& m : early->second) Arrive(m);
        early_.erase(early);
      }
      if (in.remaining == 0) FinishInstance(in.step);
    }
  }

  void MaybeReady(Instance& in, int32_t i) {
    const SimNode& n = part_.nodes[i];
    if (in.pending[i] != 0) return;
    if (n.kind == SimNodeKind::kRecv && in.arrivals[i] < Need(n, false)) return;
    ready_.push(ReadyItem{n.priority, seq_++, in.step, i});
  }

  // Keeps up to kWindow receives posted on the mailbox until every message of every step has
  // been received: each sender sends each transfer once per step, so the actor receives exactly
  // steps * msgs_per_instance_ messages (late gradients of backup-worker gathers included, which
  // are received and dropped). Nothing is left unmatched when the simulation ends.
  void PostGets() {
    constexpr size_t kWindow = 16;
    while (gets_.size() < kWindow && posted_ < total_msgs_) {
      auto buf = std::make_unique<SimMessage*>(nullptr);
      gets_.push_back(slot_.mailbox->get_async<SimMessage>(buf.get()));
      bufs_.push_back(std::move(buf));
      ++posted_;
    }
  }

  void CompleteGet(size_t k) {
    ++received_;
    std::unique_ptr<SimMessage> m(*bufs_[k]);
    const double clock = sg4::Engine::get_clock();
    double arrived = gets_[k]->get_finish_time();
    if (!(arrived >= 0 && arrived <= clock)) arrived = clock;
    gets_.erase(gets_.begin() + static_cast<long>(k));
    bufs_.erase(bufs_.begin() + static_cast<long>(k));
    if (st_.messages.enabled()) {  // the host's message queue (sim/message_cost.h)
      const double handled = st_.messages.Handle(slot_.device, arrived, m->wire_bytes);
      if (handled > clock + 1e-15) {
        handling_.push(Handling{handled - st_.origin_s, *m});
        return;
      }
    }
    Deliver(*m);
  }

  void Deliver(const SimMessage& m) {
    if (Find(m.step) == nullptr && m.step >= next_step_) {
      early_[m.step].push_back(m);
      return;
    }
    Arrive(m);
  }

  void HandleDue() {
    while (!handling_.empty() && handling_.top().at_s <= Now() + 1e-15) {
      const SimMessage m = handling_.top().message;
      handling_.pop();
      Deliver(m);
    }
  }

  // Completes every receive that has arrived.
  void Harvest() {
    for (size_t k = 0; k < gets_.size();) {
      if (gets_[k]->test()) {
        ForgetFinished(gets_[k]);
        CompleteGet(k);
      } else {
        ++k;
      }
    }
  }

  // Takes a receive that Comm::test() found finished off this actor's activity list with a
  // wait that returns at once. SimGrid 3.32 removes a finished Comm from the receiving actor's
  // list only for a wait registered on it (CommImpl::finish), not for test(); the list is
  // scanned at every Exec and Comm completion of the actor, so without this every receive found
  // by test() made every later completion slower and the replay's time grew with the square of
  // the steps (LeNet, 3 replicas: 0.47 s for 100 steps, 7.6 s for 400; now 0.18 s and 0.57 s,
  // docs/simulator.md "Known issues").
  static void ForgetFinished(const sg4::CommPtr& comm) {
    const std::vector<sg4::CommPtr> one = {comm};
    sg4::Comm::wait_any(one);
  }

  void Arrive(const SimMessage& m) {
    const SimTransfer& t = st_.program->transfers[m.transfer];
    Instance* in = Find(m.step);
    const SimNode& n = part_.nodes[t.dst_node];
    if (in == nullptr || in->arrivals[t.dst_node] >= Need(n, false)) {
      ++st_.result->dropped_messages;  // a late gradient of a backup-worker gather
      return;
    }
    if (in->first_sent_s[t.dst_node] < 0) in->first_sent_s[t.dst_node] = m.sent_s;
    ++in->arrivals[t.dst_node];
    if (st_.options.record_events)
      st_.result->events.push_back(SimEvent{EventKind::kRecv, slot_.device, m.src_device,
                                            slot_.partition, t.dst_node, slot_.replica, m.step,
                                            m.sent_s, Now(), m.wire_bytes});
    MaybeReady(*in, t.dst_node);
  }

  // Compute seconds of node i in `in`, including compression conversions and gather sums.
  double Cost(const Instance& in, int32_t i) const {
    const SimNode& n = part_.nodes[i];
    double s = n.compute_s;
    if (n.transfer >= 0) {
      const SimTransfer& t = st_.program->transfers[n.transfer];
      if (Compressed(t)) {
        s += CompressionS(n.kind, static_cast<double>(t.bytes));
        if (n.kind == SimNodeKind::kRecv) s += t.compressed_recv_delta_s;
      }
      if (n.kind == SimNodeKind::kRecv && in.arrivals[i] > 1)
        s += static_cast<double>(in.arrivals[i] - 1) * static_cast<double>(t.bytes) / membw_;
    }
    return s * in.slowdown;
  }
  // The conversion of a compressed transfer's `bytes` (float32) on the sender (kSend) or the
  // receiver: the program's measured curve, or rate, else 1.5 x bytes / memory bandwidth.
  double CompressionS(SimNodeKind kind, double bytes) const {
    const SimProgram& p = *st_.program;
    const ByteCostCurve& curve = kind == SimNodeKind::kSend ? p.compress_curve_s
                                                            : p.decompress_curve_s;
    if (!curve.empty()) return curve.At(bytes);
    const double rate = kind == SimNodeKind::kSend ? p.compress_s_per_byte : p.decompress_s_per_byte;
    return rate > 0 ? rate * bytes : 1.5 * bytes / membw_;
  }
  bool Compressed(const SimTransfer& t) const {
    return st_.options.workload.compression && t.is_float32 && t.bytes > 0;
  }

  void RunBatch() {
    const double t0 = Now();
    double acc = 0;
    std::vector<std::pair<int64_t, int32_t>> sends;
    std::vector<ReadyItem> collectives;
    const size_t first_event = st_.result->events.size();
    while (!ready_.empty()) {
      ReadyItem item = ready_.top();
      ready_.pop();
      Instance* in = Find(item.step);
      const SimNode& n = part_.nodes[item.node];
      if (!st_.Allocate(slot_.device, n.alloc_bytes, n.name, item.step)) return;  // OOM
      if (n.kind == SimNodeKind::kCollective) {  // after the batch's compute, blocking
        collectives.push_back(item);
        break;
      }
      const double cost = Cost(*in, item.node);
      if (st_.options.record_events && n.kind != SimNodeKind::kRecv)
        st_.result->events.push_back(SimEvent{n.kind == SimNodeKind::kSend ? EventKind::kSend
                                                                           : EventKind::kCompute,
                                              slot_.device, -1, slot_.partition, item.node,
                                              slot_.replica, item.step, t0 + acc,
                                              t0 + acc + cost, n.output_bytes});
      acc += cost;
      Finish(*in, item.node);
      if (n.kind == SimNodeKind::kSend) {
        sends.emplace_back(item.step, item.node);
        break;
      }
      if (acc >= st_.options.max_batch_s) break;
    }
    if (acc > 0) ExecuteOnDevice((*st_.devices)[slot_.device], acc * speed_);
    const double t1 = Now();
    st_.result->device_busy_s[slot_.device] += t1 - t0;
    if (acc > 0 && t1 - t0 != acc) Stretch(first_event, t0, (t1 - t0) / acc);
    for (auto [step, node] : sends) Send(step, node);
    for (const ReadyItem& c : collectives) RunCollective(c);
    for (size_t k = 0; k < instances_.size();) {
      if (instances_[k].remaining == 0) {
        FinishInstance(instances_[k].step);
      } else {
        ++k;
      }
    }
  }

  // The executor's bookkeeping when node i of `in` completes: successors' pending counts, and
  // the memory of inputs read for the last time (and of outputs nobody reads).
  void Finish(Instance& in, int32_t i) {
    const SimNode& n = part_.nodes[i];
    st_.result->node_executions += n.executions;
    for (int32_t s : n.succs)
      if (--in.pending[s] == 0) MaybeReady(in, s);
    for (int32_t p : n.data_inputs)
      if (--in.live[p] == 0) st_.Free(slot_.device, part_.nodes[p].alloc_bytes);
    if (n.data_consumers == 0) st_.Free(slot_.device, n.alloc_bytes);
    --in.remaining;
  }

  void RunCollective(const ReadyItem& item) {
    const SimNode& n = part_.nodes[item.node];
    const double t0 = Now();
    RunAllreduce(&st_, slot_, n, item.step);
    if (st_.options.record_events)
      st_.result->events.push_back(SimEvent{EventKind::kCompute, slot_.device, -1,
                                            slot_.partition, item.node, slot_.replica,
                                            item.step, t0, Now(), n.collective_bytes});
    Finish(*Find(item.step), item.node);
  }

  // On a host shared with other actors an Exec takes longer than its cost: stretch the batch's
  // recorded events proportionally.
  void Stretch(size_t first_event, double t0, double factor) {
    auto& ev = st_.result->events;
    for (size_t k = first_event; k < ev.size(); ++k) {
      if (ev[k].kind == EventKind::kRecv) continue;
      ev[k].start_s = t0 + (ev[k].start_s - t0) * factor;
      ev[k].end_s = t0 + (ev[k].end_s - t0) * factor;
    }
  }

  void Send(int64_t step, int32_t node) {
    const SimNode& n = part_.nodes[node];
    const SimTransfer& t = st_.program->transfers[n.transfer];
    if (t.measured_s > t.estimated_s) {  // a measured delivery: the message leaves that late
      deferred_.push(DeferredSend{Now() + t.measured_s - t.estimated_s, step, node});
      return;
    }
    if (st_.delay_transfers) {
      const Instance* in = Find(step);
      const SimNode& recv = st_.program->partitions[t.dst_partition].nodes[t.dst_node];
      const double at = (in ? in->start_s : 0) + recv.alap_start_s - t.estimated_s;
      if (at > Now()) {
        deferred_.push(DeferredSend{at, step, node});
        return;
      }
    }
    Put(step, node, t, n.transfer);
  }

  int64_t WireBytes(const SimTransfer& t) const { return Compressed(t) ? t.bytes / 2 : t.bytes; }

  // Sends transfer `transfer` of `step` to its receiver(s). With a per-byte sending cost on this
  // host (sim/message_cost.h), each message first books the host's handler for its serialisation
  // and enters the links when that ends.
  void Put(int64_t step, int32_t node, const SimTransfer& t, int32_t transfer) {
    auto put_to = [&](int32_t replica) {
      const double leave = st_.messages.Send(slot_.device, Now(), WireBytes(t));
      if (leave > Now() + 1e-15) {
        deferred_.push(DeferredSend{leave, step, node, replica});
      } else {
        PutTo(step, t, transfer, replica);
      }
    };
    if (shared_ && !st_.partition_shared[t.dst_partition]) {
      for (int32_t r = 0; r < st_.num_replicas; ++r) put_to(r);  // broadcast the parameters
    } else {
      put_to(slot_.replica);
    }
  }

  // One message of transfer `transfer` of `step` to `replica`'s receiving actor, now; above the
  // route's eager limit by MPI's rendezvous (sim/mpi_protocol.h), which runs beside this actor as
  // the runtime's progress thread runs it.
  void PutTo(int64_t step, const SimTransfer& t, int32_t transfer, int32_t replica) {
    const int64_t wire = WireBytes(t);
    const ActorSlot& dst = st_.slots[st_.Slot(t.dst_partition, replica)];
    sg4::Host* to = (*st_.devices)[dst.device].host;
    auto* m = new SimMessage{transfer, slot_.replica, step, Now(), wire, slot_.device};
    const MessagePhases phases = SplitMessage(wire, st_.EagerLimit(host_, to, /*collective=*/false));
    if (phases.rendezvous()) {
      PutByRendezvous(host_, to, dst.mailbox, m, phases);
    } else {
      dst.mailbox->put_init(m, static_cast<uint64_t>(wire))->detach(DeleteMessage);
    }
    for (sg4::Link* l : st_.Route(host_, to))
      st_.link_bytes[l] += wire;
    ++st_.result->transfers;
    st_.result->wire_bytes += wire;
  }

  void IssueDeferred() {
    while (!deferred_.empty() && deferred_.top().at_s <= Now() + 1e-15) {
      DeferredSend d = deferred_.top();
      deferred_.pop();
      const SimNode& n = part_.nodes[d.node];
      const SimTransfer& t = st_.program->transfers[n.transfer];
      if (d.replica >= 0) {
        PutTo(d.step, t, n.transfer, d.replica);  // serialised: it leaves now
      } else {
        Put(d.step, d.node, t, n.transfer);
      }
    }
  }

  void FinishInstance(int64_t step) {
    auto it = std::find_if(instances_.begin(), instances_.end(),
                           [&](const Instance& in) { return in.step == step; });
    const double start = it->start_s;
    instances_.erase(it);
    if (part_.completion_s > 0) sg4::this_actor::sleep_for(part_.completion_s);  // the done reply
    SendDoneReply(&st_, slot_.device);  // over the links (sim/control_plane.h)
    st_.FinishGroupStep(slot_.group, step, start, Now());
  }

  // Blocks until the group finished the step that gates the next instance, or until the next
  // deferred send is due: a send delayed by alap-recv (or a measured delivery) may be the very
  // message the group's other actors need to finish that step, so waiting past it deadlocks.
  void WaitForGroup() {
    std::unique_lock<sg4::Mutex> lock(*st_.mutex);
    while (!st_.StepGateOpen(slot_.group, next_step_ - st_.options.workload.concurrent_steps)) {
      if (deferred_.empty()) {
        st_.step_done->wait(lock);
        continue;
      }
      const double timeout = deferred_.top().at_s - Now();
      if (timeout <= 1e-15) return;  // Run() issues it (IssueDeferred's tolerance)
      st_.step_done->wait_for(lock, timeout);
    }
  }

  // Blocks until a message arrives or a deferred send is due. False (and an error in the state)
  // when nothing can ever happen: the replay is stuck.
  bool WaitForEvent() {
    // Refill the window first: Harvest may just have completed every posted receive (a gather
    // of many replicas' gradients delivers more than kWindow messages at once without making a
    // node ready), and an empty window is not proof that nothing more will arrive.
    PostGets();
    const double timeout = NextTimeout();
    if (gets_.empty() && timeout < 0) {
      st_.error = Internal("simulation stalled: ", part_.device, " (replica ", slot_.replica,
                           ") waits for data that is never sent");
      return false;
    }
    if (gets_.empty()) {
      sg4::this_actor::sleep_for(timeout);
      return true;
    }
    const ssize_t k = timeout < 0 ? sg4::Comm::wait_any(gets_) : sg4::Comm::wait_any_for(gets_, timeout);
    if (k >= 0) CompleteGet(static_cast<size_t>(k));
    return true;
  }

  // Seconds until the next deferred send or handled message is due; -1 when none is pending.
  double NextTimeout() const {
    double at = -1;
    if (!deferred_.empty()) at = deferred_.top().at_s;
    if (!handling_.empty() && (at < 0 || handling_.top().at_s < at)) at = handling_.top().at_s;
    return at < 0 ? -1 : std::max(0.0, at - Now());
  }

  ReplayState& st_;
  const ActorSlot& slot_;
  const SimPartition& part_;
  sg4::Host* host_;
  const double speed_;
  const double membw_;
  const bool shared_;
  int64_t msgs_per_instance_ = 0;
  int64_t total_msgs_ = 0, posted_ = 0, received_ = 0;
  int64_t next_step_ = 0;
  int64_t seq_ = 0;
  std::deque<Instance> instances_;
  std::priority_queue<ReadyItem> ready_;
  std::vector<sg4::CommPtr> gets_;
  std::vector<std::unique_ptr<SimMessage*>> bufs_;
  std::map<int64_t, std::vector<SimMessage>> early_;
  std::priority_queue<DeferredSend> deferred_;
  std::priority_queue<Handling> handling_;
};

}  // namespace

void RunDeviceActor(ReplayState* state, int32_t slot) {
  // A waiting rank polls (sim/core_sharing.h): from the actor's start to its end.
  WaitPollingScope polling((*state->devices)[state->slots[slot].device]);
  DeviceActor actor(state, slot);
  actor.Run();
}

}  // namespace fb::sim
