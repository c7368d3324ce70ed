// BlockLSTM and BlockLSTMGrad on CPU: TensorFlow's fused LSTM over a whole sequence with
// TF's arithmetic (tensorflow/core/kernels/rnn/lstm_ops.h), gates [i, ci, f, o]:
//   [i, ci, f, o] = [x, h_prev] w + b
//   i = sigmoid(i + cs_prev * wci), ci = tanh(ci), f = sigmoid(f + forget_bias + cs_prev * wcf)
//   cs = clip(i * ci + f * cs_prev, cell_clip), co = tanh(cs), o = sigmoid(o + cs * wco), h = o * co
// (peepholes only with use_peephole; no clip when cell_clip <= 0). Steps from seq_len_max
// on are zeros, as TF's.
//
// w is packed once per call (PackedMatrix, packed_gemm.h) for the step loop's products: the
// forward step's [x_t, h_prev] w into a cache-resident [batch, 4H] scratch, the backward
// step's dgates w_h^T; Eigen would repack w at each of those small products. The gradients
// of x and w are single GEMMs over the whole sequence.
#include <Eigen/Core>
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/packed_gemm.h"
#include "tensor/tensor_eigen.h"

namespace tw {
namespace {

using Map = Eigen::Map<Eigen::ArrayXf>;
using ConstMap = Eigen::Map<const Eigen::ArrayXf>;

// 1 / (1 + exp(-x)) on Eigen's vectorized exp, as our Sigmoid kernel (no NaN for large |x|).
template <typename A>
auto Sigmoid(const A& x) {
  return (1.0f + (-x).exp()).inverse();
}

struct Dims {
  int64_t time = 0, batch = 0, input = 0, cell = 0, steps = 0;  // steps: seq_len_max
};

absl::Status Expect(const Tensor& t, std::initializer_list<int64_t> want, const char* what) {
  if (t.shape() == TensorShape(want)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("BlockLSTM: ", what, " must have shape ",
                                                 TensorShape(want).DebugString(), ", got ", t.shape().DebugString()));
}

// Checks inputs 0..8 (seq_len_max, x, cs_prev, h_prev, w, wci, wcf, wco, b) and reads the sizes.
absl::StatusOr<Dims> ReadDims(const OpKernelContext& ctx) {
  const Tensor& seq = ctx.input(0);
  const Tensor& x = ctx.input(1);
  if (seq.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("BlockLSTM: seq_len_max must be a scalar, got shape ", seq.shape().DebugString()));
  }
  if (x.rank() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("BlockLSTM: x must be 3-D [time, batch, input], got shape ", x.shape().DebugString()));
  }
  Dims d;
  d.time = x.dim(0);
  d.batch = x.dim(1);
  d.input = x.dim(2);
  const Tensor& b = ctx.input(8);
  if (b.rank() != 1 || b.dim(0) % 4 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("BlockLSTM: b must be a vector of 4 * cell_size, got shape ", b.shape().DebugString()));
  }
  d.cell = b.dim(0) / 4;
  TW_RETURN_IF_ERROR(Expect(ctx.input(2), {d.batch, d.cell}, "cs_prev"));
  TW_RETURN_IF_ERROR(Expect(ctx.input(3), {d.batch, d.cell}, "h_prev"));
  TW_RETURN_IF_ERROR(Expect(ctx.input(4), {d.input + d.cell, 4 * d.cell}, "w"));
  TW_RETURN_IF_ERROR(Expect(ctx.input(5), {d.cell}, "wci"));
  TW_RETURN_IF_ERROR(Expect(ctx.input(6), {d.cell}, "wcf"));
  TW_RETURN_IF_ERROR(Expect(ctx.input(7), {d.cell}, "wco"));
  d.steps = seq.data<int64_t>()[0];
  if (d.steps < 0 || d.steps > d.time) {
    return absl::InvalidArgumentError(absl::StrCat("BlockLSTM: seq_len_max is ", d.steps, ", but x has ", d.time,
                                                   " time steps"));
  }
  return d;
}

// Allocates output i of ctx with `shape` and zeros its elements from `from` on (the steps
// from seq_len_max on; the others are all written).
absl::StatusOr<float*> AllocateOutput(OpKernelContext& ctx, int i, const TensorShape& shape, int64_t from = 0) {
  TW_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output(i, shape, DType::kFloat));
  float* p = t->data<float>();
  std::fill(p + std::min(from, shape.num_elements()), p + shape.num_elements(), 0.0f);
  return p;
}

class BlockLstmOp : public OpKernel {
 public:
  explicit BlockLstmOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("forget_bias", &forget_bias_);
    c.GetAttr("cell_clip", &cell_clip_);
    c.GetAttr("use_peephole", &use_peephole_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(const Dims d, ReadDims(ctx));
    const int64_t B = d.batch, H = d.cell, I = d.input, G = 4 * H;
    const float* x = ctx.input(1).data<float>();
    const float* cs_prev = ctx.input(2).data<float>();
    const float* h_prev = ctx.input(3).data<float>();
    const float* w = ctx.input(4).data<float>();
    const ConstMap wci(ctx.input(5).data<float>(), H), wcf(ctx.input(6).data<float>(), H),
        wco(ctx.input(7).data<float>(), H);
    const float* bias = ctx.input(8).data<float>();
    const TensorShape shape({d.time, B, H});
    float* out[7];  // i, cs, f, o, ci, co, h
    for (int k = 0; k < 7; ++k) {
      TW_ASSIGN_OR_RETURN(out[k], AllocateOutput(ctx, k, shape, d.steps * B * H));
    }
    if (d.steps == 0 || B == 0 || H == 0) return absl::OkStatus();

    // w's input rows and h_prev's rows, each packed once for every step's products; a step's
    // gates, [batch, 4H], are bias + x_t w_x + h_prev w_h in a scratch that stays in cache.
    const PackedMatrix w_x(w, I, G, /*transposed=*/false), w_h(w + I * G, H, G, /*transposed=*/false);
    std::unique_ptr<float[]> gates(new float[B * G]);
    for (int64_t t = 0; t < d.steps; ++t) {
      const float* c_in = t == 0 ? cs_prev : out[1] + (t - 1) * B * H;
      const float* h_in = t == 0 ? h_prev : out[6] + (t - 1) * B * H;
      float* gt = gates.get();
      for (int64_t r = 0; r < B; ++r) std::copy(bias, bias + G, gt + r * G);
      w_x.Multiply(&ctx, x + t * B * I, I, B, gt, G, /*accumulate=*/true);
      w_h.Multiply(&ctx, h_in, H, B, gt, G, /*accumulate=*/true);
      for (int64_t r = 0; r < B; ++r) {
        const int64_t at = (t * B + r) * H;
        const ConstMap c_old(c_in + r * H, H);
        const float* g = gt + r * G;
        const ConstMap pre_i(g, H), pre_ci(g + H, H), pre_f(g + 2 * H, H), pre_o(g + 3 * H, H);
        Map i(out[0] + at, H), cs(out[1] + at, H), f(out[2] + at, H), o(out[3] + at, H), ci(out[4] + at, H),
            co(out[5] + at, H), h(out[6] + at, H);
        if (use_peephole_) {
          i = Sigmoid(pre_i + c_old * wci);
          f = Sigmoid(pre_f + forget_bias_ + c_old * wcf);
        } else {
          i = Sigmoid(pre_i);
          f = Sigmoid(pre_f + forget_bias_);
        }
        ci = pre_ci.tanh();
        cs = i * ci + f * c_old;
        if (cell_clip_ > 0.0f) cs = cs.min(cell_clip_).max(-cell_clip_);
        co = cs.tanh();
        if (use_peephole_) {
          o = Sigmoid(pre_o + cs * wco);
        } else {
          o = Sigmoid(pre_o);
        }
        h = o * co;
      }
    }
    return absl::OkStatus();
  }

 private:
  float forget_bias_ = 1.0f;
  float cell_clip_ = 3.0f;
  bool use_peephole_ = false;
};

// BlockLSTMGrad: inputs 0..8 as BlockLSTM's, 9..15 its outputs (i, cs, f, o, ci, co, h),
// 16 and 17 the gradients of cs and h; outputs the gradients of x .. b. As TF's, only cs and
// h carry gradients in, and the clip is not differentiated.
class BlockLstmGradOp : public OpKernel {
 public:
  explicit BlockLstmGradOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("use_peephole", &use_peephole_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(const Dims d, ReadDims(ctx));
    const int64_t B = d.batch, H = d.cell, I = d.input, G = 4 * H;
    const TensorShape seq_shape({d.time, B, H});
    static constexpr const char* kSeqInputs[] = {"i", "cs", "f", "o", "ci", "co", "h", "cs_grad", "h_grad"};
    for (int k = 0; k < 9; ++k) {
      if (ctx.input(9 + k).shape() != seq_shape) {
        return absl::InvalidArgumentError(absl::StrCat("BlockLSTMGrad: ", kSeqInputs[k], " must have shape ",
                                                       seq_shape.DebugString(), ", got ",
                                                       ctx.input(9 + k).shape().DebugString()));
      }
    }
    const float* x = ctx.input(1).data<float>();
    const float* cs_prev = ctx.input(2).data<float>();
    const float* h_prev = ctx.input(3).data<float>();
    const float* w = ctx.input(4).data<float>();
    const ConstMap wci(ctx.input(5).data<float>(), H), wcf(ctx.input(6).data<float>(), H),
        wco(ctx.input(7).data<float>(), H);
    const float* seq[9];
    for (int k = 0; k < 9; ++k) seq[k] = ctx.input(9 + k).data<float>();

    float* grad[8];  // x, cs_prev, h_prev, w, wci, wcf, wco, b
    // x's gradient is written for the first seq_len_max steps (unless nothing reads it: x is
    // often the data), w's and the states' whole when there is a step; the peepholes' and
    // b's accumulate.
    const bool any = d.steps > 0 && B > 0 && H > 0;
    const bool x_grad = ctx.output_required(0);
    for (int k = 0; k < 8; ++k) {
      const int64_t written = !any                       ? 0
                              : k == 0                   ? (x_grad ? d.steps * B * I : 0)
                              : k >= 4                   ? 0
                                                         : ctx.input(1 + k).NumElements();
      TW_ASSIGN_OR_RETURN(grad[k], AllocateOutput(ctx, k, ctx.input(1 + k).shape(), written));
    }
    if (!any) return absl::OkStatus();

    // dgates of every step, [steps * batch, 4H]; the carries are the gradients flowing into
    // the previous step's cs and h.
    std::unique_ptr<float[]> dgates(new float[d.steps * B * G]);  // every element is written
    std::vector<float> dcs_carry(B * H, 0.0f), dh_carry(B * H, 0.0f), scratch(2 * H);
    Map dh(scratch.data(), H), dcs(scratch.data() + H, H);
    // h_prev's rows of w, transposed and packed once for every step's product.
    const PackedMatrix w_h_t(w + I * G, G, H, /*transposed=*/true);
    Map wci_grad(grad[4], H), wcf_grad(grad[5], H), wco_grad(grad[6], H), b_grad(grad[7], G);
    for (int64_t t = d.steps - 1; t >= 0; --t) {
      const float* c_in = t == 0 ? cs_prev : seq[1] + (t - 1) * B * H;
      for (int64_t r = 0; r < B; ++r) {
        const int64_t at = (t * B + r) * H;
        const ConstMap i(seq[0] + at, H), cs(seq[1] + at, H), f(seq[2] + at, H), o(seq[3] + at, H),
            ci(seq[4] + at, H), co(seq[5] + at, H);
        const ConstMap c_old(c_in + r * H, H);
        Map dcs_next(dcs_carry.data() + r * H, H);
        dh = ConstMap(seq[8] + at, H) + Map(dh_carry.data() + r * H, H);
        float* dg = dgates.get() + (t * B + r) * G;
        Map di(dg, H), dci(dg + H, H), df(dg + 2 * H, H), d_o(dg + 3 * H, H);
        d_o = o * (1.0f - o) * dh * co;
        dcs = (1.0f - co * co) * dh * o + ConstMap(seq[7] + at, H) + dcs_next;
        if (use_peephole_) dcs += d_o * wco;
        dci = (1.0f - ci * ci) * dcs * i;
        df = f * (1.0f - f) * dcs * c_old;
        di = i * (1.0f - i) * dcs * ci;
        dcs_next = dcs * f;
        if (use_peephole_) {
          dcs_next += di * wci + df * wcf;
          wci_grad += di * c_old;
          wcf_grad += df * c_old;
          wco_grad += d_o * cs;
        }
        b_grad += ConstMap(dg, G);  // while the row is in cache (a pass at the end reads 6.5 MB again)
      }
      // The gradient into h_prev of this step: dgates_t w_h^T.
      w_h_t.Multiply(&ctx, dgates.get() + t * B * G, G, B, dh_carry.data(), H, /*accumulate=*/false);
    }
    std::copy(dcs_carry.begin(), dcs_carry.end(), grad[1]);
    std::copy(dh_carry.begin(), dh_carry.end(), grad[2]);

    const int64_t rows = d.steps * B;
    // x_grad = dgates w_x^T; w_grad = [x; h_prev of each step]^T dgates.
    if (x_grad) Gemm<float>(&ctx, dgates.get(), w, grad[0], rows, G, I, false, true);
    // One GEMM for both parts of w (Eigen packs dgates, 4H x rows, once per GEMM): the rows
    // of [x_t, h_prev of step t].
    std::unique_ptr<float[]> xh(new float[rows * (I + H)]);
    for (int64_t r = 0; r < rows; ++r) {
      float* row = xh.get() + r * (I + H);
      std::copy(x + r * I, x + (r + 1) * I, row);
      const float* h_in = r < B ? h_prev + r * H : seq[6] + (r - B) * H;
      std::copy(h_in, h_in + H, row + I);
    }
    Gemm<float>(&ctx, xh.get(), dgates.get(), grad[3], I + H, rows, G, true, false);
    return absl::OkStatus();
  }

 private:
  bool use_peephole_ = false;
};

}  // namespace

void RegisterBlockLstmKernels(KernelRegistry& r) {
  r.Register({"BlockLSTM", kDeviceCpu, Factory<BlockLstmOp>(), "", {}});
  r.Register({"BlockLSTMGrad", kDeviceCpu, Factory<BlockLstmGradOp>(), "", {}});
}

}  // namespace tw
