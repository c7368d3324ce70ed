#include "tw_flags.h"

#include <map>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"

namespace tw::cli {

bool AbslParseFlag(absl::string_view text, PositiveInt* out, std::string* error) {
  if (absl::SimpleAtoi(text, &out->value) && out->value > 0) return true;
  *error = "must be a positive integer";
  return false;
}
std::string AbslUnparseFlag(PositiveInt in) { return absl::StrCat(in.value); }

bool AbslParseFlag(absl::string_view text, ThreadCount* out, std::string* error) {
  if (absl::SimpleAtoi(text, &out->value) && out->value >= 1 && out->value <= 1024) return true;
  *error = "must be an integer from 1 to 1024";
  return false;
}
std::string AbslUnparseFlag(ThreadCount in) { return absl::StrCat(in.value); }

bool AbslParseFlag(absl::string_view text, TaskIndex* out, std::string* error) {
  if (absl::SimpleAtoi(text, &out->value) && out->value >= 0) return true;
  *error = "must be a non-negative integer";
  return false;
}
std::string AbslUnparseFlag(TaskIndex in) { return absl::StrCat(in.value); }

bool AbslParseFlag(absl::string_view text, ProcessId* out, std::string* error) {
  if (absl::SimpleAtoi(text, &out->value) && out->value > 0) return true;
  *error = "must be a process id";
  return false;
}
std::string AbslUnparseFlag(ProcessId in) { return absl::StrCat(in.value); }

absl::Status ParseFlags(const std::vector<FlagBinding>& flags, int argc, char** argv) {
  std::map<std::string, const FlagBinding*, std::less<>> by_name;
  for (const FlagBinding& flag : flags) by_name[flag.name] = &flag;
  for (int i = 0; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (!absl::StartsWith(arg, "-") || arg == "-" || arg == "--") {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", arg, "' (flags are --name=value)"));
    }
    absl::string_view name = arg.substr(absl::StartsWith(arg, "--") ? 2 : 1);
    absl::string_view value;
    const auto eq = name.find('=');
    const bool has_value = eq != absl::string_view::npos;
    if (has_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", arg.substr(0, arg.find('=')), "'"));
    }
    const FlagBinding& flag = *it->second;
    if (!has_value) {
      if (flag.is_bool) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
    }
    if (std::string error = flag.parse(value); !error.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " ", error, ", not '", value, "'"));
    }
  }
  return absl::OkStatus();
}

bool WantsHelp(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--help" || arg == "-help" || arg == "-h") return true;
  }
  return false;
}

std::string FlagsUsage(const std::vector<FlagBinding>& flags) {
  std::string usage;
  for (const FlagBinding& binding : flags) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(binding.name);
    if (flag == nullptr) continue;  // every binding names a defined flag; guard anyway
    absl::StrAppend(&usage, "        --", binding.name, "\n            ", flag->Help());
    const std::string default_value = flag->DefaultValue();
    if (!default_value.empty() && default_value != "0" && default_value != "false") {
      absl::StrAppend(&usage, " (default: ", default_value, ")");
    }
    absl::StrAppend(&usage, "\n");
  }
  return usage;
}

}  // namespace tw::cli
