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

}  // namespace fb::mpi
