// The names the master and workers give a registered graph's feeds and fetches in
// RunGraph: "arg:N" is the tensor sent to the partition's _Arg N, "ret:N" the one its
// _Retval N returns (N is the slot in the step's feeds or fetches). Both sides of the
// protocol use these definitions, so the wire names cannot drift apart.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_STEP_SLOT_KEYS_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_STEP_SLOT_KEYS_H_

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace tw {

inline constexpr absl::string_view kArgKeyPrefix = "arg:";
inline constexpr absl::string_view kRetKeyPrefix = "ret:";

inline std::string ArgKey(int index) { return absl::StrCat(kArgKeyPrefix, index); }
inline std::string RetKey(int index) { return absl::StrCat(kRetKeyPrefix, index); }

inline bool IsRetKey(absl::string_view key) { return absl::StartsWith(key, kRetKeyPrefix); }

// "ret:3" with prefix "ret:" -> 3 in *index; false if `key` is not prefix + a number >= 0.
inline bool ParseSlotKey(absl::string_view key, absl::string_view prefix, int* index) {
  return absl::StartsWith(key, prefix) && absl::SimpleAtoi(key.substr(prefix.size()), index) && *index >= 0;
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_STEP_SLOT_KEYS_H_
