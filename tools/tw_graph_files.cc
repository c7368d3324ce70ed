#include "tw_graph_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "checkpoint/checkpoint_reader.h"
#include "tw_graph_text.h"
#include "tensorweave/status.h"
#include "checkpoint/tensor_bundle.h"

namespace tw::cli {
namespace {

// Text parsing whose errors say where: "line 3 column 7: Expected ...".
template <typename Message>
absl::Status ParseText(const std::string& bytes, Message* message, const std::string& what) {
  struct Collector : google::protobuf::io::ErrorCollector {
    std::string errors;
    void AddError(int line, int column, const std::string& text) override {
      if (errors.empty()) errors = absl::StrCat("line ", line + 1, " column ", column + 1, ": ", text);
    }
  } collector;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  if (parser.ParseFromString(bytes, message)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("not a valid ", what, " text: ", collector.errors));
}

template <typename Message>
absl::StatusOr<Message> ReadMessage(const std::string& path, bool binary, const std::string& what) {
  absl::StatusOr<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  Message message;
  if (IsTextPath(path) && !binary) {
    absl::Status parsed = ParseText(*bytes, &message, what);
    if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", parsed.message()));
    return message;
  }
  if (message.ParseFromString(*bytes)) return message;
  if (!binary) {
    message.Clear();
    absl::Status as_text = ParseText(*bytes, &message, what);
    if (as_text.ok()) return message;
    // A file of printable characters was meant as text: say where its text goes wrong.
    const bool printable = std::all_of(bytes->begin(), bytes->end(), [](unsigned char c) {
      return c == '\n' || c == '\t' || c == '\r' || (c >= 0x20 && c < 0x7f) || c >= 0x80;
    });
    if (printable && !bytes->empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", as_text.message()));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": not a valid binary ", what, " (truncated or not a ", what, ")"));
}

class BundleFile : public CheckpointFile {
 public:
  explicit BundleFile(std::unique_ptr<checkpoint::TensorBundleReader> reader) : reader_(std::move(reader)) {}
  std::vector<CheckpointEntry> Entries() const override {
    std::vector<CheckpointEntry> out;
    for (const auto& e : reader_->entries()) out.push_back({e.name, e.dtype, e.shape});
    return out;
  }
  absl::StatusOr<Tensor> Read(const std::string& name) const override { return reader_->Read(name); }
  const std::string& prefix() const override { return reader_->prefix(); }

 private:
  std::unique_ptr<checkpoint::TensorBundleReader> reader_;
};

class SingleFile : public CheckpointFile {
 public:
  explicit SingleFile(std::unique_ptr<checkpoint::CheckpointReader> reader) : reader_(std::move(reader)) {}
  std::vector<CheckpointEntry> Entries() const override {
    std::vector<CheckpointEntry> out;
    for (const auto& e : reader_->entries()) out.push_back({e.name, e.dtype, e.shape});
    return out;
  }
  absl::StatusOr<Tensor> Read(const std::string& name) const override { return reader_->Read(name); }
  const std::string& prefix() const override { return reader_->path(); }

 private:
  std::unique_ptr<checkpoint::CheckpointReader> reader_;
};

}  // namespace

void QuietProtobufLog() {
  google::protobuf::SetLogHandler([](google::protobuf::LogLevel, const char*, int, const std::string&) {});
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read '", path, "'"));
  return buffer.str();
}

absl::StatusOr<size_t> WriteGraph(const GraphDef& def, const std::string& path, bool text, const std::string& command) {
  std::string bytes;
  if (text) {
    std::set<std::string> unknown;
    CollectUnknownFields(def, &unknown);
    if (!unknown.empty()) {
      std::cerr << command << ": warning: left out of the text, as this build's GraphDef does not model them: "
                << absl::StrJoin(unknown, ", ") << "\n";
    }
    bytes = TensorFlowText(def);
  } else {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    def.SerializeToCodedStream(&coded);
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << bytes;
  file.close();
  if (!file) return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  return bytes.size();
}

absl::StatusOr<std::string> LatestCheckpoint(const std::string& dir) {
  const std::string state = dir + "/checkpoint";
  absl::StatusOr<std::string> text = ReadWholeFile(state);
  if (!text.ok()) return absl::NotFoundError(absl::StrCat("'", dir, "' has no checkpoint state file (", state, ")"));
  // A text CheckpointState: the line model_checkpoint_path: "<prefix>".
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, "model_checkpoint_path:")) continue;
    line = absl::StripAsciiWhitespace(line);
    if (line.size() < 2 || line.front() != '"' || line.back() != '"') break;
    const std::string prefix(line.substr(1, line.size() - 2));
    if (prefix.empty()) break;
    return prefix[0] == '/' ? prefix : absl::StrCat(dir, "/", prefix);
  }
  return absl::DataLossError(absl::StrCat(state, " names no model_checkpoint_path"));
}

bool IsTextPath(const std::string& path) { return absl::EndsWith(path, ".pbtxt") || absl::EndsWith(path, ".txt"); }

absl::StatusOr<GraphDef> ReadGraphDef(const std::string& path, bool binary) {
  return ReadMessage<GraphDef>(path, binary, "GraphDef");
}

absl::StatusOr<MetaGraphDef> ReadMetaGraph(const std::string& path) {
  return ReadMessage<MetaGraphDef>(path, false, "MetaGraphDef");
}

absl::StatusOr<std::unique_ptr<CheckpointFile>> CheckpointFile::Open(const std::string& path) {
  // A directory stands for its latest checkpoint.
  std::error_code error;
  std::string prefix = path;
  if (std::filesystem::is_directory(path, error)) {
    TW_ASSIGN_OR_RETURN(prefix, LatestCheckpoint(path));
  }
  if (checkpoint::IsTensorBundle(prefix)) {
    auto reader = checkpoint::TensorBundleReader::Open(prefix);
    if (!reader.ok()) return reader.status();
    return std::unique_ptr<CheckpointFile>(new BundleFile(*std::move(reader)));
  }
  auto reader = checkpoint::CheckpointReader::Open(prefix);
  if (absl::IsNotFound(reader.status())) {
    return absl::NotFoundError(absl::StrCat("no checkpoint at '", prefix, "' (neither ", prefix, ".index nor ",
                                            prefix, " exists)"));
  }
  if (!reader.ok()) return reader.status();
  return std::unique_ptr<CheckpointFile>(new SingleFile(*std::move(reader)));
}

}  // namespace tw::cli
