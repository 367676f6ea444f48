// Gradient of FusedBatchNorm (whitepaper 4.1), after TensorFlow's nn_grad.py
// (_FusedBatchNormGrad): one FusedBatchNormGrad node with the forward's attrs gives the gradients
// w.r.t. x, scale and offset. In training mode it reads the batch mean and variance the forward
// saved in reserve_space_1/_2; in inference mode the mean and variance inputs. mean and variance
// get no gradient, and the gradients flowing into batch_mean, batch_variance and the reserve
// spaces are ignored (as TensorFlow; they feed moving averages, not the loss).
#include "engine/autodiff/gradient_registry.h"

namespace fb {
namespace {

using Grads = std::vector<NodeOut>;

Status FusedBatchNormGrad(GradContext* c, const Grads& dy, Grads* dx) {
  bool is_training = true;
  RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  const NodeOut mean = is_training ? c->output(3) : c->input(3);
  const NodeOut variance = is_training ? c->output(4) : c->input(4);
  AttrMap attrs;
  const AttrMap& forward = c->node()->def().attrs;
  for (const char* name : {"epsilon", "data_format", "is_training"})
    if (auto it = forward.find(name); it != forward.end()) attrs[name] = it->second;
  ASSIGN_OR_RETURN(NodeOut g, c->Op("FusedBatchNormGrad",
                                    {dy[0], c->input(0), c->input(1), mean, variance}, attrs));
  *dx = {g, NodeOut{g.node, 1}, NodeOut{g.node, 2}, NodeOut{}, NodeOut{}};
  return Status::OK();
}

}  // namespace

REGISTER_GRADIENT(FusedBatchNorm, FusedBatchNormGrad);

}  // namespace fb
