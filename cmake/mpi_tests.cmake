# MPI tests: tests/mpi/*_test.cc with their own main (tests/mpi/mpi_test_main.cc), registered as
# CTest entries that launch the executable under mpirun with 2, 3 and 4 ranks.
# Open MPI leaks at MPI_Finalize in its dlopen'ed components (frames LeakSanitizer cannot name, so
# not suppressible): under FLOWBENCH_SANITIZE the MPI tests keep AddressSanitizer's memory-error
# checks and UBSan but not leak detection.
set(FB_MPI_TEST_ENV "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
if(FLOWBENCH_SANITIZE)
  list(APPEND FB_MPI_TEST_ENV "ASAN_OPTIONS=detect_leaks=0")
endif()

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
                         ENVIRONMENT "${FB_MPI_TEST_ENV}")
  endforeach()
endif()

# Fault tolerance (whitepaper 3.3): the last rank of a 3-rank job exits in step 25; the supervisor
# relaunches the job with --resume, which restores the checkpoint of step 19 and finishes; the final
# loss must be in the band of an undisturbed run (mpi_train_undisturbed).
string(JOIN " " FB_MPIRUN_LINE ${FB_MPIRUN})
# The simulator's validation against 2- and 4-rank runs (tests/sim/validation_test.cc) launches
# `flowbench dist-train` with it.
target_compile_definitions(flowbench_tests PRIVATE FB_MPIRUN_LINE="${FB_MPIRUN_LINE}")
set(FB_DIST_TRAIN_ARGS "dist-train --cluster ps=1,worker=2 --mode sync --steps 40 --lr 0.3 --checkpoint-every 10 --max-final-loss 0.001")
set(ckpt ${PROJECT_BINARY_DIR}/mpi_fault_tolerance)
add_test(NAME mpi_fault_tolerance
         COMMAND sh -c "rm -rf ${ckpt} && $<TARGET_FILE:flowbench> supervise --max-restarts 2 -- ${FB_MPIRUN_LINE} -np 3 $<TARGET_FILE:flowbench> ${FB_DIST_TRAIN_ARGS} --checkpoint-dir ${ckpt} --fail-at-step 25 > ${ckpt}.log 2>&1; rc=$?; cat ${ckpt}.log; grep -q 'resumed from checkpoint step 19' ${ckpt}.log || exit 1; exit $rc"
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
add_test(NAME mpi_train_undisturbed
         COMMAND sh -c "${FB_MPIRUN_LINE} -np 3 $<TARGET_FILE:flowbench> ${FB_DIST_TRAIN_ARGS}"
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
set_tests_properties(mpi_fault_tolerance mpi_train_undisturbed PROPERTIES TIMEOUT 300 PROCESSORS 2
                     ENVIRONMENT "${FB_MPI_TEST_ENV}")

# Bad flags get a clear error naming the problem (traces and graph exports need mode sync; unknown
# models are named).
add_test(NAME mpi_dist_train_trace_needs_sync
         COMMAND sh -c "${FB_MPIRUN_LINE} -np 2 $<TARGET_FILE:flowbench> dist-train --mode async --trace t.h5"
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
add_test(NAME mpi_dist_train_unknown_model
         COMMAND sh -c "${FB_MPIRUN_LINE} -np 2 $<TARGET_FILE:flowbench> dist-train --model resnet"
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
set_tests_properties(mpi_dist_train_trace_needs_sync PROPERTIES TIMEOUT 120 ENVIRONMENT "${FB_MPI_TEST_ENV}"
                     PASS_REGULAR_EXPRESSION "--trace and --export-graph need mode sync, not 'async'")
set_tests_properties(mpi_dist_train_unknown_model PROPERTIES TIMEOUT 120 ENVIRONMENT "${FB_MPI_TEST_ENV}"
                     PASS_REGULAR_EXPRESSION "unknown model 'resnet' \\(linear, lenet, mlp, lstm_lm_word, lstm_lm_word_sampled, or a registered image model")


# Rank 0 writes --metrics-json (the old spelling --batch still works).
set(metrics ${PROJECT_BINARY_DIR}/mpi_dist_train_metrics.json)
add_test(NAME mpi_dist_train_metrics_json
         COMMAND sh -c "rm -f ${metrics} && ${FB_MPIRUN_LINE} -np 3 $<TARGET_FILE:flowbench> dist-train --cluster ps=1,worker=2 --steps 5 --batch 8 --learning-rate 0.1 --metrics-json ${metrics} && cat ${metrics}"
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
set_tests_properties(mpi_dist_train_metrics_json PROPERTIES TIMEOUT 120 PROCESSORS 2
                     ENVIRONMENT "${FB_MPI_TEST_ENV}"
                     PASS_REGULAR_EXPRESSION "\"final_loss\": [0-9]")

# The word LSTM language model of OSDI 6.4 (mpi/word_lm_dist_model.h) trains over parameter
# servers with the full softmax (1 PS, 2 workers) and the sampled softmax (2 PS, 1 worker): the
# held-out loss must fall from ln(200) = 5.30 (uniform) towards 4.32 (the entropy of the
# log-uniform tokens) within 15 steps, and the metrics count the words of a step. A vocabulary
# below 2 is refused naming the flag.
foreach(lm IN ITEMS "lstm_lm_word;ps=1,worker=2;32" "lstm_lm_word_sampled;ps=2,worker=1;16")
  list(GET lm 0 model)
  list(GET lm 1 cluster)
  list(GET lm 2 words)
  set(lm_metrics ${PROJECT_BINARY_DIR}/mpi_dist_train_${model}.json)
  add_test(NAME mpi_dist_train_${model}
           COMMAND sh -c "rm -f ${lm_metrics} && ${FB_MPIRUN_LINE} -np 3 $<TARGET_FILE:flowbench> dist-train --model ${model} --cluster ${cluster} --vocab 200 --unroll 4 --batch 4 --steps 15 --lr 1.0 --max-final-loss 4.9 --metrics-json ${lm_metrics} && cat ${lm_metrics}"
           WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties(mpi_dist_train_${model} PROPERTIES TIMEOUT 120 PROCESSORS 2
                       ENVIRONMENT "${FB_MPI_TEST_ENV}"
                       PASS_REGULAR_EXPRESSION "\"examples_per_step\": ${words},")
endforeach()
add_test(NAME mpi_dist_train_word_lm_bad_vocab
         COMMAND $<TARGET_FILE:flowbench> dist-train --model lstm_lm_word --vocab 1)
set_tests_properties(mpi_dist_train_word_lm_bad_vocab PROPERTIES TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "--vocab")
# The transport and null-step benchmarks refuse bad flags before MPI starts: exit code 2 and the
# flag named (a size that does not parse, --min-bytes 0 whose sizes would never grow, min above
# max, zero steps), where std::stoll threw or looped before.
add_test(NAME mpi_bench_rejects_bad_flags
         COMMAND sh -c "B=$<TARGET_FILE:flowbench-mpi-bench>; $B --min-bytes 0; echo a=$?; $B --max-bytes 4x; echo b=$?; $B --min-bytes 64 --max-bytes 8; echo c=$?; $B --rounds; echo d=$?")
set_tests_properties(mpi_bench_rejects_bad_flags PROPERTIES TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "--min-bytes.*a=2.*--max-bytes.*b=2.*--min-bytes: 64 is above --max-bytes 8.*c=2.*--rounds.*d=2")
add_test(NAME mpi_null_step_rejects_bad_flags
         COMMAND sh -c "B=$<TARGET_FILE:flowbench-mpi-null-step>; $B --steps abc; echo a=$?; $B --steps 0; echo b=$?; $B --dense -5; echo c=$?; $B --bogus 1; echo d=$?")
set_tests_properties(mpi_null_step_rejects_bad_flags PROPERTIES TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "--steps.*a=2.*--steps.*b=2.*--dense.*c=2.*--bogus.*d=2")
# FLOWBENCH_MPI_BACKOFF_US (what scripts/cluster sets: ranks sharing cores sleep between polls
# while a transfer is in flight): at 1 us every wait takes the sleeping path, and the null step's
# scalar and dense exchanges still complete, with the same results table as without it.
add_test(NAME mpi_null_step_with_backoff
         COMMAND sh -c "${FB_MPIRUN_LINE} -x FLOWBENCH_MPI_BACKOFF_US=1 -np 3 $<TARGET_FILE:flowbench-mpi-null-step> --steps 3 --dense 65536 --models scalar,dense")
set_tests_properties(mpi_null_step_with_backoff PROPERTIES TIMEOUT 120 PROCESSORS 2
                     ENVIRONMENT "${FB_MPI_TEST_ENV}"
                     PASS_REGULAR_EXPRESSION "dense +2 +[0-9.]+ +[0-9.]+")
include(${PROJECT_SOURCE_DIR}/cmake/cluster_tests.cmake)
