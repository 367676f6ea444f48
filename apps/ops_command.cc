// `flowbench ops`: lists every registered op with its kernels' device types and dtypes and
// whether it has a gradient. GPU kernels (and NcclAllReduce) live in the GPU module, loaded here
// first (engine/framework/device_plugin.h); without it the listing says so and shows the rest.
#include <iostream>

#include <fmt/format.h>

#include "apps/commands.h"
#include "engine/autodiff/gradient_registry.h"
#include "engine/framework/device.h"
#include "engine/framework/device_plugin.h"
#include "engine/framework/op_kernel.h"

namespace fb::apps {
namespace {

void ListOps(bool include_internal) {
  if (DeviceSupportBuilt(DEVICE_GPU)) {
    if (Status s = LoadDeviceSupport(DEVICE_GPU); !s.ok())
      std::cerr << "flowbench ops: " << s.message() << "; GPU kernels are not listed\n";
  }
  std::cout << fmt::format("{:<36} {:<10} {:<6} {}\n", "op", "devices", "grad", "kernel dtypes");
  for (const OpDef* op : OpRegistry::Global()->ListOps()) {
    if (!include_internal && op->name[0] == '_') continue;
    std::string devices, types;
    for (const std::string& d : KernelRegistry::Global()->DeviceTypesForOp(op->name)) {
      devices += (devices.empty() ? "" : ",") + d;
      std::string t = DataTypeListString(KernelRegistry::Global()->TypesForOp(op->name, d));
      if (!t.empty()) types += (types.empty() ? "" : "; ") + d + ": " + t;
    }
    bool grad = GradientRegistry::Global()->Lookup(op->name) != nullptr;
    std::cout << fmt::format("{:<36} {:<10} {:<6} {}\n", op->name, devices.empty() ? "-" : devices,
                             grad ? "yes" : "no", types.empty() ? "any" : types);
  }
}

FB_REGISTER_COMMAND("ops", [](CLI::App* app) {
  auto* cmd = app->add_subcommand("ops", "List registered ops, their devices, dtypes and gradients");
  static bool include_internal = false;
  auto* internal = &include_internal;
  cmd->add_flag("--internal", *internal, "Include internal ops (_Send, _Recv, _Feed, ...)");
  cmd->callback([internal]() { ListOps(*internal); });
});

}  // namespace
}  // namespace fb::apps
