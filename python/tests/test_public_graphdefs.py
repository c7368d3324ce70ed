"""Frozen GraphDefs written by TensorFlow 1.x and published in public repositories
(tests/data/public_graphdefs/README.md names each origin and licence), loaded as TF1 code
loads them (tf.GraphDef + ParseFromString / text_format.Merge, tf.import_graph_def) and
run; the expected values come from replaying each file's nodes in NumPy, with the Const
tensors decoded from the file's own bytes by tf.make_ndarray."""
import os

import numpy as np
import pytest
from google.protobuf import text_format

import tensorweave as tf

DATA = os.path.join(os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                    "tests", "data", "public_graphdefs")

# file -> ({placeholder: (feed shape, NumPy dtype)}, output node)
GRAPHS = {
    "tf2onnx_regression.pb": ({"X": ((5,), np.float32)}, "pred"),
    "tf2onnx_fc_layers.pb": ({"X": ((4, 784), np.float32)}, "output"),
    "tf2onnx_ae0.pb": ({"X": ((3, 784), np.float32)}, "output"),
    "tensorflow_ocaml_load.pbtxt": ({"x": ((3,), np.float32)}, "add"),
    "tensorflow_rust_addition.pb": ({"x": ((), np.int32), "y": ((), np.int32)}, "z"),
    "tensorspace_cnn_frozen.pb": ({"MyInput": ((2, 28, 28, 1), np.float32)}, "MySoftMax"),
    # keep_prob 1: the dropout's random mask is all ones, so the replay's own draws agree.
    "tf2onnx_lstm.pb": ({"X": ((3, 784), np.float32), "keep_prob": ((), 1.0)}, "output"),
    "tf2onnx_gru.pb": ({"X": ((3, 28, 28), np.float32), "keep_prob": ((), 1.0)}, "output"),
    # Keras: three unrolled SRU layers over 5 steps, Dense(4), LeakyReLU; keras_to_tensorflow's output name.
    "hello_tf_c_api_keras_sru.pb": ({"input_4": ((3, 5, 12), np.float32)}, "output_node0"),
}


def load(name):
    graph_def = tf.GraphDef()
    with open(os.path.join(DATA, name), "rb") as f:
        data = f.read()
    if name.endswith(".pbtxt"):
        text_format.Merge(data.decode("utf-8"), graph_def)
    else:
        graph_def.ParseFromString(data)
    return graph_def


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _windows(x, node, size):
    """NHWC windows of a VALID convolution or pooling: [N, OH, OW, KH, KW, C]."""
    assert node.attr["padding"].s == b"VALID" and node.attr["data_format"].s in (b"", b"NHWC"), node.name
    strides = list(node.attr["strides"].list.i)
    views = np.lib.stride_tricks.sliding_window_view(x, size, axis=(1, 2))  # [N, OH, OW, C, KH, KW]
    return views[:, ::strides[1], ::strides[2]].transpose(0, 1, 2, 4, 5, 3)


def _conv2d(node, a):
    kh, kw = a[1].shape[:2]
    return np.einsum("nhwijc,ijco->nhwo", _windows(a[0], node, (kh, kw)), a[1])


def _max_pool(node, a):
    ksize = list(node.attr["ksize"].list.i)
    return _windows(a[0], node, (ksize[1], ksize[2])).max(axis=(3, 4))


def _strided_slice(node, a):
    """Per-axis begin:end:stride with begin_mask, end_mask and shrink_axis_mask (no ellipsis or new axes)."""
    for mask in ("ellipsis_mask", "new_axis_mask"):
        assert node.attr[mask].i == 0, (node.name, mask)
    begin_mask, end_mask, shrink = (node.attr[m].i for m in ("begin_mask", "end_mask", "shrink_axis_mask"))
    index = []
    for axis, (begin, end, stride) in enumerate(zip(a[1], a[2], a[3])):
        if shrink >> axis & 1:
            index.append(int(begin))
        else:
            index.append(slice(None if begin_mask >> axis & 1 else int(begin),
                               None if end_mask >> axis & 1 else int(end), int(stride)))
    return a[0][tuple(index)]


# The ops these models use, in NumPy (float64 accumulation, compared with a tolerance).
_NUMPY_OPS = {
    "Conv2D": _conv2d,
    "MaxPool": _max_pool,
    "StridedSlice": _strided_slice,
    "Shape": lambda node, a: np.array(a[0].shape, np.int32),
    "Pack": lambda node, a: np.stack(a, axis=node.attr["axis"].i),
    "Reshape": lambda node, a: a[0].reshape(a[1]),
    "Transpose": lambda node, a: np.transpose(a[0], a[1]),
    "Tile": lambda node, a: np.tile(a[0], a[1]),
    "ZerosLike": lambda node, a: np.zeros_like(a[0]),
    "Sum": lambda node, a: np.sum(a[0], axis=tuple(np.atleast_1d(a[1]).tolist()), keepdims=node.attr["keep_dims"].b),
    "ExpandDims": lambda node, a: np.expand_dims(a[0], int(a[1])),
    "ConcatV2": lambda node, a: np.concatenate(a[:-1], axis=int(a[-1])),
    "Fill": lambda node, a: np.full(a[0], a[1]),
    "RandomUniform": lambda node, a: np.random.RandomState(0).uniform(size=a[0]),
    "Floor": lambda node, a: np.floor(a[0]),
    "RealDiv": lambda node, a: a[0] / a[1],
    # Several outputs: a list.
    "Unpack": lambda node, a: [np.take(a[0], i, axis=node.attr["axis"].i) for i in range(node.attr["num"].i)],
    "Split": lambda node, a: np.split(a[1], node.attr["num_split"].i, axis=int(a[0])),
    "Identity": lambda node, a: a[0],
    "MatMul": lambda node, a: (a[0].T if node.attr["transpose_a"].b else a[0]) @ (
        a[1].T if node.attr["transpose_b"].b else a[1]),
    "BiasAdd": lambda node, a: a[0] + a[1],
    "Add": lambda node, a: a[0] + a[1],
    "AddV2": lambda node, a: a[0] + a[1],
    "Mul": lambda node, a: a[0] * a[1],
    "Sub": lambda node, a: a[0] - a[1],
    "Maximum": lambda node, a: np.maximum(a[0], a[1]),
    "Relu": lambda node, a: np.maximum(a[0], 0),
    "Sigmoid": lambda node, a: _sigmoid(a[0]),
    "Tanh": lambda node, a: np.tanh(a[0]),
    "Softmax": lambda node, a: np.exp(a[0] - a[0].max(-1, keepdims=True)) / np.exp(
        a[0] - a[0].max(-1, keepdims=True)).sum(-1, keepdims=True),
}


def replay(graph_def, feeds, output):
    """Evaluates `output` of graph_def in NumPy: Consts decoded by make_ndarray, feeds for
    placeholders, every other op from _NUMPY_OPS."""
    nodes = {n.name: n for n in graph_def.node}
    values = {}

    def value(input_name):
        name, _, index = input_name.partition(":")
        if name not in values:
            node = nodes[name]
            if node.op == "Const":
                const = tf.make_ndarray(node.attr["value"].tensor)
                values[name] = const.astype(np.float64) if const.dtype.kind == "f" else const
            elif node.op == "Placeholder":
                values[name] = feeds[name]
            else:
                args = [value(i) for i in node.input if not i.startswith("^")]
                values[name] = _NUMPY_OPS[node.op](node, args)
        result = values[name]
        return result[int(index or 0)] if isinstance(result, list) else result

    return value(output)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_public_frozen_graph_runs_as_replayed(name):
    placeholders, output = GRAPHS[name]
    graph_def = load(name)
    rng = np.random.RandomState(7)
    feeds = {p: np.float32(dtype) if isinstance(dtype, float) else
             (rng.uniform(-1, 1, size=shape) * (1 if np.dtype(dtype).kind == "f" else 1000)).astype(dtype)
             for p, (shape, dtype) in placeholders.items()}
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        out = g.get_tensor_by_name(output + ":0")
        with tf.Session() as sess:
            got = sess.run(out, {p + ":0": v for p, v in feeds.items()})
    expected = replay(graph_def, {p: v.astype(np.float64) if v.dtype.kind == "f" else v for p, v in feeds.items()},
                      output)
    assert got.shape == np.shape(expected)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-5)
    else:
        assert got.dtype == np.int32 and got == expected


def test_classifier_spliced_onto_new_input_matches_feeding_it():
    graph_def = load("tf2onnx_fc_layers.pb")
    raw = np.random.RandomState(3).randint(0, 256, size=(2, 28, 28)).astype(np.uint8)
    with tf.Graph().as_default():
        images = tf.placeholder(tf.uint8, [None, 28, 28], name="images")
        scaled = tf.reshape(tf.cast(images, tf.float32) / 255.0, [-1, 784])
        logits, x = tf.import_graph_def(graph_def, input_map={"X:0": scaled}, return_elements=["output:0", "X:0"],
                                        name="classifier")
        assert x == scaled  # TF returns the mapped tensor for a mapped return element
        with tf.Session() as sess:
            spliced = sess.run(logits, {images: raw})
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            direct = sess.run("output:0", {"X:0": raw.reshape(2, 784).astype(np.float32) / 255.0})
    np.testing.assert_array_equal(spliced, direct)
