#include "ops/patches_geometry.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"

namespace tw::patches {
namespace {

// The spatial pair of the 4-value list attr `name`. `what` is the attr's name in TensorFlow's
// count message ("stride" for strides, as TensorFlow writes it).
absl::Status ReadVec4(const AttrMap& attrs, const char* name, const char* what, int64_t* h, int64_t* w) {
  TW_ASSIGN_OR_RETURN(std::vector<int64_t> v, GetIntListAttr(attrs, name));
  if (v.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat("ExtractImagePatches requires the ", what,
                                                   " attribute to contain 4 values, but got: ", v.size()));
  }
  *h = v[1];
  *w = v[2];
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckPatchesEntries(const AttrMap& attrs) {
  for (const char* name : {"ksizes", "strides", "rates"}) {
    TW_ASSIGN_OR_RETURN(std::vector<int64_t> v, GetIntListAttr(attrs, name));
    if (v.size() != 4) continue;  // ReadPatchesAttrs reports it
    if (v[0] != 1 || v[3] != 1) {
      return absl::UnimplementedError(absl::StrCat("Only support ", name, " across space."));
    }
    if (v[1] < 1 || v[2] < 1) return absl::OutOfRangeError(absl::StrCat(name, " is out of range."));
  }
  return absl::OkStatus();
}

absl::StatusOr<PatchesAttrs> ReadPatchesAttrs(const AttrMap& attrs) {
  PatchesAttrs a;
  TW_RETURN_IF_ERROR(ReadVec4(attrs, "ksizes", "ksizes", &a.k_h, &a.k_w));
  TW_RETURN_IF_ERROR(ReadVec4(attrs, "strides", "stride", &a.stride_h, &a.stride_w));
  TW_RETURN_IF_ERROR(ReadVec4(attrs, "rates", "rates", &a.rate_h, &a.rate_w));
  TW_ASSIGN_OR_RETURN(std::string padding, GetStringAttr(attrs, "padding"));
  if (padding != "SAME" && padding != "VALID") {
    return absl::InvalidArgumentError(absl::StrCat("Value for attr 'padding' of \"", padding,
                                                   "\" is not in the list of allowed values: \"SAME\", \"VALID\""));
  }
  a.same = padding == "SAME";
  return a;
}

absl::StatusOr<PatchesDim> ComputePatchesDim(int64_t in, int64_t k, int64_t stride, int64_t rate, bool same) {
  const int64_t window = (k - 1) * rate + 1;
  PatchesDim d;
  if (same) {
    d.out = (in + stride - 1) / stride;
    d.pad_before = std::max<int64_t>(0, (d.out - 1) * stride + window - in) / 2;
  } else {
    d.out = (in - window + stride) / stride;  // truncating, as TensorFlow's
  }
  if (d.out < 0) {
    return absl::InvalidArgumentError(absl::StrCat("Computed output size would be negative: ", d.out,
                                                   " [input_size: ", in, ", effective_filter_size: ", window,
                                                   ", stride: ", stride, "]"));
  }
  return d;
}

}  // namespace tw::patches
