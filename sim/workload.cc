#include "sim/workload.h"

#include <cmath>
#include <cstdlib>
#include <map>

#include "engine/framework/device_name.h"

namespace fb::sim {

Status ParseSyncMode(const std::string& text, WorkloadOptions* options) {
  options->backup_workers = 0;
  if (text == "sync") {
    options->mode = SyncMode::kSync;
    return Status::OK();
  }
  if (text == "async") {
    options->mode = SyncMode::kAsync;
    return Status::OK();
  }
  if (text == "allreduce") {
    options->mode = SyncMode::kAllreduce;
    return Status::OK();
  }
  if (text.rfind("backup:", 0) == 0) {
    char* end = nullptr;
    const long b = std::strtol(text.c_str() + 7, &end, 10);
    if (end != text.c_str() + 7 && *end == '\0' && b >= 0 && b <= kMaxBackupWorkers) {
      options->mode = SyncMode::kSync;
      options->backup_workers = static_cast<int>(b);
      return Status::OK();
    }
  }
  return InvalidArgument("--mode must be sync, async, allreduce or backup:B (0 <= B <= ",
                         kMaxBackupWorkers, "), got '", text, "'");
}

Status ParseStragglers(const std::string& text, WorkloadOptions* options) {
  const size_t colon = text.find(':');
  char* end1 = nullptr;
  char* end2 = nullptr;
  const double p = std::strtod(text.c_str(), &end1);
  const double f = colon == std::string::npos ? 0 : std::strtod(text.c_str() + colon + 1, &end2);
  if (colon == std::string::npos || end1 != text.c_str() + colon || end2 == nullptr ||
      *end2 != '\0' || !(p >= 0 && p <= 1) || !(f >= 1 && f <= kMaxStragglerSlowdown))
    return InvalidArgument("--stragglers must be P:F with 0 <= P <= 1 and 1 <= F <= ",
                           kMaxStragglerSlowdown, ", got '", text, "'");
  options->straggler_probability = p;
  options->straggler_slowdown = f;
  return Status::OK();
}

namespace {

Status CheckOptions(const std::vector<SimDevice>& platform, const WorkloadOptions& o) {
  if (o.replicas < 1) return InvalidArgument("--replicas must be >= 1, got ", o.replicas);
  if (o.ps < 0) return InvalidArgument("--ps must be >= 0, got ", o.ps);
  if (o.steps < 1) return InvalidArgument("--steps must be >= 1, got ", o.steps);
  if (o.concurrent_steps < 1)
    return InvalidArgument("--concurrent-steps must be >= 1, got ", o.concurrent_steps);
  if (o.backup_workers >= o.replicas)
    return InvalidArgument("backup:", o.backup_workers, " needs more than ", o.backup_workers,
                           " replicas, got ", o.replicas);
  RETURN_IF_ERROR(CheckEagerLimitFlag(o.mpi_eager_limit_bytes));
  if (o.mode == SyncMode::kAllreduce) {
    if (o.ps != 0)
      return InvalidArgument("--mode allreduce has no parameter servers: --ps must be 0, got ", o.ps);
    if (o.concurrent_steps != 1)
      return InvalidArgument("--mode allreduce runs one step at a time: --concurrent-steps must "
                             "be 1, got ", o.concurrent_steps);
    if (o.devices_per_replica > 1)
      return InvalidArgument("--mode allreduce needs one device per replica, got ",
                             o.devices_per_replica);
  }
  if (o.replicas > 1 && o.ps == 0 && o.mode != SyncMode::kAllreduce)
    return InvalidArgument("--replicas ", o.replicas,
                           " needs parameter servers (--ps K >= 1) or --mode allreduce to share "
                           "the variables");
  if (static_cast<int>(platform.size()) < o.ps + o.replicas)
    return InvalidArgument("the platform has ", platform.size(), " devices; ", o.ps,
                           " parameter servers and ", o.replicas, " replicas need ",
                           o.ps + o.replicas);
  return Status::OK();
}

// A device as the placer sees it under a role name. The placer checks kernel availability by
// type; the simulator assumes every op with a CPU kernel runs on every simulated device, so the
// placement type is CPU (names keep the platform's type).
DeviceDesc RoleDevice(const SimDevice& d, const std::string& job, int task, int id) {
  DeviceDesc desc = d.desc;
  desc.name = LocalDeviceName(d.desc.type, id, job, task);
  desc.type = "CPU";
  return desc;
}

}  // namespace

StatusOr<RoleAssignment> AssignRoles(const std::vector<SimDevice>& platform,
                                     const WorkloadOptions& o) {
  RETURN_IF_ERROR(CheckOptions(platform, o));
  RoleAssignment roles;
  const int rest = static_cast<int>(platform.size()) - o.ps;
  int per_replica = o.devices_per_replica > 0        ? o.devices_per_replica
                    : o.replicas == 1 && o.mode != SyncMode::kAllreduce ? rest
                                                                        : 1;
  if (per_replica * o.replicas > rest)
    return InvalidArgument("the platform has ", rest, " non-PS devices; ", o.replicas,
                           " replicas of ", per_replica, " devices do not fit");
  const bool keep_names = o.ps == 0 && o.replicas == 1;
  for (int k = 0; k < o.ps; ++k) {
    roles.placement_devices.push_back(RoleDevice(platform[k], "ps", k, 0));
    roles.ps_platform.push_back(k);
    roles.is_ps.push_back(true);
  }
  for (int j = 0; j < per_replica; ++j) {
    const SimDevice& d = platform[o.ps + j];
    DeviceDesc desc = RoleDevice(d, "worker", 0, j);
    if (keep_names) desc.name = d.desc.name;
    roles.placement_devices.push_back(desc);
    roles.is_ps.push_back(false);
  }
  for (int r = 0; r < o.replicas; ++r) {
    std::vector<int> map = roles.ps_platform;
    for (int j = 0; j < per_replica; ++j) map.push_back(o.ps + r * per_replica + j);
    roles.replica_platform.push_back(std::move(map));
  }
  return roles;
}

namespace {

// Groups of variables that one op updates together through ref inputs (ApplyAdam: a weight and
// its two slot variables): the placer colocates the op with all of them (4.3), so they must share
// a parameter server. Returns each variable's group representative.
std::map<const Node*, const Node*> VariableGroups(const Graph& g) {
  std::map<const Node*, const Node*> parent;
  auto find = [&parent](const Node* n) {
    while (parent.count(n) && parent[n] != n) n = parent[n];
    return n;
  };
  for (const Node* n : g.nodes()) {
    const Node* first = nullptr;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = n->input_is_ref(i) ? n->input_edge(i) : nullptr;
      if (!e) continue;
      if (!first) {
        first = find(e->src);
      } else if (const Node* root = find(e->src); root != first) {
        parent[root] = first;
      }
    }
  }
  std::map<const Node*, const Node*> group;
  for (const Node* n : g.nodes()) group[n] = find(n);
  return group;
}

}  // namespace

void ConstrainForParameterServers(Graph* g, int num_ps) {
  if (num_ps <= 0) return;
  const std::map<const Node*, const Node*> group = VariableGroups(*g);
  std::map<const Node*, int> task;  // group -> its parameter server, round-robin over groups
  for (Node* n : g->nodes()) {
    if (!n->requested_device().empty()) continue;
    const bool is_variable = n->num_outputs() > 0 && n->output_is_ref(0) && n->num_inputs() == 0;
    // Ops that update a variable through a ref input (ApplyGradientDescent, Assign) are
    // colocated with it by the placer (4.3): they follow their variable to its PS.
    bool updates_variable = false;
    for (int i = 0; i < n->num_inputs(); ++i) updates_variable |= n->input_is_ref(i);
    if (updates_variable) continue;
    if (!is_variable) {
      n->mutable_def()->device = "/job:worker";
      continue;
    }
    const auto [it, fresh] = task.emplace(group.at(n), static_cast<int>(task.size()));
    n->mutable_def()->device = "/job:ps/task:" + std::to_string(it->second % num_ps);
  }
}

}  // namespace fb::sim
