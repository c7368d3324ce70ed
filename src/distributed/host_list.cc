// The small syntaxes of cluster managers: Slurm's compressed host lists and tasks per
// node, and the "ps:1,worker:2" job counts of the resolver flags.
#include <cctype>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tensorweave/cluster_resolver.h"

namespace tw {
namespace {

bool IsHostChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_'; }

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Errors name the whole list and a 1-based character position in it.
class HostListParser {
 public:
  explicit HostListParser(const std::string& text) : text_(text) {}

  StatusOr<std::vector<std::string>> Parse() {
    if (text_.empty()) return Error(0, "is empty");
    std::vector<std::string> hosts;
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i <= text_.size(); ++i) {
      const char c = i < text_.size() ? text_[i] : ',';
      if (c == '[') ++depth;
      if (c == ']') --depth;
      if (i < text_.size() && (c != ',' || depth > 0)) continue;  // the end closes the last item
      if (i == start) return Error(i, "has an empty host name (two commas, or one at an end)");
      TW_ASSIGN_OR_RETURN(std::vector<std::string> item, Expand(start, i));
      hosts.insert(hosts.end(), item.begin(), item.end());
      if (hosts.size() > static_cast<size_t>(kMaxExpandedHosts)) {
        return Error(start, absl::StrCat("expands to more than ", kMaxExpandedHosts, " hosts"));
      }
      start = i + 1;
    }
    return hosts;
  }

 private:
  absl::Status Error(size_t pos, const std::string& what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("host list '", text_, "' ", what, pos < text_.size() ? absl::StrCat(" (character ", pos + 1, ")") : ""));
  }

  // One item, text_[begin, end): a name with bracket groups, each multiplying the rest.
  StatusOr<std::vector<std::string>> Expand(size_t begin, size_t end) const {
    size_t open = begin;
    while (open < end && text_[open] != '[') {
      if (text_[open] == ']') return Error(open, "has a ']' without its '['");
      if (!IsHostChar(text_[open])) {
        return Error(open, absl::StrCat("has '", std::string(1, text_[open]),
                                        "' in a host name (letters, digits, '-', '.', '_')"));
      }
      ++open;
    }
    const std::string prefix = text_.substr(begin, open - begin);
    if (open == end) return std::vector<std::string>{prefix};
    size_t close = open + 1;
    while (close < end && text_[close] != ']') {
      if (text_[close] == '[') return Error(close, "has a '[' inside brackets");
      ++close;
    }
    if (close == end) return Error(open, "has a '[' that is not closed");
    TW_ASSIGN_OR_RETURN(std::vector<std::string> numbers, Ranges(open + 1, close));
    TW_ASSIGN_OR_RETURN(std::vector<std::string> rest, Expand(close + 1, end));
    if (numbers.size() * rest.size() > static_cast<size_t>(kMaxExpandedHosts)) {
      return Error(begin, absl::StrCat("expands to more than ", kMaxExpandedHosts, " hosts"));
    }
    std::vector<std::string> hosts;
    for (const std::string& n : numbers)
      for (const std::string& r : rest) hosts.push_back(absl::StrCat(prefix, n, r));
    return hosts;
  }

  // "01-03,7" inside brackets -> 01 02 03 7 (each range padded to its first number's width).
  StatusOr<std::vector<std::string>> Ranges(size_t begin, size_t end) const {
    if (begin == end) return Error(begin - 1, "has empty brackets '[]'");
    std::vector<std::string> numbers;
    size_t pos = begin;
    for (absl::string_view part : absl::StrSplit(absl::string_view(text_).substr(begin, end - begin), ',')) {
      std::pair<std::string, std::string> bounds = absl::StrSplit(part, absl::MaxSplits('-', 1));
      const bool is_range = part.find('-') != absl::string_view::npos;
      if (!AllDigits(bounds.first) || (is_range && !AllDigits(bounds.second)) || bounds.first.size() > 9 ||
          bounds.second.size() > 9) {
        return Error(pos, absl::StrCat("has '", part, "' in brackets (expected N or N-M, N and M decimal numbers)"));
      }
      int lo = 0, hi = 0;
      (void)absl::SimpleAtoi(bounds.first, &lo);
      hi = lo;
      if (is_range) (void)absl::SimpleAtoi(bounds.second, &hi);
      if (hi < lo) return Error(pos, absl::StrCat("has the descending range '", part, "'"));
      if (hi - lo >= kMaxExpandedHosts || numbers.size() + (hi - lo) >= static_cast<size_t>(kMaxExpandedHosts)) {
        return Error(pos, absl::StrCat("expands to more than ", kMaxExpandedHosts, " hosts"));
      }
      const size_t width = bounds.first.size();
      for (int n = lo; n <= hi; ++n) {
        std::string digits = absl::StrCat(n);
        if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
        numbers.push_back(std::move(digits));
      }
      pos += part.size() + 1;
    }
    return numbers;
  }

  const std::string& text_;
};

}  // namespace

StatusOr<std::vector<std::string>> ExpandHostList(const std::string& hostlist) {
  return HostListParser(hostlist).Parse();
}

StatusOr<std::vector<int>> ExpandTasksPerNode(const std::string& text) {
  std::vector<int> counts;
  auto bad = [&](absl::string_view part) {
    return absl::InvalidArgumentError(absl::StrCat("tasks per node '", text, "': '", part,
                                                   "' is not N or N(xM) with N, M positive integers"));
  };
  if (text.empty()) return absl::InvalidArgumentError("tasks per node is empty");
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    std::string count(part), times = "1";
    if (auto paren = part.find("(x"); paren != absl::string_view::npos) {
      if (part.back() != ')') return bad(part);
      count = std::string(part.substr(0, paren));
      times = std::string(part.substr(paren + 2, part.size() - paren - 3));
    }
    int n = 0, m = 0;
    if (!AllDigits(count) || !AllDigits(times) || !absl::SimpleAtoi(count, &n) || !absl::SimpleAtoi(times, &m) ||
        n < 1 || m < 1) {
      return bad(part);
    }
    if (counts.size() + m > static_cast<size_t>(kMaxExpandedHosts)) {
      return absl::InvalidArgumentError(
          absl::StrCat("tasks per node '", text, "' names more than ", kMaxExpandedHosts, " nodes"));
    }
    counts.insert(counts.end(), m, n);
  }
  return counts;
}

StatusOr<JobCounts> ParseJobCounts(const std::string& text) {
  JobCounts jobs;
  std::set<std::string> seen;
  if (text.empty()) return absl::InvalidArgumentError("no jobs given (expected JOB:N,..., e.g. ps:1,worker:2)");
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits(':', 1));
    int n = 0;
    bool name_ok = !kv.first.empty() && std::isalpha(static_cast<unsigned char>(kv.first[0]));
    for (char c : kv.first) name_ok = name_ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
    if (!name_ok || !AllDigits(kv.second) || !absl::SimpleAtoi(kv.second, &n) || n < 1 || n > kMaxExpandedHosts ||
        !seen.insert(kv.first).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "jobs '", text, "': '", item, "' is not JOB:N with a new job name and 1 <= N <= ", kMaxExpandedHosts));
    }
    jobs.emplace_back(kv.first, n);
  }
  return jobs;
}

}  // namespace tw
