#include "fuzz/fuzz_util.h"
#include "graph/attr_value.h"
#include "tensorweave/tensorweave.h"

namespace tw::fuzz {

GraphDef SessionGraph() {
  Graph g;
  auto on = g.device("/job:local/task:0");
  auto x = placeholder(g, DType::kFloat, PartialShape({-1}), "x");
  auto y = (x * 2.0f) + 1.0f;
  g.AddOperation("Identity", "y", {y}, {});
  reduce_sum(y);
  auto n = placeholder(g, DType::kInt32, PartialShape({}), "n");
  g.AddOperation("Identity", "m", {n + 3}, {});
  Variable v(g, constant(g, std::vector<float>{1, 2, 3}, TensorShape({3})), "v");
  global_variables_initializer(g);
  return g.ToGraphDef();
}

GraphDef PartitionGraph() {
  Graph g;
  auto on = g.device(OneTaskCluster::kDevice);
  auto x = g.AddOperation("_Arg", "x", {}, {{"T", MakeAttr(DType::kFloat)}, {"index", MakeAttr(0)}});
  g.AddOperation("_Retval", "y", {x.output(0) * 2.0f}, {{"index", MakeAttr(0)}});
  auto n = g.AddOperation("_Arg", "n", {}, {{"T", MakeAttr(DType::kInt32)}, {"index", MakeAttr(1)}});
  g.AddOperation("_Retval", "m", {n.output(0)}, {{"index", MakeAttr(1)}});
  return g.ToGraphDef();
}

}  // namespace tw::fuzz
