// Gradient of Select (whitepaper 4.1), after TensorFlow 1's _SelectGrad: the incoming gradient
// goes to t where the condition picked t and to e elsewhere, zeros in the other places:
//   dt = Select(c, g, 0), de = Select(c, 0, g); the bool condition gets none.
// Where has an integer output and no gradient.
#include "engine/autodiff/gradient_registry.h"

namespace fb {
namespace {

using Grads = std::vector<NodeOut>;

Status SelectGrad(GradContext* c, const Grads& dy, Grads* dx) {
  NodeOut cond = c->input(0);
  ASSIGN_OR_RETURN(NodeOut zeros, c->Op("ZerosLike", {dy[0]}));
  ASSIGN_OR_RETURN(NodeOut dt, c->Op("Select", {cond, dy[0], zeros}));
  ASSIGN_OR_RETURN(NodeOut de, c->Op("Select", {cond, zeros, dy[0]}));
  *dx = {NodeOut{}, dt, de};
  return Status::OK();
}

}  // namespace

REGISTER_GRADIENT(Select, SelectGrad);
REGISTER_NO_GRADIENT(Where);

}  // namespace fb
