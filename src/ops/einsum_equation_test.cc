// The einsum equation parser and "..." expansion shared by Einsum's shape function and kernel.
#include "ops/einsum_equation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tw::einsum {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int a = 0, b = 1, c = 2, B = 27, E = kEllipsis;

TEST(EinsumEquationTest, ParsesLettersAndEllipsis) {
  auto eq = Parse("aB,...Bc->...ac", 2);
  ASSERT_TRUE(eq.ok()) << eq.status();
  EXPECT_THAT(eq->inputs[0], ElementsAre(a, B));
  EXPECT_THAT(eq->inputs[1], ElementsAre(E, B, c));
  EXPECT_THAT(eq->output, ElementsAre(E, a, c));
}

TEST(EinsumEquationTest, ExpandsEllipsisRightAligned) {
  auto eq = Parse("...ab,...bc->...ac", 2);
  ASSERT_TRUE(eq.ok());
  auto ex = Expand(*eq, {4, 3});  // "..." is 2 dims in input 0, 1 in input 1
  ASSERT_TRUE(ex.ok()) << ex.status();
  EXPECT_EQ(ex->num_broadcast, 2);
  EXPECT_THAT(ex->inputs[0], ElementsAre(kFirstBroadcast, kFirstBroadcast + 1, a, b));
  EXPECT_THAT(ex->inputs[1], ElementsAre(kFirstBroadcast + 1, b, c));
  EXPECT_THAT(ex->output, ElementsAre(kFirstBroadcast, kFirstBroadcast + 1, a, c));
}

TEST(EinsumEquationTest, BroadcastDimsWithoutOutputEllipsisAreSummed) {
  auto ex = Expand(*Parse("...a->a", 1), {3});
  ASSERT_TRUE(ex.ok());
  EXPECT_THAT(ex->inputs[0], ElementsAre(kFirstBroadcast, kFirstBroadcast + 1, a));
  EXPECT_THAT(ex->output, ElementsAre(a));
}

TEST(EinsumEquationTest, BadEquationsNameTheProblem) {
  EXPECT_THAT(Parse("ab,bc", 2).status().message(), HasSubstr("Expecting exactly one '->' in einsum equation: ab,bc"));
  EXPECT_THAT(Parse("a,b,c->a", 3).status().message(),
              HasSubstr("Expecting 1 or 2 input subscripts in equation 'a,b,c->a' but got: 3"));
  EXPECT_THAT(Parse("ab->a", 2).status().message(), HasSubstr("1 input subscripts for 2 inputs"));
  EXPECT_THAT(Parse("ab->ad", 1).status().message(), HasSubstr("output subscript 'd' is in no input"));
  EXPECT_THAT(Parse("a.b->a", 1).status().message(), HasSubstr("character '.' in subscript 'a.b'"));
  EXPECT_THAT(Parse("......->", 1).status().message(), HasSubstr("more than one ellipsis"));
}

TEST(EinsumEquationTest, RanksMustFitTheSubscripts) {
  EXPECT_THAT(Expand(*Parse("abc->a", 1), {2}).status().message(),
              HasSubstr("Expected input 0 to have rank 3 but got: 2"));
  EXPECT_THAT(Expand(*Parse("...abc->a", 1), {2}).status().message(),
              HasSubstr("Expected input 0 to have rank at least 3 but got: 2"));
  EXPECT_TRUE(Expand(*Parse("ab->a", 1), {-1}).ok());  // unknown rank without "...": nothing to expand
  EXPECT_FALSE(Expand(*Parse("...b->b", 1), {-1}).ok());
}

}  // namespace
}  // namespace tw::einsum
