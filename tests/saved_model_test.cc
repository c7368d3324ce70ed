// LoadSavedModel and `tw run --saved_model` on the SavedModels TensorFlow wrote
// (tests/data/tf_saved_models/; python/tests/test_saved_model_from_tf.py checks every output
// against the values TF recorded): variables restored to TF's trained values, errors.
#include "savedmodel/saved_model_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tensorweave/tensor.h"
#include "testing/command_util.h"

namespace tw {
namespace {

const std::string kFixtures = std::string(TW_SOURCE_DIR) + "/tests/data/tf_saved_models";

std::vector<float> FetchFloats(SavedModelBundle& b, const std::vector<std::pair<std::string, Tensor>>& feeds,
                               const std::string& name) {
  std::vector<Tensor> out;
  absl::Status s = b.session->Run(feeds, {name}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return {};
  auto flat = out[0].flat<float>();
  return std::vector<float>(flat.data(), flat.data() + flat.size());
}

TEST(SavedModelLoaderTest, LoadsTfBuilderModelAndRestoresTrainedVariables) {
  auto bundle = LoadSavedModel(kFixtures + "/builder", {kSavedModelTagServe});
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  auto sig = FindSignature(bundle->meta_graph_def, kDefaultServingSignatureDefKey);
  ASSERT_TRUE(sig.ok()) << sig.status();
  EXPECT_EQ((*sig)->inputs().at("x").name(), "x:0");
  // relu(x W + b) at x = 0 is relu(b): b was saved as [0.5, -1.0] - 0.25.
  Tensor x(DType::kFloat, TensorShape({1, 3}));
  for (int i = 0; i < 3; ++i) x.flat<float>()[i] = 0.0f;
  std::vector<float> y = FetchFloats(*bundle, {{"x:0", x}}, (*sig)->outputs().at("y").name());
  ASSERT_EQ(y.size(), 2u);
  EXPECT_FLOAT_EQ(y[0], 0.25f);
  EXPECT_FLOAT_EQ(y[1], 0.0f);
  // At x = e0: relu(row 0 of the restored W + b), W read through TF's own snapshot node.
  x.flat<float>()[0] = 1.0f;
  std::vector<float> y1 = FetchFloats(*bundle, {{"x:0", x}}, "y:0");
  std::vector<float> w = FetchFloats(*bundle, {}, "dense/kernel/Read/ReadVariableOp:0");
  ASSERT_EQ(y1.size(), 2u);
  ASSERT_EQ(w.size(), 6u);
  EXPECT_FLOAT_EQ(y1[0], std::max(0.0f, w[0] + 0.25f));
  EXPECT_FLOAT_EQ(y1[1], std::max(0.0f, w[1] - 1.25f));
}

TEST(SavedModelLoaderTest, WrongTagsListTheTagSetsPresent) {
  auto bundle = LoadSavedModel(kFixtures + "/builder", {"serve", "gpu"});
  ASSERT_EQ(bundle.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(bundle.status().message().find("with available tags '[{'serve'}, {'train'}]'"), std::string::npos)
      << bundle.status();
}

TEST(SavedModelLoaderTest, UnknownSignatureListsTheSignatures) {
  auto bundle = LoadSavedModel(kFixtures + "/simple", {kSavedModelTagServe});
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  auto sig = FindSignature(bundle->meta_graph_def, "predict");
  ASSERT_EQ(sig.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(sig.status().message().find("it has: [serving_default]"), std::string::npos) << sig.status();
}

TEST(SavedModelLoaderTest, Tf2ModelRunsWithItsFunctionsInlined) {
  // tf.saved_model.save of a tf.Module: y = x w + 1 inside two nested function calls; w
  // restored by the key TF2's restore function reads ("w/.ATTRIBUTES/VARIABLE_VALUE").
  auto bundle = LoadSavedModel(kFixtures + "/tf2_module", {kSavedModelTagServe});
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  auto sig = FindSignature(bundle->meta_graph_def, kDefaultServingSignatureDefKey);
  ASSERT_TRUE(sig.ok()) << sig.status();
  Tensor x(DType::kFloat, TensorShape({1, 2}));
  x.flat<float>()[0] = 2.0f;
  x.flat<float>()[1] = -1.0f;
  std::vector<float> y = FetchFloats(*bundle, {{(*sig)->inputs().at("x").name(), x}}, (*sig)->outputs().at("y").name());
  std::vector<float> w = FetchFloats(*bundle, {}, "w/Read/ReadVariableOp:0");
  ASSERT_EQ(y.size(), 2u);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_FLOAT_EQ(y[0], 2 * w[0] - w[2] + 1);
  EXPECT_FLOAT_EQ(y[1], 2 * w[1] - w[3] + 1);
}

TEST(SavedModelLoaderTest, Tf2CallOfAMissingFunctionIsNotFound) {
  auto model = ReadSavedModel(kFixtures + "/tf2_module");
  ASSERT_TRUE(model.ok()) << model.status();
  MetaGraphDef meta = model->meta_graphs(0);
  // Drop the library: every call now names a function that is not there.
  GraphDef stripped;
  *stripped.mutable_node() = meta.graph_def().node();
  *meta.mutable_graph_def() = stripped;
  std::string restore_op;
  auto def = GraphDefForLoad(meta, "/nonexistent", &restore_op);
  ASSERT_EQ(def.status().code(), absl::StatusCode::kNotFound) << def.status();
  EXPECT_NE(def.status().message().find("the restore function '__inference__traced_restore_227' is missing"),
            std::string::npos) << def.status();
  meta.clear_saver_def();  // no restore: the serving call is the first to miss its function
  def = GraphDefForLoad(meta, "/nonexistent", &restore_op);
  ASSERT_EQ(def.status().code(), absl::StatusCode::kNotFound) << def.status();
  EXPECT_NE(def.status().message().find("calls function '__inference_signature_wrapper___call___187', which is not "
                                        "in the graph's library"), std::string::npos) << def.status();
}

TEST(SavedModelLoaderTest, MissingAndCorruptFilesAreClearErrors) {
  const std::string dir = ::testing::TempDir() + "/tw_saved_model_bad";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto missing = LoadSavedModel(dir, {kSavedModelTagServe});
  ASSERT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("SavedModel file does not exist at"), std::string::npos);
  // Every truncation of a real saved_model.pb is DataLoss naming the file or, where it
  // still parses, a clear error of another kind: never a crash.
  std::ifstream in(kFixtures + "/simple/saved_model.pb", std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string data = bytes.str();
  for (size_t cut : {size_t{1}, size_t{7}, data.size() / 3, data.size() / 2, data.size() - 1}) {
    std::ofstream(dir + "/saved_model.pb", std::ios::binary | std::ios::trunc) << data.substr(0, cut);
    auto r = LoadSavedModel(dir, {kSavedModelTagServe});
    ASSERT_FALSE(r.ok()) << cut;
    if (r.status().code() == absl::StatusCode::kDataLoss) {
      EXPECT_NE(r.status().message().find(dir + "/saved_model.pb"), std::string::npos) << r.status();
    }
  }
  // Flipped bytes: whatever the loader says, it says it as a Status (no crash, no hang).
  for (size_t i = 0; i < data.size(); i += 11) {
    std::string flipped = data;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    std::ofstream(dir + "/saved_model.pb", std::ios::binary | std::ios::trunc) << flipped;
    (void)LoadSavedModel(dir, {kSavedModelTagServe}).status();
  }
  // The whole file, but no variables: NotFound naming the checkpoint.
  std::ofstream(dir + "/saved_model.pb", std::ios::binary | std::ios::trunc) << data;
  auto r = LoadSavedModel(dir, {kSavedModelTagServe});
  ASSERT_EQ(r.status().code(), absl::StatusCode::kNotFound) << r.status();
  EXPECT_NE(r.status().message().find("variables/variables.index"), std::string::npos) << r.status();
}

tw::testing::CommandResult RunTw(const std::string& args) {
  return tw::testing::RunCommand(std::string(TW_BINARY_DIR) + "/tools/tw " + args);
}

TEST(SavedModelLoaderTest, TwRunFeedsAndFetchesBySignatureKey) {
  auto r = RunTw("run --saved_model " + kFixtures + "/builder --feed 'x=[[0,0,0]]' --fetch y --fetch total");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "y = float32 [1,2] [[0.25 0]]\ntotal = float32 [] 0.25\n");
  auto bad_key = RunTw("run --saved_model " + kFixtures + "/builder --feed 'x=[[0,0,0]]' --fetch nope");
  EXPECT_EQ(bad_key.exit_code, 1);
  EXPECT_NE(bad_key.output.find("signature 'serving_default' has no output 'nope'; it has: [total, y]"),
            std::string::npos) << bad_key.output;
  auto bad_tag = RunTw("run --saved_model " + kFixtures + "/builder --tag gpu --fetch y");
  EXPECT_EQ(bad_tag.exit_code, 1);
  EXPECT_NE(bad_tag.output.find("available tags '[{'serve'}, {'train'}]'"), std::string::npos) << bad_tag.output;
  auto both = RunTw("run --saved_model " + kFixtures + "/builder --graph x.pb --fetch y");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.output.find("give one of --graph FILE or --saved_model DIR"), std::string::npos) << both.output;
}

}  // namespace
}  // namespace tw
