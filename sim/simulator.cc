#include "sim/simulator.h"

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>

#include "engine/framework/device_name.h"
#include "engine/partition/partition.h"
#include "engine/placement/placer.h"
#include "sim/allreduce_program.h"
#include "sim/control_plane.h"
#include "sim/memory_plan.h"
#include "sim/platform_validation.h"
#include "sim/replay_state.h"
#include "sim/schedule.h"

namespace sg4 = simgrid::s4u;

namespace fb::sim {
namespace {

bool g_simulation_alive = false;

// Network model set once per process (SimGrid refuses to change it later): CM02 without TCP
// window or latency/bandwidth correction factors, so an uncontended transfer of b bytes over a
// route takes exactly sum(latency) + b / min(bandwidth).
void ConfigureOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    xbt_log_control_set("root.thresh:critical");
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/crosstraffic:0");
    sg4::Engine::set_config("network/TCP-gamma:0");
    sg4::Engine::set_config("contexts/stack-size:1024");
  });
}

}  // namespace

Simulation::Simulation() {
  FB_CHECK(!g_simulation_alive) << "only one fb::sim::Simulation may exist at a time";
  g_simulation_alive = true;
  int argc = 1;
  static char name[] = "flowbench-sim";
  char* argv[] = {name, nullptr};
  xbt_log_control_set("root.thresh:critical");
  engine_ = std::make_unique<sg4::Engine>(&argc, argv);
  ConfigureOnce();
}

Simulation::~Simulation() {
  engine_.reset();
  g_simulation_alive = false;
}

namespace {

// Property `key` of link `l`. SimGrid keeps a SPLITDUPLEX link's properties on the split-duplex
// link "X", while routes hold its directions "X_UP" and "X_DOWN": those look it up there.
const char* LinkProperty(const sg4::Engine& e, const sg4::Link& l, const char* key) {
  if (const char* v = l.get_property(key)) return v;
  const std::string& name = l.get_name();
  for (const std::string suffix : {"_UP", "_DOWN"}) {
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    try {
      const sg4::SplitDuplexLink* sd =
          e.split_duplex_link_by_name(name.substr(0, name.size() - suffix.size()));
      return sd != nullptr ? sd->get_property(key) : nullptr;
    } catch (const std::exception&) {  // no split-duplex link of that name
      return nullptr;
    }
  }
  return nullptr;
}

// The links' mpi_eager_limit properties (sim/mpi_protocol.h), by link (both directions of a
// SPLITDUPLEX link); InvalidArgument naming the link for a bad value.
StatusOr<std::unordered_map<const sg4::Link*, int64_t>> LinkEagerLimits(const sg4::Engine& e) {
  std::unordered_map<const sg4::Link*, int64_t> limits;
  for (const sg4::Link* l : e.get_all_links()) {
    const char* value = LinkProperty(e, *l, "mpi_eager_limit");
    std::string name = l->get_name();
    if (value != nullptr && l->get_property("mpi_eager_limit") == nullptr)
      name = name.substr(0, name.rfind('_'));  // the split-duplex link's name, as in the file
    ASSIGN_OR_RETURN(int64_t limit, ParseLinkEagerLimit(name, value));
    if (limit >= 0) limits[l] = limit;
  }
  return limits;
}

}  // namespace

Status Simulation::LoadPlatform(const std::string& path) {
  if (!platform_path_.empty())
    return FailedPrecondition("a platform is already loaded (", platform_path_, ")");
  // SimGrid aborts or crashes on many bad platforms instead of throwing: check first.
  RETURN_IF_ERROR(ValidatePlatformFile(path));
  try {
    engine_->load_platform(path);
    // Sealed now, not at run(): route_to on an unsealed Full zone without routes crashes.
    engine_->seal_platform();
  } catch (const std::exception& e) {  // simgrid::ParseError, xbt assertions, invalid_argument
    return InvalidArgument("platform file '", path, "': SimGrid refused it: ", e.what());
  }
  platform_path_ = path;
  RETURN_IF_ERROR(CheckPlatformResources(*engine_, path));
  if (auto limits = LinkEagerLimits(*engine_); !limits.ok())
    return Status(limits.status().code(),
                  "platform file '" + path + "': " + limits.status().message());
  StatusOr<std::vector<SimDevice>> devices = PlatformDevices(*engine_);
  if (!devices.ok())
    return Status(devices.status().code(),
                  "platform file '" + path + "': " + devices.status().message());
  devices_ = std::move(*devices);
  return Status::OK();
}

Status Simulation::Prepare(const Graph& graph, const SimCosts& costs,
                           const SimRunOptions& options) {
  const WorkloadOptions& w = options.workload;
  ASSIGN_OR_RETURN(roles_, AssignRoles(devices_, w));
  placed_ = graph.Clone();
  ConstrainForParameterServers(placed_.get(), w.ps);
  if (options.client_graph != nullptr && w.ps == 0) {  // as a Session places: the client graph
    std::unique_ptr<Graph> client = options.client_graph->Clone();
    // Advisory: where the client graph cannot be placed (its initializers' bytes exceed a
    // device's memory_bytes for the placer), the step is placed alone below and the memory plan
    // reports what does not fit.
    if (PlaceGraph(client.get(), roles_.placement_devices, w.placer, PlacerOptions{w.placer_seed})
            .ok()) {
      for (Node* n : placed_->nodes())
        if (Node* c = client->FindNode(n->name()); c && c->op() == n->op())
          n->set_assigned_device(c->assigned_device());
    }
  }
  RETURN_IF_ERROR(
      PlaceGraph(placed_.get(), roles_.placement_devices, w.placer, PlacerOptions{w.placer_seed}));
  std::map<std::string, GraphDef> parts;
  RETURN_IF_ERROR(Partition(*placed_, &parts));
  ASSIGN_OR_RETURN(program_, CompileProgram(*placed_, parts, roles_.placement_devices, costs));
  RETURN_IF_ERROR(PlanMemory(*placed_, parts, costs, &program_));
  RETURN_IF_ERROR(PlanLoops(*placed_, options.loops, &program_));
  if (w.mode == SyncMode::kAllreduce) RETURN_IF_ERROR(InsertAllreduce(*placed_, costs, &program_));
  RETURN_IF_ERROR(CheckRoutes());
  EstimateTransfers(w);
  return ApplySchedule(w.schedule, &program_);
}

// Every pair of hosts that a transfer joins, in any replica, must have a route: SimGrid returns
// an empty one (Full, Cluster zones) or throws (Floyd, nested zones without zoneRoute) where
// there is none, and a Comm over it would not model the network.
Status Simulation::CheckRoutes() const {
  std::set<std::pair<sg4::Host*, sg4::Host*>> checked;
  for (const SimTransfer& t : program_.transfers) {
    const int src = program_.partitions[t.src_partition].device_index;
    const int dst = program_.partitions[t.dst_partition].device_index;
    for (const std::vector<int>& platform_index : roles_.replica_platform) {
      sg4::Host* a = devices_[platform_index[src]].host;
      sg4::Host* b = devices_[platform_index[dst]].host;
      if (a == b || !checked.insert({a, b}).second) continue;
      std::vector<sg4::Link*> links;
      double latency = 0;
      std::string why;
      try {
        a->route_to(b, links, &latency);
      } catch (const std::exception& e) {
        why = std::string(": ") + e.what();
      }
      if (why.empty() && (!links.empty() || latency > 0)) continue;
      return InvalidArgument("platform file '", platform_path_, "': no route from host '",
                             a->get_name(), "' to host '", b->get_name(), "'", why, " (devices ",
                             devices_[platform_index[src]].desc.name, " and ",
                             devices_[platform_index[dst]].desc.name, " exchange tensors)");
    }
  }
  return Status::OK();
}

// Estimated time of each transfer on replica 0's route: sum of latencies + bytes / bottleneck
// bandwidth (used by the critical-path and alap-recv priorities).
void Simulation::EstimateTransfers(const WorkloadOptions& w) {
  for (SimTransfer& t : program_.transfers) {
    sg4::Host* a = devices_[roles_.replica_platform[0][program_.partitions[t.src_partition].device_index]].host;
    sg4::Host* b = devices_[roles_.replica_platform[0][program_.partitions[t.dst_partition].device_index]].host;
    std::vector<sg4::Link*> links;
    double latency = 0;
    if (a != b) a->route_to(b, links, &latency);
    double bw = 0;
    for (sg4::Link* l : links) bw = bw == 0 ? l->get_bandwidth() : std::min(bw, l->get_bandwidth());
    const double bytes = static_cast<double>(w.compression && t.is_float32 ? t.bytes / 2 : t.bytes);
    t.estimated_s = latency + (bw > 0 ? bytes / bw : 0);
  }
}

namespace {

void BuildSlots(ReplayState* st, const RoleAssignment& roles, const std::vector<SimDevice>& devs) {
  const SimProgram& prog = *st->program;
  const WorkloadOptions& w = st->options.workload;
  st->num_replicas = w.replicas;
  st->slot_of.resize(prog.partitions.size());
  for (size_t p = 0; p < prog.partitions.size(); ++p) {
    const bool ps = roles.is_ps[prog.partitions[p].device_index];
    st->partition_is_ps.push_back(ps);
    st->partition_shared.push_back(ps && w.mode == SyncMode::kSync);
  }
  st->group_size.assign(w.replicas + 1, 0);
  for (size_t p = 0; p < prog.partitions.size(); ++p) {
    const int n = st->partition_shared[p] ? 1 : w.replicas;
    for (int r = 0; r < n; ++r) {
      ActorSlot s;
      s.partition = static_cast<int32_t>(p);
      s.replica = st->partition_shared[p] ? -1 : r;
      s.group = st->partition_shared[p] ? w.replicas : r;
      s.device = roles.replica_platform[std::max(r, 0)][prog.partitions[p].device_index];
      s.mailbox = sg4::Mailbox::by_name("flowbench/p" + std::to_string(p) + "/r" +
                                        std::to_string(s.replica));
      st->slot_of[p].push_back(static_cast<int32_t>(st->slots.size()));
      ++st->group_size[s.group];
      st->slots.push_back(s);
    }
  }
  st->group_remaining.resize(w.replicas + 1);
  st->group_steps.resize(w.replicas + 1);
  st->group_done_upto.assign(w.replicas + 1, 0);
  (void)devs;
}

void CollectSteps(const ReplayState& st, SimResult* r) {
  const int shared = st.num_replicas;
  for (size_t g = 0; g < st.group_steps.size(); ++g)
    for (const auto& [step, s] : st.group_steps[g]) {
      SimStep out = s;
      out.rank = static_cast<int>(g) == shared ? -1 : static_cast<int32_t>(g);
      r->steps.push_back(out);
    }
  if (!st.group_steps[shared].empty()) {
    double prev = 0;
    for (const auto& [step, s] : st.group_steps[shared]) {
      double end = s.end_s;
      if (st.control.global_gate)  // the step ends when the master has every done reply
        for (const auto& group : st.group_steps)
          if (auto it = group.find(step); it != group.end()) end = std::max(end, it->second.end_s);
      r->step_times_s.push_back(end - prev);
      prev = end;
    }
  } else {
    for (const SimStep& s : r->steps) r->step_times_s.push_back(s.end_s - s.start_s);
  }
  for (const SimStep& s : r->steps) r->makespan_s = std::max(r->makespan_s, s.end_s);
}

}  // namespace

// Per-partition template speeds (heterogeneous replicas) and per-device memory accounting.
Status Simulation::SetUpDevices(ReplayState* st) const {
  for (const SimPartition& p : program_.partitions)
    st->template_speed.push_back(
        devices_[roles_.replica_platform[0][p.device_index]].host->get_speed());
  st->mem_in_use.assign(devices_.size(), 0);
  st->mem_peak.assign(devices_.size(), 0);
  for (const SimDevice& d : devices_) st->mem_capacity.push_back(d.desc.memory_limit_bytes);
  std::vector<int> used;
  for (const ActorSlot& s : st->slots) used.push_back(s.device);
  if (st->options.check_memory)
    RETURN_IF_ERROR(RequireMemoryCapacity(devices_, used, platform_path_));
  return SetUpMessages(st, used);
}

// Per-message handling (sim/message_cost.h), the links' MPI eager limits (sim/mpi_protocol.h)
// and the control plane (sim/control_plane.h).
Status Simulation::SetUpMessages(ReplayState* st, const std::vector<int>& used) const {
  ASSIGN_OR_RETURN(st->link_eager_limit, LinkEagerLimits(*engine_));
  std::vector<MessageCost> cost;
  for (const SimDevice& d : devices_)
    cost.push_back(st->options.message_cost ? *st->options.message_cost : d.message_cost);
  st->messages = MessageQueues(std::move(cost));
  const WorkloadOptions& w = st->options.workload;
  if (!st->options.control_plane || w.mode == SyncMode::kAllreduce) return Status::OK();
  ASSIGN_OR_RETURN(st->control, MakeControlPlane(devices_, roles_.replica_platform[0][0], used,
                                                 w.mode == SyncMode::kSync && w.backup_workers == 0,
                                                 platform_path_));
  return Status::OK();
}

StatusOr<SimResult> Simulation::Run(const Graph& graph, const SimCosts& costs,
                                    const SimRunOptions& options) {
  if (platform_path_.empty()) return FailedPrecondition("load a platform before Run");
  if (ran_) return FailedPrecondition("a Simulation runs once; create a new one");
  ran_ = true;
  const auto prep0 = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(Prepare(graph, costs, options));
  const auto wall0 = std::chrono::steady_clock::now();
  SimResult result;
  ReplayState st;
  st.program = &program_;
  st.options = options;
  st.devices = &devices_;
  st.delay_transfers = ScheduleDelaysTransfers(options.workload.schedule);
  st.result = &result;
  st.mutex = sg4::Mutex::create();
  st.step_done = sg4::ConditionVariable::create();
  BuildSlots(&st, roles_, devices_);
  RETURN_IF_ERROR(SetUpDevices(&st));
  result.device_busy_s.assign(devices_.size(), 0);
  for (const SimDevice& d : devices_) {
    result.device_names.push_back(d.desc.name);
    result.device_types.push_back(d.desc.type);
  }
  for (const ActorSlot& s : st.slots) {
    const int idx = program_.partitions[s.partition].device_index;
    std::string name = roles_.placement_devices[idx].name;
    if (s.replica > 0)  // replica r's copy of a worker device: task r
      name = LocalDeviceName(devices_[s.device].desc.type, idx - options.workload.ps, "worker",
                             s.replica);
    result.device_names[s.device] = name;
  }
  st.origin_s = sg4::Engine::get_clock();
  for (size_t i = 0; i < st.slots.size(); ++i) {
    const ActorSlot& s = st.slots[i];
    sg4::Actor::create("p" + std::to_string(s.partition) + "r" + std::to_string(s.replica),
                       devices_[s.device].host,
                       [&st, i] { RunDeviceActor(&st, static_cast<int32_t>(i)); });
  }
  try {
    engine_->run();
  } catch (const std::exception& e) {
    return Internal("SimGrid failed: ", e.what());
  }
  RETURN_IF_ERROR(st.error);
  for (size_t g = 0; g < st.group_done_upto.size(); ++g)
    if (st.group_size[g] > 0 && st.group_done_upto[g] < options.workload.steps)
      return Internal("simulation stalled: group ", g, " finished ", st.group_done_upto[g], " of ",
                      options.workload.steps, " steps");
  for (const auto& [link, bytes] : st.link_bytes) result.link_bytes[link->get_name()] += bytes;
  result.device_peak_bytes = st.mem_peak;
  result.device_capacity_bytes = st.mem_capacity;
  CollectSteps(st, &result);
  result.prepare_wall_s = std::chrono::duration<double>(wall0 - prep0).count();
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return result;
}

double SimResult::MedianStepTime() const {
  if (step_times_s.empty()) return 0;
  std::vector<double> v = step_times_s;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  const double hi = v[v.size() / 2];
  if (v.size() % 2) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2));
  return (lo + hi) / 2;
}

}  // namespace fb::sim
