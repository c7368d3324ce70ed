// Runs a shell command as a user would and captures what it prints.
#ifndef TENSORWEAVE_TESTS_TESTING_COMMAND_UTIL_H_
#define TENSORWEAVE_TESTS_TESTING_COMMAND_UTIL_H_

#include <string>

namespace tw::testing {

struct CommandResult {
  int exit_code;
  std::string output;  // stdout and stderr together.
};

CommandResult RunCommand(const std::string& command);

}  // namespace tw::testing

#endif  // TENSORWEAVE_TESTS_TESTING_COMMAND_UTIL_H_
