#include "mpi/data_parallel.h"

#include "engine/autodiff/gradients.h"
#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"

namespace fb::mpi {

namespace {

// Creates the model's Variables, trainable then non-trainable, round-robin over `ps_devices` in
// that order (none: no constraint).
ModelVariables CreateVariables(const Scope& root, const ModelFns& model,
                               const std::vector<std::string>& ps_devices, DataParallelGraph* out) {
  ModelVariables v = model.variables(root);
  out->vars = v.trainable;
  out->vars.insert(out->vars.end(), v.non_trainable.begin(), v.non_trainable.end());
  for (size_t k = 0; k < out->vars.size() && !ps_devices.empty(); ++k)
    if (Output& var = out->vars[k]; var.valid())
      var.node()->mutable_def()->device = ps_devices[k % ps_devices.size()];
  Node* init = ops::Group(root.WithOpName("init"), v.initializers);
  out->init = init ? init->name() : "";
  return v;
}

// Nodes with ids >= `first` that update a Variable through a ref input (the replicas' moving-
// average AssignSubs) go to that Variable's device: the placer keeps a ref edge on one device.
void PlaceWithUpdatedVariables(Graph* g, int first) {
  for (int id = first; id < g->num_node_ids(); ++id) {
    Node* n = g->node(id);
    if (!n) continue;
    for (int i = 0; i < n->num_inputs(); ++i)
      if (const Edge* e = n->input_edge(i); e && n->input_is_ref(i))
        n->mutable_def()->device = e->src->requested_device();
  }
}

struct ReplicaStep {
  std::vector<Output> grads;    // d(loss)/d(trainable Variables), in their order
  std::vector<Output> updates;  // the replica's update ops (ReplicaOutputs::updates)
};

// Replica i's loss and d(loss)/d(vars.trainable), every node of both on `device` but the updates
// of Variables (PlaceWithUpdatedVariables).
ReplicaStep ReplicaGradients(const Scope& root, const ModelFns& model, const ModelVariables& vars,
                             int i, const std::string& device, DataParallelGraph* out) {
  Graph* g = root.graph();
  int first = g->num_node_ids();
  ReplicaOutputs replica = model.loss(root.NewSubScope(ReplicaPrefix(i)).WithDevice(device), vars);
  out->losses.push_back(replica.loss);
  if (!root.ok()) return {};
  std::vector<NodeOut> xs(vars.trainable.begin(), vars.trainable.end()), grads;
  root.UpdateStatus(AddSymbolicGradients(g, {replica.loss}, xs, {}, &grads,
                                         ReplicaPrefix(i) + "/gradients",
                                         /*gate_gradients=*/true));  // as optimizers do
  // Gradient nodes follow their replica (TensorFlow's colocate_gradients_with_ops).
  for (int id = first; id < g->num_node_ids(); ++id)
    if (Node* n = g->node(id); n && n->requested_device().empty()) n->mutable_def()->device = device;
  PlaceWithUpdatedVariables(g, first);
  return {std::vector<Output>(grads.begin(), grads.end()), replica.updates};
}

Output ApplyDescent(const Scope& s, Output var, Output grad, double learning_rate) {
  return ops::ApplyGradientDescent(s, var, ops::Const(s, static_cast<float>(learning_rate)), grad);
}

TensorShape VariableShape(Output var) {
  TensorShape shape;
  (void)GetNodeAttr(var.node()->def().attrs, "shape", &shape);
  return shape;
}

}  // namespace

std::string ReplicaPrefix(int replica) { return "replica_" + std::to_string(replica); }

std::vector<std::string> JobDevices(const std::string& job, int num_tasks) {
  std::vector<std::string> d;
  for (int i = 0; i < num_tasks; ++i) d.push_back("/job:" + job + "/task:" + std::to_string(i));
  return d;
}

DataParallelGraph BuildSyncReplicas(const Scope& root, const ModelFns& model,
                                    const std::vector<std::string>& worker_devices,
                                    const std::vector<std::string>& ps_devices, double learning_rate) {
  DataParallelGraph out;
  const ModelVariables v = CreateVariables(root, model, ps_devices, &out);
  const std::vector<Output>& vars = v.trainable;
  std::vector<std::vector<Output>> per_var(vars.size());
  std::vector<Output> updates;
  for (size_t i = 0; i < worker_devices.size(); ++i) {
    auto step = ReplicaGradients(root, model, v, static_cast<int>(i), worker_devices[i], &out);
    for (size_t k = 0; k < step.grads.size(); ++k) per_var[k].push_back(step.grads[k]);
    updates.insert(updates.end(), step.updates.begin(), step.updates.end());
  }
  if (!root.ok()) return out;
  for (size_t k = 0; k < vars.size(); ++k) {
    Scope s = root.NewSubScope("sync").WithDevice(vars[k].node()->requested_device());
    Output mean = ops::Mul(s, ops::AddN(s, per_var[k]),
                           ops::Const(s, 1.f / static_cast<float>(worker_devices.size())));
    updates.push_back(ApplyDescent(s, vars[k], mean, learning_rate));
  }
  ops::Group(root.WithOpName("train"), updates);
  out.train_targets = {"train"};
  return out;
}

DataParallelGraph BuildAsyncReplicas(const Scope& root, const ModelFns& model,
                                     const std::vector<std::string>& worker_devices,
                                     const std::vector<std::string>& ps_devices, double learning_rate) {
  DataParallelGraph out;
  const ModelVariables v = CreateVariables(root, model, ps_devices, &out);
  for (size_t i = 0; i < worker_devices.size(); ++i) {
    auto step = ReplicaGradients(root, model, v, static_cast<int>(i), worker_devices[i], &out);
    if (!root.ok()) return out;
    std::vector<Output> updates = step.updates;
    for (size_t k = 0; k < v.trainable.size(); ++k)
      updates.push_back(ApplyDescent(root.NewSubScope(ReplicaPrefix(static_cast<int>(i)) + "/apply"),
                                     v.trainable[k], step.grads[k], learning_rate));
    std::string name = "train_" + std::to_string(i);
    ops::Group(root.WithOpName(name), updates);
    out.train_targets.push_back(name);
  }
  return out;
}

DataParallelGraph BuildBackupReplicas(const Scope& root, const ModelFns& model,
                                      const std::vector<std::string>& worker_devices,
                                      const std::vector<std::string>& ps_devices, int num_to_apply,
                                      double learning_rate) {
  DataParallelGraph out;
  if (num_to_apply < 1 || num_to_apply > static_cast<int>(worker_devices.size())) {
    root.UpdateStatus(InvalidArgument("backup workers: ", num_to_apply, " gradients to apply of ",
                                      worker_devices.size(), " replicas"));
    return out;
  }
  const ModelVariables v = CreateVariables(root, model, ps_devices, &out);
  const std::vector<Output>& vars = v.trainable;
  std::vector<Output> slot_inits;
  std::vector<std::vector<Output>> weighted(vars.size());
  for (size_t i = 0; i < worker_devices.size(); ++i) {
    int r = static_cast<int>(i);
    auto step = ReplicaGradients(root, model, v, r, worker_devices[i], &out);
    const std::vector<Output>& grads = step.grads;
    if (!root.ok()) return out;
    std::string weight_name = "weight_" + std::to_string(i);
    Scope bs = root.NewSubScope("backup");
    Output weight = ops::Placeholder(bs.WithOpName(weight_name), DataType::kFloat, TensorShape{});
    out.weight_feeds.push_back("backup/" + weight_name + ":0");
    std::vector<Output> stores = step.updates;
    for (size_t k = 0; k < vars.size(); ++k) {
      // A slot on the variable's ps task holding replica i's latest gradient.
      Scope s = root.NewSubScope(ReplicaPrefix(r) + "/slot").WithDevice(vars[k].node()->requested_device());
      TensorShape shape = VariableShape(vars[k]);
      Output slot = ops::Variable(s, shape, DataType::kFloat);
      slot_inits.push_back(ops::Assign(s, slot, ops::Fill(s, ops::IntConst(s, shape.dim_sizes()), ops::Const(s, 0.f))));
      stores.push_back(ops::Assign(s, slot, grads[k]));
      weighted[k].push_back(ops::Mul(s, weight, slot));
    }
    std::string name = "compute_" + std::to_string(i);
    ops::Group(root.WithOpName(name).WithDevice(worker_devices[i]), stores);
    out.train_targets.push_back(name);
  }
  std::vector<Output> updates;
  for (size_t k = 0; k < vars.size(); ++k) {
    Scope s = root.NewSubScope("apply_grads").WithDevice(vars[k].node()->requested_device());
    updates.push_back(ApplyDescent(s, vars[k], ops::AddN(s, weighted[k]), learning_rate));
  }
  ops::Group(root.WithOpName("apply"), updates);
  out.apply_target = "apply";
  ops::Group(root.WithOpName("init_slots"), slot_inits);
  Node* init = ops::Group(root.WithOpName("init_all"), std::vector<Node*>{root.graph()->FindNode(out.init), root.graph()->FindNode("init_slots")});
  if (init) out.init = init->name();
  return out;
}

DataParallelGraph BuildAllreduceReplica(const Scope& root, const ModelFns& model, double learning_rate) {
  DataParallelGraph out;
  const ModelVariables v = CreateVariables(root, model, {}, &out);
  const std::vector<Output>& vars = v.trainable;
  auto step = ReplicaGradients(root, model, v, 0, "", &out);
  if (!root.ok()) return out;
  Node* reduce = ops::AddOpWithList(root.WithOpName("allreduce"), "MpiAllreduce", {step.grads},
                                    {{"average", true}});
  if (!reduce) return out;
  std::vector<Output> updates = step.updates;
  for (size_t k = 0; k < vars.size(); ++k)
    updates.push_back(ApplyDescent(root.NewSubScope("apply"), vars[k], Output(reduce, static_cast<int>(k)), learning_rate));
  ops::Group(root.WithOpName("train"), updates);
  out.train_targets = {"train"};
  return out;
}

}  // namespace fb::mpi
