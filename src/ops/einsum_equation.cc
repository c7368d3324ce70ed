#include "ops/einsum_equation.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tensorweave/status.h"

namespace tw::einsum {
namespace {

absl::Status Bad(const Equation& eq, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("Einsum: invalid equation '", eq.text, "': ", why));
}

absl::StatusOr<std::vector<int>> ParseSubscript(const Equation& eq, const std::string& s) {
  std::vector<int> labels;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch >= 'a' && ch <= 'z') {
      labels.push_back(ch - 'a');
    } else if (ch >= 'A' && ch <= 'Z') {
      labels.push_back(26 + ch - 'A');
    } else if (s.compare(i, 3, "...") == 0) {
      if (std::count(labels.begin(), labels.end(), kEllipsis) > 0) {
        return Bad(eq, absl::StrCat("more than one ellipsis in subscript '", s, "'"));
      }
      labels.push_back(kEllipsis);
      i += 2;
    } else {
      return Bad(eq, absl::StrCat("character '", std::string(1, ch), "' in subscript '", s,
                                  "' is neither a letter nor part of '...'"));
    }
  }
  return labels;
}

char LabelChar(int label) { return label < 26 ? static_cast<char>('a' + label) : static_cast<char>('A' + label - 26); }

}  // namespace

absl::StatusOr<Equation> Parse(const std::string& equation, int num_inputs) {
  Equation eq;
  eq.text = equation;
  const std::vector<std::string> sides = absl::StrSplit(equation, "->");
  if (sides.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat("Expecting exactly one '->' in einsum equation: ", equation));
  }
  const std::vector<std::string> ins = absl::StrSplit(sides[0], ',');
  if (ins.size() > 2) {
    return absl::InvalidArgumentError(absl::StrCat("Expecting 1 or 2 input subscripts in equation '", equation,
                                                   "' but got: ", ins.size()));
  }
  if (static_cast<int>(ins.size()) != num_inputs) {
    return Bad(eq, absl::StrCat(ins.size(), " input subscripts for ", num_inputs, " inputs"));
  }
  std::vector<bool> seen(kFirstBroadcast, false);
  bool any_ellipsis = false;
  for (const std::string& s : ins) {
    TW_ASSIGN_OR_RETURN(std::vector<int> labels, ParseSubscript(eq, s));
    for (int l : labels) {
      if (l == kEllipsis) any_ellipsis = true;
      else seen[l] = true;
    }
    eq.inputs.push_back(std::move(labels));
  }
  TW_ASSIGN_OR_RETURN(eq.output, ParseSubscript(eq, sides[1]));
  for (int l : eq.output) {
    if (l != kEllipsis && !seen[l]) {
      return Bad(eq, absl::StrCat("output subscript '", std::string(1, LabelChar(l)), "' is in no input"));
    }
  }
  (void)any_ellipsis;
  return eq;
}

absl::StatusOr<Expanded> Expand(const Equation& eq, const std::vector<int>& ranks) {
  Expanded ex;
  // The broadcast dims: as many as the most any input's "..." stands for.
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    const std::vector<int>& labels = eq.inputs[i];
    const bool ellipsis = std::count(labels.begin(), labels.end(), kEllipsis) > 0;
    const int named = static_cast<int>(labels.size()) - (ellipsis ? 1 : 0);
    if (ranks[i] < 0) {
      if (ellipsis) return absl::InvalidArgumentError("Einsum: '...' needs the inputs' ranks");
      continue;
    }
    if (!ellipsis && ranks[i] != named) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected input ", i, " to have rank ", named, " but got: ", ranks[i]));
    }
    if (ellipsis && ranks[i] < named) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected input ", i, " to have rank at least ", named, " but got: ", ranks[i]));
    }
    if (ellipsis) ex.num_broadcast = std::max(ex.num_broadcast, ranks[i] - named);
  }
  auto expand = [&](const std::vector<int>& labels, int rank) {
    std::vector<int> out;
    const int named = static_cast<int>(labels.size()) - 1;
    for (int l : labels) {
      if (l != kEllipsis) {
        out.push_back(l);
        continue;
      }
      const int count = rank < 0 ? ex.num_broadcast : rank - named;  // right-aligned
      for (int j = ex.num_broadcast - count; j < ex.num_broadcast; ++j) out.push_back(kFirstBroadcast + j);
    }
    return out;
  };
  for (size_t i = 0; i < eq.inputs.size(); ++i) ex.inputs.push_back(expand(eq.inputs[i], ranks[i]));
  ex.output = expand(eq.output, -1);
  return ex;
}

}  // namespace tw::einsum
