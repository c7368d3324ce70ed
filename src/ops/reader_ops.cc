// TF1's reader ops: a reader (TFRecord, TextLine, FixedLengthRecord, WholeFile) is a resource
// that takes file names from a queue and produces (key, value) records from them.
#include "graph/op_registry.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status HandleShape(InferenceContext& c) {
  c.set_output(0, PartialShape({}));
  return absl::OkStatus();
}

absl::Status ScalarOutputs(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 0));
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape({}));
  return absl::OkStatus();
}

absl::Status ReadUpToShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 0));
  TW_RETURN_IF_ERROR(c.WithRank(1, 0));
  TW_RETURN_IF_ERROR(c.WithRank(2, 0));
  c.set_output(0, PartialShape({-1}));
  c.set_output(1, PartialShape({-1}));
  return absl::OkStatus();
}

OpDefBuilder Reader(const char* name) {
  return std::move(OpDefBuilder(name).Output("reader_handle: resource").Attr("container: string = ''")
                       .Attr("shared_name: string = ''").SetStateful().SetShapeFn(HandleShape));
}

}  // namespace

void RegisterReaderOps(OpRegistry& r) {
  r.Register(Reader("TFRecordReaderV2").Attr("compression_type: string = ''"));
  r.Register(Reader("TextLineReaderV2").Attr("skip_header_lines: int = 0"));
  r.Register(Reader("FixedLengthRecordReaderV2").Attr("header_bytes: int = 0").Attr("record_bytes: int")
                 .Attr("footer_bytes: int = 0").Attr("hop_bytes: int = 0").Attr("encoding: string = ''"));
  r.Register(Reader("WholeFileReaderV2"));
  r.Register(OpDefBuilder("ReaderReadV2").Input("reader_handle: resource").Input("queue_handle: resource")
                 .Output("key: string").Output("value: string").SetStateful().SetShapeFn(ScalarOutputs));
  r.Register(OpDefBuilder("ReaderReadUpToV2").Input("reader_handle: resource").Input("queue_handle: resource")
                 .Input("num_records: int64").Output("keys: string").Output("values: string").SetStateful()
                 .SetShapeFn(ReadUpToShape));
  r.Register(OpDefBuilder("ReaderNumRecordsProducedV2").Input("reader_handle: resource")
                 .Output("records_produced: int64").SetStateful().SetShapeFn(ScalarOutputs));
  r.Register(OpDefBuilder("ReaderNumWorkUnitsCompletedV2").Input("reader_handle: resource")
                 .Output("units_completed: int64").SetStateful().SetShapeFn(ScalarOutputs));
  r.Register(OpDefBuilder("ReaderResetV2").Input("reader_handle: resource").SetStateful()
                 .SetShapeFn(ScalarOutputs));
}

}  // namespace tw
