#include "mpi/mpi_status.h"

namespace fb::mpi {

int WorldRank() {
  int init = 0, rank = 0;
  MPI_Initialized(&init);
  if (init) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int WorldSize() {
  int init = 0, size = 1;
  MPI_Initialized(&init);
  if (init) MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

Status MpiStatus(int code, const char* what) {
  if (code == MPI_SUCCESS) return Status::OK();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return Unavailable(what, " failed on rank ", WorldRank(), ": ", std::string(text, len));
}

}  // namespace fb::mpi
