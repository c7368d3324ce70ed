// The function runner: a FunctionDef in TF's format instantiated and run on tensors,
// nested calls, and the errors that name the function.
#include "runtime/function_runtime.h"

#include <gtest/gtest.h>

#include "google/protobuf/text_format.h"
#include "graph/function_body.h"
#include "testing/test_util.h"

namespace tw {
namespace {

// AddOne(x: float) -> y: float, y = x + 1, written as TensorFlow writes functions.
constexpr char kAddOne[] = R"pb(
  signature {
    name: "AddOne"
    input_arg { name: "x" type: DT_FLOAT }
    output_arg { name: "y" type: DT_FLOAT }
  }
  node_def {
    name: "one" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
  }
  node_def { name: "add" op: "AddV2" input: "x" input: "one:output:0" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "y" value: "add:z:0" }
)pb";

FunctionDef Parse(const char* text) {
  FunctionDef fn;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &fn));
  return fn;
}

class FunctionRuntimeTest : public ::testing::Test {
 protected:
  FunctionRuntimeTest() : devices_(DeviceMgr::CreateLocal("localhost", 0)), runtime_(devices_->default_device(), 1 << 30) {}
  void Add(const FunctionDef& fn) {
    FunctionDefLibrary library;
    *library.add_function() = fn;
    ASSERT_TRUE(runtime_.AddLibrary(library).ok());
  }
  std::unique_ptr<DeviceMgr> devices_;
  LocalFunctionRuntime runtime_;
};

TEST_F(FunctionRuntimeTest, RunsAFunctionOnItsArguments) {
  Add(Parse(kAddOne));
  auto h = runtime_.Instantiate("AddOne");
  ASSERT_TRUE(h.ok()) << h.status();
  std::vector<Tensor> rets;
  ASSERT_TRUE(runtime_.RunSync(*h, {F32({3}, {1, 2, 3})}, &rets).ok());
  ASSERT_EQ(rets.size(), 1u);
  EXPECT_TENSOR_EQ(rets[0], F32({3}, {2, 3, 4}));
  // The instantiation is cached: the same handle, and it runs again.
  EXPECT_EQ(*runtime_.Instantiate("AddOne"), *h);
  ASSERT_TRUE(runtime_.RunSync(*h, {F32({}, {9})}, &rets).ok());
  EXPECT_TENSOR_EQ(rets[0], F32({}, {10}));
}

TEST_F(FunctionRuntimeTest, WrongArgumentsNameTheFunction) {
  Add(Parse(kAddOne));
  auto h = runtime_.Instantiate("AddOne");
  ASSERT_TRUE(h.ok());
  std::vector<Tensor> rets;
  EXPECT_STATUS(runtime_.RunSync(*h, {}, &rets), absl::StatusCode::kInvalidArgument,
                "function 'AddOne' takes 1 arguments, got 0");
  EXPECT_STATUS(runtime_.RunSync(*h, {I32({}, {1})}, &rets), absl::StatusCode::kInvalidArgument,
                "argument 0 of function 'AddOne' is int32, expected float32");
}

TEST_F(FunctionRuntimeTest, MissingOrMalformedFunctionsAreInvalidArgument) {
  EXPECT_STATUS(runtime_.Instantiate("Nope").status(), absl::StatusCode::kInvalidArgument,
                "function 'Nope' is not in the graph's function library");
  FunctionDef bad = Parse(kAddOne);
  bad.mutable_signature()->set_name("Bad");
  bad.mutable_node_def(1)->set_input(1, "nothing:output:0");
  Add(bad);
  EXPECT_STATUS(runtime_.Instantiate("Bad").status(), absl::StatusCode::kInvalidArgument,
                "function 'Bad': input 'nothing:output:0' names no argument or node");
}

TEST(FunctionBodyTest, AGraphBecomesAFunctionAndBack) {
  GraphDef body;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "sq" op: "Square" input: "p" attr { key: "T" value { type: DT_INT32 } } }
  )pb", &body));
  auto fn = FunctionDefFromGraphDef(body, "Sq", {"p"}, {"sq:0"}, OpRegistry::Global());
  ASSERT_TRUE(fn.ok()) << fn.status();
  EXPECT_EQ(fn->signature().input_arg(0).name(), "arg0");
  EXPECT_EQ(fn->ret().at("output0"), "sq:y:0");
  EXPECT_EQ(fn->node_def(0).input(0), "arg0");
  auto graph = FunctionBodyGraphDef(*fn, OpRegistry::Global());
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->node(0).op(), "_Arg");
  EXPECT_EQ(graph->node(2).op(), "_Retval");
  EXPECT_EQ(graph->node(2).input(0), "sq:0");
}

}  // namespace
}  // namespace tw
