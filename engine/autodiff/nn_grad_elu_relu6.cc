// Gradients of Relu6, Elu and L2Loss (whitepaper 4.1), after TensorFlow's nn_grad.py: Relu6 and
// Elu through their gradient ops (Relu6Grad on the input features, EluGrad on the output), L2Loss
// as dx = x * dy. Second-order gradients (of Relu6Grad, EluGrad) are not built.
#include "engine/autodiff/gradient_registry.h"

namespace fb {
namespace {

using Grads = std::vector<NodeOut>;

Status Relu6Grad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut g, c->Op("Relu6Grad", {dy[0], c->input(0)}));
  *dx = {g};
  return Status::OK();
}

Status EluGrad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut g, c->Op("EluGrad", {dy[0], c->output(0)}));
  *dx = {g};
  return Status::OK();
}

// dy is a scalar: Mul broadcasts it over x.
Status L2LossGrad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut g, c->Op("Mul", {c->input(0), dy[0]}));
  *dx = {g};
  return Status::OK();
}

}  // namespace

REGISTER_GRADIENT(Relu6, Relu6Grad);
REGISTER_GRADIENT(Elu, EluGrad);
REGISTER_GRADIENT(L2Loss, L2LossGrad);

}  // namespace fb
