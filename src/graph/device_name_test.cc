#include "graph/device_name.h"

#include <gtest/gtest.h>

#include "testing/test_util.h"

namespace tw {
namespace {

DeviceName ParseOk(const std::string& s) {
  auto d = DeviceName::Parse(s);
  EXPECT_TRUE(d.ok()) << s << ": " << d.status();
  return d.ok() ? *d : DeviceName();
}

TEST(DeviceNameTest, FullName) {
  DeviceName d = ParseOk("/job:local/replica:0/task:1/device:CPU:0");
  EXPECT_TRUE(d.has_job && d.has_replica && d.has_task && d.has_type && d.has_id);
  EXPECT_EQ(d.job, "local");
  EXPECT_EQ(d.replica, 0);
  EXPECT_EQ(d.task, 1);
  EXPECT_EQ(d.type, "CPU");
  EXPECT_EQ(d.id, 0);
  EXPECT_TRUE(d.IsFullySpecified());
  EXPECT_EQ(d.ToString(), "/job:local/replica:0/task:1/device:CPU:0");
}

TEST(DeviceNameTest, PartialAndShortForms) {
  DeviceName jt = ParseOk("/job:local/task:1");
  EXPECT_TRUE(jt.has_job && jt.has_task);
  EXPECT_FALSE(jt.has_replica || jt.has_type || jt.has_id);
  EXPECT_FALSE(jt.IsFullySpecified());
  EXPECT_EQ(jt.ToString(), "/job:local/task:1");

  DeviceName cpu = ParseOk("/cpu:0");
  EXPECT_TRUE(cpu.has_type && cpu.has_id);
  EXPECT_FALSE(cpu.has_job);
  EXPECT_EQ(cpu.type, "CPU");
  EXPECT_EQ(cpu.ToString(), "/device:CPU:0");

  DeviceName gpu = ParseOk("/gpu:0");
  EXPECT_EQ(gpu.type, "GPU");
  EXPECT_EQ(gpu.id, 0);

  DeviceName gpu1 = ParseOk("/device:GPU:1");
  EXPECT_EQ(gpu1.type, "GPU");
  EXPECT_EQ(gpu1.id, 1);
  EXPECT_EQ(gpu1.ToString(), "/device:GPU:1");

  DeviceName ps = ParseOk("/job:ps/task:0/gpu:0");
  EXPECT_EQ(ps.job, "ps");
  EXPECT_EQ(ps.task, 0);
  EXPECT_EQ(ps.type, "GPU");
  EXPECT_EQ(ps.ToString(), "/job:ps/task:0/device:GPU:0");

  // Lower-case device types and "any index" forms.
  EXPECT_EQ(ParseOk("/device:gpu:2").type, "GPU");
  DeviceName any = ParseOk("/device:GPU:*");
  EXPECT_TRUE(any.has_type);
  EXPECT_FALSE(any.has_id);
  EXPECT_EQ(any.ToString(), "/device:GPU:*");
  EXPECT_FALSE(ParseOk("/device:CPU").has_id);
  EXPECT_FALSE(ParseOk("/cpu:*").has_id);

  // The empty spec.
  DeviceName empty = ParseOk("");
  EXPECT_EQ(empty, DeviceName());
  EXPECT_EQ(empty.ToString(), "");
}

TEST(DeviceNameTest, CanonicalForms) {
  EXPECT_EQ(*CanonicalDeviceName("/job:w/replica:2/task:3/cpu:4"),
            "/job:w/replica:2/task:3/device:CPU:4");
  EXPECT_EQ(*CanonicalDeviceName("/gpu:1/job:x"), "/job:x/device:GPU:1");  // Any field order.
  for (const char* s :
       {"/job:local/replica:0/task:1/device:CPU:0", "/job:a-b_c/task:7", "/device:GPU:3"}) {
    auto once = CanonicalDeviceName(s);
    ASSERT_TRUE(once.ok()) << s;
    EXPECT_EQ(*CanonicalDeviceName(*once), *once) << s;  // Canonical names are fixed points.
  }
}

TEST(DeviceNameTest, MalformedNames) {
  struct Case {
    const char* name;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"job:local", "must start with '/'"},
           {"/job:", "bad job name ''"},
           {"/job:1abc", "bad job name '1abc'"},
           {"/job:a.b", "bad job name 'a.b'"},
           {"/replica:x", "bad replica 'x'"},
           {"/task:-1", "bad task '-1'"},
           {"/task:", "bad task ''"},
           {"/device:CPU:-2", "bad device index '-2'"},
           {"/device:CPU:a", "bad device index 'a'"},
           {"/gpu:x", "bad device index 'x'"},
           {"/device:TPU:0", "unknown part 'device:TPU:0'"},
           {"/tpu:0", "unknown part 'tpu:0'"},
           {"/job:a/", "unknown part ''"},
           {"//job:a", "unknown part ''"},
           {"/job:a:b", "unknown part 'job:a:b'"},
           {"/task:99999999999", "bad task '99999999999'"},
           {"/task:+1", "bad task '+1'"},
           {"/replica: 1", "bad replica ' 1'"},
           {"/cpu:0 ", "bad device index '0 '"},
       }) {
    auto d = DeviceName::Parse(c.name);
    EXPECT_STATUS(d.status(), absl::StatusCode::kInvalidArgument,
                  std::string("malformed device name '") + c.name + "': " + c.message);
  }
  EXPECT_STATUS(MergeDeviceNames("/job:a", "/bogus:1").status(), absl::StatusCode::kInvalidArgument,
                "'/bogus:1'");
  EXPECT_STATUS(MergeDeviceNames("bad", "/cpu:0").status(), absl::StatusCode::kInvalidArgument,
                "'bad'");
}

TEST(DeviceNameTest, MergeNestedScopes) {
  // Inner fields refine or override the outer ones; unset inner fields keep the outer ones.
  EXPECT_EQ(*MergeDeviceNames("/job:ps/task:0", "/gpu:1"), "/job:ps/task:0/device:GPU:1");
  EXPECT_EQ(*MergeDeviceNames("/job:ps/task:0/cpu:0", "/task:3"), "/job:ps/task:3/device:CPU:0");
  EXPECT_EQ(*MergeDeviceNames("/job:worker", "/job:ps"), "/job:ps");
  EXPECT_EQ(*MergeDeviceNames("", "/cpu:0"), "/device:CPU:0");
  EXPECT_EQ(*MergeDeviceNames("/job:a/replica:1", ""), "/job:a/replica:1");
  // A new device type without an index drops the outer index ("any device of that type");
  // the same type without an index keeps it.
  EXPECT_EQ(*MergeDeviceNames("/device:CPU:2", "/device:GPU"), "/device:GPU:*");
  EXPECT_EQ(*MergeDeviceNames("/device:GPU:2", "/device:GPU:*"), "/device:GPU:2");
  EXPECT_EQ(*MergeDeviceNames("/device:GPU:2", "/device:GPU:0"), "/device:GPU:0");

  // Three levels, as with nested `with tf.device(...)` blocks.
  DeviceName d = ParseOk("/job:worker/replica:0");
  d.MergeFrom(ParseOk("/task:2"));
  d.MergeFrom(ParseOk("/device:GPU:1"));
  EXPECT_EQ(d.ToString(), "/job:worker/replica:0/task:2/device:GPU:1");
  EXPECT_TRUE(d.IsFullySpecified());
}

TEST(DeviceNameTest, Compatibility) {
  DeviceName full = ParseOk("/job:local/replica:0/task:1/device:CPU:0");
  EXPECT_TRUE(ParseOk("").IsCompatibleWith(full));
  EXPECT_TRUE(ParseOk("/job:local").IsCompatibleWith(full));
  EXPECT_TRUE(ParseOk("/cpu:0").IsCompatibleWith(full));
  EXPECT_TRUE(ParseOk("/device:CPU:*").IsCompatibleWith(full));
  EXPECT_TRUE(ParseOk("/job:local/task:1/cpu:0").Matches(full));
  EXPECT_FALSE(ParseOk("/job:ps").IsCompatibleWith(full));
  EXPECT_FALSE(ParseOk("/task:0").IsCompatibleWith(full));
  EXPECT_FALSE(ParseOk("/replica:1").IsCompatibleWith(full));
  EXPECT_FALSE(ParseOk("/gpu:0").IsCompatibleWith(full));
  EXPECT_FALSE(ParseOk("/cpu:1").IsCompatibleWith(full));
  // Partial names are compatible when no field set in both differs (symmetric).
  DeviceName a = ParseOk("/job:x/gpu:0"), b = ParseOk("/task:3/device:GPU:*");
  EXPECT_TRUE(a.IsCompatibleWith(b));
  EXPECT_TRUE(b.IsCompatibleWith(a));
  DeviceName c = ParseOk("/job:y");
  EXPECT_FALSE(a.IsCompatibleWith(c));
  EXPECT_FALSE(c.IsCompatibleWith(a));
}

}  // namespace
}  // namespace tw
