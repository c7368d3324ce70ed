// Example parsing (the ParseExample kernels' core): arbitrary bytes as serialized
// tf.train.Examples under a config with every feature kind. Byte 0 picks one Example
// (odd) or a batch; a batch is records of a 2-byte little-endian length and that many
// bytes, the remainder one more record. Bad bytes must give InvalidArgument, never a crash;
// outputs must be consistent (batch dims, sparse indices inside dense_shape).
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "kernels/cpu/example_parser.h"

namespace {

tw::ExampleParserConfig FuzzConfig() {
  using tw::DType;
  tw::ExampleParserConfig c;
  c.sparse = {{"v_f", DType::kFloat}, {"v_i", DType::kInt64}, {"v_s", DType::kString}};
  c.dense = {{"d_f", DType::kFloat, tw::PartialShape({2}), tw::Tensor::Vector<float>({1, 2})},
             {"d_i", DType::kInt64, tw::PartialShape({}), tw::Tensor()},
             {"d_s", DType::kString, tw::PartialShape({}), tw::Tensor::Scalar<std::string>("x")},
             {"q_f", DType::kFloat, tw::PartialShape({-1, 2}), tw::Tensor::Scalar<float>(0)},
             {"q_s", DType::kString, tw::PartialShape({-1}), tw::Tensor::Scalar<std::string>("")}};
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const tw::ExampleParserConfig config = FuzzConfig();
  if (size == 0) return 0;
  const bool single = data[0] & 1;
  std::vector<std::string> records;
  size_t pos = 1;
  if (single) {
    records.emplace_back(reinterpret_cast<const char*>(data) + pos, size - pos);
  } else {
    while (pos + 2 <= size && records.size() < 64) {
      const size_t n = std::min<size_t>(data[pos] | (data[pos + 1] << 8), size - pos - 2);
      records.emplace_back(reinterpret_cast<const char*>(data) + pos + 2, n);
      pos += 2 + n;
    }
    if (pos < size) records.emplace_back(reinterpret_cast<const char*>(data) + pos, size - pos);
  }
  tw::Tensor serialized = single ? tw::Tensor::Scalar<std::string>(records[0])
                                 : tw::Tensor(tw::DType::kString, tw::TensorShape({static_cast<int64_t>(records.size())}));
  if (!single) {
    for (size_t i = 0; i < records.size(); ++i) serialized.data<std::string>()[i] = records[i];
  }
  tw::ExampleParserOutput out;
  const absl::Status status =
      tw::ParseExamples(config, serialized, nullptr, tw::fuzz::FuzzLimits().max_tensor_bytes, &out);
  if (!status.ok()) {
    TW_FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument ||
                  status.code() == absl::StatusCode::kResourceExhausted);
    return 0;
  }
  const int64_t batch = static_cast<int64_t>(records.size());
  TW_FUZZ_CHECK(out.dense_values.size() == config.dense.size());
  for (const tw::Tensor& d : out.dense_values) TW_FUZZ_CHECK(single ? d.rank() >= 0 : d.dim(0) == batch);
  TW_FUZZ_CHECK(out.sparse_indices.size() == config.sparse.size());
  for (size_t s = 0; s < out.sparse_indices.size(); ++s) {
    const tw::Tensor& idx = out.sparse_indices[s];
    const tw::Tensor& shape = out.sparse_shapes[s];
    const int64_t cols = single ? 1 : 2;
    TW_FUZZ_CHECK(idx.rank() == 2 && idx.dim(1) == cols && idx.dim(0) == out.sparse_values[s].NumElements());
    for (int64_t r = 0; r < idx.dim(0); ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t v = idx.data<int64_t>()[r * cols + c];
        TW_FUZZ_CHECK(v >= 0 && v < shape.data<int64_t>()[c]);
      }
    }
  }
  return 0;
}
