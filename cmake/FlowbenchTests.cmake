# Catch2 v2 (Debian) tests: every tests/**/*_test.cc except tests/mpi and tests/gpu goes into one
# executable; catch_discover_tests turns each TEST_CASE into a CTest entry so `ctest -j2` runs
# them in parallel.
find_package(Catch2 2 REQUIRED)
include(Catch)

file(GLOB_RECURSE TEST_SRCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/*_test.cc)
list(FILTER TEST_SRCS EXCLUDE REGEX "/tests/(mpi|gpu)/")
add_executable(flowbench_tests ${PROJECT_SOURCE_DIR}/tests/test_main.cc ${TEST_SRCS})
target_link_libraries(flowbench_tests PRIVATE ${FB_ALL_LIBS} Catch2::Catch2)
target_compile_definitions(flowbench_tests PRIVATE
  FB_SOURCE_DIR="${PROJECT_SOURCE_DIR}" FB_BINARY_DIR="${PROJECT_BINARY_DIR}")
# Command-line tests run the flowbench binary (FB_BINARY_DIR/flowbench).
add_dependencies(flowbench_tests flowbench)
catch_discover_tests(flowbench_tests
  TEST_SPEC "~[serial]"
  WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
  PROPERTIES TIMEOUT 600)
# Tests tagged [serial] measure time on this machine (the simulator's validation against a real
# run): CTest runs them alone, so that parallel tests do not preempt what they measure. Not in
# sanitizer builds: instrumentation slows the executor's own code (outside the kernels the trace
# times) by a quarter of a LeNet step, so timings there say nothing about the simulator.
if(NOT FLOWBENCH_SANITIZE)
  add_test(NAME serial_timing_tests COMMAND flowbench_tests "[serial]"
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties(serial_timing_tests PROPERTIES RUN_SERIAL TRUE TIMEOUT 600)
endif()

if(TARGET fb_mpi)
  include(${PROJECT_SOURCE_DIR}/cmake/mpi_tests.cmake)
endif()

# Every example program is also a test: it must build and run to completion.
foreach(example ${FB_EXAMPLES})
  add_test(NAME example_${example} COMMAND ${example})
endforeach()

# CTest reads discovered test names as a CMake list: a ';' splits a name and an unbalanced '['
# merges the following names into one entry (so those tests silently stop running one by one);
# a leading '-' is read as a Catch option. Fail on any such TEST_CASE name.
add_test(NAME test_names_are_ctest_safe
  COMMAND sh -c "$<TARGET_FILE:flowbench_tests> --list-test-names-only | awk '\
    /^[^ ]/ && (index($0, \";\") || substr($0, 1, 1) == \"-\" || gsub(/\\[/, \"[\") != gsub(/\\]/, \"]\")) \
    { print \"unsafe test name: \" $0; bad = 1 } END { exit bad }'")
