#include "sim/profile_device.h"

#include <cctype>
#include <set>

namespace fb::sim {
namespace {

// "<digits> MiB"
bool IsMemorySize(const std::string& s) {
  const std::string suffix = " MiB";
  if (s.size() <= suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix))
    return false;
  for (size_t i = 0; i + suffix.size() < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

std::string Quoted(const std::string& s) { return s.empty() ? "(none)" : "'" + s + "'"; }

}  // namespace

std::string DeviceModel(const std::string& description) {
  const size_t comma = description.rfind(", ");
  if (comma == std::string::npos || !IsMemorySize(description.substr(comma + 2)))
    return description;
  return description.substr(0, comma);
}

std::string DeviceDescriptionOfType(const std::vector<std::string>& devices,
                                    const std::string& type) {
  for (const std::string& d : devices) {
    const size_t open = d.find(" (");
    const std::string name = d.substr(0, open);
    if (name.find("/device:" + type + ":") == std::string::npos) continue;
    if (open == std::string::npos || d.back() != ')') return "";
    return d.substr(open + 2, d.size() - open - 3);
  }
  return "";
}

Status CheckProfileDevice(const Profile& p, const std::string& profile_path, const SimDevice& d,
                          const std::string& platform_path) {
  const std::string what = "profile '" + profile_path + "' measured " + p.device_type + " " +
                           Quoted(p.device) + "; platform '" + platform_path + "' host '" +
                           d.host_name + "' is ";
  if (d.desc.type != p.device_type)
    return FailedPrecondition(what, "a ", d.desc.type, " device",
                              d.model.empty() ? "" : " of device_model '" + d.model + "'",
                              ". Predict it with a profile of that device (flowbench profile ",
                              d.desc.type == "GPU" ? "--devices gpu:1" : "without --devices",
                              " on it) or simulate a platform of the profiled device");
  if (d.model.empty() && p.device_type == "CPU") return Status::OK();  // this host
  if (d.model.empty())
    return FailedPrecondition(what, "a GPU that declares no device_model; add <prop id=\"device_model\" value=\"",
                              DeviceModel(p.device), "\"/> to the host if it is that GPU");
  if (DeviceModel(d.model) != DeviceModel(p.device))
    return FailedPrecondition(what, "a ", d.desc.type, " of device_model '", d.model,
                              "', not the profiled ", Quoted(DeviceModel(p.device)),
                              ". Profile that device (flowbench profile) or simulate a platform "
                              "of the profiled one");
  return Status::OK();
}

Status CheckProfileDevices(const Profile& p, const std::string& profile_path,
                           const std::vector<SimDevice>& platform, const std::string& platform_path,
                           const WorkloadOptions& workload) {
  ASSIGN_OR_RETURN(RoleAssignment roles, AssignRoles(platform, workload));
  std::set<int> used;
  for (const std::vector<int>& replica : roles.replica_platform) used.insert(replica.begin(),
                                                                             replica.end());
  for (int i : used) RETURN_IF_ERROR(CheckProfileDevice(p, profile_path, platform[i], platform_path));
  return Status::OK();
}

StatusOr<std::string> ProfileModelMode(const Profile& p, const std::string& profile_path,
                                       const std::string& requested) {
  if (requested.empty() || requested == p.mode) return p.mode;
  return FailedPrecondition("profile '", profile_path, "' measured ", p.mode,
                            " steps; --model-mode ", requested,
                            " asks for another step (its nodes were not profiled). Simulate --model-mode ",
                            p.mode, " or profile that mode (flowbench profile --mode ", requested,
                            ")");
}

}  // namespace fb::sim
