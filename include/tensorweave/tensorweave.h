// Everything a C++ program needs to build, train and run graphs.
#ifndef TENSORWEAVE_TENSORWEAVE_H_
#define TENSORWEAVE_TENSORWEAVE_H_

#include "tensorweave/cluster_spec.h"
#include "tensorweave/device_setter.h"
#include "tensorweave/data_flow_ops.h"
#include "tensorweave/gradients.h"
#include "tensorweave/graph.h"
#include "tensorweave/monitored_session.h"
#include "tensorweave/ops.h"
#include "tensorweave/optimizers.h"
#include "tensorweave/saver.h"
#include "tensorweave/security.h"
#include "tensorweave/server.h"
#include "tensorweave/session.h"
#include "tensorweave/status.h"
#include "tensorweave/sync_replicas.h"
#include "tensorweave/tensor.h"
#include "tensorweave/variable_scope.h"
#include "tensorweave/variables.h"

#endif  // TENSORWEAVE_TENSORWEAVE_H_
