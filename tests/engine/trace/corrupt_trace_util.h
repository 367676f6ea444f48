#pragma once
// Helpers for the corrupt-trace tests: a small real trace of each schema version and seeded
// byte-level mutations of a file.
#include <cstdint>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "engine/trace/trace_reader.h"
#include "engine/trace/trace_writer.h"

namespace fb::test {

// A small version-2 trace written by TraceWriter: two steps of four events on two devices, a
// metric, every attribute set.
inline std::string WriteSmallTraceV2(const std::string& path) {
  TraceMetadata m;
  m.seed = 7;
  m.git_revision = "abc123";
  m.command_line = "flowbench train --trace t.h5";
  m.host = "node17";
  m.config_json = R"({"model": "mlp", "batch": 4})";
  auto w = TraceWriter::Create(path, m);
  REQUIRE(w.ok());
  const char* cpu = "/job:localhost/replica:0/task:0/device:CPU:0";
  const char* gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
  for (int64_t step = 0; step < 2; ++step) {
    const int64_t t = 1000 * step;
    StepTotals totals;
    totals.loss = 2.0 - step;
    totals.peak_bytes = {{cpu, 4096}};
    REQUIRE((*w)->AddStep(step,
                          {{"x", "Const", cpu, 11, t, t + 100, 64, 0},
                           {"send", "_Send", cpu, 12, t + 100, t + 300, 0, 0, gpu, 64},
                           {"recv", "_Recv", gpu, 1, t + 150, t + 350, 64, 0, cpu, 64},
                           {"mm", "MatMul", gpu, 1, t + 350, t + 900, 256, 0}},
                          totals)
                .ok());
    REQUIRE((*w)->AddMetric(step, "loss", 2.0 - step).ok());
  }
  REQUIRE((*w)->Close().ok());
  return path;
}

// Rewrites a version-2 trace in the layout of version 1: /strings and the six text attributes
// as variable-length strings (stored in libhdf5's global heap), schema_version 1. The same
// library calls version 1's writer made.
inline void DowngradeToV1(const std::string& path) {
  TraceReadOptions in_process;
  in_process.isolate = false;
  auto t = TraceReader::Open(path, in_process);
  REQUIRE(t.ok());
  h5::Hdf5Guard guard;
  h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  REQUIRE(f.valid());
  const hid_t root = f.get();
  REQUIRE(H5Ldelete(root, "strings", H5P_DEFAULT) >= 0);
  REQUIRE(h5::WriteAttr(root, "schema_version", int64_t{1}, path).ok());
  const TraceMetadata& m = t->metadata;
  REQUIRE(h5::WriteAttr(root, "mode", std::string(TraceModeName(m.mode)), path).ok());
  REQUIRE(h5::WriteAttr(root, "clock", t->clock, path).ok());
  REQUIRE(h5::WriteAttr(root, "git_revision", m.git_revision, path).ok());
  REQUIRE(h5::WriteAttr(root, "command_line", m.command_line, path).ok());
  REQUIRE(h5::WriteAttr(root, "host", m.host, path).ok());
  REQUIRE(h5::WriteAttr(root, "config", m.config_json, path).ok());
  REQUIRE(h5::WriteStrings(root, "strings", t->strings, path).ok());
}

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Mutation `i` of `bytes`, deterministic in (seed, i): a third flip 1 to 4 bytes at random
// offsets, a third truncate at a random length, a third zero a range of 1 to 64 bytes.
inline std::string Mutate(std::string bytes, uint64_t seed, uint64_t i) {
  std::mt19937_64 rng(seed * 1000003 + i);
  auto below = [&](uint64_t n) { return static_cast<size_t>(rng() % n); };
  switch (i % 3) {
    case 0:
      for (size_t k = 0, n = 1 + below(4); k < n; ++k)
        bytes[below(bytes.size())] ^= static_cast<char>(1 + below(255));
      break;
    case 1: bytes.resize(below(bytes.size())); break;
    default: {
      const size_t at = below(bytes.size()), n = std::min(bytes.size() - at, 1 + below(64));
      std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), n, '\0');
    }
  }
  return bytes;
}

}  // namespace fb::test
