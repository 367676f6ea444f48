# The emulated cluster (issue 18, scripts/cluster, docs/cluster.md): checks that run MPI jobs
# across hosts in network namespaces joined by shaped veth links. Each brings up a cluster of its
# own under a unique prefix and takes it down again (tests/cluster/on_cluster.sh); they are
# reported as skipped (77) with the reason where namespaces cannot be created (not root, no
# CONFIG_NET_NS). RUN_SERIAL: they measure bandwidth and time out on health checks, which the
# other tests' load on a 2-core machine would distort.
set(FB_ON_CLUSTER ${PROJECT_SOURCE_DIR}/tests/cluster/on_cluster.sh)
set(FB_CLUSTER_TEST_ENV ${FB_MPI_TEST_ENV})
if(FLOWBENCH_SANITIZE)
  # Sanitized binaries copy and check every byte: a bandwidth they reach says nothing about the
  # links, so the bandwidth and timed simulator checks report skipped there (the others run).
  list(APPEND FB_CLUSTER_TEST_ENV "FB_CLUSTER_SANITIZED=1")
endif()
add_test(NAME cluster_sync_lenet_3hosts
         COMMAND ${FB_ON_CLUSTER} lenet-sync 3 1gbit ${PROJECT_BINARY_DIR})
add_test(NAME cluster_bandwidth_2hosts_1gbit
         COMMAND ${FB_ON_CLUSTER} bandwidth 2 1gbit ${PROJECT_BINARY_DIR})
add_test(NAME cluster_link_down_supervise
         COMMAND ${FB_ON_CLUSTER} link-down 4 1gbit ${PROJECT_BINARY_DIR})
# The simulator against a network-bound step measured across 2 hosts at 100 Mbit/s (~20 s).
add_test(NAME cluster_sim_null_step_2hosts_100mbit
         COMMAND ${FB_ON_CLUSTER} sim-null-step 2 100mbit ${PROJECT_BINARY_DIR})
# `up` refuses to shape 100 Mbit/s without ethtool (a missing one named by FB_CLUSTER_ETHTOOL).
add_test(NAME cluster_up_needs_ethtool
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cluster/needs_ethtool.sh)
# Label "cluster": `ctest -LE cluster` leaves them out where namespaces are not wanted.
set_tests_properties(cluster_sync_lenet_3hosts cluster_bandwidth_2hosts_1gbit
                     cluster_link_down_supervise cluster_sim_null_step_2hosts_100mbit
                     cluster_up_needs_ethtool PROPERTIES
                     LABELS cluster SKIP_RETURN_CODE 77 RUN_SERIAL TRUE TIMEOUT 300
                     ENVIRONMENT "${FB_CLUSTER_TEST_ENV}")
# Two retries inside on_cluster.sh (three attempts of up to 240 s each, plus fresh clusters).
set_tests_properties(cluster_link_down_supervise PROPERTIES TIMEOUT 900)
