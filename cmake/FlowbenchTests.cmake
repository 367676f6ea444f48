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
  WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
  PROPERTIES TIMEOUT 600)

if(TARGET fb_mpi)
  include(${PROJECT_SOURCE_DIR}/cmake/mpi_tests.cmake)
endif()

# Every example program is also a test: it must build and run to completion.
foreach(example ${FB_EXAMPLES})
  add_test(NAME example_${example} COMMAND ${example})
endforeach()
