// Op-test harness: builds a graph of one op whose inputs are Const nodes or Placeholders
// and runs it through a real LocalSession.
//   RunOp (test_util.h): inputs are Consts, so shape functions see their values.
//   RunOpFed: inputs are Placeholders of unknown shape fed at run time, so shape errors
//     reach the kernel's own run-time checks.
//   RunBoth: both of the above; checks that they agree and that the outputs fit the
//     statically inferred shapes.
//   InferShapes / InferShape: the shapes a node gets when some inputs are Consts and
//     others are Placeholders of partial shapes.
// Unset type attrs and list-length attrs are inferred from the inputs
// (InferAttrsFromInputs, as a client library does).
#ifndef TENSORWEAVE_TESTS_TESTING_OP_TEST_UTIL_H_
#define TENSORWEAVE_TESTS_TESTING_OP_TEST_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "graph/attr_value.h"
#include "graph/graph.h"
#include "testing/test_util.h"

namespace tw::testing {

// A list(int) attr value.
AttrValue IntList(std::vector<int64_t> v);

// One input of a test graph: a value (a Const, or a fed Placeholder) or, for shape
// inference only, a Placeholder of a partial shape.
struct OpInput {
  OpInput(Tensor t) : value(std::move(t)), dtype(value.dtype()) {}  // NOLINT: terse tests.
  OpInput(DType d, const PartialShape& s) : dtype(d), shape(s) {}
  Tensor value;
  DType dtype;
  std::optional<PartialShape> shape;  // Set: a Placeholder of this shape, never fed.
};

// Adds input nodes "input<i>" (Consts; Placeholders when `feed` or the input has a shape)
// and the op node "op" to `graph`, after completing `attrs` from the inputs' dtypes.
absl::StatusOr<Node*> BuildOp(FlowGraph& graph, const std::string& op,
                              const std::vector<OpInput>& inputs, AttrMap attrs, bool feed);

// The statically inferred shapes of every output, or the graph-building error.
absl::StatusOr<std::vector<PartialShape>> InferShapes(const std::string& op,
                                                      const std::vector<OpInput>& inputs,
                                                      AttrMap attrs = {});
// The inferred shape of output `index` alone.
absl::StatusOr<PartialShape> InferShape(const std::string& op, const std::vector<OpInput>& inputs,
                                        AttrMap attrs = {}, int index = 0);

// Runs the op with Const (feed == false) or fed Placeholder inputs of unknown shape and
// returns all outputs (runs it as a target when it has none); also appends the inferred
// output shapes to `inferred` when given.
absl::StatusOr<std::vector<Tensor>> RunOpWith(const std::string& op,
                                              const std::vector<OpInput>& inputs, AttrMap attrs,
                                              bool feed,
                                              std::vector<PartialShape>* inferred = nullptr);

// Like RunOp, but every input is a Placeholder of unknown shape fed at run time.
absl::StatusOr<std::vector<Tensor>> RunOpFed(const std::string& op,
                                             const std::vector<Tensor>& inputs,
                                             AttrMap attrs = {});
// The first output of RunOpFed; fails the test if there is an error.
Tensor RunOpFedOk(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs = {});

// Runs both ways; fails the test unless both succeed with equal outputs whose shapes
// fit the statically inferred ones. Returns the outputs (empty on failure).
std::vector<Tensor> RunBoth(const std::string& op, const std::vector<Tensor>& inputs,
                            AttrMap attrs = {});
// The first output of RunBoth (uninitialized on failure).
Tensor RunBoth1(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs = {});

// Expects the op to fail with `substring` both when the graph is built (the shape
// function sees constant inputs; InvalidArgument) and when it runs (the kernel sees fed
// inputs; `fed_code`).
::testing::AssertionResult FailsBoth(const std::string& op, const std::vector<Tensor>& inputs,
                                     AttrMap attrs, const std::string& substring,
                                     absl::StatusCode fed_code = absl::StatusCode::kInvalidArgument);
// Expects only the kernel to fail (fed inputs); constant inputs may fail earlier.
::testing::AssertionResult FailsFed(const std::string& op, const std::vector<Tensor>& inputs,
                                    AttrMap attrs, const std::string& substring,
                                    absl::StatusCode code = absl::StatusCode::kInvalidArgument);

}  // namespace tw::testing

// Kernel tests live in namespace tw and use these throughout.
namespace tw {
using testing::FailsBoth;
using testing::FailsFed;
using testing::InferShape;
using testing::InferShapes;
using testing::IntList;
using testing::OpInput;
using testing::RunBoth;
using testing::RunBoth1;
using testing::RunOpFed;
using testing::RunOpFedOk;
}  // namespace tw

#endif  // TENSORWEAVE_TESTS_TESTING_OP_TEST_UTIL_H_
