// How `tw` parses a subcommand's flags with absl::flags.
//
// absl's flag registry is process-wide, and in this Abseil (20220623) absl::ParseCommandLine
// exits on the first bad flag and accepts every flag the binary defines. `tw` has several
// subcommands with different flag sets, so it works in two steps: the subcommand is chosen
// from argv[1] first, then its own flags (a list of bindings to ABSL_FLAGs) are parsed from
// the rest. Each value is parsed by absl's typed marshalling (absl::ParseFlag, so the
// AbslParseFlag overloads below give typed, ranged errors) and stored with absl::SetFlag;
// the usage text comes from the flags' help strings and defaults in the registry. A flag
// that is not the subcommand's is "unknown", even where another subcommand defines it.
#ifndef TW_TOOLS_TW_FLAGS_H_
#define TW_TOOLS_TW_FLAGS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/marshalling.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace tw::cli {

// Typed flag values whose parsers say what was expected ("must be a positive integer").
struct PositiveInt {
  int64_t value = 1;
};
struct ThreadCount {  // 0 = "not given: one per core"; a given value is 1..1024.
  int value = 0;
};
struct TaskIndex {
  int value = 0;
};
struct ProcessId {  // 0 = none.
  int value = 0;
};
bool AbslParseFlag(absl::string_view text, PositiveInt* out, std::string* error);
std::string AbslUnparseFlag(PositiveInt in);
bool AbslParseFlag(absl::string_view text, ThreadCount* out, std::string* error);
std::string AbslUnparseFlag(ThreadCount in);
bool AbslParseFlag(absl::string_view text, TaskIndex* out, std::string* error);
std::string AbslUnparseFlag(TaskIndex in);
bool AbslParseFlag(absl::string_view text, ProcessId* out, std::string* error);
std::string AbslUnparseFlag(ProcessId in);

// One flag a subcommand accepts, bound to its ABSL_FLAG.
struct FlagBinding {
  std::string name;  // without dashes
  bool is_bool = false;
  // Parses `text` into the flag; "" on success, else what was expected.
  std::function<std::string(absl::string_view text)> parse;
};

template <typename T>
FlagBinding Bind(absl::Flag<T>& flag) {
  return {std::string(absl::GetFlagReflectionHandle(flag).Name()), std::is_same_v<T, bool>,
          [&flag](absl::string_view text) -> std::string {
            T value;
            std::string error;
            if (!absl::ParseFlag(text, &value, &error)) return error.empty() ? "has a malformed value" : error;
            absl::SetFlag(&flag, value);
            return "";
          }};
}

// A repeatable string flag: each occurrence appends to `values` (and is the flag's last value).
inline FlagBinding BindRepeated(absl::Flag<std::string>& flag, std::vector<std::string>* values) {
  return {std::string(absl::GetFlagReflectionHandle(flag).Name()), false,
          [&flag, values](absl::string_view text) -> std::string {
            values->emplace_back(text);
            absl::SetFlag(&flag, std::string(text));
            return "";
          }};
}

// Parses argv (the subcommand's arguments, program and subcommand removed): "--name=value",
// "--name value", single-dash spellings, and a bare "--name" for a bool flag. Errors are
// InvalidArgument naming the flag: "unknown flag '--bogus'", "--port must be ..., not 'x'".
absl::Status ParseFlags(const std::vector<FlagBinding>& flags, int argc, char** argv);

// Whether argv asks for help (--help, -help, -h anywhere).
bool WantsHelp(int argc, char** argv);

// "        --name  help (default: X)" lines for `flags`, from the registry.
std::string FlagsUsage(const std::vector<FlagBinding>& flags);

}  // namespace tw::cli

#endif  // TW_TOOLS_TW_FLAGS_H_
