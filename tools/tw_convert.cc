// `tw convert IN OUT`: a GraphDef from text to binary or back. The form written follows OUT's
// name (.pbtxt/.txt text, else binary) unless --to says; the text is what TensorFlow's Python
// text_format writes (tw_graph_text.h). Binary is written deterministically
// (map entries by key), so binary -> text -> binary gives the same bytes every time.
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"
#include "tw_commands.h"
#include "tw_flags.h"
#include "tw_graph_files.h"

ABSL_FLAG(std::string, to, "", "the form to write: text or binary (default: from OUT's name)");

namespace tw::cli {
namespace {

constexpr char kUsage[] =
    "usage: tw convert IN OUT [--to text|binary]\n"
    "  Converts a GraphDef between text (.pbtxt/.txt) and binary (.pb and anything else).\n"
    "flags:\n";

std::vector<FlagBinding> ConvertBindings() { return {Bind(FLAGS_to)}; }

absl::Status Convert(const std::string& in, const std::string& out, const std::string& to) {
  if (to != "" && to != "text" && to != "binary") {
    return absl::InvalidArgumentError(absl::StrCat("--to must be text or binary, not '", to, "'"));
  }
  TW_ASSIGN_OR_RETURN(GraphDef def, ReadGraphDef(in));
  const bool text = to.empty() ? IsTextPath(out) : to == "text";
  TW_ASSIGN_OR_RETURN(size_t bytes, WriteGraph(def, out, text, "tw convert"));
  std::cout << "wrote " << out << " (" << (text ? "text" : "binary") << ", " << def.node_size() << " nodes, "
            << bytes << " bytes)\n";
  return absl::OkStatus();
}

}  // namespace

int ConvertMain(int argc, char** argv) {
  QuietProtobufLog();
  if (WantsHelp(argc, argv)) {
    std::cout << kUsage << FlagsUsage(ConvertBindings());
    return 0;
  }
  // The two file names are positional; the rest are flags ("--to text" takes the next word).
  std::vector<std::string> files;
  std::vector<char*> flags;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() > 1 && arg[0] == '-') {
      flags.push_back(argv[i]);
      if (arg.find('=') == std::string::npos && i + 1 < argc) flags.push_back(argv[++i]);
    } else {
      files.push_back(arg);
    }
  }
  if (absl::Status parsed = ParseFlags(ConvertBindings(), flags.size(), flags.data()); !parsed.ok()) {
    std::cerr << "tw convert: " << parsed.message() << "\n";
    return 2;
  }
  if (files.size() != 2) {
    std::cerr << "tw convert: give IN and OUT (got " << files.size() << " file names)\n" << kUsage;
    return 2;
  }
  absl::Status status = Convert(files[0], files[1], absl::GetFlag(FLAGS_to));
  if (!status.ok()) {
    std::cerr << "tw convert: " << status.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace tw::cli
