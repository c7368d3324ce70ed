"""BlockLSTM cases built by the same code on both sides: `build(tf, arrays)` returns name ->
tensor (the op's seven outputs, and tf.gradients of a weighted sum of cs and h in every
input). As a script with TensorFlow's python: args in.npz out.npz; values to out.npz, static
shapes as JSON."""
import json
import sys

import numpy as np

# name -> (time, batch, input, cell, seq_len_max, forget_bias, cell_clip, use_peephole)
CASES = {
    "plain": (6, 3, 5, 4, 6, 1.0, -1.0, False),
    "peephole_clip": (5, 2, 3, 4, 5, 0.5, 0.8, True),
    "short_sequence": (7, 2, 3, 3, 4, 1.0, 3.0, False),
    "no_steps": (3, 2, 2, 2, 0, 1.0, -1.0, True),
    "one_unit": (4, 1, 1, 1, 4, 0.0, -1.0, True),
}
INPUTS = ("x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b")


def make_arrays():
    rng = np.random.default_rng(18)
    arrays = {}
    for name, (t, b, i, c, *_rest) in CASES.items():
        shapes = {"x": (t, b, i), "cs_prev": (b, c), "h_prev": (b, c), "w": (i + c, 4 * c), "wci": (c,),
                  "wcf": (c,), "wco": (c,), "b": (4 * c,), "dcs": (t, b, c), "dh": (t, b, c)}
        for k, shape in shapes.items():
            arrays[f"{name}_{k}"] = rng.uniform(-1, 1, shape).astype(np.float32)
    return arrays


def build(tf, arrays):
    out = {}
    for name, (_t, _b, _i, _c, steps, forget_bias, cell_clip, peephole) in CASES.items():
        ins = {k: tf.constant(arrays[f"{name}_{k}"]) for k in INPUTS}
        outs = tf.raw_ops.BlockLSTM(seq_len_max=tf.constant(steps, tf.int64), forget_bias=forget_bias,
                                    cell_clip=cell_clip, use_peephole=peephole, **ins)
        for k, v in zip(("i", "cs", "f", "o", "ci", "co", "h"), outs):
            out[f"{name}_{k}"] = v
        loss = tf.reduce_sum(tf.constant(arrays[f"{name}_dcs"]) * outs[1]) + \
            tf.reduce_sum(tf.constant(arrays[f"{name}_dh"]) * outs[6])
        for k, g in zip(INPUTS, tf.gradients(loss, [ins[k] for k in INPUTS])):
            out[f"{name}_grad_{k}"] = g
    return out


def static_shapes(tf):
    ph = tf.compat.v1.placeholder if hasattr(tf, "compat") else tf.placeholder
    x = ph(tf.float32, [None, 3, 5])
    outs = tf.raw_ops.BlockLSTM(seq_len_max=tf.constant(2, tf.int64), x=x, cs_prev=ph(tf.float32, [3, 4]),
                                h_prev=ph(tf.float32, [3, 4]), w=ph(tf.float32, [9, 16]), wci=ph(tf.float32, [4]),
                                wcf=ph(tf.float32, [4]), wco=ph(tf.float32, [4]), b=ph(tf.float32, [16]))
    return [o.shape.as_list() for o in outs]


def main():
    import tensorflow as tf
    tf = tf.compat.v1
    tf.disable_eager_execution()
    arrays = dict(np.load(sys.argv[1]))
    with tf.Graph().as_default():
        out = build(tf, arrays)
        with tf.Session() as sess:
            np.savez(sys.argv[2], **sess.run(out))
    with tf.Graph().as_default():
        print(json.dumps({"shapes": static_shapes(tf)}))


if __name__ == "__main__":
    main()
