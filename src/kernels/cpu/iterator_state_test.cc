// Iterator state: the key -> tensor map and its proto round trip, and a C++ pipeline
// (range -> shuffle -> batch -> prefetch) saved by tw::Saver beside a variable and
// restored in a new graph and session, continuing with the same elements.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "graph/attr_value.h"
#include "kernels/iterator_state.h"
#include "tensorweave/tensorweave.h"
#include "testing/scratch_dir.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using ::testing::HasSubstr;
using testing::I64;
using testing::ScratchDir;

TEST(IteratorStateTest, RoundTripsThroughTheProto) {
  IteratorStateMap state;
  IteratorStateWriter w(&state, "Iterator");
  w.WriteInt("next", 7);
  IteratorStateWriter child = w.Child("input");
  child.WriteString("kind", "Range");
  child.WriteElements("buffer", {{I64({2}, {1, 2})}, {I64({}, {3})}});
  child.WriteStatus("status", absl::DataLossError("bad record"));

  absl::StatusOr<IteratorStateMap> parsed = ParseIteratorState(SerializeIteratorState(state));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  IteratorStateReader r(&*parsed, "Iterator");
  EXPECT_EQ(*r.ReadInt("next"), 7);
  IteratorStateReader in = r.Child("input");
  EXPECT_EQ(*in.ReadString("kind"), "Range");
  absl::StatusOr<std::vector<Element>> buffer = in.ReadElements("buffer");
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  ASSERT_EQ(buffer->size(), 2u);
  EXPECT_EQ((*buffer)[0][0].shape(), TensorShape({2}));
  EXPECT_EQ((*buffer)[0][0].data<int64_t>()[1], 2);
  EXPECT_EQ((*buffer)[1][0].scalar<int64_t>(), 3);
  absl::StatusOr<absl::Status> status = in.ReadStatus("status");
  ASSERT_TRUE(status.ok());
  EXPECT_TRUE(absl::IsDataLoss(*status));
  EXPECT_EQ(status->message(), "bad record");
}

TEST(IteratorStateTest, MissingOrMistypedKeysAreInvalidArgumentNamingThem) {
  IteratorStateMap state;
  IteratorStateWriter(&state, "Iterator").WriteString("next", "x");
  IteratorStateReader r(&state, "Iterator");
  absl::StatusOr<int64_t> missing = r.Child("input").ReadInt("next");
  EXPECT_TRUE(absl::IsInvalidArgument(missing.status()));
  EXPECT_THAT(missing.status().message(), HasSubstr("'Iterator::input::next'"));
  absl::StatusOr<int64_t> mistyped = r.ReadInt("next");
  EXPECT_TRUE(absl::IsInvalidArgument(mistyped.status()));
  EXPECT_THAT(mistyped.status().message(), HasSubstr("'Iterator::next' is not an int64 scalar"));
  EXPECT_TRUE(absl::IsInvalidArgument(ParseIteratorState("\xff\xff not a proto").status()));
  // A damaged count is an error, not an allocation of that many elements.
  IteratorStateWriter(&state, "Iterator").Child("buffer").WriteInt("size", int64_t{1} << 60);
  EXPECT_THAT(r.ReadElements("buffer").status().message(), HasSubstr("'Iterator::buffer::size' is not a count"));
}

TEST(IteratorStateTest, SerializedVariantBytes) {
  EXPECT_EQ(*SerializedVariantBytes(SerializedVariant("abc")), "abc");
  EXPECT_THAT(SerializedVariantBytes(I64({}, {1})).status().message(), HasSubstr("expected a serialized iterator"));
}

// range(0, 40) -> shuffle(8, seeded) -> batch(3) -> prefetch(2) through IteratorV2.
struct Pipeline {
  Output handle;
  Operation init;
  Output next;
};

Pipeline MakePipeline(Graph& g) {
  const std::vector<DType> scalar_type = {DType::kInt64};
  auto attrs = [&](std::vector<PartialShape> shapes) {
    return std::map<std::string, AttrValue>{{"output_types", MakeAttr(absl::Span<const DType>(scalar_type))},
                                            {"output_shapes", MakeAttr(absl::Span<const PartialShape>(shapes))}};
  };
  const std::vector<PartialShape> scalar = {PartialShape(TensorShape())};
  const std::vector<PartialShape> batch = {PartialShape::Unknown(1)};
  Output range = g.AddOperation("RangeDataset", "range",
                                {constant(g, int64_t{0}), constant(g, int64_t{40}), constant(g, int64_t{1})},
                                attrs(scalar)).output(0);
  Output shuffle = g.AddOperation("ShuffleDataset", "shuffle",
                                  {range, constant(g, int64_t{8}), constant(g, int64_t{3}), constant(g, int64_t{4})},
                                  attrs(scalar)).output(0);
  Output batched = g.AddOperation("BatchDatasetV2", "batch",
                                  {shuffle, constant(g, int64_t{3}), constant(g, Tensor::Scalar(false))},
                                  attrs(batch)).output(0);
  Output prefetch = g.AddOperation("PrefetchDataset", "prefetch", {batched, constant(g, int64_t{2})}, attrs(batch))
                        .output(0);
  std::map<std::string, AttrValue> it_attrs = attrs(batch);
  it_attrs["shared_name"] = MakeAttr(std::string());
  it_attrs["container"] = MakeAttr(std::string());
  Output handle = g.AddOperation("IteratorV2", "Iterator", {}, it_attrs).output(0);
  Operation init = g.AddOperation("MakeIterator", "init", {prefetch, handle}, {});
  Output next = g.AddOperation("IteratorGetNext", "next", {handle}, attrs(batch)).output(0);
  return {handle, init, next};
}

Saver::Saveable IteratorSaveable(Graph& g, const Pipeline& p) {
  Output state = g.AddOperation("SerializeIterator", "serialize", {p.handle}, {}).output(0);
  return Saver::Saveable{"Iterator:0_STATE", state, p.handle, "DeserializeIterator"};
}

std::vector<std::vector<int64_t>> Drain(Session& sess, const Output& next) {
  std::vector<std::vector<int64_t>> out;
  while (true) {
    try {
      Tensor t = sess.run(next);
      out.emplace_back(t.data<int64_t>(), t.data<int64_t>() + t.NumElements());
    } catch (const StatusError& e) {
      EXPECT_TRUE(absl::IsOutOfRange(e.status())) << e.status();
      return out;
    }
  }
}

TEST(IteratorCheckpointTest, SaverRestoresThePipelineInANewGraph) {
  ScratchDir dir;
  std::string path;
  std::vector<std::vector<int64_t>> after;
  {
    Graph g;
    Pipeline p = MakePipeline(g);
    Variable v(g, constant(g, I64({}, {5})), "v");
    Saver saver(g, {v}, {IteratorSaveable(g, p)});
    Session sess(g);
    sess.run(global_variables_initializer(g));
    sess.run(p.init);
    for (int i = 0; i < 4; ++i) sess.run(p.next);
    path = saver.save(sess, dir.path() + "/model");
    after = Drain(sess, p.next);
  }
  ASSERT_EQ(after.size(), 10u);  // 14 batches of 40 elements, 4 read before the save.
  EXPECT_EQ(after.back().size(), 1u);
  Graph g;
  Pipeline p = MakePipeline(g);
  Variable v(g, constant(g, I64({}, {0})), "v");
  Saver saver(g, {v}, {IteratorSaveable(g, p)});
  Session sess(g);
  // Before the initializer: TF's FailedPrecondition.
  try {
    saver.restore(sess, path);
    ADD_FAILURE() << "restored into an uninitialized iterator";
  } catch (const StatusError& e) {
    EXPECT_TRUE(absl::IsFailedPrecondition(e.status())) << e.status();
    EXPECT_THAT(std::string(e.status().message()), HasSubstr("iterator has not been initialized"));
  }
  sess.run(p.init);
  saver.restore(sess, path);
  EXPECT_EQ(sess.run(v.value()).scalar<int64_t>(), 5);
  EXPECT_EQ(Drain(sess, p.next), after);
}

TEST(IteratorCheckpointTest, SaveableNamesMustBeUnique) {
  Graph g;
  Pipeline p = MakePipeline(g);
  Variable v(g, constant(g, I64({}, {5})), "v");
  Saver saver(g, {v});
  Saver::Saveable s = IteratorSaveable(g, p);
  s.name = "v";
  EXPECT_THROW(saver.add_saveable(s), StatusError);
  EXPECT_THROW(Saver(g, std::vector<Variable>(), std::vector<Saver::Saveable>()), StatusError);
}

}  // namespace
}  // namespace tw
