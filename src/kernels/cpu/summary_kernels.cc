// Summary kernels: each outputs one serialized Summary (a string scalar), built as
// TensorFlow's summary kernels build theirs (same tags, values, histogram buckets, image
// scaling and error messages), so TensorBoard shows the same thing from both systems.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"
#include "summary/histogram.h"
#include "summary/png_encode.h"
#include "summary/wav_encode.h"
#include "tensor/half.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/proto/summary.pb.h"
#include "core/proto_namespace.h"

namespace tw {
namespace {

// Element i of a real-number tensor as a double (exact for every dtype the ops accept).
double ElementAsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFloat: return t.data<float>()[i];
    case DType::kDouble: return t.data<double>()[i];
    case DType::kInt32: return t.data<int32_t>()[i];
    case DType::kInt64: return static_cast<double>(t.data<int64_t>()[i]);
    case DType::kUint8: return t.data<uint8_t>()[i];
    case DType::kInt8: return t.data<int8_t>()[i];
    case DType::kInt16: return t.data<int16_t>()[i];
    case DType::kUint16: return t.data<uint16_t>()[i];
    case DType::kHalf: return HalfToFloat(t.data<half>()[i]);
    default: return std::numeric_limits<double>::quiet_NaN();  // Excluded by the op's T.
  }
}

absl::Status OutputSummary(OpKernelContext& ctx, const Summary& s) {
  TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(), DType::kString));
  if (!s.SerializeToString(out->data<std::string>())) return absl::InternalError("could not serialize the Summary");
  return absl::OkStatus();
}

class ScalarSummaryOp : public OpKernel {
 public:
  explicit ScalarSummaryOp(OpKernelConstruction& c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& tags = ctx.input(0);
    const Tensor& values = ctx.input(1);
    if (tags.shape() != values.shape()) {
      const std::string single =
          tags.NumElements() == 1 ? absl::StrCat(" (tag '", tags.data<std::string>()[0], "')") : "";
      return absl::InvalidArgumentError(absl::StrCat("tags and values are not the same shape: ", tags.shape().DebugString(),
                                                     " != ", values.shape().DebugString(), single));
    }
    Summary s;
    for (int64_t i = 0; i < tags.NumElements(); ++i) {
      Summary::Value* v = s.add_value();
      v->set_tag(tags.data<std::string>()[i]);
      v->set_simple_value(static_cast<float>(ElementAsDouble(values, i)));
    }
    return OutputSummary(ctx, s);
  }
};

class HistogramSummaryOp : public OpKernel {
 public:
  explicit HistogramSummaryOp(OpKernelConstruction& c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& tag = ctx.input(0);
    const Tensor& values = ctx.input(1);
    if (tag.rank() != 0) return absl::InvalidArgumentError("tags must be scalar");
    summary::Histogram histo;
    for (int64_t i = 0; i < values.NumElements(); ++i) {
      const double v = ElementAsDouble(values, i);
      if (std::isnan(v)) return absl::InvalidArgumentError(absl::StrCat("Nan in summary histogram for: ", name()));
      if (std::isinf(v)) return absl::InvalidArgumentError(absl::StrCat("Infinity in Histogram for: ", name()));
      histo.Add(v);
    }
    Summary s;
    Summary::Value* v = s.add_value();
    v->set_tag(tag.scalar<std::string>());
    histo.EncodeTo(v->mutable_histo());
    return OutputSummary(ctx, s);
  }
};

// Scales one float image into uint8 as TensorFlow does: non-negative images by
// 255 / max, others by 127 / max|x| around 128, both computed in the image's own type T
// (so half images round as TF's do); pixels with a non-finite channel get bad_color.
template <typename T, typename Load>
void NormalizeFloatImage(const Load& load, int64_t first, int64_t hw, int depth, const uint8_t* bad_color,
                         uint8_t* image) {
  auto finite_pixel = [&](int64_t p) {
    for (int j = 0; j < depth; ++j) {
      if (!Eigen::numext::isfinite(load(first + p * depth + j))) return false;
    }
    return true;
  };
  float image_min = std::numeric_limits<float>::infinity();
  float image_max = -image_min;
  for (int64_t p = 0; p < hw; ++p) {
    if (!finite_pixel(p)) continue;
    for (int j = 0; j < depth; ++j) {
      const float value = static_cast<float>(load(first + p * depth + j));
      image_min = std::min(image_min, value);
      image_max = std::max(image_max, value);
    }
  }
  const float kZeroThreshold = 1e-6f;
  T scale, offset;
  if (image_min < 0) {
    const float max_val = std::max(std::abs(image_min), std::abs(image_max));
    scale = T(max_val < kZeroThreshold ? 0.0f : 127.0f / max_val);
    offset = T(128.0f);
  } else {
    scale = T(image_max < kZeroThreshold ? 0.0f : 255.0f / image_max);
    offset = T(0.0f);
  }
  for (int64_t p = 0; p < hw; ++p) {
    const bool finite = finite_pixel(p);
    for (int j = 0; j < depth; ++j) {
      image[p * depth + j] =
          finite ? static_cast<uint8_t>(static_cast<float>(T(load(first + p * depth + j) * scale + offset)))
                 : bad_color[j];
    }
  }
}

class ImageSummaryOp : public OpKernel {
 public:
  explicit ImageSummaryOp(OpKernelConstruction& c) : OpKernel(c) {
    int64_t max_images = 3;
    c.GetAttr("max_images", &max_images);
    c.GetAttr("bad_color", &bad_color_);
    if (!c.status().ok()) return;
    if (max_images < 1) {
      c.Fail(absl::InvalidArgumentError(absl::StrCat("max_images must be >= 1, got ", max_images)));
    } else if (max_images >= (int64_t{1} << 31)) {
      c.Fail(absl::InvalidArgumentError("max_images must be < 2^31"));
    }
    max_images_ = static_cast<int>(max_images);
    if (bad_color_.dtype() != DType::kUint8) {
      c.Fail(absl::InvalidArgumentError(absl::StrCat("bad_color must be uint8, got ", DTypeName(bad_color_.dtype()))));
    } else if (bad_color_.rank() != 1) {
      c.Fail(absl::InvalidArgumentError(
          absl::StrCat("bad_color must be a vector, got shape ", bad_color_.shape().DebugString())));
    }
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& tag = ctx.input(0);
    const Tensor& tensor = ctx.input(1);
    // TensorFlow also takes a one-element vector (a "legacy scalar").
    if (!(tag.rank() == 0 || (tag.rank() == 1 && tag.NumElements() == 1))) {
      return absl::InvalidArgumentError("Tags must be a scalar");
    }
    const TensorShape& shape = tensor.shape();
    if (!(shape.rank() == 4 && (shape.dim(3) == 1 || shape.dim(3) == 3 || shape.dim(3) == 4))) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tensor must be 4-D with last dim 1, 3, or 4, not ", shape.DebugString()));
    }
    if (!(shape.dim(0) < (int64_t{1} << 31) && shape.dim(1) < (int64_t{1} << 31) &&
          shape.dim(2) < (int64_t{1} << 31) && shape.dim(1) * shape.dim(2) < (int64_t{1} << 29))) {
      return absl::InvalidArgumentError(absl::StrCat("Tensor too large for summary ", shape.DebugString()));
    }
    const std::string& base_tag = tag.data<std::string>()[0];
    const int batch = static_cast<int>(shape.dim(0));
    const int h = static_cast<int>(shape.dim(1)), w = static_cast<int>(shape.dim(2));
    const int depth = static_cast<int>(shape.dim(3));
    const int64_t hw = int64_t{h} * w;
    if (tensor.dtype() != DType::kUint8 && bad_color_.NumElements() < depth) {
      return absl::InvalidArgumentError(absl::StrCat("expected depth <= bad_color.size, got depth = ", depth,
                                                     ", bad_color.size = ", bad_color_.NumElements()));
    }
    Summary s;
    const int n = std::min(max_images_, batch);
    // The scaled copy of a float image; none for uint8 or an empty batch (a [0, h, w, d]
    // tensor holds nothing, however large h * w).
    std::vector<uint8_t> image(tensor.dtype() == DType::kUint8 || n == 0 ? 0 : hw * depth);
    for (int i = 0; i < n; ++i) {
      const int64_t first = i * hw * depth;
      const uint8_t* pixels = image.data();
      switch (tensor.dtype()) {
        case DType::kUint8: pixels = tensor.data<uint8_t>() + first; break;
        case DType::kFloat:
          NormalizeFloatImage<float>([&](int64_t k) { return tensor.data<float>()[k]; }, first, hw, depth,
                                     bad_color_.data<uint8_t>(), image.data());
          break;
        case DType::kDouble:
          NormalizeFloatImage<double>([&](int64_t k) { return tensor.data<double>()[k]; }, first, hw, depth,
                                      bad_color_.data<uint8_t>(), image.data());
          break;
        default:  // half: arithmetic in Eigen::half, rounding after each step as TF's kernel.
          NormalizeFloatImage<Eigen::half>(
              [&](int64_t k) { return Eigen::numext::bit_cast<Eigen::half>(tensor.data<half>()[k].bits); }, first,
              hw, depth, bad_color_.data<uint8_t>(), image.data());
          break;
      }
      Summary::Value* v = s.add_value();
      // The tag depends on the number of images asked for, not the number produced (TF).
      v->set_tag(max_images_ > 1 ? absl::StrCat(base_tag, "/image/", i) : absl::StrCat(base_tag, "/image"));
      Summary::Image* si = v->mutable_image();
      si->set_height(h);
      si->set_width(w);
      si->set_colorspace(depth);
      TW_ASSIGN_OR_RETURN(*si->mutable_encoded_image_string(), summary::EncodePng(pixels, w, h, depth));
    }
    return OutputSummary(ctx, s);
  }

 private:
  int max_images_ = 3;
  Tensor bad_color_;
};

class AudioSummaryV2Op : public OpKernel {
 public:
  explicit AudioSummaryV2Op(OpKernelConstruction& c) : OpKernel(c) {
    int64_t max_outputs = 3;
    c.GetAttr("max_outputs", &max_outputs);
    if (c.status().ok() && (max_outputs <= 0 || max_outputs >= (int64_t{1} << 31))) {
      c.Fail(absl::InvalidArgumentError("max_outputs must be > 0"));
    }
    max_outputs_ = static_cast<int>(max_outputs);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& tag = ctx.input(0);
    const Tensor& tensor = ctx.input(1);
    const Tensor& rate = ctx.input(2);
    if (!(tag.rank() == 0 || (tag.rank() == 1 && tag.NumElements() == 1))) {
      return absl::InvalidArgumentError("Tag must be a scalar");
    }
    if (tensor.rank() < 2 || tensor.rank() > 3) {
      return absl::InvalidArgumentError(absl::StrCat("Tensor must be 3-D or 2-D, got: ", tensor.shape().DebugString()));
    }
    if (rate.NumElements() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("sample_rate must be a scalar, got shape ", rate.shape().DebugString()));
    }
    const float sample_rate = rate.data<float>()[0];
    if (!(sample_rate > 0.0f)) return absl::InvalidArgumentError("sample_rate must be > 0");
    const int64_t batch = tensor.shape().dim(0), frames = tensor.shape().dim(1);
    const int64_t channels = tensor.rank() == 2 ? 1 : tensor.shape().dim(2);
    const uint64_t rounded_rate = std::max<long>(1, std::lrint(sample_rate));
    const std::string& base_tag = tag.data<std::string>()[0];
    Summary s;
    const int64_t n = std::min<int64_t>(max_outputs_, batch);
    for (int64_t i = 0; i < n; ++i) {
      Summary::Value* v = s.add_value();
      v->set_tag(max_outputs_ > 1 ? absl::StrCat(base_tag, "/audio/", i) : absl::StrCat(base_tag, "/audio"));
      Summary::Audio* a = v->mutable_audio();
      a->set_sample_rate(sample_rate);
      a->set_num_channels(channels);
      a->set_length_frames(frames);
      a->set_content_type("audio/wav");
      TW_ASSIGN_OR_RETURN(*a->mutable_encoded_audio_string(),
                          summary::EncodeWav(tensor.data<float>() + i * frames * channels, rounded_rate, channels,
                                             frames));
    }
    return OutputSummary(ctx, s);
  }

 private:
  int max_outputs_ = 3;
};

class MergeSummaryOp : public OpKernel {
 public:
  explicit MergeSummaryOp(OpKernelConstruction& c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    Summary s;
    std::unordered_set<std::string> tags;
    for (int input = 0; input < ctx.num_inputs(); ++input) {
      const Tensor& in = ctx.input(input);
      for (int64_t i = 0; i < in.NumElements(); ++i) {
        Summary part;
        if (!part.ParseFromString(in.data<std::string>()[i])) {
          return absl::InvalidArgumentError("Could not parse one of the summary inputs");
        }
        for (const Summary::Value& value : part.value()) {
          // Tensor summaries may leave the tag empty: only named values must be unique.
          if (!value.tag().empty() && !tags.insert(value.tag()).second) {
            return absl::InvalidArgumentError(absl::StrCat("Duplicate tag ", value.tag(), " found in summary inputs "));
          }
          *s.add_value() = value;
        }
      }
    }
    return OutputSummary(ctx, s);
  }
};

class TensorSummaryV2Op : public OpKernel {
 public:
  explicit TensorSummaryV2Op(OpKernelConstruction& c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& tag = ctx.input(0);
    const Tensor& metadata = ctx.input(2);
    if (tag.rank() != 0) return absl::InvalidArgumentError("tag must be scalar");
    if (metadata.rank() != 0) return absl::InvalidArgumentError("serialized_summary_metadata must be scalar");
    Summary s;
    Summary::Value* v = s.add_value();
    v->set_tag(tag.scalar<std::string>());
    // Strings as string_val, numbers as tensor_content: TensorFlow's choice, which
    // TensorBoard's text plugin reads.
    *v->mutable_tensor() = TensorToProto(ctx.input(1));
    if (!v->mutable_metadata()->ParseFromString(metadata.scalar<std::string>())) {
      return absl::InvalidArgumentError("Could not parse serialized_summary_metadata");
    }
    return OutputSummary(ctx, s);
  }
};

}  // namespace

void RegisterSummaryKernels(KernelRegistry& r) {
  r.Register("ScalarSummary", kDeviceCpu, Factory<ScalarSummaryOp>());
  r.Register("HistogramSummary", kDeviceCpu, Factory<HistogramSummaryOp>());
  r.Register("ImageSummary", kDeviceCpu, Factory<ImageSummaryOp>());
  r.Register("AudioSummaryV2", kDeviceCpu, Factory<AudioSummaryV2Op>());
  r.Register("MergeSummary", kDeviceCpu, Factory<MergeSummaryOp>());
  r.Register("TensorSummaryV2", kDeviceCpu, Factory<TensorSummaryV2Op>());
}

}  // namespace tw
