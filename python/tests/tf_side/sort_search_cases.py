"""Sorting, searching, counting and small composites built by the same code on both sides:
`build(tf, arrays)` returns name -> tensor (tf.sort / argsort on several axes, dtypes, ties
and both directions; searchsorted; setdiff1d; unique_with_counts; bincount with weights,
minlength and maxlength; histogram_fixed_width(_bins); confusion_matrix; cross;
saturate_cast; clip_by_average_norm; batch_gather; parallel_stack; linalg.adjoint; repeat;
unsorted_segment_mean / sqrt_n; to_complex64 / 128). Run as
a script with TensorFlow's python (args in.npz out.npz): values to out.npz, a JSON line."""
import json

import numpy as np

from shared_cases_run import run_build


def make_arrays():
    rng = np.random.default_rng(24)
    return {
        "f32": rng.uniform(-3, 3, (3, 4, 5)).astype(np.float32),
        "f64_ties": rng.integers(-2, 3, (4, 6)).astype(np.float64),
        "i32": rng.integers(-5, 6, (2, 7)).astype(np.int32),
        "i64_extremes": np.array([[np.iinfo(np.int64).max, 3, np.iinfo(np.int64).min, 3, 0]], np.int64),
        "sorted": np.sort(rng.uniform(0, 10, (2, 8))).astype(np.float32),
        "queries": rng.uniform(-1, 11, (2, 5)).astype(np.float32),
        "sorted_ints": np.array([[1, 3, 3, 3, 7, 9]], np.int32),
        "query_ints": np.array([[0, 3, 4, 9, 10]], np.int32),
        "x_list": np.array([5, 1, 7, 1, 3, 9, 2], np.int32),
        "y_list": np.array([1, 9, 4], np.int32),
        "counts_in": rng.integers(0, 6, (20,)).astype(np.int32),
        "counts_w": rng.uniform(0, 1, (20,)).astype(np.float32),
        "hist": rng.normal(0.5, 0.6, (200,)).astype(np.float32),
        "hist64": rng.normal(0.5, 0.6, (3, 40)),
        "labels": rng.integers(0, 4, (30,)).astype(np.int32),
        "predictions": rng.integers(0, 4, (30,)).astype(np.int32),
        "cm_w": rng.uniform(0, 2, (30,)).astype(np.float32),
        "va": rng.uniform(-1, 1, (4, 3)).astype(np.float32),
        "vb": rng.uniform(-1, 1, (4, 3)).astype(np.float32),
        "wide": np.array([-1e10, -129.5, -3.7, 0, 200.9, 255.5, 300, 1e10], np.float32),
        "big_ints": np.array([-70000, -5, 40000, 70000], np.int32),
        "clip_t": rng.uniform(-2, 2, (3, 5)).astype(np.float32),
        "params": rng.uniform(0, 1, (2, 3, 4)).astype(np.float32),
        "bindices": np.array([[2, 0], [1, 1]], np.int32),
        "cplx": (rng.uniform(-1, 1, (2, 2, 3)) + 1j * rng.uniform(-1, 1, (2, 2, 3))).astype(np.complex64),
    }


def build(tf, arrays):
    c = {k: tf.constant(v) for k, v in arrays.items()}
    out = {}
    for axis in (-1, 0, 1):
        out[f"sort_f32_axis{axis}"] = tf.sort(c["f32"], axis=axis)
        out[f"argsort_f32_axis{axis}"] = tf.argsort(c["f32"], axis=axis)
        out[f"sort_desc_f32_axis{axis}"] = tf.sort(c["f32"], axis=axis, direction="DESCENDING")
    out["argsort_ties"] = tf.argsort(c["f64_ties"])
    out["argsort_ties_desc"] = tf.argsort(c["f64_ties"], direction="DESCENDING", stable=True)
    out["sort_ints"] = tf.sort(c["i32"])
    out["argsort_ints"] = tf.argsort(c["i32"], axis=0)
    out["sort_int64_extremes"] = tf.sort(c["i64_extremes"])
    out["sort_int64_extremes_desc"] = tf.sort(c["i64_extremes"], direction="DESCENDING")
    for side in ("left", "right"):
        out[f"searchsorted_{side}"] = tf.searchsorted(c["sorted"], c["queries"], side=side)
        out[f"searchsorted_ints_{side}"] = tf.searchsorted(c["sorted_ints"], c["query_ints"], side=side)
    out["searchsorted_int64"] = tf.searchsorted(c["sorted"], c["queries"], out_type=tf.int64)
    out["setdiff1d"], out["setdiff1d_idx"] = tf.setdiff1d(c["x_list"], c["y_list"])
    out["setdiff1d_all"], _ = tf.setdiff1d(c["x_list"], c["x_list"])
    out["uwc_y"], out["uwc_idx"], out["uwc_count"] = tf.unique_with_counts(c["x_list"])
    out["bincount"] = tf.bincount(c["counts_in"])
    out["bincount_weights"] = tf.bincount(c["counts_in"], weights=c["counts_w"])
    out["bincount_minlength"] = tf.bincount(c["counts_in"], minlength=9)
    out["bincount_maxlength"] = tf.bincount(c["counts_in"], maxlength=3)
    out["bincount_int64"] = tf.bincount(c["counts_in"], dtype=tf.int64)
    out["bincount_empty"] = tf.bincount(tf.zeros([0], tf.int32), minlength=2)
    out["histogram"] = tf.histogram_fixed_width(c["hist"], [0.0, 1.0], nbins=7)
    out["histogram64"] = tf.histogram_fixed_width(c["hist64"], tf.constant([-0.5, 1.5], tf.float64), nbins=5,
                                                  dtype=tf.int64)
    out["histogram_bins"] = tf.histogram_fixed_width_bins(c["hist"], [0.0, 1.0], nbins=7)
    out["confusion"] = tf.confusion_matrix(c["labels"], c["predictions"])
    out["confusion_weights"] = tf.confusion_matrix(c["labels"], c["predictions"], num_classes=6, weights=c["cm_w"],
                                                   dtype=tf.float32)
    out["cross"] = tf.cross(c["va"], c["vb"])
    out["cross_linalg"] = tf.linalg.cross(c["va"][0], c["vb"][0])
    out["saturate_uint8"] = tf.saturate_cast(c["wide"], tf.uint8)
    out["saturate_int8"] = tf.saturate_cast(c["wide"], tf.int8)
    out["saturate_int16"] = tf.saturate_cast(c["big_ints"], tf.int16)
    out["saturate_float16"] = tf.saturate_cast(c["wide"], tf.float16)
    out["clip_by_average_norm"] = tf.clip_by_average_norm(c["clip_t"], 0.1)
    out["clip_by_average_norm_loose"] = tf.clip_by_average_norm(c["clip_t"], 100.0)
    out["batch_gather"] = tf.batch_gather(c["params"], c["bindices"])
    out["parallel_stack"] = tf.parallel_stack([c["va"], c["vb"], c["va"]])
    out["adjoint"] = tf.linalg.adjoint(c["cplx"])
    out["repeat_counts"] = tf.repeat(c["x_list"], [2, 0, 1, 3, 1, 0, 2])
    out["repeat_axis"] = tf.repeat(c["params"], 2, axis=1)
    out["repeat_flat"] = tf.repeat(c["va"], 2)
    out["segment_mean"] = tf.math.unsorted_segment_mean(c["params"], [1, 1], 3)
    out["segment_sqrt_n"] = tf.math.unsorted_segment_sqrt_n(c["va"], [0, 2, 2, 2], 4)
    out["to_complex64"] = tf.to_complex64(c["va"])
    out["to_complex128"] = tf.to_complex128(c["i32"])
    crop = tf.random_crop(c["f32"], [2, 3, 2], seed=3)
    out["random_crop_shape"] = tf.shape(crop)
    return out


def main():
    run_build(build)
    print(json.dumps({}))


if __name__ == "__main__":
    main()
