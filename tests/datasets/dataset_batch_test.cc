// DatasetBatch (the input op, whitepaper 4.5) run through a Session: batch contents by hand,
// epoch coverage, seeded shuffling, shards, and errors naming the dataset.
#include <set>

#include <catch2/catch.hpp>

#include "datasets/dataset.h"
#include "datasets/dataset_client_ops.h"
#include "datasets/shuffle.h"
#include "datasets/synthetic.h"
#include "engine/client/state_ops.h"
#include "tests/engine/ops/array_test_util.h"
#include "tests/test_util.h"

namespace fb::datasets {
namespace {

// A dataset of N 1x1x1 images whose pixel is the example index and whose label is index % 3.
std::shared_ptr<const Dataset> IndexDataset(int64_t n) {
  auto d = std::make_shared<Dataset>();
  d->name = "index";
  d->num_classes = 3;
  d->images = Tensor(DataType::kFloat, TensorShape({n, 1, 1, 1}));
  d->labels = Tensor(DataType::kInt32, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) {
    d->images.data<float>()[i] = static_cast<float>(i);
    d->labels.data<int32_t>()[i] = static_cast<int32_t>(i % 3);
  }
  return d;
}

// Runs a DatasetBatch node on `attrs` for each step and returns the image values (= indices).
std::vector<std::vector<int64_t>> Batches(const ops::DatasetBatchAttrs& attrs, int64_t steps) {
  Scope root = Scope::NewRootScope();
  auto step = ops::Placeholder(root.WithOpName("step"), DataType::kInt64, TensorShape{});
  auto batch = ops::DatasetBatch(root.WithOpName("batch"), step, attrs);
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef());
  std::vector<std::vector<int64_t>> out;
  for (int64_t s = 0; s < steps; ++s) {
    auto t = test::RunOk(session.get(), {{"step:0", Tensor::Scalar<int64_t>(s)}},
                         {batch.images.name(), batch.labels.name()});
    std::vector<int64_t> rows;
    for (int64_t i = 0; i < t[0].NumElements(); ++i) {
      rows.push_back(static_cast<int64_t>(t[0].data<float>()[i]));
      CHECK(t[1].data<int32_t>()[i] == rows.back() % 3);  // labels travel with their images
    }
    out.push_back(rows);
  }
  return out;
}

ops::DatasetBatchAttrs IndexAttrs(const std::string& name, int64_t batch) {
  ops::DatasetBatchAttrs a;
  a.dataset = name;
  a.batch_size = batch;
  a.image_shape = {1, 1, 1};
  a.seed = 7;
  return a;
}

TEST_CASE("DatasetBatch without shuffle reads consecutive examples and drops the remainder",
          "[datasets]") {
  REQUIRE(DatasetRegistry::Global()->Register("test/index10", IndexDataset(10)).ok());
  auto a = IndexAttrs("test/index10", 4);
  a.shuffle = false;
  // 10 examples, batch 4: an epoch is 2 steps (examples 8, 9 dropped), then it starts over.
  auto b = Batches(a, 3);
  CHECK(b[0] == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(b[1] == std::vector<int64_t>{4, 5, 6, 7});
  CHECK(b[2] == std::vector<int64_t>{0, 1, 2, 3});
}

TEST_CASE("DatasetBatch shuffles each epoch by the (seed, epoch) permutation", "[datasets]") {
  REQUIRE(DatasetRegistry::Global()->Register("test/index12", IndexDataset(12)).ok());
  auto b = Batches(IndexAttrs("test/index12", 4), 6);  // two epochs of 3 steps
  const std::vector<int64_t> p0 = Permutation(12, 7, 0), p1 = Permutation(12, 7, 1);
  for (int s = 0; s < 6; ++s) {
    const auto& p = s < 3 ? p0 : p1;
    CHECK(b[s] == std::vector<int64_t>(p.begin() + (s % 3) * 4, p.begin() + (s % 3) * 4 + 4));
  }
  std::set<int64_t> epoch0;
  for (int s = 0; s < 3; ++s) epoch0.insert(b[s].begin(), b[s].end());
  CHECK(epoch0.size() == 12);  // every example exactly once per epoch
  CHECK(p0 != p1);
  CHECK(p0 != Permutation(12, 8, 0));  // another seed, another order
  // A fresh session (a restarted run) at step 4 reads what the first one read.
  CHECK(Batches(IndexAttrs("test/index12", 4), 6) == b);
}

TEST_CASE("DatasetBatch shards split each global batch into disjoint slices", "[datasets]") {
  REQUIRE(DatasetRegistry::Global()->Register("test/index16", IndexDataset(16)).ok());
  auto a = IndexAttrs("test/index16", 2);
  a.num_shards = 2;
  auto whole = IndexAttrs("test/index16", 4);
  auto all = Batches(whole, 1)[0];
  a.shard_index = 0;
  auto s0 = Batches(a, 1)[0];
  a.shard_index = 1;
  auto s1 = Batches(a, 1)[0];
  CHECK(s0 == std::vector<int64_t>(all.begin(), all.begin() + 2));
  CHECK(s1 == std::vector<int64_t>(all.begin() + 2, all.end()));
}

TEST_CASE("DatasetBatch errors name the dataset and the node", "[datasets]") {
  Scope root = Scope::NewRootScope();
  auto step = ops::Const(root.WithOpName("step"), int64_t{0});
  auto missing = ops::DatasetBatch(root.WithOpName("missing"), step, IndexAttrs("test/nope", 2));
  REQUIRE(DatasetRegistry::Global()->Register("test/index3", IndexDataset(3)).ok());
  auto a = IndexAttrs("test/index3", 2);
  a.image_shape = {28, 28, 1};
  auto wrong_shape = ops::DatasetBatch(root.WithOpName("wrong_shape"), step, a);
  auto too_big = ops::DatasetBatch(root.WithOpName("too_big"), step, IndexAttrs("test/index3", 4));
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef());
  std::vector<Tensor> out;
  Status s = session->Run({}, {missing.images.name()}, {}, &out);
  CHECK(s.code() == Code::kNotFound);
  CHECK_THAT(s.message(), Catch::Contains("missing") && Catch::Contains("dataset 'test/nope' is not registered"));
  s = session->Run({}, {wrong_shape.images.name()}, {}, &out);
  CHECK_THAT(s.message(), Catch::Contains("dataset 'test/index3' has images of shape [1,1,1], attr "
                                          "image_shape is [28,28,1]"));
  s = session->Run({}, {too_big.images.name()}, {}, &out);
  CHECK_THAT(s.message(), Catch::Contains("dataset 'test/index3' has 3 examples, fewer than one "
                                          "step needs (batch_size 4 x num_shards 1)"));
}

TEST_CASE("DatasetBatch shapes: [batch, image_shape] and [batch], bad attrs fail", "[datasets]") {
  AttrMap attrs = {{"dataset", "x"}, {"batch_size", int64_t{5}},
                   {"image_shape", std::vector<int64_t>{28, 28, 1}}};
  auto shapes = test::InferShapes("DatasetBatch", attrs, {TensorShape{}});
  REQUIRE(shapes.ok());
  CHECK(PartialShapeString((*shapes)[0]) == "[5,28,28,1]");
  CHECK(PartialShapeString((*shapes)[1]) == "[5]");
  attrs["num_shards"] = int64_t{2};
  attrs["shard_index"] = int64_t{2};
  CHECK(test::InferShapes("DatasetBatch", attrs, {TensorShape{}}).status().message() ==
        "DatasetBatch 'n': shard_index 2 out of range for num_shards 2");
  // The kernel checks the same when the graph is run.
  Scope root = Scope::NewRootScope();
  auto a = IndexAttrs("x", 2);
  a.num_shards = 2;
  a.shard_index = 2;
  auto batch = ops::DatasetBatch(root.WithOpName("b"), ops::Const(root, int64_t{0}), a);
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef());
  std::vector<Tensor> out;
  CHECK_THAT(session->Run({}, {batch.images.name()}, {}, &out).message(),
             Catch::Contains("shard_index 2 out of range for num_shards 2"));
}

TEST_CASE("Synthetic datasets are reproducible, in range and learnable", "[datasets]") {
  SyntheticOptions o;
  o.num_examples = 50;
  o.image_shape = {4, 3, 2};
  o.num_classes = 5;
  auto a = MakeSyntheticDataset(o), b = MakeSyntheticDataset(o);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK((*a)->images.shape() == TensorShape({50, 4, 3, 2}));
  CHECK((*a)->Validate().ok());
  CHECK(test::Values<float>((*a)->images) == test::Values<float>((*b)->images));
  CHECK(test::Values<int32_t>((*a)->labels) == test::Values<int32_t>((*b)->labels));
  for (float v : test::Values<float>((*a)->images)) {
    CHECK(v >= 0.0f);
    CHECK(v < 1.0f);
  }
  o.image_shape = {4, 3};
  CHECK(MakeSyntheticDataset(o).status().message() ==
        "synthetic dataset: image_shape must be [rows, cols, channels], got 2 dimensions");
}

// benchmark --batch-size 65536 of 224x224x3 images threw std::bad_alloc out of the command.
TEST_CASE("A synthetic dataset larger than memory is ResourceExhausted, not an abort",
          "[datasets]") {
  SyntheticOptions o;
  o.num_examples = int64_t{1} << 40;  // 4 TiB of floats: more than any machine's memory here
  o.image_shape = {1, 1, 1};
  o.num_classes = 2;
  const Status s = MakeSyntheticDataset(o).status();
  CHECK(s.code() == Code::kResourceExhausted);
  CHECK_THAT(s.message(), Catch::StartsWith("synthetic dataset of 1099511627776 examples: OOM"));
  o.num_examples = int64_t{1} << 62;  // the byte size overflows
  o.image_shape = {224, 224, 3};
  CHECK(MakeSyntheticDataset(o).status().code() == Code::kInvalidArgument);
}

}  // namespace
}  // namespace fb::datasets
