// String ops beyond StringJoin (issue 19): conversions (AsString, StringToNumber, DecodeRaw),
// per-element text ops (StringLength, StringStrip, StringLower/Upper, Substr, RegexReplace)
// and splitting into a SparseTensor (StringSplit, StringSplitV2), with TensorFlow's signatures.
#include "graph/op_registry.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status SameShape(InferenceContext& c) {
  c.set_output(0, c.input_shape(0));
  return absl::OkStatus();
}

// Input shape plus one unknown dim: the values each string holds.
absl::Status DecodeRawShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  std::vector<int64_t> dims(in.dims().begin(), in.dims().end());
  dims.push_back(-1);
  c.set_output(0, PartialShape(absl::MakeConstSpan(dims)));
  return absl::OkStatus();
}

// indices [n, 2], values [n], dense_shape [2].
absl::Status SplitShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 1));
  c.set_output(0, PartialShape({-1, 2}));
  c.set_output(1, PartialShape({-1}));
  c.set_output(2, PartialShape({2}));
  return absl::OkStatus();
}

}  // namespace

void RegisterStringMoreOps(OpRegistry& r) {
  r.Register(OpDefBuilder("AsString").Input("input: T").Output("output: string")
                 .Attr("T: {float32, float64, int8, int16, int32, int64, uint8, uint16, bool}")
                 .Attr("precision: int = -1").Attr("scientific: bool = false").Attr("shortest: bool = false")
                 .Attr("width: int = -1").Attr("fill: string = ''").SetShapeFn(SameShape));
  r.Register(OpDefBuilder("StringToNumber").Input("string_tensor: string").Output("output: out_type")
                 .Attr("out_type: {float32, float64, int32, int64} = float32").SetShapeFn(SameShape));
  r.Register(OpDefBuilder("DecodeRaw").Input("bytes: string").Output("output: out_type")
                 .Attr("out_type: {float32, float64, int32, uint16, uint8, int16, int8, int64}")
                 .Attr("little_endian: bool = true").SetShapeFn(DecodeRawShape));
  r.Register(OpDefBuilder("StringLength").Input("input: string").Output("output: int32")
                 .Attr("unit: string = 'BYTE'").SetShapeFn(SameShape));
  r.Register(OpDefBuilder("StringStrip").Input("input: string").Output("output: string").SetShapeFn(SameShape));
  r.Register(OpDefBuilder("StringLower").Input("input: string").Output("output: string")
                 .Attr("encoding: string = ''").SetShapeFn(SameShape));
  r.Register(OpDefBuilder("StringUpper").Input("input: string").Output("output: string")
                 .Attr("encoding: string = ''").SetShapeFn(SameShape));
  r.Register(OpDefBuilder("Substr").Input("input: string").Input("pos: T").Input("len: T").Output("output: string")
                 .Attr("T: {int32, int64}").Attr("unit: string = 'BYTE'").SetShapeFn(SameShape));
  r.Register(OpDefBuilder("RegexReplace").Input("input: string").Input("pattern: string").Input("rewrite: string")
                 .Output("output: string").Attr("replace_global: bool = true").SetShapeFn(SameShape));
  r.Register(OpDefBuilder("StaticRegexReplace").Input("input: string").Output("output: string")
                 .Attr("pattern: string").Attr("rewrite: string").Attr("replace_global: bool = true")
                 .SetShapeFn(SameShape));
  r.Register(OpDefBuilder("StringSplit").Input("input: string").Input("delimiter: string")
                 .Output("indices: int64").Output("values: string").Output("shape: int64")
                 .Attr("skip_empty: bool = true").SetShapeFn(SplitShape));
  r.Register(OpDefBuilder("StringSplitV2").Input("input: string").Input("sep: string")
                 .Output("indices: int64").Output("values: string").Output("shape: int64")
                 .Attr("maxsplit: int = -1").SetShapeFn(SplitShape));
}

}  // namespace tw
