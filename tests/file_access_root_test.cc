// Issue 14 item 13: a `tw server` confines the files its graphs' ops read and write to its
// --file_access_root (default: its working directory); an in-process session does not.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "graph/attr_value.h"
#include "tensorweave/tensorweave.h"
#include "testing/command_util.h"
#include "testing/local_cluster.h"
#include "testing/test_util.h"
#include "testing/scratch_dir.h"

namespace tw {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

const std::string kTw = std::string(TW_BINARY_DIR) + "/tools/tw";

struct OneVariable {
  explicit OneVariable(Graph& g) : v(g, constant(g, F32({3}, {1, 2, 3})), "v"), saver(g) {}
  Variable v;
  Saver saver;
};

TEST(FileAccessRootTest, SaveAndRestoreOutsideTheRootArePermissionDenied) {
  ScratchDir scratch;
  const std::string root = scratch / "root", outside = scratch / "outside";
  fs::create_directories(root + "/sub");
  fs::create_directories(outside);
  fs::create_directory_symlink(outside, root + "/escape");
  const std::string canonical_root = fs::canonical(root).string();
  // A checkpoint outside the root, written by an in-process session (no root there).
  {
    Graph g;
    OneVariable m(g);
    Session local(g);
    local.run(global_variables_initializer(g));
    m.saver.save(local, outside + "/model");
  }
  auto cluster = testing::LocalCluster::Start({{"local", 1}}, kTw, {"--file_access_root=" + root});
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Graph g;
  OneVariable m(g);
  Session sess(g, (*cluster)->target("local", 0));
  sess.run(global_variables_initializer(g));
  // Inside the root (also through a `..` that stays inside): saved and restored.
  const std::string path = m.saver.save(sess, root + "/sub/../model", 1);
  EXPECT_TRUE(fs::exists(root + "/model-1.index"));
  m.saver.restore(sess, path);
  EXPECT_TENSOR_EQ(sess.run(m.v.value()), F32({3}, {1, 2, 3}));
  // Outside: directly, through `..`, and through a symlink inside the root.
  for (const std::string& prefix : {outside + "/model2", root + "/../outside/model2", root + "/escape/model2"}) {
    EXPECT_STATUS(ErrorOf([&] { m.saver.save(sess, prefix); }), absl::StatusCode::kPermissionDenied,
                  "file '" + prefix + "' (resolved to '" + fs::canonical(outside).string() +
                      "/model2') is outside this server's file access root '" + canonical_root + "'");
  }
  EXPECT_FALSE(fs::exists(outside + "/model2.index"));
  EXPECT_STATUS(ErrorOf([&] { m.saver.restore(sess, outside + "/model"); }), absl::StatusCode::kPermissionDenied,
                "is outside this server's file access root '" + canonical_root + "'");
  EXPECT_STATUS(ErrorOf([&] { m.saver.restore(sess, root + "/escape/model"); }),
                absl::StatusCode::kPermissionDenied, "file access root");
  // The task still serves, and the refused restore changed nothing.
  EXPECT_TENSOR_EQ(sess.run(m.v.value()), F32({3}, {1, 2, 3}));
}

// TensorFlow's saver ops (what TF1 graphs and clients send) are confined the same way.
TEST(FileAccessRootTest, TensorFlowsSaveV2RestoreV2AndMergeAreConfinedToo) {
  ScratchDir scratch;
  const std::string root = scratch / "root", outside = scratch / "outside";
  fs::create_directories(root);
  fs::create_directories(outside);
  auto cluster = testing::LocalCluster::Start({{"local", 1}}, kTw, {"--file_access_root=" + root});
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Graph g;
  auto scalar = [&](const std::string& v) { return constant(g, testing::Str({}, {v})); };
  auto vector = [&](const std::string& v) { return constant(g, testing::Str({1}, {v})); };
  auto save = [&](const std::string& prefix) {
    return g.AddOperation("SaveV2", "", {scalar(prefix), vector("v"), vector(""), constant(g, F32({2}, {1, 2}))}, {});
  };
  auto restore = [&](const std::string& prefix) {
    return g.AddOperation("RestoreV2", "", {scalar(prefix), vector("v"), vector("")},
                          {{"dtypes", MakeAttr(absl::Span<const DType>(std::vector<DType>{DType::kFloat}))}});
  };
  Session sess(g, (*cluster)->target("local", 0));
  sess.run(save(root + "/part"));
  EXPECT_TENSOR_EQ(sess.run(restore(root + "/part").output(0)), F32({2}, {1, 2}));
  const std::string denied = "is outside this server's file access root";
  EXPECT_STATUS(ErrorOf([&] { sess.run(save(outside + "/m")); }), absl::StatusCode::kPermissionDenied, denied);
  EXPECT_FALSE(fs::exists(outside + "/m.index"));
  EXPECT_STATUS(ErrorOf([&] { sess.run(restore(root + "/../outside/m")); }), absl::StatusCode::kPermissionDenied,
                denied);
  Operation merge = g.AddOperation("MergeV2Checkpoints", "", {vector(root + "/part"), scalar(outside + "/merged")}, {});
  EXPECT_STATUS(ErrorOf([&] { sess.run(merge); }), absl::StatusCode::kPermissionDenied, denied);
  EXPECT_FALSE(fs::exists(outside + "/merged.index"));
  EXPECT_TRUE(fs::exists(root + "/part.index"));  // the refused merge moved nothing
}

TEST(FileAccessRootTest, DefaultRootIsTheServersWorkingDirectory) {
  ScratchDir scratch;
  auto cluster = testing::LocalCluster::Start({{"local", 1}}, kTw);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Graph g;
  OneVariable m(g);
  Session sess(g, (*cluster)->target("local", 0));
  sess.run(global_variables_initializer(g));
  // The servers run in this process's working directory (ProcessCluster starts them so).
  const std::string cwd = fs::canonical(fs::current_path()).string();
  if (fs::canonical(scratch.path()).string().rfind(cwd + "/", 0) == 0) GTEST_SKIP() << "scratch inside cwd";
  EXPECT_STATUS(ErrorOf([&] { m.saver.save(sess, scratch / "model"); }), absl::StatusCode::kPermissionDenied,
                "file access root '" + cwd + "'");
}

TEST(FileAccessRootTest, AMissingRootIsRefusedAtStartup) {
  auto r = testing::RunCommand(kTw + " server --cluster_spec='local|localhost:1' --job_name=local "
                                     "--file_access_root=/nonexistent/tw_root");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("file access root '/nonexistent/tw_root' is not an existing directory"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace tw
