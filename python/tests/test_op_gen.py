"""The wrappers generated from the op registry (tools/op_gen -> tensorweave/gen_ops.py and
tf.raw_ops): one per registered op, with TensorFlow's parameter names, building the same
nodes as the hand-written API; compared with TensorFlow's tf.raw_ops."""
import inspect
import json

import numpy as np
import pytest

import tensorweave as tf
from tensorweave import gen_ops
from tensorweave.raw_ops import RENAMES
from test_tf_oracle_ops import registered_ops
from tf_peer import require_tensorflow, run_tf_script

# Attrs TensorFlow's tf.raw_ops has and ours lack (op -> why).
SIGNATURE_DEVIATIONS = {
    "BatchMatMul": "grad_x/grad_y (hints for TensorFlow's own gradient kernels) are not in our schema",
    **{op: "bad_indices_policy (TensorFlow 2.16+) is not in our schema: out-of-range indices always fail"
       for op in ("GatherNd", "ScatterNd")},
}


def our_parameters(op):
    """tf.raw_ops.<op>'s keywords, TensorFlow's API names (RENAMES) in place of our schema's."""
    renamed = {v: k for k, v in RENAMES.get(op, {}).items()}
    return [renamed.get(p, p) for p in inspect.signature(getattr(gen_ops, op)).parameters]


def test_every_public_op_has_a_generated_wrapper():
    public = {op for op in registered_ops() if not op.startswith("_")}
    assert set(gen_ops.RAW_OPS) == public
    for op in public:
        assert callable(getattr(tf.raw_ops, op)), op
        assert getattr(tf.raw_ops, op).__doc__.startswith(op + "("), op


def test_raw_ops_take_keywords_only():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(TypeError):
        tf.raw_ops.Add(x, x)
    assert tf.raw_ops.Add(x=x, y=x).op.type == "Add"


def test_generated_wrappers_build_the_hand_written_nodes():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        pairs = [(tf.matmul(a, a, transpose_b=True), gen_ops.mat_mul(a, a, transpose_b=True)),
                 (tf.concat([a, a], 0), gen_ops.concat_v2([a, a], 0)),
                 (tf.cast(a, tf.int32), gen_ops.cast(a, tf.int32)),
                 (tf.reduce_sum(a, [1], keepdims=True), gen_ops._sum(a, [1], keep_dims=True)
                  if hasattr(gen_ops, "_sum") else gen_ops.sum(a, [1], keep_dims=True))]
        with tf.Session() as sess:
            for ours, generated in pairs:
                assert ours.op.type == generated.op.type
                assert ours.dtype == generated.dtype
                np.testing.assert_array_equal(*sess.run([ours, generated]))
        parts = gen_ops.split(0, a, num_split=2)
        assert [p.shape.as_list() for p in parts] == [[1, 3], [1, 3]]


def test_signatures_and_gradients_match_tensorflow():
    python = require_tensorflow("test_signatures_and_gradients_match_tensorflow")
    ops = sorted(gen_ops.RAW_OPS)
    theirs = json.loads(run_tf_script(python, "raw_op_signatures.py", *ops).strip().splitlines()[-1])
    mismatches = []
    for op, their_params in sorted(theirs["signatures"].items()):
        ours = our_parameters(op)
        # TensorFlow leaves out the attrs its inputs determine; ours may take them (None: inferred).
        # Inputs come in TensorFlow's order; attrs are keyword-only, in any order.
        renamed = {v: k for k, v in RENAMES.get(op, {}).items()}
        inputs = [renamed.get(p, p) for p in gen_ops.RAW_OPS_INPUTS[op]]
        if (inputs != their_params[:len(inputs)] or not set(their_params) <= set(ours)) and \
                op not in SIGNATURE_DEVIATIONS:
            mismatches.append(f"{op}: ours {ours}, TensorFlow's {their_params}")
    assert not mismatches, "\n".join(mismatches)
    # TensorFlow's names work as keywords (tf.raw_ops.Sum(input=..., axis=...)).
    x = tf.constant([[1.0, 2.0]])
    assert tf.raw_ops.Sum(input=x, axis=[1], keep_dims=False).op.type == "Sum"
    assert len(theirs["signatures"]) > 250
    assert theirs["no_gradient"]["ParseSingleExample"] == "LookupError"


def test_parse_ops_have_no_gradient_as_in_tensorflow():
    # TensorFlow registers no gradient for ParseExample(V2) and ParseSingleExample: tf.gradients
    # raises LookupError (checked on its side above). Ours fails too, naming the op.
    g = tf.Graph()
    with g.as_default():
        default = tf.placeholder(tf.float32, [1])
        outs = tf.raw_ops.ParseSingleExample(serialized=tf.constant(b""), dense_defaults=[default], num_sparse=0,
                                             sparse_keys=[], dense_keys=["x"], sparse_types=[], dense_shapes=[[1]])
        with pytest.raises(Exception, match="ParseSingleExample"):
            tf.gradients(outs[-1], [default])
