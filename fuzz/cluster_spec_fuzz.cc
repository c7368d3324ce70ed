// Cluster spec ("job|host:port;host:port,..."), TF_CONFIG JSON and device string parsing.
// The input is split at its first newline: a spec / device name, then a second device name
// to merge with the first.
#include "fuzz/fuzz_util.h"
#include "graph/device_name.h"
#include "tensorweave/cluster_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = tw::fuzz::AsString(data, size);
  const size_t newline = input.find('\n');
  const std::string first = input.substr(0, newline);
  const std::string second = newline == std::string::npos ? "" : input.substr(newline + 1);

  if (auto spec = tw::ClusterSpec::Parse(first); spec.ok()) {
    // What parses prints to a spec that parses to the same cluster.
    auto again = tw::ClusterSpec::Parse(spec->ToString());
    TW_FUZZ_CHECK(again.ok());
    TW_FUZZ_CHECK(*again == *spec);
  }
  (void)tw::ClusterSpec::FromTfConfigJson(input);

  if (auto device = tw::DeviceName::Parse(first); device.ok()) {
    auto again = tw::DeviceName::Parse(device->ToString());
    TW_FUZZ_CHECK(again.ok());
    TW_FUZZ_CHECK(*again == *device);
  }
  (void)tw::CanonicalDeviceName(first);
  (void)tw::MergeDeviceNames(first, second);
  return 0;
}
