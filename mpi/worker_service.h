#pragma once
// The worker side of the control plane (whitepaper 3.2.2): on every rank but 0, ServeWorker
// registers the rank's devices with the master and then answers its requests ("register",
// "run", "abort", "ping") until "shutdown". Runs are asynchronous: the worker keeps answering
// health checks while a step runs. See control_message.h for the messages.
#include "mpi/cluster_spec.h"
#include "mpi/worker.h"

namespace fb::mpi {

// Blocks until the master sends "shutdown"; returns an error if the worker's devices cannot be
// created. `master_rank` is 0 in every flowbench job.
Status ServeWorker(const ClusterSpec& cluster, const WorkerOptions& options, int master_rank = 0);

}  // namespace fb::mpi
