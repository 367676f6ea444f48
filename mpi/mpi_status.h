#pragma once
// MPI return codes become Status at the call site (never abort: under mpirun an abort kills
// every rank with no context).
#include <mpi.h>

#include <string>

#include "engine/framework/status.h"

namespace fb::mpi {

// Unavailable("<what> failed on rank R: <MPI error string>") for a non-success code.
Status MpiStatus(int code, const char* what);

#define MPI_RETURN_IF_ERROR(call) RETURN_IF_ERROR(::fb::mpi::MpiStatus((call), #call))

// This process's rank in MPI_COMM_WORLD and the world size (0 and 1 before MPI_Init).
int WorldRank();
int WorldSize();

// Ranks of this job on this node, from the launcher's environment (Open MPI's
// OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's MPI_LOCALNRANKS); 1 when neither is set.
int LocalRanks();
// This rank's share of the node's hardware threads: max(1, hardware threads / LocalRanks()).
// Workers size their devices' thread pools by it, and `flowbench dist-train` gives OpenBLAS as
// many threads: with every rank's pools as wide as the whole node, ranks sharing a node
// oversubscribe its cores (OpenBLAS's spinning threads made LeNet steps of a 2-rank job on 2
// cores 4x slower, docs/benchmarks.md).
int CoresPerLocalRank();

}  // namespace fb::mpi
