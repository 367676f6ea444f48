/* Open MPI's collectives and messages on the emulated cluster, without flowbench's runtime
 * (docs/cluster.md, "Allreduce"): the time of one message or one allreduce of BYTES, each after
 * GAP ms of idleness (the compute between two steps), median over COUNT (the first dropped).
 *
 *   mpicc -O2 -o /tmp/allreduce_bench benchmarks/cluster/allreduce_bench.c
 *   scripts/cluster mpirun -- /tmp/allreduce_bench MODE BYTES COUNT GAP_MS
 * MODE: p2p         rank 0 MPI_Send's BYTES to rank 1, which answers 0 bytes (time at rank 0)
 *       iallreduce  in-place MPI_Iallreduce (sum of floats) polled with MPI_Test, as
 *                   dist-train's transport does
 *       allreduce   blocking MPI_Allreduce (coll/tuned), in place
 * Prints the median, min and max in ms (rank 0; the allreduce modes: the slowest rank's time,
 * measured after a barrier).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void sleep_ms(double ms) {
  struct timespec ts = {(time_t)(ms / 1e3), (long)((ms - 1e3 * (long)(ms / 1e3)) * 1e6)};
  nanosleep(&ts, NULL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 5) {
    if (rank == 0) fprintf(stderr, "usage: allreduce_bench p2p|iallreduce|allreduce BYTES COUNT GAP_MS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* mode = argv[1];
  const long bytes = atol(argv[2]);
  const int count = atoi(argv[3]);
  const double gap = atof(argv[4]);
  const int n = (int)(bytes / 4);
  float* buf = calloc(n > 0 ? n : 1, sizeof(float));
  double* t = calloc(count + 1, sizeof(double));
  for (int i = 0; i <= count; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    sleep_ms(gap);
    double t0 = MPI_Wtime();
    if (strcmp(mode, "p2p") == 0) {
      if (rank == 0) {
        MPI_Send(buf, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
      }
    } else if (strcmp(mode, "iallreduce") == 0) {
      MPI_Request r;
      int done = 0;
      MPI_Iallreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
      while (!done) MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    } else {
      MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    double mine = MPI_Wtime() - t0, slowest;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    t[i] = (strcmp(mode, "p2p") == 0 ? mine : slowest) * 1e3;
  }
  if (rank == 0) {
    qsort(t + 1, count, sizeof(double), cmp);
    printf("%s bytes %ld ranks %d gap %g ms: median %.2f ms min %.2f max %.2f (n=%d)\n", mode,
           bytes, size, gap, t[1 + count / 2], t[1], t[count], count);
  }
  free(buf);
  free(t);
  MPI_Finalize();
  return 0;
}
