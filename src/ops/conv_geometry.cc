#include "ops/conv_geometry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensorweave/status.h"

namespace tw::conv {

absl::Status ReadSpatialPair(const AttrMap& attrs, const char* name, bool nchw, int64_t* h, int64_t* w) {
  auto values = GetIntListAttr(attrs, name);
  if (!values.ok()) return values.status();
  const std::vector<int64_t>& v = *values;
  if (v.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must have 4 values, got ", v.size()));
  }
  const int n = 0, c = nchw ? 1 : 3, hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  if (v[n] != 1 || v[c] != 1) {
    return absl::InvalidArgumentError(absl::StrCat(name, " in the batch and channel dimensions must be 1, got [",
                                                   absl::StrJoin(v, ","), "]"));
  }
  if (v[hi] < 1 || v[wi] < 1) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be positive, got [", absl::StrJoin(v, ","), "]"));
  }
  *h = v[hi];
  *w = v[wi];
  return absl::OkStatus();
}

absl::StatusOr<Conv2DAttrs> ReadConv2DAttrs(const AttrMap& attrs) {
  Conv2DAttrs a;
  TW_ASSIGN_OR_RETURN(std::string format, GetStringAttr(attrs, "data_format"));
  if (format != "NHWC" && format != "NCHW") {
    return absl::InvalidArgumentError(absl::StrCat("data_format must be NHWC or NCHW, got '", format, "'"));
  }
  a.nchw = format == "NCHW";
  TW_RETURN_IF_ERROR(ReadSpatialPair(attrs, "strides", a.nchw, &a.stride_h, &a.stride_w));
  TW_RETURN_IF_ERROR(ReadSpatialPair(attrs, "dilations", a.nchw, &a.dilation_h, &a.dilation_w));
  TW_ASSIGN_OR_RETURN(std::string padding, GetStringAttr(attrs, "padding"));
  if (padding == "SAME") {
    a.padding = Padding::kSame;
  } else if (padding == "VALID") {
    a.padding = Padding::kValid;
  } else if (padding == "EXPLICIT") {
    a.padding = Padding::kExplicit;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("padding must be SAME, VALID or EXPLICIT, got '", padding, "'"));
  }
  TW_ASSIGN_OR_RETURN(std::vector<int64_t> pads, GetIntListAttr(attrs, "explicit_paddings"));
  if (a.padding == Padding::kExplicit) {
    const int h = a.nchw ? 4 : 2, w = a.nchw ? 6 : 4, c = a.nchw ? 2 : 6;
    if (pads.size() != 8 || pads[0] || pads[1] || pads[c] || pads[c + 1] ||
        std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; })) {
      return absl::InvalidArgumentError(absl::StrCat(
          "explicit_paddings must be 8 non-negative values with 0 for batch and channels, got [",
          absl::StrJoin(pads, ","), "]"));
    }
    a.explicit_pads = {pads[h], pads[h + 1], pads[w], pads[w + 1]};
  } else if (!pads.empty()) {
    return absl::InvalidArgumentError("explicit_paddings must be empty unless padding is EXPLICIT");
  }
  return a;
}

absl::StatusOr<Conv2DShape> ComputeConv2DShape(const Conv2DAttrs& a, const std::array<int64_t, 4>& in,
                                               const std::array<int64_t, 4>& filter) {
  Conv2DShape s{in[0], in[1], in[2], in[3], filter[0], filter[1], filter[3], 0, 0, 0, 0};
  if (filter[2] != in[3]) {
    return absl::InvalidArgumentError(absl::StrCat("input has ", in[3], " channels but the filter expects ",
                                                   filter[2], " (filter [", absl::StrJoin(filter, ","), "])"));
  }
  auto one_dim = [&](int64_t size, int64_t k, int64_t stride, int64_t dilation, int64_t pad_before,
                     int64_t pad_after, int64_t* out, int64_t* pad, const char* dim) -> absl::Status {
    const int64_t window = (k - 1) * dilation + 1;
    switch (a.padding) {
      case Padding::kValid:
        *pad = 0;
        *out = size >= window ? (size - window) / stride + 1 : 0;
        if (size < window) {
          return absl::InvalidArgumentError(absl::StrCat("the filter's ", dim, " window (", window,
                                                         ") is larger than the input's ", dim, " (", size, ")"));
        }
        break;
      case Padding::kSame: {
        *out = (size + stride - 1) / stride;
        const int64_t total = std::max<int64_t>((*out - 1) * stride + window - size, 0);
        *pad = total / 2;
        break;
      }
      case Padding::kExplicit:
        *pad = pad_before;
        if (size + pad_before + pad_after < window) {
          return absl::InvalidArgumentError(absl::StrCat("the filter's ", dim, " window (", window,
                                                         ") is larger than the padded input's ", dim));
        }
        *out = (size + pad_before + pad_after - window) / stride + 1;
        break;
    }
    return absl::OkStatus();
  };
  TW_RETURN_IF_ERROR(one_dim(s.in_h, s.k_h, a.stride_h, a.dilation_h, a.explicit_pads[0], a.explicit_pads[1],
                             &s.out_h, &s.pad_top, "height"));
  TW_RETURN_IF_ERROR(one_dim(s.in_w, s.k_w, a.stride_w, a.dilation_w, a.explicit_pads[2], a.explicit_pads[3],
                             &s.out_w, &s.pad_left, "width"));
  return s;
}

std::array<int64_t, 4> ToNhwc(const std::array<int64_t, 4>& d, bool nchw) {
  return nchw ? std::array<int64_t, 4>{d[0], d[2], d[3], d[1]} : d;
}
std::array<int64_t, 4> FromNhwc(const std::array<int64_t, 4>& d, bool nchw) {
  return nchw ? std::array<int64_t, 4>{d[0], d[3], d[1], d[2]} : d;
}

}  // namespace tw::conv
