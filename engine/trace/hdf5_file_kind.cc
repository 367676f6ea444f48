#include "engine/trace/hdf5_file_kind.h"

namespace fb::h5 {
namespace {

bool HasAttr(hid_t root, const char* name) {
  const htri_t found = H5Aexists(root, name);
  if (found < 0) H5Eclear2(H5E_DEFAULT);
  return found > 0;
}

// Where each kind of file goes on the command line.
const char* UsedBy(const std::string& kind) {
  if (kind == "trace")
    return "read it with flowbench trace summary, or replay it with --cost-model measured:FILE";
  if (kind == "profile")
    return "use it with --cost-model profile:FILE or flowbench sim-platform profile:FILE";
  if (kind == "sweep results table") return "read it with flowbench sweep export or plot_sweep.py";
  return "resume from it with --resume --checkpoint-dir DIR";
}

}  // namespace

std::string FlowbenchFileKind(hid_t root) {
  if (HasAttr(root, "format")) return "profile";
  if (HasAttr(root, "schema")) return "sweep results table";
  if (HasAttr(root, "format_version")) return "checkpoint";
  if (HasAttr(root, "clock")) return "trace";
  return "";
}

Status CheckFlowbenchFileKind(hid_t root, const std::string& path, const std::string& expected) {
  const std::string kind = FlowbenchFileKind(root);
  if (kind.empty() || kind == expected) return Status::OK();
  return InvalidArgument(path, ": a flowbench ", kind, ", not a flowbench ", expected, " (",
                         UsedBy(kind), ")");
}

}  // namespace fb::h5
