// Gradients of Conv2D and of its two backprops (which are its adjoints, so their own
// gradients are convolutions again: second derivatives work as in TensorFlow).
#include "autodiff/grad_util.h"
#include "graph/graph.h"

namespace tw {
namespace {

// The convolution attrs of the op being differentiated, for the ops its gradient adds.
AttrMap ConvAttrs(const GradContext& ctx) {
  AttrMap attrs;
  for (const char* name : {"strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu"}) {
    attrs[name] = ctx.attrs().at(name);
  }
  return attrs;
}

// Depthwise ops have Conv2D's attrs less use_cudnn_on_gpu.
AttrMap DepthwiseAttrs(const GradContext& ctx) {
  AttrMap attrs;
  for (const char* name : {"strides", "padding", "explicit_paddings", "data_format", "dilations"}) {
    attrs[name] = ctx.attrs().at(name);
  }
  return attrs;
}

// y = conv(x, w): dx = conv_backprop_input(shape(x), w, dy), dw = conv_backprop_filter(x, shape(w), dy).
std::vector<Output> Conv2DGrad(const GradContext& ctx) {
  const Output x = ctx.input(0), w = ctx.input(1), dy = ctx.grad_outputs[0];
  const AttrMap attrs = ConvAttrs(ctx);
  return {grad::Op("Conv2DBackpropInput", {grad::ShapeOf(x), w, dy}, attrs),
          grad::Op("Conv2DBackpropFilter", {x, grad::ShapeOf(w), dy}, attrs)};
}

// z = backprop_input(sizes, w, dy) is linear in w and in dy:
// dw = backprop_filter(dz, shape(w), dy), ddy = conv(dz, w).
std::vector<Output> Conv2DBackpropInputGrad(const GradContext& ctx) {
  const Output w = ctx.input(1), dy = ctx.input(2), dz = ctx.grad_outputs[0];
  const AttrMap attrs = ConvAttrs(ctx);
  return {Output(), grad::Op("Conv2DBackpropFilter", {dz, grad::ShapeOf(w), dy}, attrs),
          grad::Op("Conv2D", {dz, w}, attrs)};
}

// z = backprop_filter(x, sizes, dy): dx = backprop_input(shape(x), dz, dy), ddy = conv(x, dz).
std::vector<Output> Conv2DBackpropFilterGrad(const GradContext& ctx) {
  const Output x = ctx.input(0), dy = ctx.input(2), dz = ctx.grad_outputs[0];
  const AttrMap attrs = ConvAttrs(ctx);
  return {grad::Op("Conv2DBackpropInput", {grad::ShapeOf(x), dz, dy}, attrs), Output(),
          grad::Op("Conv2D", {x, dz}, attrs)};
}

// The depthwise convolution and its backprops have the same linear structure as Conv2D's.
std::vector<Output> DepthwiseGrad(const GradContext& ctx) {
  const Output x = ctx.input(0), w = ctx.input(1), dy = ctx.grad_outputs[0];
  const AttrMap attrs = DepthwiseAttrs(ctx);
  return {grad::Op("DepthwiseConv2dNativeBackpropInput", {grad::ShapeOf(x), w, dy}, attrs),
          grad::Op("DepthwiseConv2dNativeBackpropFilter", {x, grad::ShapeOf(w), dy}, attrs)};
}

std::vector<Output> DepthwiseBackpropInputGrad(const GradContext& ctx) {
  const Output w = ctx.input(1), dy = ctx.input(2), dz = ctx.grad_outputs[0];
  const AttrMap attrs = DepthwiseAttrs(ctx);
  return {Output(), grad::Op("DepthwiseConv2dNativeBackpropFilter", {dz, grad::ShapeOf(w), dy}, attrs),
          grad::Op("DepthwiseConv2dNative", {dz, w}, attrs)};
}

std::vector<Output> DepthwiseBackpropFilterGrad(const GradContext& ctx) {
  const Output x = ctx.input(0), dy = ctx.input(2), dz = ctx.grad_outputs[0];
  const AttrMap attrs = DepthwiseAttrs(ctx);
  return {grad::Op("DepthwiseConv2dNativeBackpropInput", {grad::ShapeOf(x), dz, dy}, attrs), Output(),
          grad::Op("DepthwiseConv2dNative", {x, dz}, attrs)};
}

}  // namespace

void RegisterConvGradients(GradientRegistry& r) {
  r.Register("Conv2D", Conv2DGrad);
  r.Register("Conv2DBackpropInput", Conv2DBackpropInputGrad);
  r.Register("Conv2DBackpropFilter", Conv2DBackpropFilterGrad);
  r.Register("DepthwiseConv2dNative", DepthwiseGrad);
  r.Register("DepthwiseConv2dNativeBackpropInput", DepthwiseBackpropInputGrad);
  r.Register("DepthwiseConv2dNativeBackpropFilter", DepthwiseBackpropFilterGrad);
}

}  // namespace tw
