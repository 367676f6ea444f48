// Optimizer update ops (whitepaper Table 1 "Stateful operations" / 4.1: the parameter updates
// that follow the gradient computation). Each updates its Variables in place, holding their
// mutexes, copying first if a reader still holds the old buffer (Var::PrepareForWrite), and
// outputs the ref to `var`. Formulas are TensorFlow's (tensorflow/core/ops/training_ops.cc,
// kernels/training_ops.cc). lr, alpha, momentum, beta*, epsilon are scalars; grad/delta have
// var's shape; slots (accum, m, v) have var's shape and must be initialized.
// use_locking is accepted for TensorFlow compatibility; the kernels always lock.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {

namespace {

// inputs[i] for i in `same` must have input 0's shape, inputs[i] for i in `scalars` must be
// scalars; output 0 = input 0's shape.
Status ApplyShape(InferenceContext* c, const std::vector<int>& same,
                  const std::vector<int>& scalars) {
  PartialShape var = c->input(0);
  for (int i : scalars) {
    if (c->input(i) && c->input(i)->rank() != 0)
      return c->Error("input ", i, " must be a scalar, got shape ", c->input(i)->DebugString());
  }
  for (int i : same) {
    const PartialShape& s = c->input(i);
    if (!var || !s) {
      if (!var) var = s;
      continue;
    }
    bool ok = s->rank() == var->rank();
    for (int k = 0; ok && k < s->rank(); ++k)
      ok = s->dim_size(k) < 0 || var->dim_size(k) < 0 || s->dim_size(k) == var->dim_size(k);
    if (!ok)
      return c->Error("input ", i, " has shape ", s->DebugString(), " but var has shape ",
                      var->DebugString());
  }
  c->set_output(0, var);
  return Status::OK();
}

}  // namespace

REGISTER_OP("ApplyGradientDescent")
    .Input("var: Ref(T)")
    .Input("alpha: T")
    .Input("delta: T")
    .Output("out: Ref(T)")
    .Attr("T: {float, double}")
    .Attr("use_locking: bool = false")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {2}, {1}); })
    .Doc("var -= alpha * delta.");

REGISTER_OP("ApplyMomentum")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Output("out: Ref(T)")
    .Attr("T: {float, double}")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {1, 3}, {2, 4}); })
    .Doc("accum = accum * momentum + grad; var -= lr * accum, or with use_nesterov "
         "var -= lr * grad + lr * momentum * accum (with the new accum).");

REGISTER_OP("ApplyAdam")
    .Input("var: Ref(T)")
    .Input("m: Ref(T)")
    .Input("v: Ref(T)")
    .Input("beta1_power: T")
    .Input("beta2_power: T")
    .Input("lr: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: {float, double}")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {1, 2, 9}, {3, 4, 5, 6, 7, 8}); })
    .Doc("Adam (Kingma & Ba 2015, as TensorFlow computes it): lr_t = lr * sqrt(1 - beta2_power) "
         "/ (1 - beta1_power); m = m + (grad - m) * (1 - beta1); v = v + (grad^2 - v) * "
         "(1 - beta2); var -= lr_t * m / (sqrt(v) + epsilon), or with use_nesterov "
         "var -= lr_t * (m * beta1 + (1 - beta1) * grad) / (sqrt(v) + epsilon). beta1_power and "
         "beta2_power are beta1^t and beta2^t for step t (1-based); the caller updates them.");

}  // namespace fb
