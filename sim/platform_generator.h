#pragma once
// Generates SimGrid XML platforms (sim/platforms/*.xml were written by it; `flowbench
// sim-platform` writes others). Device speeds are host speeds (FLOP/s) and host properties
// (sim/platform.h).
#include <string>
#include <utility>
#include <vector>

#include "engine/framework/status.h"
#include "sim/core_sharing_platform.h"

namespace fb::sim {

// Limits of generated platforms: hosts of a cluster (kMaxPlatformHosts, the validator's limit),
// GPUs of one node (its routes grow as the square), MPI tasks on one machine.
inline constexpr int kMaxNodeGpus = 64;
inline constexpr int kMaxMpiNodeTasks = 256;

// Performance of the devices of a generated platform.
struct DeviceClass {
  std::string type = "GPU";
  double flops_per_s = 15.7e12;               // NVIDIA V100 FP32 peak
  double memory_bandwidth_bytes_per_s = 900e9;
  double launch_overhead_ns = 5000;
  double memory_bytes = 16.0 * (1 << 30);
};

// InvalidArgument naming the field unless flops_per_s and memory_bandwidth_bytes_per_s are
// finite and > 0, launch_overhead_ns and memory_bytes finite and >= 0, and type is a word
// ([A-Za-z0-9_]+).
Status CheckDeviceClass(const DeviceClass& device);

// Network classes: "10gbe" (10 Gbit/s, 50 us per hop) and "ib" (InfiniBand EDR-class:
// 100 Gbit/s, 1 us per hop); "pcie" (PCIe 3.0 x16: 12 GB/s, 5 us) and "nvlink" (NVLink 2:
// 50 GB/s, 2 us); "shm" (MPI ranks of one machine, see MpiNodeXml: 4 GB/s, 10 us per hop);
// "process" (devices of one process: the in-process rendezvous hands the tensor over by
// reference, no copy, so 1e15 B/s nominal, and 1 us per link: a route's two links are one
// thread hand-off, 1.5-2 us measured by `flowbench profile`, docs/simulator.md).
struct LinkClass {
  std::string name;
  double bandwidth_bytes_per_s = 0;
  double latency_s = 0;
};
StatusOr<LinkClass> LinkClassByName(const std::string& name);

// A cluster of `nodes` hosts (one device each) on a two-level fat tree (SimGrid's FAT_TREE
// cluster: leaf switches of `leaf` hosts, as many spine switches as `leaf`, i.e. full bisection
// bandwidth). `leaf` is the divisor of `nodes` closest to sqrt(nodes). InvalidArgument for
// nodes outside [2, kMaxPlatformHosts], an unknown link class or a bad device class.
StatusOr<std::string> FatTreeClusterXml(int nodes, const std::string& link_class,
                                        const DeviceClass& device = {});

// One machine: a CPU host and `gpus` GPU hosts. "pcie": every GPU has its own x16 link to a
// shared PCIe root (host-side bandwidth 2 x 12 GB/s), GPU-to-GPU traffic crosses the root;
// "nvlink": every pair of GPUs has its own NVLink, GPU-to-CPU goes over PCIe. InvalidArgument
// for gpus outside [1, kMaxNodeGpus], another interconnect or a bad device class.
StatusOr<std::string> MultiGpuNodeXml(int gpus, const std::string& interconnect,
                                      const DeviceClass& gpu = {});

// The ranks of an MPI job on one machine (what `mpirun -np N flowbench dist-train` runs on this
// one): one CPU host per task, in rank order, named like the runtime's devices
// ("/job:ps/replica:0/task:0/device:CPU:0", ...; `jobs` lists (job, tasks) in rank order, as
// "ps=1,worker=3"), each with the device class `cpu` and its own link of class `link` to the
// others (route a -> b: a's link then b's). Link class "shm" is Open MPI's shared-memory
// transport as flowbench's Send/Recv sees it on this machine: 4 GB/s, 20 us per message
// (flowbench-mpi-bench, docs/benchmarks.md); its links carry mpi_eager_limit="0" (vader's
// single-copy reads need no rendezvous round trip, sim/mpi_protocol.h). InvalidArgument for no
// task, more than kMaxMpiNodeTasks, a job name that is not a word ([A-Za-z0-9_]+), an unknown
// link or a bad device class. `sharing.cores` > 0: the ranks share that many cores of one machine
// (sim/core_sharing.h: a host "machine" with core="cores", every rank's host shares_cores_with it);
// 0: every rank has a whole CPU (InvalidArgument for a bad `sharing`, CheckSharedCores).
StatusOr<std::string> MpiNodeXml(const std::vector<std::pair<std::string, int>>& jobs,
                                 const DeviceClass& cpu, const std::string& link_class = "shm",
                                 const SharedCores& sharing = {});

// This machine: one CPU device with the given peak FLOP/s and memory bandwidth (calibration in
// docs/simulator.md). InvalidArgument for a bad device class (CheckDeviceClass) or a host name
// that is not a word.
StatusOr<std::string> SingleCpuXml(const std::string& host, double flops_per_s,
                         double memory_bandwidth_bytes_per_s, double launch_overhead_ns);

}  // namespace fb::sim
