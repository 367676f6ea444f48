# MPI tests: tests/mpi/*_test.cc with their own main (tests/mpi/mpi_test_main.cc), registered as
# CTest entries that launch the executable under mpirun with 2, 3 and 4 ranks.
file(GLOB MPI_TEST_SRCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/mpi/*_test.cc)
if(MPI_TEST_SRCS)
  add_executable(flowbench_mpi_tests ${PROJECT_SOURCE_DIR}/tests/mpi/mpi_test_main.cc ${MPI_TEST_SRCS})
  target_link_libraries(flowbench_mpi_tests PRIVATE ${FB_ALL_LIBS} Catch2::Catch2)
  target_compile_definitions(flowbench_mpi_tests PRIVATE
    FB_SOURCE_DIR="${PROJECT_SOURCE_DIR}" FB_BINARY_DIR="${PROJECT_BINARY_DIR}")
  foreach(np 2 3 4)
    add_test(NAME mpi_np${np}
             COMMAND ${FB_MPIRUN} -np ${np} $<TARGET_FILE:flowbench_mpi_tests>
             WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
    set_tests_properties(mpi_np${np} PROPERTIES TIMEOUT 600 PROCESSORS 2
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endforeach()
endif()
