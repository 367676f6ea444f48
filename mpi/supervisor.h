#pragma once
// The supervisor of whitepaper 3.3's restart-from-checkpoint: Open MPI ends the whole job when one
// rank dies (the other ranks are killed and mpirun exits non-zero), so recovery happens outside
// the job. Supervise runs a command (typically `mpirun ... flowbench dist-train ...`); when it
// exits non-zero or is killed, the command is launched again with `resume_flag` appended, so the
// job restores the newest checkpoint and loses at most the steps since it. No MPI inside.
#include <string>
#include <vector>

#include "engine/framework/status.h"

namespace fb::mpi {

struct SupervisorOptions {
  int max_restarts = 3;
  std::string resume_flag = "--resume";
};

// Returns the number of restarts it took to finish with exit status 0. Aborted naming the last
// exit status when max_restarts relaunches all failed; InvalidArgument for an empty command;
// Internal when the command cannot be started.
StatusOr<int> Supervise(const std::vector<std::string>& command, const SupervisorOptions& options);

}  // namespace fb::mpi
