#include "ops/pool_geometry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"

namespace tw::pool {

absl::StatusOr<Pool2DAttrs> ReadPool2DAttrs(const AttrMap& attrs) {
  Pool2DAttrs a;
  TW_ASSIGN_OR_RETURN(std::string format, GetStringAttr(attrs, "data_format"));
  if (format != "NHWC" && format != "NCHW") {
    return absl::InvalidArgumentError(absl::StrCat("data_format must be NHWC or NCHW, got '", format, "'"));
  }
  a.conv.nchw = format == "NCHW";
  TW_RETURN_IF_ERROR(conv::ReadSpatialPair(attrs, "ksize", a.conv.nchw, &a.k_h, &a.k_w));
  TW_RETURN_IF_ERROR(conv::ReadSpatialPair(attrs, "strides", a.conv.nchw, &a.conv.stride_h, &a.conv.stride_w));
  TW_ASSIGN_OR_RETURN(std::string padding, GetStringAttr(attrs, "padding"));
  // AvgPool's schema has no explicit_paddings attr (TensorFlow's neither).
  std::vector<int64_t> pads;
  if (attrs.contains("explicit_paddings")) {
    TW_ASSIGN_OR_RETURN(pads, GetIntListAttr(attrs, "explicit_paddings"));
  }
  if (padding == "SAME") {
    a.conv.padding = conv::Padding::kSame;
  } else if (padding == "VALID") {
    a.conv.padding = conv::Padding::kValid;
  } else if (padding == "EXPLICIT" && attrs.contains("explicit_paddings")) {
    a.conv.padding = conv::Padding::kExplicit;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("padding must be SAME or VALID",
                                                   attrs.contains("explicit_paddings") ? " or EXPLICIT" : "",
                                                   ", got '", padding, "'"));
  }
  if (a.conv.padding == conv::Padding::kExplicit) {
    const int h = a.conv.nchw ? 4 : 2, w = a.conv.nchw ? 6 : 4, c = a.conv.nchw ? 2 : 6;
    if (pads.size() != 8 || pads[0] || pads[1] || pads[c] || pads[c + 1] ||
        std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; })) {
      return absl::InvalidArgumentError(
          "explicit_paddings must be 8 non-negative values with 0 for batch and channels");
    }
    a.conv.explicit_pads = {pads[h], pads[h + 1], pads[w], pads[w + 1]};
    if (pads[h] >= a.k_h || pads[h + 1] >= a.k_h || pads[w] >= a.k_w || pads[w + 1] >= a.k_w) {
      return absl::InvalidArgumentError(absl::StrCat("explicit paddings must be smaller than the window (",
                                                     a.k_h, "x", a.k_w, ")"));
    }
  } else if (!pads.empty()) {
    return absl::InvalidArgumentError("explicit_paddings must be empty unless padding is EXPLICIT");
  }
  return a;
}

absl::StatusOr<conv::Conv2DShape> ComputePool2DShape(const Pool2DAttrs& a, const std::array<int64_t, 4>& in) {
  return conv::ComputeConv2DShape(a.conv, in, {a.k_h, a.k_w, in[3], in[3]});
}

}  // namespace tw::pool
