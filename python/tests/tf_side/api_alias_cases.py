"""TF 1 aliases and thin wrappers (test_api_aliases.py) built by the same code on both sides:
`build(tf, arrays)` returns name -> tensor for tf.manip.*, tf.spectral.*, tf.assign*,
tf.scatter_*, tf.accumulate_n, tf.required_space_to_batch_paddings, the deterministic
tf.initializers.*, tf.convert_to_tensor_or_indexed_slices and tf.get_seed; and
`dimension_checks(tf)`, tf.Dimension's answers as JSON values. Run as a script with
TensorFlow's python (args in.npz out.npz): the variables initialized, then the values to
out.npz, and a JSON line of the Dimension answers."""
import json
import pickle

import numpy as np

from shared_cases_run import run_build

SCATTERS = ("update", "add", "sub", "mul", "div", "min", "max")


def make_arrays():
    rng = np.random.default_rng(5)
    return {
        "x": np.arange(24.0).reshape(2, 3, 4),
        "image": np.arange(2 * 5 * 6 * 3, dtype=np.float32).reshape(2, 5, 6, 3),
        "re": rng.uniform(-1, 1, (2, 4, 6)), "im": rng.uniform(-1, 1, (2, 4, 6)),
        "table": np.array([[6.0, -4.0], [9.0, 3.0], [-8.0, 5.0], [7.0, 2.0]]),
        "rows": np.array([[2.0, -3.0], [3.0, 2.0], [-1.0, 4.0]]),
    }


def build(tf, arrays):
    out = {}
    x = tf.constant(arrays["x"])
    m = tf.manip
    out["manip_reshape"] = m.reshape(x, [4, -1])
    out["manip_tile"] = m.tile(x, [1, 2, 1])
    out["manip_reverse"] = m.reverse(x, [0, -1])
    out["manip_roll"] = m.roll(x, shift=[1, -1], axis=[1, 2])
    out["manip_gather_nd"] = m.gather_nd(x, [[1, 2], [0, 0]])
    out["manip_scatter_nd"] = m.scatter_nd([[4], [1], [4]], [1.5, 2.0, 3.0], [6])
    stb = m.space_to_batch_nd(arrays["image"], [2, 3], [[1, 0], [0, 0]])
    out["manip_space_to_batch_nd"] = stb
    out["manip_batch_to_space_nd"] = m.batch_to_space_nd(stb, [2, 3], [[1, 0], [0, 0]])

    z = tf.complex(tf.constant(arrays["re"]), tf.constant(arrays["im"]))
    r = tf.constant(arrays["re"].astype(np.float32))
    for rank, sfx in ((1, ""), (2, "2d"), (3, "3d")):
        out["spectral_fft" + sfx] = getattr(tf.spectral, "fft" + sfx)(z)
        out["spectral_ifft" + sfx] = getattr(tf.spectral, "ifft" + sfx)(z)
        spectrum = getattr(tf.spectral, "rfft" + sfx)(r)
        out["spectral_rfft" + sfx] = spectrum
        out["spectral_irfft" + sfx] = getattr(tf.spectral, "irfft" + sfx)(spectrum)

    def var(name, value):
        return tf.Variable(value, name=name)
    out["assign"] = tf.assign(var("a", arrays["table"]), arrays["table"] * 2)
    out["assign_add"] = tf.assign_add(var("b", arrays["table"]), arrays["table"])
    out["assign_sub"] = tf.assign_sub(var("c", arrays["table"]), [1.0, 2.0] * np.ones((4, 2)))
    for kind in SCATTERS:
        v = var("s_" + kind, arrays["table"])
        out["scatter_" + kind] = getattr(tf, "scatter_" + kind)(v, [2, 0, 3], arrays["rows"])

    terms = [x, x * 2.0, x - 1.0]
    out["accumulate_n"] = tf.accumulate_n(terms)
    out["accumulate_n_shape_dtype"] = tf.math.accumulate_n(terms, shape=[2, 3, 4], tensor_dtype=tf.float64)
    out["accumulate_n_one_named"] = tf.accumulate_n([x], name="one")

    for tag, args in (("static", ([5, 7], [2, 3])), ("base", ([5, 7, 4], [2, 3, 4], [[1, 0], [0, 2], [3, 3]])),
                      ("graph", (tf.identity([5, 7]), [2, 3], tf.identity([[1, 1], [2, 0]])))):
        paddings, crops = tf.required_space_to_batch_paddings(*args)
        out["required_paddings_" + tag], out["required_crops_" + tag] = paddings, crops

    init = tf.initializers
    out["init_constant"] = init.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])([2, 3])
    out["init_zeros"] = init.zeros()([2, 3])
    out["init_ones"] = init.ones()([3, 2])
    out["init_identity"] = init.identity(gain=2.5)([3, 4])
    out["init_identity_tall"] = init.identity()([4, 2], dtype=tf.float64)

    out["to_tensor_or_slices"] = tf.convert_to_tensor_or_indexed_slices([[1, 2], [3, 4]], dtype=tf.int64)
    out["get_seed_op_only"] = tf.constant(tf.get_seed(5))
    tf.set_random_seed(3)
    out["get_seed_both"] = tf.constant(tf.get_seed(7))
    return out


def dimension_checks(tf):
    D = tf.Dimension
    out = [[repr(D(3)), str(D(None)), D(3).value, D(None).value, int(D(4)), list(range(10))[D(2)]],
           [D(3) == 3, D(3) == D(None), D(3) != 4, D(None) != 1, D(3) == "x"],
           [str(v) for v in (D(3) + 2, 2 + D(3), D(3) - 1, 10 - D(3), D(3) * D(4), D(None) * 2, D(7) // 2,
                             20 // D(7), D(7) % 3, 8 % D(3), D(None) + 1)],
           [D(3) < 4, D(3) <= 3, D(3) > D(None), D(5) >= 2],
           [D(None).is_compatible_with(3), D(3).is_compatible_with(4), str(D(None).merge_with(5)),
            str(D(5).merge_with(None)), pickle.loads(pickle.dumps(D(6))).value],
           tf.TensorShape([D(2), D(None), 3]).as_list()]
    for bad in (lambda: D(3).merge_with(4), lambda: D(-1), lambda: D(2.5), lambda: D(3) / 2, lambda: D(tf.float32)):
        try:
            bad()
            out.append("no error")
        except (ValueError, TypeError) as e:  # the message up to the class path, which differs
            out.append([type(e).__name__, str(e).split(" with type")[0]])
    return out


def main():
    tf = run_build(build, initialize_variables=True)
    print(json.dumps({"dimension": dimension_checks(tf)}))


if __name__ == "__main__":
    main()
