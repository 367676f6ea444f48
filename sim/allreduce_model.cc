#include "sim/allreduce_model.h"

#include <algorithm>

namespace fb::sim {

Status ParseAllreduceAlgorithm(const std::string& text, AllreduceChoice* choice) {
  if (text == "libnbc" || text == "auto") {
    choice->rule = AllreduceRule::kLibnbc;
  } else if (text == "tuned") {
    choice->rule = AllreduceRule::kTuned;
  } else if (text == "ring") {
    choice->rule = AllreduceRule::kForced;
    choice->forced = AllreduceAlgorithm::kRing;
  } else if (text == "recursive-doubling") {
    choice->rule = AllreduceRule::kForced;
    choice->forced = AllreduceAlgorithm::kRecursiveDoubling;
  } else if (text == "binomial") {
    choice->rule = AllreduceRule::kForced;
    choice->forced = AllreduceAlgorithm::kBinomial;
  } else {
    return InvalidArgument(
        "--allreduce-algorithm must be libnbc, tuned, ring, "
        "recursive-doubling or binomial, got '",
        text, "'");
  }
  return Status::OK();
}

const char* AllreduceAlgorithmName(AllreduceAlgorithm a) {
  switch (a) {
    case AllreduceAlgorithm::kRing:
      return "ring";
    case AllreduceAlgorithm::kRecursiveDoubling:
      return "recursive-doubling";
    case AllreduceAlgorithm::kBinomial:
      return "binomial";
  }
  return "?";
}

namespace {

// Largest power of two <= p (opal_next_poweroftwo(p) >> 1 in Open MPI).
int PowerOfTwoBelow(int p) {
  int k = 1;
  while (k * 2 <= p) k *= 2;
  return k;
}

}  // namespace

AllreduceAlgorithm SelectAllreduce(const AllreduceChoice& choice, int64_t bytes,
                                   int64_t element_bytes, int ranks) {
  const int64_t count = element_bytes > 0 ? bytes / element_bytes : bytes;
  switch (choice.rule) {
    case AllreduceRule::kForced:
      return choice.forced;
    case AllreduceRule::kLibnbc:  // nbc_iallreduce.c, nbc_allreduce_init
      if (ranks < 4 || bytes < 65536 || choice.in_place) return AllreduceAlgorithm::kBinomial;
      return AllreduceAlgorithm::kRing;  // Rabenseifner (count >= p') or ring: same volume
    case AllreduceRule::kTuned:          // coll_tuned_decision_fixed.c (Open MPI <= 3.x)
      if (bytes < 10000) return AllreduceAlgorithm::kRecursiveDoubling;
      if (count > ranks) return AllreduceAlgorithm::kRing;
      return AllreduceAlgorithm::kBinomial;  // reduce + broadcast ("nonoverlapping")
  }
  return AllreduceAlgorithm::kRing;
}

namespace {

int64_t Chunk(int64_t bytes, int ranks, int i) {
  const int64_t base = bytes / ranks, extra = bytes % ranks;
  return base + (i < extra ? 1 : 0);
}

std::vector<AllreduceRound> Ring(int rank, int p, int64_t bytes) {
  std::vector<AllreduceRound> out;
  const int next = (rank + 1) % p, prev = (rank + p - 1) % p;
  for (int k = 0; k < 2 * (p - 1); ++k) {
    const bool scatter = k < p - 1;
    const int j = scatter ? k : k - (p - 1);
    // Reduce-scatter round j sends chunk (rank - j) and receives chunk (rank - j - 1); the
    // allgather sends the chunk completed in the previous round, (rank + 1 - j).
    const int send_chunk = ((scatter ? rank - j : rank + 1 - j) % p + p) % p;
    const int recv_chunk = ((scatter ? rank - j - 1 : rank - j) % p + p) % p;
    AllreduceRound r;
    r.sends.push_back({next, Chunk(bytes, p, send_chunk)});
    r.recvs.push_back({prev, Chunk(bytes, p, recv_chunk)});
    if (scatter) r.reduce_bytes = Chunk(bytes, p, recv_chunk);
    out.push_back(r);
  }
  return out;
}

std::vector<AllreduceRound> RecursiveDoubling(int rank, int p, int64_t n) {
  std::vector<AllreduceRound> out;
  const int pof2 = PowerOfTwoBelow(p), rem = p - pof2;
  int vrank = rank - rem;
  if (rank < 2 * rem) {
    AllreduceRound fold;
    if (rank % 2 == 0) {
      fold.sends.push_back({rank + 1, n});
      vrank = -1;
    } else {
      fold.recvs.push_back({rank - 1, n});
      fold.reduce_bytes = n;
      vrank = rank / 2;
    }
    out.push_back(fold);
  }
  if (vrank >= 0) {
    for (int d = 1; d < pof2; d <<= 1) {
      const int vpeer = vrank ^ d;
      const int peer = vpeer < rem ? vpeer * 2 + 1 : vpeer + rem;
      AllreduceRound r;
      r.sends.push_back({peer, n});
      r.recvs.push_back({peer, n});
      r.reduce_bytes = n;
      out.push_back(r);
    }
  }
  if (rank < 2 * rem) {
    AllreduceRound unfold;
    if (rank % 2 == 0) {
      unfold.recvs.push_back({rank + 1, n});
    } else {
      unfold.sends.push_back({rank - 1, n});
    }
    out.push_back(unfold);
  }
  return out;
}

// libnbc's allred_sched_diss with root 0 (vrank == rank).
std::vector<AllreduceRound> Binomial(int rank, int p, int64_t n) {
  std::vector<AllreduceRound> out;
  int maxr = 0;
  while ((1 << maxr) < p) ++maxr;
  for (int r = 1; r <= maxr; ++r) {
    AllreduceRound round;
    if (rank % (1 << r) == 0) {
      const int peer = rank + (1 << (r - 1));
      if (peer >= p) continue;
      round.recvs.push_back({peer, n});
      round.reduce_bytes = n;
      out.push_back(round);
    } else {
      round.sends.push_back({rank - (1 << (r - 1)), n});
      out.push_back(round);
      break;
    }
  }
  if (rank != 0) {
    for (int r = 0; r < maxr; ++r)
      if (rank >= (1 << r) && rank < (1 << (r + 1))) {
        AllreduceRound recv;
        recv.recvs.push_back({rank - (1 << r), n});
        out.push_back(recv);
      }
  }
  AllreduceRound bcast;
  for (int r = 0; r < maxr; ++r)
    if ((rank + (1 << r) < p && rank < (1 << r)) || rank == 0)
      bcast.sends.push_back({rank + (1 << r), n});
  if (!bcast.sends.empty()) out.push_back(bcast);
  return out;
}

}  // namespace

std::vector<AllreduceRound> AllreduceSchedule(AllreduceAlgorithm a, int rank, int ranks,
                                              int64_t bytes) {
  if (ranks <= 1) return {};
  switch (a) {
    case AllreduceAlgorithm::kRing:
      return Ring(rank, ranks, bytes);
    case AllreduceAlgorithm::kRecursiveDoubling:
      return RecursiveDoubling(rank, ranks, bytes);
    case AllreduceAlgorithm::kBinomial:
      return Binomial(rank, ranks, bytes);
  }
  return {};
}

}  // namespace fb::sim
