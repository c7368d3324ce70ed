#include "distributed/strict_json.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

class Checker {
 public:
  explicit Checker(absl::string_view text) : text_(text) {}

  absl::Status Document() {
    TW_RETURN_IF_ERROR(Value(0));
    SkipSpace();
    if (pos_ != text_.size()) return Error("the end of the text");
    return absl::OkStatus();
  }

 private:
  absl::Status Value(int depth) {
    if (depth >= 64) return Error("at most 64 levels of nesting");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("a value");
    const char c = text_[pos_];
    if (c == '{') return Object(depth);
    if (c == '[') return Array(depth);
    if (c == '"') return String();
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) return Number();
    for (absl::string_view word : {"true", "false", "null"}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return absl::OkStatus();
      }
    }
    return Error("a value");
  }

  absl::Status Object(int depth) {
    ++pos_;  // {
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      SkipSpace();
      if (Peek() != '"') return Error("a \"quoted\" key");
      TW_RETURN_IF_ERROR(String());
      SkipSpace();
      if (Peek() != ':') return Error("':'");
      ++pos_;
      TW_RETURN_IF_ERROR(Value(depth + 1));
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        SkipSpace();
        if (Peek() == '}') return Error("another key after ',' (a trailing comma is not JSON)");
        continue;
      }
      if (Peek() == '}') {
        ++pos_;
        return absl::OkStatus();
      }
      return Error("',' or '}'");
    }
  }

  absl::Status Array(int depth) {
    ++pos_;  // [
    SkipSpace();
    if (Peek() == ']') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      TW_RETURN_IF_ERROR(Value(depth + 1));
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        SkipSpace();
        if (Peek() == ']') return Error("another value after ',' (a trailing comma is not JSON)");
        continue;
      }
      if (Peek() == ']') {
        ++pos_;
        return absl::OkStatus();
      }
      return Error("',' or ']'");
    }
  }

  absl::Status String() {
    ++pos_;  // "
    while (pos_ < text_.size()) {
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return absl::OkStatus();
      }
      if (c < 0x20) return Error("no control character inside a string");
      if (c == '\\') {
        ++pos_;
        if (pos_ >= text_.size()) break;
        const char e = text_[pos_];
        if (e == 'u') {
          for (int i = 1; i <= 4; ++i) {
            if (pos_ + i >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[pos_ + i]))) {
              return Error("4 hex digits after \\u");
            }
          }
          pos_ += 4;
        } else if (absl::string_view("\"\\/bfnrt").find(e) == absl::string_view::npos) {
          return Error("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
        }
      }
      ++pos_;
    }
    return Error("the closing '\"' of a string");
  }

  absl::Status Number() {
    if (Peek() == '-') ++pos_;
    if (Peek() == '0') {
      ++pos_;
    } else if (!Digits()) {
      return Error("a digit");
    }
    if (Peek() == '.') {
      ++pos_;
      if (!Digits()) return Error("a digit after '.'");
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (!Digits()) return Error("a digit in the exponent");
    }
    return absl::OkStatus();
  }

  bool Digits() {
    const size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return pos_ > start;
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < text_.size() && absl::string_view(" \t\r\n").find(text_[pos_]) != absl::string_view::npos) ++pos_;
  }

  absl::Status Error(absl::string_view expected) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    const std::string found = pos_ >= text_.size() ? "the end of the text"
                                                   : absl::StrCat("'", text_.substr(pos_, 1), "'");
    return absl::InvalidArgumentError(absl::StrCat("line ", line, ", column ", column, ": expected ", expected,
                                                   ", found ", found));
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::Status CheckStrictJson(absl::string_view text) { return Checker(text).Document(); }

}  // namespace tw
