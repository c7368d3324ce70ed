// Einsum's equation ("ab,bc->ac", "...ij,...jk->...ik"), shared by the op's shape function and
// its kernel. Labels are letters; "..." stands for broadcast dims, right-aligned across the
// inputs as NumPy broadcasts them. Every error names the equation.
#ifndef TENSORWEAVE_SRC_OPS_EINSUM_EQUATION_H_
#define TENSORWEAVE_SRC_OPS_EINSUM_EQUATION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tw::einsum {

// A label: 0..51 for the letters, kEllipsis in the parsed subscripts, and kFirstBroadcast + j
// for the j-th broadcast dim once expanded (the leftmost is j = 0).
constexpr int kEllipsis = -1;
constexpr int kFirstBroadcast = 52;

struct Equation {
  std::string text;
  std::vector<std::vector<int>> inputs;  // labels per input, kEllipsis where "..." stands
  std::vector<int> output;
};

// Parses "in0[,in1]->out" for `num_inputs` inputs: exactly one "->", one or two inputs (as
// many as given), letters and at most one "..." per subscript, every output letter among the
// inputs' letters.
absl::StatusOr<Equation> Parse(const std::string& equation, int num_inputs);

// The equation with "..." replaced by broadcast labels for inputs of these ranks (-1: unknown,
// allowed only when `ranks` are needed for no ellipsis). An output "..." gets every broadcast
// label; without it the broadcast dims are summed.
struct Expanded {
  std::vector<std::vector<int>> inputs;  // one label per dim
  std::vector<int> output;
  int num_broadcast = 0;
};
absl::StatusOr<Expanded> Expand(const Equation& eq, const std::vector<int>& ranks);

}  // namespace tw::einsum

#endif  // TENSORWEAVE_SRC_OPS_EINSUM_EQUATION_H_
