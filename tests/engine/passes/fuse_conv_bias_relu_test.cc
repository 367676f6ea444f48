#include "engine/passes/fuse_conv_bias_relu.h"

#include <random>

#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/session.h"
#include "tests/test_util.h"

namespace fb {
namespace {

constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";

Tensor RandomTensor(DataType dt, const TensorShape& shape, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Tensor t(dt, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (dt == DataType::kFloat) t.data<float>()[i] = static_cast<float>(u(gen));
    else t.data<double>()[i] = u(gen);
  }
  return t;
}

// x -> conv -> bias -> relu -> out (Neg), placeholders x, w, b; two chained layers when `two`.
void BuildChain(const Scope& root, DataType dt, bool two) {
  auto x = ops::Placeholder(root.WithOpName("x"), dt);
  auto w = ops::Placeholder(root.WithOpName("w"), dt);
  auto b = ops::Placeholder(root.WithOpName("b"), dt);
  auto conv = ops::Conv2D(root.WithOpName("conv"), x, w, {1, 1}, "SAME");
  auto relu = ops::Relu(root.WithOpName("relu"), ops::BiasAdd(root.WithOpName("bias"), conv, b));
  if (two) {
    auto w2 = ops::Placeholder(root.WithOpName("w2"), dt);
    auto conv2 = ops::Conv2D(root.WithOpName("conv2"), relu, w2, {2, 2}, "VALID");
    relu = ops::Relu(root.WithOpName("relu2"), ops::BiasAdd(root.WithOpName("bias2"), conv2, b));
  }
  ops::Neg(root.WithOpName("out"), relu);
}

void PlaceAllOnCpu(Graph* g) {
  for (Node* n : g->nodes()) n->set_assigned_device(kCpu);
}

TEST_CASE("fuse_conv_bias_relu fuses chains whose intermediates have no other consumer",
          "[passes][fuse_conv]") {
  Scope root = Scope::NewRootScope();
  BuildChain(root, DataType::kFloat, /*two=*/true);
  REQUIRE(root.ok());
  PlaceAllOnCpu(root.graph());
  const int before = root.graph()->num_nodes();
  PassReport r = FuseConvBiasRelu(root.graph());
  REQUIRE(r.num_changes == 2);
  CHECK(r.changes == std::vector<std::string>{"fused 'conv', 'bias', 'relu'",
                                              "fused 'conv2', 'bias2', 'relu2'"});
  CHECK(root.graph()->num_nodes() == before - 4);
  Node* f1 = root.graph()->FindNode("relu");
  Node* f2 = root.graph()->FindNode("relu2");
  REQUIRE(f1 != nullptr);
  REQUIRE(f2 != nullptr);
  CHECK(f1->op() == "_FusedConv2D");
  CHECK(f1->assigned_device() == kCpu);
  CHECK(f1->input_edge(0)->src->name() == "x");
  CHECK(f1->input_edge(1)->src->name() == "w");
  CHECK(f1->input_edge(2)->src->name() == "b");
  CHECK(f2->input_edge(0)->src == f1);
  CHECK(root.graph()->FindNode("out")->input_edge(0)->src == f2);
  std::vector<std::string> fused_ops;
  REQUIRE(GetNodeAttr(f2->def().attrs, "fused_ops", &fused_ops).ok());
  CHECK(fused_ops == std::vector<std::string>{"BiasAdd", "Relu"});
  std::vector<int64_t> strides;
  REQUIRE(GetNodeAttr(f2->def().attrs, "strides", &strides).ok());
  CHECK(strides == std::vector<int64_t>{1, 2, 2, 1});
}

TEST_CASE("fuse_conv_bias_relu keeps chains with other consumers or devices",
          "[passes][fuse_conv]") {
  SECTION("BiasAdd's output read elsewhere") {
    Scope root = Scope::NewRootScope();
    BuildChain(root, DataType::kFloat, false);
    ops::Neg(root.WithOpName("other"), Output(root.graph()->FindNode("bias"), 0));
    PlaceAllOnCpu(root.graph());
    CHECK(FuseConvBiasRelu(root.graph()).num_changes == 0);
  }
  SECTION("Conv2D's output read elsewhere") {
    Scope root = Scope::NewRootScope();
    BuildChain(root, DataType::kFloat, false);
    ops::Neg(root.WithOpName("other"), Output(root.graph()->FindNode("conv"), 0));
    PlaceAllOnCpu(root.graph());
    CHECK(FuseConvBiasRelu(root.graph()).num_changes == 0);
  }
  SECTION("a control consumer of the BiasAdd") {
    Scope root = Scope::NewRootScope();
    BuildChain(root, DataType::kFloat, false);
    root.graph()->AddControlEdge(root.graph()->FindNode("bias"), root.graph()->FindNode("out"));
    PlaceAllOnCpu(root.graph());
    CHECK(FuseConvBiasRelu(root.graph()).num_changes == 0);
  }
  SECTION("the Relu on another device") {
    Scope root = Scope::NewRootScope();
    BuildChain(root, DataType::kFloat, false);
    PlaceAllOnCpu(root.graph());
    root.graph()->FindNode("relu")->set_assigned_device(
        "/job:localhost/replica:0/task:0/device:CPU:1");
    CHECK(FuseConvBiasRelu(root.graph()).num_changes == 0);
  }
  SECTION("not placed") {
    Scope root = Scope::NewRootScope();
    BuildChain(root, DataType::kFloat, false);
    CHECK(FuseConvBiasRelu(root.graph()).num_changes == 0);
  }
}

// The chain through a Session with and without the pass: equal outputs, bit for bit, in float
// and double; fetching the BiasAdd too keeps that chain unfused.
TEST_CASE("fuse_conv_bias_relu gives the unfused values through the Session",
          "[passes][fuse_conv]") {
  for (DataType dt : {DataType::kFloat, DataType::kDouble}) {
    Scope root = Scope::NewRootScope();
    BuildChain(root, dt, /*two=*/true);
    REQUIRE(root.ok());
    std::vector<std::pair<std::string, Tensor>> feeds = {
        {"x:0", RandomTensor(dt, {2, 9, 9, 3}, 1)},
        {"w:0", RandomTensor(dt, {3, 3, 3, 4}, 2)},
        {"w2:0", RandomTensor(dt, {2, 2, 4, 4}, 3)},
        {"b:0", RandomTensor(dt, {4}, 4)}};
    auto run = [&](bool fuse, const std::vector<std::string>& fetches, RunMetadata* md) {
      SessionOptions opts;
      opts.default_passes = false;
      if (fuse) opts.passes = {"fuse_conv_bias_relu"};
      auto s = Session::Create(opts);
      REQUIRE(s.ok());
      REQUIRE((*s)->Extend(root.ToGraphDef()).ok());
      std::vector<Tensor> out;
      Status st = (*s)->Run(RunOptions(), feeds, fetches, {}, &out, md);
      INFO(st.ToString());
      REQUIRE(st.ok());
      return out;
    };
    RunMetadata fused_md, plain_md, partial_md;
    std::vector<Tensor> fused = run(true, {"out:0"}, &fused_md);
    std::vector<Tensor> plain = run(false, {"out:0"}, &plain_md);
    CHECK(TensorsEqual(fused[0], plain[0]));
    CHECK(fused_md.pass_reports ==
          std::vector<std::string>{"fuse_conv_bias_relu: 2 changes (fused 'conv', 'bias', "
                                   "'relu'; fused 'conv2', 'bias2', 'relu2')"});
    std::vector<Tensor> partial = run(true, {"out:0", "bias2:0"}, &partial_md);
    CHECK(TensorsEqual(partial[0], plain[0]));
    CHECK(partial_md.pass_reports ==
          std::vector<std::string>{"fuse_conv_bias_relu: 1 change (fused 'conv', 'bias', 'relu')"});
  }
}

// Runs one _FusedConv2D with `fused_ops` on the CPU through a Session (no passes).
Status RunFused(const std::vector<std::string>& fused_ops, const Tensor& bias) {
  Scope root = Scope::NewRootScope();
  for (const char* name : {"x", "w", "b"})
    ops::Placeholder(root.WithOpName(name), DataType::kFloat);
  NodeDef def;
  def.name = "fused";
  def.op = "_FusedConv2D";
  def.inputs = {"x", "w", "b"};
  def.attrs = {{"T", DataType::kFloat},
               {"strides", std::vector<int64_t>{1, 1, 1, 1}},
               {"padding", std::string("SAME")},
               {"fused_ops", fused_ops}};
  RETURN_IF_ERROR(root.graph()->AddNodeWithInputs(def).status());
  SessionOptions opts;
  opts.default_passes = false;
  ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::Create(opts));
  RETURN_IF_ERROR(s->Extend(root.ToGraphDef()));
  std::vector<Tensor> out;
  return s->Run({{"x:0", RandomTensor(DataType::kFloat, {1, 4, 4, 2}, 5)},
                 {"w:0", RandomTensor(DataType::kFloat, {3, 3, 2, 3}, 6)},
                 {"b:0", bias}},
                {"fused:0"}, {}, &out);
}

TEST_CASE("_FusedConv2D names a bias of the wrong size and unsupported fused_ops",
          "[passes][fuse_conv]") {
  Status bad_bias = RunFused({"BiasAdd", "Relu"}, RandomTensor(DataType::kFloat, {2}, 7));
  CHECK_THAT(bad_bias.message(),
             Catch::Contains("bias must be 1-D of the filter's out_depth 3, got shape [2]"));
  Status bad_ops = RunFused({"BiasAdd", "Tanh"}, RandomTensor(DataType::kFloat, {3}, 7));
  CHECK_THAT(bad_ops.message(), Catch::Contains("got [BiasAdd, Tanh]"));
  CHECK(RunFused({"BiasAdd"}, RandomTensor(DataType::kFloat, {3}, 7)).ok());
}

}  // namespace
}  // namespace fb
