// Every .proto file the library registers in protobuf's process-wide descriptor pool
// lives under tensorweave/: any other library linked into the same process (PyTorch's
// tensor.proto aborted `import tensorweave` when ours was registered as bare tensor.proto)
// must never collide with ours.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor_database.h"
#include "tensorweave/proto/master.pb.h"
#include "tensorweave/proto/worker.pb.h"
#include "core/proto_namespace.h"

namespace tw {
namespace {

using ::testing::IsSupersetOf;

TEST(ProtoRegistrationTest, OurFilesAreRegisteredUnderTensorweaveInPackageTensorweave) {
  // Referencing one message of each file keeps the file linked in (a static library).
  const std::vector<const google::protobuf::Descriptor*> ours = {
      TensorProto::descriptor(), GraphDef::descriptor(), RunGraphRequest::descriptor(),
      RunStepRequest::descriptor()};
  const std::vector<std::string> expected_files = {
      "tensorweave/proto/tensor.proto", "tensorweave/proto/graph.proto",
      "tensorweave/proto/worker.proto", "tensorweave/proto/master.proto"};
  for (size_t i = 0; i < ours.size(); ++i) {
    EXPECT_EQ(ours[i]->file()->name(), expected_files[i]);
    EXPECT_EQ(ours[i]->file()->package(), "tensorweave");
  }
  EXPECT_EQ(TensorProto::descriptor()->full_name(), "tensorweave.TensorProto");
}

TEST(ProtoRegistrationTest, EveryGeneratedFileIsProtobufsOwnOrUnderTensorweave) {
  std::vector<std::string> files;
  ASSERT_TRUE(google::protobuf::DescriptorPool::internal_generated_database()->FindAllFileNames(&files));
  EXPECT_THAT(files, IsSupersetOf({"tensorweave/proto/tensor.proto", "tensorweave/proto/graph.proto",
                                   "tensorweave/proto/worker.proto", "tensorweave/proto/master.proto"}));
  for (const std::string& file : files) {
    // google/protobuf/*.proto are libprotobuf's well-known types, registered by libprotobuf.
    const bool ours = file.rfind("tensorweave/", 0) == 0;
    const bool protobufs = file.rfind("google/protobuf/", 0) == 0;
    EXPECT_TRUE(ours || protobufs) << "a .proto registered outside tensorweave/: " << file;
  }
}

}  // namespace
}  // namespace tw
