#pragma once
// Range checks for the numeric flags of every `flowbench` subcommand. CLI11 converts "nan",
// "inf" and "1e400" (to inf) into a double without complaint, and any int into a count that
// crashes later (`--batch 0` divides by zero, `--threads 100000` exhausts the process): every
// numeric option carries one of these validators, and CheckNumericFlags (run by main) refuses
// to start a binary where one lacks it. A failed check is reported by CLI11 as
// "--flag: must be ..., got 'VALUE'" with exit status 105 (CLI11's ValidationError).
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace fb::apps {

// Bounds shared by the subcommands (docs: README "Command line"). Counts above these are
// refused before any work starts.
inline constexpr int64_t kMaxThreads = 256;         // --threads, --blas-threads
inline constexpr int64_t kMaxBatchSize = 1 << 16;   // --batch-size
inline constexpr int64_t kMaxSteps = 1'000'000'000;  // --steps, --checkpoint-every, ...
inline constexpr int64_t kMaxSimSteps = 1'000'000;  // sim --steps, --concurrent-steps
inline constexpr int64_t kMaxEpochs = 100'000;      // --epochs
inline constexpr int64_t kMaxUnits = 1 << 16;       // --hidden, --features
inline constexpr int64_t kMaxSeqLen = 1 << 16;      // --seq-len
inline constexpr int64_t kMaxTasks = 4096;          // --replicas, --ps, --backups, devices
inline constexpr double kMaxLearningRate = 1e3;     // --lr
inline constexpr int64_t kMaxGpus = 64;             // --devices gpu:N

// The name both validators carry (CheckNumericFlags looks for it).
inline constexpr const char* kNumberCheckName = "flowbench-number";

// A floating-point value that is finite and in [lo, hi]: refuses "nan", "inf", "1e400" and
// text that is not a number.
CLI::Validator FiniteRange(double lo, double hi);
// An integer in [lo, hi] (decimal, no fraction or exponent).
CLI::Validator IntRange(int64_t lo, int64_t hi);
// An integer in [1, max]: a count of things that must exist (batch size, threads, steps).
inline CLI::Validator PositiveCount(int64_t max) { return IntRange(1, max); }

// `--devices` of the commands that run on local devices (train, benchmark): "cpu:N" with N in
// [1, kMaxThreads] (each device gets at least one thread) or "gpu:N" with N in [1, kMaxGpus]
// (whether N GPUs are visible is checked when the run starts: engine/runtime/local_devices.h).
CLI::Validator DevicesCheck();

// `--passes` (a comma-delimited option: applied to each name): a graph pass registered in
// GraphPassRegistry (engine/passes/graph_pass.h); the error lists the registered ones.
CLI::Validator GraphPassCheck();

// --model (benchmark), --models (profile, each name): a registered model (the message lists
// them), so that an unknown name stops the command before it measures anything.
CLI::Validator ModelCheck();

// A file the command writes (--trace, --metrics-json, profile --out, ...), checked before any
// work starts so that a long run does not end in "cannot write": refuses an empty name, an
// existing directory, and a path whose nearest existing ancestor is not a writable directory
// (missing directories below it are created by the command, as CreateParentDirectories does).
CLI::Validator OutputFileCheck();

// Every option of `app` and its subcommands whose type is a number (CLI11 type FLOAT, INT or
// UINT) must carry FiniteRange or IntRange. Returns "" or the first offender ("train --lr").
std::string UncheckedNumericFlag(CLI::App* app);

}  // namespace fb::apps
