// `tw board LOGDIR... --out FILE`: hands over to the Python package's board
// (python/tensorweave/board.py), which draws with Debian's matplotlib. The process is
// replaced, so its exit status and output are the board's own.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "tw_commands.h"

namespace tw::cli {

int BoardMain(int argc, char** argv) {
  // The environment's TW_PYTHON and TW_PYTHONPATH point an installed tw elsewhere; the default is
  // the interpreter the build targets and the package it assembles in build/python.
  const char* python = std::getenv("TW_PYTHON");
  const char* package_dir = std::getenv("TW_PYTHONPATH");
#ifdef TW_PYTHON_DIR
  if (python == nullptr) python = TW_PYTHON;
  if (package_dir == nullptr) package_dir = TW_PYTHON_DIR;
#endif
  if (python == nullptr || package_dir == nullptr) {
    std::cerr << "tw board: this tw was built without the Python package (pybind11-dev or python3-dev were "
                 "missing; scripts/setup.sh installs them); set TW_PYTHON and TW_PYTHONPATH to use another\n";
    return 1;
  }
  std::string path = package_dir;
  if (const char* existing = std::getenv("PYTHONPATH"); existing != nullptr && *existing != '\0') {
    path += std::string(":") + existing;
  }
  setenv("PYTHONPATH", path.c_str(), 1);
  std::string interpreter = python;
  std::vector<char*> args = {interpreter.data(), const_cast<char*>("-m"), const_cast<char*>("tensorweave.board")};
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execvp(interpreter.c_str(), args.data());
  std::cerr << "tw board: cannot run " << interpreter << ": " << std::strerror(errno) << "\n";
  return 1;
}

}  // namespace tw::cli
