// In-memory files for LevelDB's table writer and reader: a bundle index (one small
// record per tensor) is built in a string and then written atomically, and read whole
// before the table reader sees it.
#ifndef TENSORWEAVE_SRC_CHECKPOINT_LEVELDB_STRING_FILE_H_
#define TENSORWEAVE_SRC_CHECKPOINT_LEVELDB_STRING_FILE_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "leveldb/env.h"

namespace tw::checkpoint {

class StringSink : public leveldb::WritableFile {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  leveldb::Status Append(const leveldb::Slice& data) override {
    out_->append(data.data(), data.size());
    return leveldb::Status::OK();
  }
  leveldb::Status Close() override { return leveldb::Status::OK(); }
  leveldb::Status Flush() override { return leveldb::Status::OK(); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }

 private:
  std::string* out_;
};

class StringSource : public leveldb::RandomAccessFile {
 public:
  explicit StringSource(std::string data) : data_(std::move(data)) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result, char*) const override {
    if (offset > data_.size()) return leveldb::Status::IOError("read past the end of the index");
    *result = leveldb::Slice(data_.data() + offset, std::min<uint64_t>(n, data_.size() - offset));
    return leveldb::Status::OK();
  }
  size_t size() const { return data_.size(); }

 private:
  std::string data_;
};

}  // namespace tw::checkpoint

#endif  // TENSORWEAVE_SRC_CHECKPOINT_LEVELDB_STRING_FILE_H_
