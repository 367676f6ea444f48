#pragma once
// Generated platforms whose devices share one machine's cores (sim/core_sharing.h): the XML of
// the machine host and of the device properties, used by MpiNodeXml, EmulatedClusterXml and
// LocalCpuDevicesXml, and the core count of this machine.
#include <map>
#include <string>

#include "engine/framework/status.h"

namespace fb::sim {

// How the devices of a generated platform share one machine's cores: `cores` > 0 cores (0: no
// sharing, every device has a whole CPU), each execution of a device on up to `exec_threads` of
// them (the device's threads: `flowbench train --threads T --devices cpu:N` gives each device
// max(1, T / N); dist-train ranks and emulated hosts run with --threads), and, when
// `wait_core_weight` > 0, a waiting device polling with that weight (sim/core_sharing.h).
struct SharedCores {
  int cores = 0;
  int exec_threads = 1;
  double wait_core_weight = 0;
};

// The weight of a waiting MPI rank of flowbench's runtime in the sharing of this machine's cores
// (sim/core_sharing.h, wait_core_weight), against 1 for a computing thread: what `flowbench
// sim-platform mpi-node|emulated` writes unless --wait-core-weight says otherwise. Measured on
// this 2-core machine (Linux 6.18, Open MPI 4.1.4, 2026-11-26, load average 5.9-14.6) with
// analysis/mpi_rank_cpu.py (each thread's exact scheduler runtime): in `mpirun -np 4 flowbench
// dist-train --mode sync` (1 ps, 3 workers) the parameter server, which waits for most of each
// step (its main thread polling in DriveUntil), took 0.54, 1.05, 1.17, 1.35 and 1.9 times the
// CPU of a worker's computing thread in five runs (median 1.17; an upper bound, as a worker also
// waits for part of its step): 1, one polling thread taking a contested core like a computing
// one (docs/simulator.md, "Shared cores: waiting ranks").
inline constexpr double kMpiWaitCoreWeight = 1.0;
// The largest wait_core_weight: a rank polling with as many threads.
inline constexpr double kMaxWaitCoreWeight = 8;

// Host id of the machine whose cores the devices of a generated platform share.
inline constexpr const char* kSharedMachineHost = "machine";
inline constexpr int kMaxSharedCores = 4096;

// `<host id="machine" speed="FLOPS f" core="cores">` with device_type "none": the cores the
// devices share, each of `flops_per_core` (only their count matters to the replay: a device's
// execution is scaled to its own speed, sim/core_sharing.h).
std::string SharedMachineHostXml(double flops_per_core, int cores, const std::string& indent);

// The properties `shares_cores_with` (kSharedMachineHost), `exec_threads` and (when > 0)
// `wait_core_weight` of a device that shares the machine's cores, one <prop> per line with
// `indent`.
std::string SharesCoresPropsXml(const SharedCores& sharing, const std::string& indent);

// InvalidArgument naming `what` unless sharing.cores is in [0, kMaxSharedCores],
// sharing.exec_threads in [1, kMaxSharedCores] and sharing.wait_core_weight in [0,
// kMaxWaitCoreWeight].
Status CheckSharedCores(const SharedCores& sharing, const std::string& what);

// This machine's online cores (std::thread::hardware_concurrency, at least 1): the default of
// `flowbench sim-platform --cores`.
int MachineCores();

// `devices` CPU devices of one process on this machine (`flowbench train --devices cpu:N`):
// hosts cpu0.. of speed `flops_per_s` with the host properties `props` (those of a calibrated
// one-device platform such as sim/platforms/this_machine.xml: memory bandwidth, launch overhead,
// per-op time scales ...; device_name is replaced by "/job:localhost/replica:0/task:0/device:
// CPU:i", and shares_cores_with / exec_threads are set by `sharing`), each with its own link
// of class `link_class` (sim/platform_generator.h LinkClassByName) to the others, sharing
// the cores of one machine as `sharing` says. InvalidArgument for devices outside [1,
// kMaxMpiNodeTasks], a speed not finite and > 0, a bad `sharing` (CheckSharedCores), an
// unknown link class or a property name or value with XML special characters.
StatusOr<std::string> LocalCpuDevicesXml(int devices, double flops_per_s,
                                         const std::map<std::string, std::string>& props,
                                         const SharedCores& sharing,
                                         const std::string& link_class = "process");

}  // namespace fb::sim
