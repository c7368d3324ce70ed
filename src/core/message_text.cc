#include "core/message_text.h"

#include "absl/strings/str_cat.h"

namespace tw {

std::string TruncateForMessage(absl::string_view text, size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  return absl::StrCat(text.substr(0, max_chars), "... (", text.size(), " bytes)");
}

}  // namespace tw
