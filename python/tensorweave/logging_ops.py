"""tf.print: TensorFlow 2's print as it works in a TF 1.x graph (logging_ops.print_v2). Python
values and structures become the template, tensors its placeholders (a StringFormat op), and
a PrintV2 op writes the text; the PrintV2 operation is returned, to run or to depend on."""
import collections
import os
import pprint
import random
import sys

from tensorweave import data_structure as nest
from tensorweave import dtypes, gen_ops, string_ops
from tensorweave import tf_logging
from tensorweave.sparse_tensor import SparseTensor
from tensorweave.tensor_util import is_tensor


def _stream_names():
    """output_stream's accepted objects -> PrintV2's output_stream attr (TensorFlow's table:
    ours and absl's logging functions and levels, the sys streams as they are now)."""
    names = {sys.stdout: "stdout", sys.stderr: "stderr",
             tf_logging.INFO: "log(info)", tf_logging.info: "log(info)",
             tf_logging.WARN: "log(warning)", tf_logging.warning: "log(warning)", tf_logging.warn: "log(warning)",
             tf_logging.ERROR: "log(error)", tf_logging.error: "log(error)"}
    try:
        from absl import logging as absl_logging
    except ImportError:
        return names
    names.update({absl_logging.INFO: "log(info)", absl_logging.info: "log(info)",
                  absl_logging.WARNING: "log(warning)", absl_logging.WARN: "log(warning)",
                  absl_logging.warning: "log(warning)", absl_logging.warn: "log(warning)",
                  absl_logging.ERROR: "log(error)", absl_logging.error: "log(error)"})
    return names


def _generate_placeholder_string(x, default_placeholder="{}"):
    """A placeholder that does not occur in x: "{}", then digits from TensorFlow's seeded
    generator appended until it does not."""
    placeholder = default_placeholder
    rng = random.Random(5)
    while placeholder in x:
        placeholder = placeholder + str(rng.randint(0, 9))
    return placeholder


def _is_scalar_string(x):
    return (is_tensor(x) and not isinstance(x, SparseTensor) and x.shape.ndims == 0
            and x.dtype == dtypes.string)


def _format(inputs, summarize, sep, name):
    """The StringFormat of inputs joined by sep, as TensorFlow's print_v2 builds it."""
    # Placeholders must not occur in the Python text around them (OrderedDicts sorted as
    # flatten orders their tensors).
    sorted_inputs = [collections.OrderedDict(sorted(x.items())) if isinstance(x, collections.OrderedDict) else x
                     for x in inputs]
    tensor_free = nest.map_structure(lambda x: "" if is_tensor(x) else x, sorted_inputs)
    placeholder = _generate_placeholder_string(" ".join(pprint.pformat(x) for x in tensor_free))
    templates, tensors = [], []
    for input_ in inputs:
        placeholders = []
        for x in nest.flatten(input_):
            if isinstance(x, SparseTensor):
                tensors.extend([x.indices, x.values, x.dense_shape])
                placeholders.append("SparseTensor(indices={0}, values={0}, shape={0})".format(placeholder))
            elif is_tensor(x):
                tensors.append(x)
                placeholders.append(placeholder)
            else:
                placeholders.append(x)
        # A string is template text itself; a structure is pretty-printed (pprint sorts dicts
        # as flatten orders their tensors) and the quotes around its placeholders dropped.
        if isinstance(input_, str):
            templates.append(input_)
        else:
            templates.append(pprint.pformat(nest.pack_sequence_as(input_, placeholders)))
    template = sep.join(templates).replace("'" + placeholder + "'", placeholder)
    return string_ops.format(template, tensors, placeholder=placeholder, summarize=summarize, name=name)


def print_v2(*inputs, **kwargs):
    """tf.print(*inputs, output_stream=sys.stderr, summarize=3, sep=" ", end=os.linesep, name=None).

    output_stream: sys.stdout, sys.stderr, tf.logging.info / warning / error (their levels too),
    or "file://<path>" (appended to). summarize: the first and last entries kept per dimension
    (-1: all). Returns the PrintV2 operation."""
    output_stream = kwargs.pop("output_stream", sys.stderr)
    name = kwargs.pop("name", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", os.linesep)
    if kwargs:
        raise ValueError("Unrecognized keyword arguments for tf.print: %s" % kwargs)
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        stream = output_stream
    else:
        stream = _stream_names().get(output_stream)
        if not stream:
            raise ValueError("Unsupported output stream, logging level, or file." + str(output_stream) +
                             ". Supported streams are sys.stdout, sys.stderr, tf.logging.info, "
                             "tf.logging.warning, tf.logging.error. " +
                             "File needs to be in the form of 'file://<filepath>'.")
    if len(inputs) == 1 and _is_scalar_string(inputs[0]):
        formatted = inputs[0]  # printed as it is, unquoted
    else:
        formatted = _format(inputs, summarize, sep, name + "_format" if name else None)
    return gen_ops.print_v2(formatted, output_stream=stream, end=end, name=name)
