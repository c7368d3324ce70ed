"""String ops: tf.strings.* and TF 1.x's top-level names (tf.string_join, tf.as_string,
tf.string_to_number, tf.substr, tf.regex_replace, tf.string_strip, tf.string_split, tf.decode_raw)."""
from tensorweave import dtypes, gen_ops
from tensorweave.framework import _op, _op_output, convert_to_tensor
from tensorweave.sparse_tensor import SparseTensor
from tensorweave.tensor_util import is_tensor


def _str(x):
    return convert_to_tensor(x, dtype=dtypes.string)


def join(inputs, separator="", name=None):
    """Element-wise concatenation of string tensors (scalars broadcast), joined by separator."""
    inputs = [convert_to_tensor(i, dtype=dtypes.string) for i in inputs]
    if not inputs:
        raise ValueError("tf.strings.join needs at least one input")
    return _op_output("StringJoin", inputs, {"separator": separator}, name or "StringJoin")


string_join = join


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001 - TF's name
    """A scalar string: template with each placeholder replaced by the next input, printed
    numpy-like with the first and last `summarize` entries of each dimension (-1: all)."""
    if is_tensor(inputs):
        inputs = [inputs]
    if template.count(placeholder) != len(inputs):
        raise ValueError(f"The template expects {template.count(placeholder)} tensors, but the inputs only has "
                         f"{len(inputs)}. Please ensure the number of placeholders in template matches inputs length.")
    return gen_ops.string_format(inputs, template=template, placeholder=placeholder, summarize=summarize, name=name)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Numbers and booleans formatted as strings (printf %f / %e / %g / %d, as TensorFlow)."""
    x = convert_to_tensor(input)
    return _op_output("AsString", [x], {"T": x.dtype, "precision": precision, "scientific": scientific,
                                        "shortest": shortest, "width": width, "fill": fill}, name or "AsString")


def to_number(string_tensor, out_type=dtypes.float32, name=None):
    """Parses each string as a number of out_type; a string that is not one is InvalidArgument."""
    return _op_output("StringToNumber", [_str(string_tensor)], {"out_type": dtypes.as_dtype(out_type)},
                      name or "StringToNumber")


string_to_number = to_number


def length(input, name=None, unit="BYTE"):  # noqa: A002
    return _op_output("StringLength", [_str(input)], {"unit": unit}, name or "StringLength")


def strip(input, name=None):  # noqa: A002
    return _op_output("StringStrip", [_str(input)], {}, name or "StringStrip")


string_strip = strip


def lower(input, encoding="", name=None):  # noqa: A002
    return _op_output("StringLower", [_str(input)], {"encoding": encoding}, name or "StringLower")


def upper(input, encoding="", name=None):  # noqa: A002
    return _op_output("StringUpper", [_str(input)], {"encoding": encoding}, name or "StringUpper")


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002
    """len characters from pos (negative pos counts from the end); pos and len scalars or input-shaped."""
    pos = convert_to_tensor(pos)
    len_ = convert_to_tensor(len, dtype=pos.dtype)
    return _op_output("Substr", [_str(input), pos, len_], {"T": pos.dtype, "unit": unit}, name or "Substr")


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """RE2 pattern replaced by rewrite (\\1 names a group) in every element."""
    return _op_output("RegexReplace", [_str(input), _str(pattern), _str(rewrite)],
                      {"replace_global": replace_global}, name or "RegexReplace")


def _sparse(op):
    return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])


def string_split(source, sep=None, skip_empty=True, delimiter=None, name=None):
    """TF 1.x tf.string_split: a vector of strings split on any character of sep (default ' ')
    into a SparseTensor of shape [len(source), most tokens]."""
    if sep is None:
        sep = delimiter if delimiter is not None else " "
    return _sparse(_op("StringSplit", [_str(source), _str(sep)], {"skip_empty": skip_empty}, name or "StringSplit"))


def split(input=None, sep=None, maxsplit=-1, result_type="SparseTensor", source=None, name=None):  # noqa: A002
    """TF 1.x tf.strings.split: Python's str.split on every string (sep None: runs of whitespace)."""
    if result_type != "SparseTensor":
        raise ValueError("tf.strings.split: only result_type='SparseTensor' is supported, got %r" % (result_type,))
    source = input if input is not None else source
    return _sparse(_op("StringSplitV2", [_str(source), _str(sep if sep is not None else "")],
                       {"maxsplit": maxsplit}, name or "StringSplit"))


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """Each string's bytes as a vector of out_type (all strings the same length)."""
    input_bytes = input_bytes if input_bytes is not None else bytes
    if out_type is None:
        raise ValueError("decode_raw needs out_type")
    return _op_output("DecodeRaw", [_str(input_bytes)], {"out_type": dtypes.as_dtype(out_type),
                                                         "little_endian": little_endian}, name or "DecodeRaw")
