#include "core/net_util.h"

#include <gtest/gtest.h>

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"

namespace tw {
namespace {

TEST(NetUtilTest, FreeLoopbackAddressesAreDistinct) {
  auto addresses = FreeLoopbackAddresses({{"ps", 2}, {"worker", 30}});
  ASSERT_TRUE(addresses.ok()) << addresses.status();
  ASSERT_EQ(addresses->at("ps").size(), 2u);
  ASSERT_EQ(addresses->at("worker").size(), 30u);
  std::set<int> ports;
  for (const auto& [job, list] : *addresses) {
    for (const std::string& address : list) {
      ASSERT_TRUE(absl::StartsWith(address, "localhost:")) << address;
      int port = 0;
      ASSERT_TRUE(absl::SimpleAtoi(address.substr(10), &port)) << address;
      EXPECT_GT(port, 0);
      EXPECT_TRUE(ports.insert(port).second) << "port " << port << " given twice";
    }
  }
}

}  // namespace
}  // namespace tw
