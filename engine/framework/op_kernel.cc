#include "engine/framework/op_kernel.h"

#include <condition_variable>
#include <set>
#include <shared_mutex>

#include "engine/framework/device_plugin.h"
#include "engine/framework/tensor_allocate.h"

namespace fb {

OpKernelConstruction::OpKernelConstruction(Device* device, const NodeDef& def, const OpDef& op_def,
                                           std::vector<DataType> input_types,
                                           std::vector<DataType> output_types)
    : device_(device),
      def_(def),
      op_def_(op_def),
      input_types_(std::move(input_types)),
      output_types_(std::move(output_types)) {}

OpKernel::OpKernel(OpKernelConstruction* ctx)
    : def_(ctx->def()),
      input_types_(ctx->input_types()),
      output_types_(ctx->output_types()),
      host_inputs_(ctx->host_memory_inputs()),
      host_outputs_(ctx->host_memory_outputs()) {}

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  ComputeAsync(ctx, [&]() {
    std::lock_guard<std::mutex> l(mu);
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> l(mu);
  cv.wait(l, [&] { return done; });
}

OpKernelContext::OpKernelContext(Params* params) : params_(params) {
  int n = params->kernel->num_outputs();
  outputs_.resize(n);
  dead_outputs_.assign(n, false);
}

const Tensor& OpKernelContext::input(int i) const {
  const TensorValue& v = (*params_->inputs)[i];
  return v.tensor;
}

Status OpKernelContext::allocate_output(int i, const TensorShape& shape, Tensor** out) {
  FB_CHECK(i >= 0 && i < num_outputs()) << "allocate_output " << i;
  if (!shape.IsFullyDefined())
    return InvalidArgument("output ", i, " shape ", shape.DebugString(), " is not fully defined");
  // Out of memory is ResourceExhausted naming the node (GPU memory runs out in practice).
  auto t = AllocateTensor(expected_output_dtype(i), shape, output_allocator(i));
  if (!t.ok())
    return t.status().WithPrefix("output " + std::to_string(i) + " of node '" +
                                 params_->kernel->name() + "': ");
  outputs_[i].tensor = std::move(*t);
  *out = &outputs_[i].tensor;
  return Status::OK();
}

Allocator* OpKernelContext::output_allocator(int i) const {
  return params_->kernel->output_on_host(i) ? host_allocator() : allocator();
}

Allocator* OpKernelContext::host_allocator() const {
  Allocator* a = allocator();
  return a->IsHostMemory() ? a : DefaultCpuAllocator();
}

Status OpKernelContext::allocate_temp(DataType dt, const TensorShape& shape, Tensor* out) {
  auto t = AllocateTensor(dt, shape, allocator());
  if (!t.ok())
    return t.status().WithPrefix("temporary of node '" +
                                 (params_->kernel ? params_->kernel->name() : "?") + "': ");
  *out = std::move(*t);
  return Status::OK();
}

void OpKernelContext::set_output(int i, const Tensor& t) {
  FB_CHECK(i >= 0 && i < num_outputs()) << "set_output " << i;
  outputs_[i].tensor = t;
  outputs_[i].ref = nullptr;
}

void OpKernelContext::set_output_ref(int i, Var* var) {
  FB_CHECK(i >= 0 && i < num_outputs()) << "set_output_ref " << i;
  outputs_[i].ref = var;
}

void OpKernelContext::forward_input(int in, int out) { outputs_[out].tensor = input(in); }

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* r = new KernelRegistry;
  return r;
}

namespace {
// Guards every KernelRegistry's map. Registrations also happen after startup, from the static
// initializers of a device module loaded while other threads place or run graphs
// (device_plugin.h). An Entry's address is stable (a multimap node), so Find may return it
// after the lock is released: entries are never removed.
std::shared_mutex& RegistryMu() {
  static auto* mu = new std::shared_mutex;
  return *mu;
}
}  // namespace

void KernelRegistry::Register(const KernelDefBuilder& def, KernelFactory factory) {
  std::unique_lock<std::shared_mutex> l(RegistryMu());
  kernels_.emplace(def.op(), Entry{def, std::move(factory)});
}

// A lookup for a device type whose support is a module (GPU) loads it first: its kernels
// register then (outside the lock, which Register takes).
const KernelRegistry::Entry* KernelRegistry::Find(const std::string& device_type,
                                                  const NodeDef& node) const {
  LoadDeviceSupportForLookup(device_type);
  std::shared_lock<std::shared_mutex> l(RegistryMu());
  auto range = kernels_.equal_range(node.op);
  for (auto it = range.first; it != range.second; ++it) {
    const Entry& e = it->second;
    if (e.def.device() != device_type) continue;
    bool match = true;
    for (const auto& [attr, dt] : e.def.constraints()) {
      auto a = node.attrs.find(attr);
      if (a == node.attrs.end() || !a->second.holds<DataType>() || a->second.get<DataType>() != dt) {
        match = false;
        break;
      }
    }
    if (match) return &e;
  }
  return nullptr;
}

bool KernelRegistry::HasKernel(const std::string& device_type, const NodeDef& node) const {
  return Find(device_type, node) != nullptr;
}

namespace {

// Marks the tensors of the args named in `names` in `args` (expanded as InOutTypesForNode does);
// removes the names it finds from `names`.
Status MarkHostArgs(const OpDef& op, const std::vector<ArgDef>& args, const NodeDef& node,
                    std::set<std::string>* names, std::vector<bool>* host) {
  host->clear();
  for (const ArgDef& a : args) {
    OpDef one;
    one.name = op.name;
    one.inputs = {a};
    std::vector<DataType> types, unused;
    RETURN_IF_ERROR(InOutTypesForNode(one, node.name, node.attrs, &types, &unused));
    const bool on_host = names->erase(a.name) > 0;
    host->insert(host->end(), types.size(), on_host);
  }
  return Status::OK();
}

Status HostMemoryTypes(const KernelDefBuilder& def, const OpDef& op, const NodeDef& node,
                       std::vector<bool>* host_inputs, std::vector<bool>* host_outputs) {
  host_inputs->clear();
  host_outputs->clear();
  if (def.host_memory().empty()) return Status::OK();
  std::set<std::string> names(def.host_memory().begin(), def.host_memory().end());
  std::set<std::string> outputs = names;
  RETURN_IF_ERROR(MarkHostArgs(op, op.inputs, node, &names, host_inputs));
  RETURN_IF_ERROR(MarkHostArgs(op, op.outputs, node, &outputs, host_outputs));
  for (const std::string& n : names)
    if (outputs.count(n))
      return Internal("the ", def.device(), " kernel of ", op.name, " declares HostMemory(\"", n,
                      "\"), which is not an input or output of the op");
  return Status::OK();
}

}  // namespace

Status KernelRegistry::MemoryTypesForNode(const std::string& device_type, const NodeDef& node,
                                          std::vector<bool>* host_inputs,
                                          std::vector<bool>* host_outputs) const {
  host_inputs->clear();
  host_outputs->clear();
  const Entry* e = Find(device_type, node);
  if (!e || e->def.host_memory().empty()) return Status::OK();
  ASSIGN_OR_RETURN(const OpDef* op, OpRegistry::Global()->LookUp(node.op));
  return HostMemoryTypes(e->def, *op, node, host_inputs, host_outputs);
}

StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(Device* device,
                                                                 const NodeDef& node) const {
  return CreateKernel(device->device_type(), device, node);
}

StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(const std::string& device_type,
                                                                 Device* device,
                                                                 const NodeDef& node) const {
  ASSIGN_OR_RETURN(const OpDef* op, OpRegistry::Global()->LookUp(node.op));
  const Entry* e = Find(device_type, node);
  if (!e) {
    std::string types = DataTypeListString(TypesForOp(node.op, device_type));
    return NotFound("no ", device_type, " kernel for node '", node.name, "' (", node.op,
                    ")", types.empty() ? "" : "; kernels exist for ", types);
  }
  std::vector<DataType> in, out;
  RETURN_IF_ERROR(InOutTypesForNode(*op, node.name, node.attrs, &in, &out));
  OpKernelConstruction ctx(device, node, *op, in, out);
  std::vector<bool> host_in, host_out;
  RETURN_IF_ERROR(HostMemoryTypes(e->def, *op, node, &host_in, &host_out));
  ctx.set_host_memory(std::move(host_in), std::move(host_out));
  std::unique_ptr<OpKernel> kernel = e->factory(&ctx);
  if (!ctx.status().ok())
    return ctx.status().WithPrefix(node.op + " '" + node.name + "': ");
  return kernel;
}

std::vector<std::string> KernelRegistry::DeviceTypesForOp(const std::string& op) const {
  std::shared_lock<std::shared_mutex> l(RegistryMu());
  std::set<std::string> types;
  auto range = kernels_.equal_range(op);
  for (auto it = range.first; it != range.second; ++it) types.insert(it->second.def.device());
  return {types.begin(), types.end()};
}

std::vector<DataType> KernelRegistry::TypesForOp(const std::string& op,
                                                 const std::string& device_type) const {
  LoadDeviceSupportForLookup(device_type);
  std::shared_lock<std::shared_mutex> l(RegistryMu());
  std::set<DataType> types;
  auto range = kernels_.equal_range(op);
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second.def.device() != device_type) continue;
    for (const auto& [attr, dt] : it->second.def.constraints()) types.insert(dt);
  }
  return {types.begin(), types.end()};
}

}  // namespace fb
