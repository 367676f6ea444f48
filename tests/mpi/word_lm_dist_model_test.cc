// The word LSTM language model as a dist-train model (mpi/word_lm_dist_model.h): its synthetic
// token feeds (names, shapes, range, the shift between ids and labels, determinism, the
// log-uniform frequencies) and its errors. No communication: every rank checks the same.
#include "mpi/word_lm_dist_model.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "mpi/dist_model.h"

namespace fb::mpi {
namespace {

const int32_t* Ints(const Feeds& f, size_t i) { return f.at(i).second.data<int32_t>(); }

TEST_CASE("Word LM feeds are shifted token streams named per replica", "[mpi][word_lm]") {
  WordLmDistOptions o;
  o.vocab_size = 50;
  o.num_steps = 6;
  o.batch_size = 3;
  auto model = MakeDistModel("lstm_lm_word", 0, 7, 1, o);
  REQUIRE(model.ok());
  Feeds f = (*model)->ReplicaFeeds(1, 4, 2, 3, 3);
  REQUIRE(f.size() == 2);
  CHECK(f[0].first == "replica_1/input/images");
  CHECK(f[1].first == "replica_1/input/labels");
  CHECK(f[0].second.shape() == TensorShape({3, 6}));
  CHECK(f[1].second.shape() == TensorShape({3, 6}));
  for (int64_t b = 0; b < 3; ++b) {
    for (int64_t t = 0; t < 6; ++t) {
      CHECK(Ints(f, 0)[b * 6 + t] >= 0);
      CHECK(Ints(f, 0)[b * 6 + t] < 50);
      if (t + 1 < 6) CHECK(Ints(f, 1)[b * 6 + t] == Ints(f, 0)[b * 6 + t + 1]);
    }
  }
  // The same (step, shard) gives the same tokens; another shard or step others.
  Feeds again = (*model)->ReplicaFeeds(0, 4, 2, 3, 3);
  Feeds other_shard = (*model)->ReplicaFeeds(1, 4, 1, 3, 3);
  Feeds other_step = (*model)->ReplicaFeeds(1, 5, 2, 3, 3);
  int same = 0, differ_shard = 0, differ_step = 0;
  for (int i = 0; i < 18; ++i) {
    same += Ints(again, 0)[i] == Ints(f, 0)[i];
    differ_shard += Ints(other_shard, 0)[i] != Ints(f, 0)[i];
    differ_step += Ints(other_step, 0)[i] != Ints(f, 0)[i];
  }
  CHECK(same == 18);
  CHECK(differ_shard > 0);
  CHECK(differ_step > 0);
}

TEST_CASE("Word LM tokens follow the log-uniform distribution", "[mpi][word_lm]") {
  WordLmDistOptions o;
  o.vocab_size = 1000;
  o.num_steps = 100;
  o.batch_size = 100;
  auto model = MakeDistModel("lstm_lm_word_sampled", 0, 1, 1, o);
  REQUIRE(model.ok());
  Feeds f = (*model)->ReplicaFeeds(0, 0, 0, 1, 100);
  int zeros = 0, below_ten = 0;
  for (int i = 0; i < 10000; ++i) {
    zeros += Ints(f, 0)[i] == 0;
    below_ten += Ints(f, 0)[i] < 10;
  }
  // P(0) = log 2 / log 1001 = 0.100, P(k < 10) = log 11 / log 1001 = 0.347 (10,000 draws: the
  // standard deviations are 0.003 and 0.005).
  CHECK(zeros / 1e4 == Approx(std::log(2.0) / std::log(1001.0)).margin(0.02));
  CHECK(below_ten / 1e4 == Approx(std::log(11.0) / std::log(1001.0)).margin(0.025));
}

TEST_CASE("Word LM dist models name what is wrong", "[mpi][word_lm]") {
  WordLmDistOptions o;
  o.vocab_size = 1;
  auto tiny = MakeDistModel("lstm_lm_word", 0, 1, 1, o);
  REQUIRE_FALSE(tiny.ok());
  CHECK_THAT(tiny.status().message(), Catch::Contains("word_lm.vocab_size must be in [2,"));
  CHECK_THAT(tiny.status().message(), Catch::Contains("got 1"));
  auto unknown = MakeWordLmDistModel("lstm_lm_char", WordLmDistOptions{}, 1);
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.status().message(), Catch::Contains("'lstm_lm_char' is not a word language model"));
  auto listed = MakeDistModel("resnet", 0, 1);
  REQUIRE_FALSE(listed.ok());
  CHECK_THAT(listed.status().message(), Catch::Contains("lstm_lm_word_sampled"));
}

}  // namespace
}  // namespace fb::mpi
