#pragma once
// Device names of whitepaper section 3 / TensorFlow: "/job:worker/replica:0/task:17/device:CPU:0".
// Partial names ("/device:GPU:*", "/job:worker/task:17", "/cpu:0") are placement constraints
// (whitepaper 4.3): a full name matches a partial one if every field the partial one sets agrees.
#include <string>

#include "engine/framework/status.h"

namespace fb {

struct ParsedDeviceName {
  bool has_job = false, has_replica = false, has_task = false, has_type = false, has_id = false;
  std::string job;
  int replica = 0, task = 0;
  std::string type;  // "CPU", "GPU"
  int id = 0;        // has_id false with has_type true means "any id" (":*")

  // "/job:J/replica:R/task:T/device:TYPE:ID", omitting unset fields.
  std::string ToString() const;
  bool IsFullySpecified() const { return has_job && has_replica && has_task && has_type && has_id; }
};

// Parses full or partial names; also accepts the legacy "/cpu:0" and "/gpu:1" forms and type
// names in either case (normalised to upper case). "" parses to an empty (match-all) constraint.
// InvalidArgument naming the string otherwise.
StatusOr<ParsedDeviceName> ParseDeviceName(const std::string& name);
// True if every field set in `constraint` equals the one in `device`.
bool DeviceNameMatches(const ParsedDeviceName& device, const ParsedDeviceName& constraint);
// Combines two constraints (colocation, 4.3); InvalidArgument if they conflict.
StatusOr<ParsedDeviceName> MergeDeviceNames(const ParsedDeviceName& a, const ParsedDeviceName& b);
// "/job:localhost/replica:0/task:0/device:CPU:<id>"
std::string LocalDeviceName(const std::string& type, int id, const std::string& job = "localhost",
                            int task = 0);

}  // namespace fb
