"""tf.nn's depthwise and separable convolutions (re-exported by tensorweave.nn)."""
from tensorweave import array_ops
from tensorweave.framework import _op_output, convert_to_tensor


def _attrs(strides, padding, data_format, rate, dilations):
    from tensorweave.nn import _conv_attrs
    if dilations is None and rate is not None:
        dilations = rate  # TF1's `rate` is the dilation of the native op
    return _conv_attrs(strides, padding, data_format or "NHWC", dilations)


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",  # noqa: A002 - TF's names
                            dilations=None, name=None):
    """Each of the c input channels convolved with its own m filters ([kh, kw, c, m]): c*m outputs."""
    return _op_output("DepthwiseConv2dNative", [convert_to_tensor(input), convert_to_tensor(filter)],
                      _attrs(strides, padding, data_format, None, dilations), name or "DepthwiseConv2dNative")


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None,  # noqa: A002 - TF's names
                     data_format=None, dilations=None):
    """TF1's tf.nn.depthwise_conv2d: the native op with `rate` (or dilations) as its dilations."""
    return _op_output("DepthwiseConv2dNative", [convert_to_tensor(input), convert_to_tensor(filter)],
                      _attrs(strides, padding, data_format, rate, dilations), name or "depthwise")


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                                           data_format="NHWC", dilations=None, name=None):
    return _op_output("DepthwiseConv2dNativeBackpropInput",
                      [array_ops._int_tensor(input_sizes, "input_sizes"), convert_to_tensor(filter),
                       convert_to_tensor(out_backprop)],
                      _attrs(strides, padding, data_format, None, dilations),
                      name or "DepthwiseConv2dNativeBackpropInput")


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                                            data_format="NHWC", dilations=None, name=None):
    return _op_output("DepthwiseConv2dNativeBackpropFilter",
                      [convert_to_tensor(input), array_ops._int_tensor(filter_sizes, "filter_sizes"),
                       convert_to_tensor(out_backprop)],
                      _attrs(strides, padding, data_format, None, dilations),
                      name or "DepthwiseConv2dNativeBackpropFilter")


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None,  # noqa: A002
                     name=None, data_format=None, dilations=None):
    """A depthwise convolution followed by a 1x1 convolution mixing its c*m channels."""
    from tensorweave.nn import conv2d
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, rate=rate, data_format=data_format,
                                 dilations=dilations, name=(name + "_depthwise") if name else "separable_depthwise")
    return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID", data_format=data_format or "NHWC",
                  name=name or "separable_conv2d")
