#include <gtest/gtest.h>

#include <limits>

#include "graph/graph.h"
#include "testing/graph_session.h"
#include "testing/test_util.h"

namespace tw {
namespace {

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";

// Builds a graph node by node, then runs it in one session across many runs.
class VarGraph {
 public:
  Node* Add(const std::string& name, const std::string& op, std::vector<Node*> inputs,
            AttrMap attrs, std::vector<Node*> control = {}) {
    NodeSpec spec{name, op, {}, "", std::move(attrs)};
    for (Node* in : inputs) spec.inputs.push_back({in, 0});
    for (Node* in : control) spec.inputs.push_back({in, kControlSlot});
    auto n = graph_.AddNode(std::move(spec));
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : nullptr;
  }
  absl::Status TryAdd(const std::string& name, const std::string& op, std::vector<Node*> inputs,
                      AttrMap attrs) {
    NodeSpec spec{name, op, {}, "", std::move(attrs)};
    for (Node* in : inputs) spec.inputs.push_back({in, 0});
    return graph_.AddNode(std::move(spec)).status();
  }
  Node* Const(const std::string& name, const Tensor& value) {
    return Add(name, "Const", {}, {{"value", MakeAttr(value)}, {"dtype", MakeAttr(value.dtype())}});
  }
  Node* Handle(const std::string& name, DType dtype, const PartialShape& shape,
               const std::string& shared_name = "") {
    AttrMap attrs{{"dtype", MakeAttr(dtype)}, {"shape", MakeAttr(shape)}};
    if (!shared_name.empty()) attrs["shared_name"] = MakeAttr(shared_name);
    return Add(name, "VarHandleOp", {}, std::move(attrs));
  }
  // An op on a handle with the value `value` (AssignVariableOp, AssignAddVariableOp, ...).
  Node* Update(const std::string& name, const std::string& op, Node* handle, const Tensor& value) {
    Node* c = Const(name + "_value", value);
    return Add(name, op, {handle, c}, {{"dtype", MakeAttr(value.dtype())}});
  }
  Node* Read(const std::string& name, Node* handle, DType dtype) {
    return Add(name, "ReadVariableOp", {handle}, {{"dtype", MakeAttr(dtype)}});
  }

  // Sends the nodes added since the last call to the session.
  void Sync() {
    absl::Status s = session_.Extend(graph_.ToGraphDefSince(synced_));
    ASSERT_TRUE(s.ok()) << s;
    synced_ = graph_.num_nodes();
  }
  absl::StatusOr<Tensor> Fetch(const std::string& tensor, const testing::Feeds& feeds = {}) {
    Sync();
    std::vector<Tensor> out;
    TW_RETURN_IF_ERROR(session_.Run(feeds, {tensor}, {}, &out));
    return out[0];
  }
  Tensor FetchOk(const std::string& tensor, const testing::Feeds& feeds = {}) {
    auto t = Fetch(tensor, feeds);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : Tensor();
  }
  absl::Status RunTarget(const std::string& target) {
    Sync();
    return session_.Run({}, {}, {target}, nullptr);
  }
  testing::GraphSession& session() { return session_; }

 private:
  FlowGraph graph_;
  testing::GraphSession session_;
  int synced_ = 0;
};

TEST(ResourceVariableTest, AssignReadAndUpdateAcrossRuns) {
  VarGraph g;
  Node* v = g.Handle("v", DType::kFloat, PartialShape({2}), "W");
  g.Update("init", "AssignVariableOp", v, F32({2}, {1, 2}));
  g.Read("read", v, DType::kFloat);
  g.Update("add", "AssignAddVariableOp", v, F32({2}, {10, 20}));
  g.Update("sub", "AssignSubVariableOp", v, F32({2}, {0.5f, 1}));
  g.Add("is_init", "VarIsInitializedOp", {v}, {});

  EXPECT_TENSOR_EQ(g.FetchOk("is_init"), Bool({}, {false}));
  EXPECT_TENSOR_EQ(g.FetchOk("init"), F32({2}, {1, 2}));  // Assign returns the new value.
  EXPECT_TENSOR_EQ(g.FetchOk("is_init"), Bool({}, {true}));
  EXPECT_TENSOR_EQ(g.FetchOk("read"), F32({2}, {1, 2}));
  EXPECT_TENSOR_EQ(g.FetchOk("add"), F32({2}, {11, 22}));
  EXPECT_TENSOR_EQ(g.FetchOk("add"), F32({2}, {21, 42}));
  EXPECT_TENSOR_EQ(g.FetchOk("sub"), F32({2}, {20.5f, 41}));
  ASSERT_TRUE(g.RunTarget("add").ok());
  EXPECT_TENSOR_EQ(g.FetchOk("read"), F32({2}, {30.5f, 61}));
  // Re-initializing resets the value.
  EXPECT_TENSOR_EQ(g.FetchOk("init"), F32({2}, {1, 2}));
  EXPECT_TENSOR_EQ(g.FetchOk("read"), F32({2}, {1, 2}));
  // The handle names the variable on this session's device.
  Tensor h = g.FetchOk("v");
  ASSERT_EQ(h.dtype(), DType::kResource);
  EXPECT_EQ(h.resource().name, "W");
  EXPECT_EQ(h.resource().container, "");
  EXPECT_EQ(h.resource().device, kCpu0);
}

TEST(ResourceVariableTest, EveryNumericDtype) {
  VarGraph g;
  Node* d = g.Handle("d", DType::kDouble, PartialShape({}));
  Node* i = g.Handle("i", DType::kInt32, PartialShape({3}));
  Node* l = g.Handle("l", DType::kInt64, PartialShape({1}));
  g.Update("d_init", "AssignVariableOp", d, F64({}, {0.25}));
  g.Update("d_sub", "AssignSubVariableOp", d, F64({}, {1}));
  g.Update("i_init", "AssignVariableOp", i, I32({3}, {1, 2, std::numeric_limits<int32_t>::max()}));
  g.Update("i_add", "AssignAddVariableOp", i, I32({3}, {-1, 5, 1}));
  g.Update("l_init", "AssignVariableOp", l, I64({1}, {int64_t{1} << 40}));
  g.Update("l_sub", "AssignSubVariableOp", l, I64({1}, {1}));
  ASSERT_TRUE(g.RunTarget("d_init").ok());
  ASSERT_TRUE(g.RunTarget("i_init").ok());
  ASSERT_TRUE(g.RunTarget("l_init").ok());
  EXPECT_TENSOR_EQ(g.FetchOk("d_sub"), F64({}, {-0.75}));
  // Integer overflow wraps instead of being undefined.
  EXPECT_TENSOR_EQ(g.FetchOk("i_add"), I32({3}, {0, 7, std::numeric_limits<int32_t>::min()}));
  EXPECT_TENSOR_EQ(g.FetchOk("l_sub"), I64({1}, {(int64_t{1} << 40) - 1}));
  // A bool variable can be assigned and read but not added to.
  Node* b = g.Handle("b", DType::kBool, PartialShape({2}));
  g.Update("b_init", "AssignVariableOp", b, Bool({2}, {true, false}));
  g.Read("b_read", b, DType::kBool);
  ASSERT_TRUE(g.RunTarget("b_init").ok());
  EXPECT_TENSOR_EQ(g.FetchOk("b_read"), Bool({2}, {true, false}));
  g.Update("b_add", "AssignAddVariableOp", b, Bool({2}, {true, true}));
  EXPECT_STATUS(g.RunTarget("b_add"), absl::StatusCode::kInvalidArgument, "numeric dtype");
}

TEST(ResourceVariableTest, UninitializedReadAndUpdateFail) {
  VarGraph g;
  Node* v = g.Handle("W", DType::kFloat, PartialShape({2}));  // Named after the node.
  g.Read("read", v, DType::kFloat);
  g.Update("add", "AssignAddVariableOp", v, F32({2}, {1, 1}));
  g.Update("sub", "AssignSubVariableOp", v, F32({2}, {1, 1}));
  auto read = g.Fetch("read");
  EXPECT_STATUS(read.status(), absl::StatusCode::kFailedPrecondition,
                "variable 'W' is uninitialized (run its initializer");
  EXPECT_STATUS(read.status(), absl::StatusCode::kFailedPrecondition, "node 'read'");
  EXPECT_STATUS(g.Fetch("add").status(), absl::StatusCode::kFailedPrecondition,
                "variable 'W' is uninitialized");
  EXPECT_STATUS(g.Fetch("sub").status(), absl::StatusCode::kFailedPrecondition,
                "variable 'W' is uninitialized");
}

TEST(ResourceVariableTest, DtypeMismatchesNameBothTypes) {
  VarGraph g;
  Node* v = g.Handle("v", DType::kFloat, PartialShape({2}), "W");
  g.Update("assign64", "AssignVariableOp", v, F64({2}, {1, 2}));
  EXPECT_STATUS(g.RunTarget("assign64"), absl::StatusCode::kInvalidArgument,
                "variable 'W' has dtype float32 but the value has dtype float64");
  g.Update("init", "AssignVariableOp", v, F32({2}, {1, 2}));
  ASSERT_TRUE(g.RunTarget("init").ok());
  g.Read("read64", v, DType::kDouble);
  EXPECT_STATUS(g.Fetch("read64").status(), absl::StatusCode::kInvalidArgument,
                "variable 'W' has dtype float32 but is read as float64");
  g.Update("add_int", "AssignAddVariableOp", v, I32({2}, {1, 2}));
  EXPECT_STATUS(g.RunTarget("add_int"), absl::StatusCode::kInvalidArgument, "int32");
  // A second handle declaring another dtype for the same variable.
  g.Handle("v64", DType::kDouble, PartialShape({2}), "W");
  EXPECT_STATUS(g.Fetch("v64").status(), absl::StatusCode::kInvalidArgument, "float32");
}

TEST(ResourceVariableTest, ShapeMismatchesAreInvalidArgument) {
  VarGraph g;
  Node* v = g.Handle("v", DType::kFloat, PartialShape({2}), "W");
  g.Update("assign3", "AssignVariableOp", v, F32({3}, {1, 2, 3}));
  EXPECT_STATUS(g.RunTarget("assign3"), absl::StatusCode::kInvalidArgument,
                "cannot assign a value of shape [3] to variable 'W' of shape [2]");
  // A partially known declared shape accepts any matching value; updates need equal shapes.
  Node* p = g.Handle("p", DType::kFloat, PartialShape({-1}), "P");
  g.Update("p_init", "AssignVariableOp", p, F32({3}, {1, 2, 3}));
  g.Update("p_add", "AssignAddVariableOp", p, F32({2}, {1, 2}));
  g.Update("p_scalar", "AssignVariableOp", p, F32({}, {1}));
  ASSERT_TRUE(g.RunTarget("p_init").ok());
  EXPECT_STATUS(g.RunTarget("p_add"), absl::StatusCode::kInvalidArgument,
                "cannot add a value of shape [2] to variable 'P' of shape [3]");
  EXPECT_STATUS(g.RunTarget("p_scalar"), absl::StatusCode::kInvalidArgument, "of shape [?]");
  // An unknown declared shape accepts any value; validate_shape then pins it.
  Node* u = g.Handle("u", DType::kFloat, PartialShape::UnknownRank(), "U");
  g.Update("u_init", "AssignVariableOp", u, F32({2}, {1, 2}));
  ASSERT_TRUE(g.RunTarget("u_init").ok());
  Node* c = g.Const("u_big", F32({4}, {1, 2, 3, 4}));
  g.Add("u_free", "AssignVariableOp", {u, c}, {{"dtype", MakeAttr(DType::kFloat)}});
  g.Add("u_pinned", "AssignVariableOp", {u, c},
        {{"dtype", MakeAttr(DType::kFloat)}, {"validate_shape", MakeAttr(true)}});
  EXPECT_STATUS(g.RunTarget("u_pinned"), absl::StatusCode::kInvalidArgument, "validate_shape");
  EXPECT_TENSOR_EQ(g.FetchOk("u_free"), F32({4}, {1, 2, 3, 4}));
  // The handle input must be a scalar (found while building the graph).
  Node* vec = g.Const("not_handle", I32({2}, {1, 2}));
  EXPECT_STATUS(g.TryAdd("bad", "ReadVariableOp", {vec}, {{"dtype", MakeAttr(DType::kFloat)}}),
                absl::StatusCode::kInvalidArgument, "resource");
}

TEST(ResourceVariableTest, ReadTakenBeforeAnUpdateKeepsItsValue) {
  VarGraph g;
  Node* v = g.Handle("v", DType::kFloat, PartialShape({3}), "W");
  g.Update("init", "AssignVariableOp", v, F32({3}, {1, 2, 3}));
  Node* read = g.Read("read", v, DType::kFloat);
  g.Update("add", "AssignAddVariableOp", v, F32({3}, {1, 1, 1}));
  ASSERT_TRUE(g.RunTarget("init").ok());
  Tensor before = g.FetchOk("read");
  EXPECT_TENSOR_EQ(g.FetchOk("add"), F32({3}, {2, 3, 4}));
  EXPECT_TENSOR_EQ(before, F32({3}, {1, 2, 3}));
  // Within one step: the update runs after the read (control edge), and the read fetched
  // in the same run still shows the value from before the update.
  Node* one = g.Const("one", F32({3}, {1, 1, 1}));
  g.Add("add_after_read", "AssignAddVariableOp", {v, one}, {{"dtype", MakeAttr(DType::kFloat)}},
        {read});
  g.Sync();
  std::vector<Tensor> out;
  ASSERT_TRUE(g.session().Run({}, {"read", "add_after_read"}, {}, &out).ok());
  EXPECT_TENSOR_EQ(out[0], F32({3}, {2, 3, 4}));
  EXPECT_TENSOR_EQ(out[1], F32({3}, {3, 4, 5}));
  EXPECT_TENSOR_EQ(g.FetchOk("add"), F32({3}, {4, 5, 6}));
  EXPECT_TENSOR_EQ(out[0], F32({3}, {2, 3, 4}));
  EXPECT_TENSOR_EQ(out[1], F32({3}, {3, 4, 5}));
}

TEST(ResourceVariableTest, UpdatesWriteInPlaceOnlyWithoutReaders) {
  VarGraph g;
  Node* v = g.Handle("v", DType::kInt64, PartialShape({1000}), "W");
  std::vector<int64_t> zeros(1000, 0), ones(1000, 1);
  auto fill = [](std::vector<int64_t> v) {
    return *Tensor::FromVector<int64_t>(v, TensorShape({1000}));
  };
  g.Update("init", "AssignVariableOp", v, fill(zeros));
  g.Read("read", v, DType::kInt64);
  g.Update("add", "AssignAddVariableOp", v, fill(ones));
  ASSERT_TRUE(g.RunTarget("init").ok());
  const void* buffer = g.FetchOk("read").raw_data();  // The tensor is dropped at once.
  ASSERT_TRUE(g.RunTarget("add").ok());
  Tensor held = g.FetchOk("read");
  EXPECT_EQ(held.raw_data(), buffer) << "no reader held the value: update in place";
  ASSERT_TRUE(g.RunTarget("add").ok());
  Tensor after = g.FetchOk("read");
  EXPECT_NE(after.raw_data(), held.raw_data()) << "a reader holds the value: copy first";
  EXPECT_EQ(held.flat<int64_t>()[999], 1);
  EXPECT_EQ(after.flat<int64_t>()[999], 2);
}

TEST(ResourceVariableTest, AssignCopiesAFedValue) {
  VarGraph g;
  Node* v = g.Handle("v", DType::kFloat, PartialShape({2}), "W");
  Node* x = g.Add("x", "Placeholder", {}, {{"dtype", MakeAttr(DType::kFloat)}});
  g.Add("assign", "AssignVariableOp", {v, x}, {{"dtype", MakeAttr(DType::kFloat)}});
  g.Read("read", v, DType::kFloat);
  Tensor fed = F32({2}, {5, 6});
  ASSERT_TRUE(g.Fetch("assign", {{"x", fed}}).ok());
  fed.data<float>()[0] = -1;  // The caller still owns its tensor.
  EXPECT_TENSOR_EQ(g.FetchOk("read"), F32({2}, {5, 6}));
}

TEST(ResourceVariableTest, HandlesShareVariablesByName) {
  VarGraph g;
  Node* a = g.Handle("a", DType::kFloat, PartialShape({}), "shared");
  Node* b = g.Handle("b", DType::kFloat, PartialShape({}), "shared");
  Node* c = g.Handle("c", DType::kFloat, PartialShape({}));  // Its own variable "c".
  g.Update("set_a", "AssignVariableOp", a, F32({}, {3}));
  g.Read("read_b", b, DType::kFloat);
  g.Add("c_init", "VarIsInitializedOp", {c}, {});
  ASSERT_TRUE(g.RunTarget("set_a").ok());
  EXPECT_TENSOR_EQ(g.FetchOk("read_b"), F32({}, {3}));
  EXPECT_TENSOR_EQ(g.FetchOk("c_init"), Bool({}, {false}));
  EXPECT_EQ(g.FetchOk("c").resource().name, "c");
}

TEST(ResourceVariableTest, FedHandles) {
  VarGraph g;
  Node* h = g.Add("h", "Placeholder", {}, {{"dtype", MakeAttr(DType::kResource)}});
  g.Update("assign", "AssignVariableOp", h, F32({}, {7}));
  g.Read("read", h, DType::kFloat);
  g.Add("is_init", "VarIsInitializedOp", {h}, {});
  // A handle to a variable that does not exist yet: assigning creates it.
  Tensor handle = Tensor::Resource({kCpu0, "box", "fresh"});
  EXPECT_TENSOR_EQ(g.FetchOk("is_init", {{"h", handle}}), Bool({}, {false}));
  EXPECT_STATUS(g.Fetch("read", {{"h", handle}}).status(), absl::StatusCode::kFailedPrecondition,
                "variable 'fresh' is uninitialized");
  EXPECT_TENSOR_EQ(g.FetchOk("assign", {{"h", handle}}), F32({}, {7}));
  EXPECT_TENSOR_EQ(g.FetchOk("read", {{"h", handle}}), F32({}, {7}));
  // A handle from another device.
  Tensor remote = Tensor::Resource({"/job:ps/replica:0/task:0/device:CPU:0", "", "fresh"});
  EXPECT_STATUS(g.Fetch("read", {{"h", remote}}).status(), absl::StatusCode::kInvalidArgument,
                "lives on /job:ps");
}

TEST(ResourceVariableTest, DestroyResource) {
  VarGraph g;
  Node* v = g.Handle("v", DType::kFloat, PartialShape({}), "W");
  g.Update("init", "AssignVariableOp", v, F32({}, {1}));
  g.Add("destroy", "DestroyResourceOp", {v}, {});
  g.Add("destroy_strict", "DestroyResourceOp", {v}, {{"ignore_lookup_error", MakeAttr(false)}});
  g.Add("is_init", "VarIsInitializedOp", {v}, {});
  Node* h = g.Add("h", "Placeholder", {}, {{"dtype", MakeAttr(DType::kResource)}});
  g.Add("destroy_fed", "DestroyResourceOp", {h}, {{"ignore_lookup_error", MakeAttr(false)}});
  g.Add("destroy_fed_lax", "DestroyResourceOp", {h}, {});
  ASSERT_TRUE(g.RunTarget("init").ok());
  EXPECT_TENSOR_EQ(g.FetchOk("is_init"), Bool({}, {true}));
  ASSERT_TRUE(g.RunTarget("destroy").ok());
  // The handle op registers a fresh, uninitialized variable on its next run.
  EXPECT_TENSOR_EQ(g.FetchOk("is_init"), Bool({}, {false}));
  ASSERT_TRUE(g.RunTarget("destroy_strict").ok());
  Tensor missing = Tensor::Resource({kCpu0, "", "nothing"});
  std::vector<Tensor> out;
  EXPECT_STATUS(g.session().Run({{"h", missing}}, {}, {"destroy_fed"}, &out),
                absl::StatusCode::kNotFound, "variable 'nothing' does not exist");
  EXPECT_TRUE(g.session().Run({{"h", missing}}, {}, {"destroy_fed_lax"}, &out).ok());
}

TEST(ResourceVariableTest, ShapeInference) {
  VarGraph g;
  Node* v = g.Handle("v", DType::kFloat, PartialShape({2, 3}));
  EXPECT_EQ(v->output_shape(0), PartialShape({}));
  Node* assign = g.Update("assign", "AssignVariableOp", v, F32({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(assign->output_shape(0), PartialShape({2, 3}));
  Node* is_init = g.Add("is_init", "VarIsInitializedOp", {v}, {});
  EXPECT_EQ(is_init->output_type(0), DType::kBool);
  EXPECT_EQ(is_init->output_shape(0), PartialShape({}));
  EXPECT_STATUS(g.TryAdd("no_shape", "VarHandleOp", {}, {{"dtype", MakeAttr(DType::kFloat)}}),
                absl::StatusCode::kInvalidArgument, "missing attr 'shape'");
}

}  // namespace
}  // namespace tw
