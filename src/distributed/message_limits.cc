#include "distributed/message_limits.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"

namespace tw {

absl::Status CheckReplyFits(const char* reply, int64_t bytes, std::vector<std::pair<std::string, int64_t>> what) {
  if (bytes <= kMaxMessageBytes) return absl::OkStatus();
  std::stable_sort(what.begin(), what.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string names;
  constexpr size_t kNamed = 8;
  for (size_t i = 0; i < what.size() && i < kNamed; ++i) {
    absl::StrAppend(&names, i > 0 ? ", " : "", "'", TruncateForMessage(what[i].first), "' (", what[i].second,
                    " bytes)");
  }
  if (what.size() > kNamed) absl::StrAppend(&names, " and ", what.size() - kNamed, " more");
  return absl::ResourceExhaustedError(absl::StrCat(reply, " would be ", bytes, " bytes, over the ", kMaxMessageBytes,
                                                   " bytes one message can carry: fetch fewer or smaller tensors",
                                                   names.empty() ? "" : absl::StrCat(" (", names, ")")));
}

}  // namespace tw
