// The graph-file commands of `tw` and `tw board` (each in its own file): they take the arguments after the
// command name and return the exit status (0, 1 for a failure, 2 for bad usage).
#ifndef TW_TOOLS_TW_COMMANDS_H_
#define TW_TOOLS_TW_COMMANDS_H_

namespace tw::cli {

int FreezeMain(int argc, char** argv);   // tw freeze (tw_freeze.cc)
int ShowMain(int argc, char** argv);     // tw show (tw_show.cc)
int ConvertMain(int argc, char** argv);  // tw convert (tw_convert.cc)
int BoardMain(int argc, char** argv);    // tw board (tw_board.cc)

}  // namespace tw::cli

#endif  // TW_TOOLS_TW_COMMANDS_H_
