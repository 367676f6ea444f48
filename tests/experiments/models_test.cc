#include "experiments/models/models.h"

#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "datasets/synthetic.h"
#include "tests/test_util.h"

namespace fb::experiments {
namespace {

ModelOptions SmallOptions() {
  ModelOptions o;
  o.image_shape = {12, 12, 1};  // LeNet: 12 -> pool 6 -> VALID conv 2 -> pool 1
  o.hidden_units = {16};
  o.num_classes = 4;
  o.batch_size = 8;
  return o;
}

std::unique_ptr<Session> Start(const Model& m) {
  auto s = test::MakeSession(m.scope.ToGraphDef());
  test::RunOk(s.get(), {}, {}, {m.init});
  return s;
}

// A deterministic batch of `n` images of `shape` and labels cycling through `classes`.
std::vector<Session::NamedTensor> Batch(const Model& m, int64_t n, std::vector<int64_t> shape,
                                        int classes) {
  shape.insert(shape.begin(), n);
  Tensor x(DataType::kFloat, TensorShape(shape));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = std::sin(0.1f * i);
  Tensor y(DataType::kInt32, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) y.data<int32_t>()[i] = static_cast<int32_t>(i % classes);
  return {{m.images, x}, {m.labels, y}};
}

TEST_CASE("Model registry lists mlp and lenet and rejects unknown names", "[train]") {
  const std::vector<std::string> names = ModelNames();
  CHECK(std::is_sorted(names.begin(), names.end()));
  for (const char* name : {"lenet", "mlp"})
    CHECK(std::find(names.begin(), names.end(), name) != names.end());
  auto m = BuildModel("resnet", {});
  CHECK(m.status().code() == Code::kNotFound);
  // Other registered models (resnet50, ...) appear in the list too.
  CHECK_THAT(m.status().message(), Catch::StartsWith("unknown model 'resnet' (known: ") &&
                                       Catch::Contains("lenet, mlp") && Catch::EndsWith(")"));
  ModelOptions o;
  o.optimizer = "rmsprop";
  CHECK(BuildModel("mlp", o).status().message() ==
        "unknown optimizer 'rmsprop' (expected sgd, momentum or adam)");
}

TEST_CASE("MLP is 784-256-10 by default with He/Glorot uniform weights and zero biases",
          "[train]") {
  auto m = BuildModel("mlp", {});
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  REQUIRE(m->variables.size() == 4);
  CHECK(m->variables[0].name == "hidden1/weights");
  CHECK(m->variables[0].shape == TensorShape({784, 256}));
  CHECK(m->variables[3].name == "logits/biases");
  CHECK(m->variables[3].shape == TensorShape({10}));
  CHECK(m->gradients.size() == 4);
  auto s = Start(*m);
  auto v = test::RunOk(s.get(), {}, {"hidden1/weights:0", "hidden1/biases:0", "logits/weights:0"});
  // U(-a, a) has variance a^2 / 3: He a = sqrt(6/784), Glorot a = sqrt(6/(256+10)).
  auto check_uniform = [](const Tensor& w, double a) {
    double sum = 0, sq = 0, max_abs = 0;
    for (float x : test::Values<float>(w)) {
      sum += x;
      sq += double(x) * x;
      max_abs = std::max(max_abs, std::abs(double(x)));
    }
    const double n = w.NumElements();
    CHECK(max_abs <= a);
    CHECK(max_abs > 0.99 * a);
    CHECK(std::abs(sum / n) < 0.05 * a);
    CHECK(sq / n == Approx(a * a / 3).epsilon(0.05));
  };
  check_uniform(v[0], std::sqrt(6.0 / 784));
  check_uniform(v[2], std::sqrt(6.0 / 266));
  CHECK(test::Values<float>(v[1]) == std::vector<float>(256, 0.0f));
}

TEST_CASE("LeNet-5 maps [N,28,28,1] images to [N,10] logits with the layer shapes of issue 3",
          "[train]") {
  auto m = BuildModel("lenet", {});
  REQUIRE(m.ok());
  std::vector<std::pair<std::string, TensorShape>> want = {
      {"conv1/weights", {5, 5, 1, 6}}, {"conv1/biases", {6}},   {"conv2/weights", {5, 5, 6, 16}},
      {"conv2/biases", {16}},          {"fc1/weights", {400, 120}}, {"fc1/biases", {120}},
      {"fc2/weights", {120, 84}},      {"fc2/biases", {84}},    {"logits/weights", {84, 10}},
      {"logits/biases", {10}}};
  REQUIRE(m->variables.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(m->variables[i].name == want[i].first);
    CHECK(m->variables[i].shape == want[i].second);
  }
  auto s = Start(*m);
  auto out = test::RunOk(s.get(), Batch(*m, 3, {28, 28, 1}, 10), {m->logits, m->loss, m->accuracy});
  CHECK(out[0].shape() == TensorShape({3, 10}));
  CHECK(out[1].shape() == TensorShape({}));
  // By hand from the logits: loss = mean(logsumexp(logits) - logits[label]), labels 0, 1, 2;
  // accuracy = fraction of rows whose argmax is the label.
  double loss = 0, correct = 0;
  for (int i = 0; i < 3; ++i) {
    const float* l = out[0].data<float>() + 10 * i;
    double max = *std::max_element(l, l + 10), sum = 0;
    for (int c = 0; c < 10; ++c) sum += std::exp(l[c] - max);
    loss += (max + std::log(sum) - l[i]) / 3;
    correct += std::max_element(l, l + 10) - l == i;
  }
  CHECK(out[1].scalar<float>() == Approx(loss).epsilon(1e-5));
  CHECK(out[2].scalar<float>() == Approx(correct / 3));
}

TEST_CASE("Applying fed gradients equals the train op (synchronous data parallelism)",
          "[train]") {
  for (std::string optimizer : {"sgd", "momentum", "adam"}) {
    INFO(optimizer);
    ModelOptions o = SmallOptions();
    o.optimizer = optimizer;
    o.learning_rate = 0.05;
    auto direct = BuildModel("lenet", o);
    o.mode = TrainMode::kApplyFedGradients;
    auto fed = BuildModel("lenet", o);
    REQUIRE(direct.ok());
    REQUIRE(fed.ok());
    REQUIRE(fed->gradient_feeds.size() == fed->variables.size());
    auto sd = Start(*direct), sf = Start(*fed);
    for (int step = 0; step < 2; ++step) {
      auto batch = Batch(*direct, 8, o.image_shape, 4);
      test::RunOk(sd.get(), batch, {}, {direct->train_op});
      auto grads = test::RunOk(sf.get(), batch, fed->gradients);
      std::vector<Session::NamedTensor> feeds;
      for (size_t i = 0; i < grads.size(); ++i) feeds.push_back({fed->gradient_feeds[i], grads[i]});
      test::RunOk(sf.get(), feeds, {}, {fed->train_op});
    }
    std::vector<std::string> names;
    for (const auto& v : direct->variables) names.push_back(v.name + ":0");
    names.push_back(direct->step + ":0");
    auto a = test::RunOk(sd.get(), {}, names), b = test::RunOk(sf.get(), {}, names);
    for (size_t i = 0; i + 1 < a.size(); ++i) test::ExpectClose(a[i], b[i], 1e-6, 1e-7);
    CHECK(a.back().scalar<int64_t>() == 2);
    CHECK(b.back().scalar<int64_t>() == 2);
  }
}

TEST_CASE("Models train through the input op: the loss falls on learnable synthetic data",
          "[train]") {
  datasets::SyntheticOptions so;
  so.num_examples = 256;
  so.image_shape = {12, 12, 1};
  so.num_classes = 4;
  REQUIRE(datasets::DatasetRegistry::Global()
              ->Register("test/models-synthetic", *datasets::MakeSyntheticDataset(so))
              .ok());
  for (std::string name : {"mlp", "lenet"}) {
    INFO(name);
    ModelOptions o = SmallOptions();
    o.dataset = "test/models-synthetic";
    o.learning_rate = 0.01;
    auto m = BuildModel(name, o);
    REQUIRE(m.ok());
    auto s = Start(*m);
    double first = 0, last = 0;
    for (int step = 0; step < 64; ++step) {
      auto out = test::RunOk(s.get(), {}, {m->loss}, {m->train_op});
      (step < 8 ? first : last) += step < 8 || step >= 56 ? out[0].scalar<float>() : 0;
    }
    CHECK(last < 0.5 * first);
    CHECK(test::RunOk(s.get(), {}, {m->step + ":0"})[0].scalar<int64_t>() == 64);
  }
}

}  // namespace
}  // namespace fb::experiments

TEST_CASE("Model defaults come from the registration and unknown names are NotFound", "[train]") {
  auto lenet = fb::experiments::LookupDefaults("lenet");
  REQUIRE(lenet.ok());
  CHECK(lenet->image_shape == std::vector<int64_t>{28, 28, 1});
  CHECK(lenet->num_classes == 10);
  fb::experiments::ModelOptions o;
  o.image_shape = {5, 5, 5};
  auto with = fb::experiments::WithModelDefaults("lenet", o);
  REQUIRE(with.ok());
  CHECK(with->image_shape == std::vector<int64_t>{28, 28, 1});
  auto unknown = fb::experiments::LookupDefaults("no_such_model");
  REQUIRE(unknown.status().code() == fb::Code::kNotFound);
  CHECK_THAT(unknown.status().message(), Catch::Contains("no_such_model"));
}
