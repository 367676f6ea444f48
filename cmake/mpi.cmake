# The distributed runtime over Open MPI (mpi/), its MPI tests (each rank its own Catch2 session,
# run by CTest under `mpirun --oversubscribe -np N`), and the transport benchmark.
find_package(MPI REQUIRED COMPONENTS C)

file(GLOB_RECURSE MPI_SRCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/mpi/*.cc)
add_library(fb_mpi OBJECT ${MPI_SRCS})
target_link_libraries(fb_mpi PUBLIC fb_engine MPI::MPI_C)
target_compile_definitions(fb_mpi PUBLIC OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
list(APPEND FB_ALL_LIBS fb_mpi)

find_program(MPIEXEC_PROGRAM NAMES mpirun mpiexec)
set(FB_MPIRUN ${MPIEXEC_PROGRAM} --oversubscribe --allow-run-as-root --bind-to none
    --mca btl self,vader,tcp --mca btl_vader_single_copy_mechanism none)

add_executable(flowbench-mpi-bench ${PROJECT_SOURCE_DIR}/benchmarks/mpi/p2p_bench.cc)
target_link_libraries(flowbench-mpi-bench PRIVATE ${FB_ALL_LIBS})
add_executable(flowbench-mpi-null-step ${PROJECT_SOURCE_DIR}/benchmarks/mpi/null_step_bench.cc)
target_link_libraries(flowbench-mpi-null-step PRIVATE ${FB_ALL_LIBS})
# What a waiting rank costs computing ranks on shared cores (docs/simulator.md): MPI only.
add_executable(flowbench-mpi-wait-cpu ${PROJECT_SOURCE_DIR}/benchmarks/mpi/wait_cpu_bench.cc)
target_link_libraries(flowbench-mpi-wait-cpu PRIVATE MPI::MPI_C)
target_compile_definitions(flowbench-mpi-wait-cpu PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
