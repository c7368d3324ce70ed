// The multi-process tests' cluster of real `tw server` processes (src/distributed/rpc/process_cluster.h).
#ifndef TENSORWEAVE_TESTS_TESTING_LOCAL_CLUSTER_H_
#define TENSORWEAVE_TESTS_TESTING_LOCAL_CLUSTER_H_

#include "distributed/rpc/process_cluster.h"

namespace tw::testing {
using LocalCluster = ProcessCluster;
}  // namespace tw::testing

#endif  // TENSORWEAVE_TESTS_TESTING_LOCAL_CLUSTER_H_
