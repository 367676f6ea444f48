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
    # The null step runs under mpirun: Open MPI leaks in its dlopen'ed components at
    # MPI_Finalize (see cmake/mpi_tests.cmake), so leak detection is off for these commands.
    if(FLOWBENCH_SANITIZE)
      set_tests_properties(osdi2016_${experiment}_quick PROPERTIES
                           ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
    endif()
  endif()
endforeach()

# The GPU cost model by hand, and flowbench-osdi-opwork's errors on bad flags (messages name the
# flag and the value found).
add_test(NAME osdi2016_gpu_cost_model
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/experiments/osdi2016/test_gpu_cost_model.py)
add_test(NAME osdi2016_table1_mechanisms
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/experiments/osdi2016/table1/test_mechanisms.py)
add_test(NAME osdi2016_lstm_lm_step_graph
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/experiments/osdi2016/lstm_lm/test_lm_step_graph.py)
add_test(NAME osdi2016_null_step_network
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/experiments/osdi2016/null_step/test_network.py)
add_test(NAME osdi2016_coarse_step_graph
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/experiments/osdi2016/test_coarse_step_graph.py)
add_test(NAME osdi2016_inception_anchor
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/experiments/osdi2016/inception_v3/test_anchor.py)
add_test(NAME osdi2016_inception_worker_variation
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/experiments/osdi2016/inception_v3/test_worker_variation.py)
add_test(NAME osdi2016_opwork_unknown_model
         COMMAND flowbench-osdi-opwork --model nosuch --batch 2 --mode forward)
add_test(NAME osdi2016_opwork_bad_mode
         COMMAND flowbench-osdi-opwork --model alexnet --batch 0 --mode sideways)
add_test(NAME osdi2016_opwork_missing_value COMMAND flowbench-osdi-opwork --model)
# The shape columns the GPU cost model prices cuDNN's FFT from: stride and the forward
# convolution's input/output shapes, also on the gradient ops (dX as the input of
# Conv2DBackpropInput, dY for both gradients).
add_test(NAME osdi2016_opwork_conv_shapes
         COMMAND flowbench-osdi-opwork --model alexnet --batch 2 --mode forward-backward)
set_tests_properties(osdi2016_opwork_conv_shapes PROPERTIES PASS_REGULAR_EXPRESSION
  "needed,kernel,stride,x_shape,y_shape.*conv2/Conv2D,Conv2D,[0-9]+,[0-9]+,[0-9]+,1,5x5,1,2x27x27x64,2x27x27x192.*Conv2DBackpropInput_2,Conv2DBackpropInput,[0-9]+,[0-9]+,[0-9]+,1,5x5,1,2x27x27x64,2x27x27x192.*conv1/Conv2D/Conv2DBackpropFilter_3,Conv2DBackpropFilter,[0-9]+,[0-9]+,[0-9]+,1,11x11,4,2x227x227x3,2x55x55x64")
set_tests_properties(osdi2016_opwork_unknown_model PROPERTIES
                     PASS_REGULAR_EXPRESSION "unknown model 'nosuch' \\(known: alexnet")
set_tests_properties(osdi2016_opwork_bad_mode PROPERTIES
                     PASS_REGULAR_EXPRESSION "found --model 'alexnet' --batch 0 --mode 'sideways'")
set_tests_properties(osdi2016_opwork_missing_value PROPERTIES
                     PASS_REGULAR_EXPRESSION "flag --model needs a value")
set_tests_properties(osdi2016_gpu_cost_model osdi2016_table1_mechanisms osdi2016_lstm_lm_step_graph
                     osdi2016_inception_worker_variation osdi2016_null_step_network
                     osdi2016_coarse_step_graph osdi2016_inception_anchor
                     osdi2016_opwork_unknown_model
                     osdi2016_opwork_bad_mode osdi2016_opwork_missing_value
                     osdi2016_opwork_conv_shapes PROPERTIES LABELS osdi2016)
