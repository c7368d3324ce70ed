// ResourceScatterUpdate / Add / Sub through a real session: rows replaced, added or
// subtracted (repeated indices add up), errors for bad indices and shapes, and a value read
// before the update keeps its contents (copy-on-write).
#include <gtest/gtest.h>

#include "graph/attr_value.h"
#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::F32;
using testing::I32;
using testing::I64;

// The status of running `op` (OK when it succeeds).
absl::Status RunStatus(Session& sess, const Operation& op) {
  return testing::ErrorOf([&] { sess.run(op); });
}

Operation Scatter(Graph& g, const std::string& op, const Variable& v, const Tensor& indices, const Tensor& updates,
                  const std::string& name) {
  return g.AddOperation(op, name, {v.handle(), constant(g, indices), constant(g, updates)},
                        {{"dtype", MakeAttr(updates.dtype())}, {"Tindices", MakeAttr(indices.dtype())}});
}

TEST(ResourceScatterKernelsTest, UpdateReplacesRowsAndAddAddsThem) {
  Graph g;
  Variable v(g, constant(g, F32({3, 2}, {0, 1, 2, 3, 4, 5})), "v");
  Variable n(g, constant(g, I32({4}, {0, 0, 0, 0})), "n");
  Operation upd = Scatter(g, "ResourceScatterUpdate", v, I32({2}, {2, 0}), F32({2, 2}, {9, 8, 7, 6}), "upd");
  Operation add = Scatter(g, "ResourceScatterAdd", v, I64({3}, {1, 1, 2}), F32({3, 2}, {1, 1, 1, 1, 10, 10}), "add");
  Operation count = Scatter(g, "ResourceScatterAdd", n, I32({3}, {3, 3, 0}),
                            I32({3}, {2147483647, 1, 5}), "count");  // int32 wraps around, as TF's
  Session sess(g);
  sess.run(global_variables_initializer(g));
  const Tensor before = sess.run(v.value());
  sess.run(upd);
  EXPECT_TENSOR_EQ(sess.run(v.value()), F32({3, 2}, {7, 6, 2, 3, 9, 8}));
  sess.run(add);
  EXPECT_TENSOR_EQ(sess.run(v.value()), F32({3, 2}, {7, 6, 4, 5, 19, 18}));
  EXPECT_TENSOR_EQ(before, F32({3, 2}, {0, 1, 2, 3, 4, 5}));  // the earlier read is a snapshot
  sess.run(count);
  EXPECT_TENSOR_EQ(sess.run(n.value()), I32({4}, {5, 0, 0, -2147483647 - 1}));
  Operation sub = Scatter(g, "ResourceScatterSub", v, I32({3}, {0, 0, 2}), F32({3, 2}, {1, 2, 3, 4, 0.5f, 0.5f}), "sub");
  sess.run(sub);
  EXPECT_TENSOR_EQ(sess.run(v.value()), F32({3, 2}, {3, 0, 4, 5, 18.5f, 17.5f}));
}

TEST(ResourceScatterKernelsTest, BadIndicesShapesAndUninitializedVariablesAreRefused) {
  Graph g;
  Variable v(g, constant(g, F32({3, 2}, {0, 1, 2, 3, 4, 5})), "v");
  Operation out_of_range = Scatter(g, "ResourceScatterUpdate", v, I32({2}, {1, 3}), F32({2, 2}, {1, 1, 1, 1}), "a");
  Operation negative = Scatter(g, "ResourceScatterAdd", v, I64({1}, {-1}), F32({1, 2}, {1, 1}), "b");
  Operation bad_shape = Scatter(g, "ResourceScatterUpdate", v, I32({2}, {0, 1}), F32({2, 3}, {1, 1, 1, 1, 1, 1}), "c");
  Session sess(g);
  EXPECT_STATUS(RunStatus(sess, out_of_range), absl::StatusCode::kFailedPrecondition, "variable 'v' is uninitialized");
  sess.run(global_variables_initializer(g));
  EXPECT_STATUS(RunStatus(sess, out_of_range), absl::StatusCode::kInvalidArgument, "indices[1] = 3 is not in [0, 3)");
  EXPECT_STATUS(RunStatus(sess, negative), absl::StatusCode::kInvalidArgument, "indices[0] = -1 is not in [0, 3)");
  EXPECT_STATUS(RunStatus(sess, bad_shape), absl::StatusCode::kInvalidArgument,
                "updates of shape [2,3] do not fit indices of shape [2]");
  EXPECT_TENSOR_EQ(sess.run(v.value()), F32({3, 2}, {0, 1, 2, 3, 4, 5}));  // nothing changed
}

}  // namespace
}  // namespace tw
