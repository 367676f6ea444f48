# OSDI 2016 reproductions (experiments/osdi2016): the per-node work tool the simulated Table 1
# uses, and each experiment's --quick command as a CTest test (label osdi2016; they time things,
# so RUN_SERIAL).
add_executable(flowbench-osdi-opwork ${PROJECT_SOURCE_DIR}/experiments/osdi2016/op_work_main.cc)
target_link_libraries(flowbench-osdi-opwork PRIVATE ${FB_ALL_LIBS})

foreach(experiment IN ITEMS table1 null_step inception_v3 lstm_lm)
  if(EXISTS ${PROJECT_SOURCE_DIR}/experiments/osdi2016/${experiment}/run)
    add_test(NAME osdi2016_${experiment}_quick
             COMMAND ${PROJECT_SOURCE_DIR}/experiments/osdi2016/${experiment}/run --quick
                     --build-dir ${PROJECT_BINARY_DIR} --out ${PROJECT_BINARY_DIR}/osdi2016/${experiment})
    set_tests_properties(osdi2016_${experiment}_quick PROPERTIES
                         LABELS osdi2016 RUN_SERIAL TRUE TIMEOUT 120)
  endif()
endforeach()
