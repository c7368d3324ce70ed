// Node names: Graph::unique_name and the names variables write into their handles.
#include <gtest/gtest.h>

#include "graph/attr_value.h"
#include "graph/graph.h"
#include "tensorweave/tensorweave.h"

namespace tw {
namespace {

TEST(GraphNamesTest, UniqueNameIsWhatTheNextOperationGets) {
  Graph g;
  constant(g, 1.0f, "c");
  EXPECT_EQ(g.unique_name("c"), "c_1");
  EXPECT_EQ(g.unique_name("c"), "c_1");  // asking does not take the name
  EXPECT_EQ(constant(g, 2.0f, "c").op().name(), "c_1");
  EXPECT_EQ(g.unique_name("c"), "c_2");
  EXPECT_EQ(g.unique_name("fresh"), "fresh");
  auto scope = g.name_scope("layer");
  EXPECT_EQ(g.unique_name("c"), "layer/c");
}

// TensorFlow takes an empty shared_name literally (all such handles are one variable), so
// the name is written out, as TF's Python does.
TEST(GraphNamesTest, VariablesNameTheirResourceAfterTheirNode) {
  Graph g;
  Variable w(g, constant(g, 1.0f), "w");
  Variable w2(g, constant(g, 2.0f), "w");
  ASSERT_TRUE(GetStringAttr(w.handle().op().node()->attrs(), "shared_name").ok());
  EXPECT_EQ(*GetStringAttr(w.handle().op().node()->attrs(), "shared_name"), "w");
  EXPECT_EQ(w2.handle().op().name(), "w_1");
  EXPECT_EQ(*GetStringAttr(w2.handle().op().node()->attrs(), "shared_name"), "w_1");
}

}  // namespace
}  // namespace tw
