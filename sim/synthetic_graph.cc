#include "sim/synthetic_graph.h"

#include <string>
#include <vector>

namespace fb::sim {
namespace {

class Builder {
 public:
  std::string Add(const std::string& name, const std::string& op, std::vector<std::string> inputs,
                  AttrMap attrs = {}) {
    g_.nodes.push_back(NodeDef{name, op, std::move(inputs), "", std::move(attrs)});
    return name;
  }
  GraphDef Take() { return std::move(g_); }

 private:
  GraphDef g_;
};

const AttrMap kFloat = {{"T", DataType::kFloat}};

}  // namespace

GraphDef SyntheticTrainingGraph(const SyntheticGraphSpec& s) {
  Builder b;
  const int64_t w = s.width;
  std::string h = b.Add("x", "Placeholder", {},
                        {{"dtype", DataType::kFloat}, {"shape", TensorShape({s.batch, w})}});
  const std::string lr = b.Add("lr", "Const", {},
                               {{"dtype", DataType::kFloat}, {"value", Tensor::Scalar<float>(0.01f)}});
  std::vector<std::string> inputs, weights;
  std::vector<std::vector<std::string>> acts;
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = "layer" + std::to_string(l) + "/";
    inputs.push_back(h);
    weights.push_back(b.Add(p + "W", "Variable", {},
                            {{"dtype", DataType::kFloat}, {"shape", TensorShape({w, w})}}));
    h = b.Add(p + "matmul", "MatMul", {h, weights.back()}, kFloat);
    acts.emplace_back();
    for (int e = 0; e < s.elementwise; ++e) {
      h = b.Add(p + "act" + std::to_string(e), e % 2 ? "Tanh" : "Relu", {h}, kFloat);
      acts.back().push_back(h);
    }
  }
  std::string d = b.Add("loss_grad", "Identity", {h}, kFloat);
  for (int l = s.layers - 1; l >= 0; --l) {
    const std::string p = "grad/layer" + std::to_string(l) + "/";
    for (int e = s.elementwise - 1; e >= 0; --e) {
      const std::string& a = acts[l][e];
      d = e % 2 ? b.Add(p + "act" + std::to_string(e), "Mul", {d, a}, kFloat)
                : b.Add(p + "act" + std::to_string(e), "ReluGrad", {d, a}, kFloat);
    }
    AttrMap ta = kFloat, tb = kFloat;
    ta["transpose_a"] = true;
    tb["transpose_b"] = true;
    const std::string gw = b.Add(p + "dW", "MatMul", {inputs[l], d}, ta);
    b.Add(p + "apply", "ApplyGradientDescent", {weights[l], lr, gw}, kFloat);
    d = b.Add(p + "dx", "MatMul", {d, weights[l]}, tb);
  }
  return b.Take();
}

}  // namespace fb::sim
