#include "core/file_access.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace tw {
namespace {

namespace fs = std::filesystem;

class FileAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "twfa-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = fs::canonical(pattern).string();
    fs::create_directories(dir_ + "/root/sub");
    fs::create_directories(dir_ + "/rootx");
    root_ = *CanonicalFileAccessRoot(dir_ + "/root/");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_, root_;
};

TEST_F(FileAccessTest, InsideIsAllowed) {
  EXPECT_EQ(root_, dir_ + "/root");
  EXPECT_TRUE(CheckFileAccess(root_ + "/model", root_).ok());
  EXPECT_TRUE(CheckFileAccess(root_ + "/sub/../sub/x.index", root_).ok());
  EXPECT_TRUE(CheckFileAccess(root_ + "/missing/dir/x", root_).ok());
  EXPECT_TRUE(CheckFileAccess("/anything", "").ok());  // No root: anything.
}

TEST_F(FileAccessTest, OutsideIsPermissionDeniedNamingPathAndRoot) {
  for (const std::string& path : {dir_ + "/rootx/model", root_ + "/../rootx/model", root_ + "/missing/../../x",
                                  std::string("/etc/passwd"), std::string("")}) {
    absl::Status s = CheckFileAccess(path, root_);
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << path;
    EXPECT_NE(s.message().find("file access root '" + root_ + "'"), std::string::npos) << s;
    EXPECT_NE(s.message().find("file '" + path + "'"), std::string::npos) << s;
  }
}

TEST_F(FileAccessTest, SymlinksAreResolved) {
  fs::create_directory_symlink(dir_ + "/rootx", root_ + "/escape");
  fs::create_symlink("/etc/passwd", root_ + "/passwd");
  EXPECT_EQ(CheckFileAccess(root_ + "/escape/model", root_).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(CheckFileAccess(root_ + "/passwd", root_).code(), absl::StatusCode::kPermissionDenied);
  // A root given through a symlink is the directory it points to.
  fs::create_directory_symlink(root_, dir_ + "/link");
  auto linked = CanonicalFileAccessRoot(dir_ + "/link");
  ASSERT_TRUE(linked.ok());
  EXPECT_EQ(*linked, root_);
}

TEST_F(FileAccessTest, RootMustBeAnExistingDirectory) {
  std::ofstream(dir_ + "/file") << "x";
  EXPECT_EQ(CanonicalFileAccessRoot(dir_ + "/file").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CanonicalFileAccessRoot(dir_ + "/none").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tw
