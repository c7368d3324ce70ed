"""The differential op test (test_tf_oracle_ops.py) for the small dtypes: int8, uint8, int16,
uint16 and float16. Each op below runs on each of them in TensorFlow (tf.raw_ops in a
subprocess) and in tensorweave, with the same edge values. Both sides must agree on whether
the op runs at all (we register a small-dtype kernel exactly where TensorFlow's CPU has one)
and, where it runs, on the values: integers exactly; half exactly for the ops that compute
one float operation and round once (as both do), within HALF_ULPS half-precision epsilons
for the transcendental functions, and for sums and products within SUM_ULPS epsilons of the
largest result (we accumulate in float32, TensorFlow partly in half: documented deviation)."""

import numpy as np

import tensorweave as tf
from test_tf_oracle_ops import run_ours, values
from tf_peer import require_tensorflow, run_tf_cases

SMALL_INTS = (np.int8, np.uint8, np.int16, np.uint16)
F16 = np.float16
SMALL = SMALL_INTS + (F16,)
HALF_ULPS = 1
SUM_ULPS = 8

UNARY = ("Abs", "Neg", "Relu", "Square", "Sign", "Exp", "Log", "Sqrt", "Rsqrt", "Reciprocal", "Tanh", "Sigmoid",
         "Softmax", "LogSoftmax", "Identity", "ZerosLike", "OnesLike")
BINARY = ("Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum", "Equal", "NotEqual", "Less", "LessEqual", "Greater",
          "GreaterEqual", "Div", "RealDiv", "FloorDiv", "FloorMod", "SquaredDifference", "ReluGrad", "SigmoidGrad",
          "TanhGrad")
DIVISIONS = ("Div", "RealDiv", "FloorDiv", "FloorMod")
REDUCTIONS = ("Sum", "Prod", "Max", "Min", "Mean")
# Within HALF_ULPS: the transcendental functions, and ops TensorFlow computes as several half
# operations, each rounded, where we round once (documented deviation): FloorDiv rounds the
# quotient to half before flooring (8199.5 -> 8200, where floor then round gives 8192).
TRANSCENDENTAL = {"Exp", "Log", "Sqrt", "Rsqrt", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Pow", "SigmoidGrad",
                  "TanhGrad", "SquaredDifference", "FloorDiv"}
ACCUMULATING = {"Sum", "Prod", "Mean", "MatMul", "BatchMatMulV2", "AddN", "Softmax", "LogSoftmax",
                "UnsortedSegmentSum"}


def cases(rng):
    out = []
    for d in SMALL:
        for op in UNARY:
            kind = {"Log": "positive", "Sqrt": "positive", "Rsqrt": "positive", "Softmax": "small",
                    "LogSoftmax": "small"}.get(op, "any")
            out.append((op, [values(rng, d, (3, 4), kind)], {}))
        for op in BINARY:
            y_kind = "nonzero" if op in DIVISIONS else "any"
            out.append((op, [values(rng, d, (3, 4)), values(rng, d, (3, 4), y_kind)], {}))
            out.append((op, [values(rng, d, (3, 1)), values(rng, d, (4,), y_kind)], {}))
        for op in REDUCTIONS:
            x = values(rng, d, (3, 4, 2), "small")
            for axis in ([1], [0, 2]):
                out.append((op, [x, np.array(axis, np.int32)], {"keep_dims": False}))
        out.append(("Pow", [values(rng, d, (3, 4), "small"), values(rng, d, (3, 4), "small")], {}))
        out.append(("MatMul", [values(rng, d, (3, 4), "small"), values(rng, d, (4, 2), "small")], {}))
        out.append(("BatchMatMulV2", [values(rng, d, (2, 3, 4), "small"), values(rng, d, (4, 2), "small")], {}))
        for op in ("ArgMax", "ArgMin"):
            out.append((op, [values(rng, d, (3, 5), "nonzero"), np.array(1, np.int32)], {"output_type": "int64"}))
        out.append(("AddN", [values(rng, d, (2, 3), "small") for _ in range(3)], {}))
        out.append(("SelectV2", [values(rng, np.bool_, (3, 1)), values(rng, d, (3, 4)), values(rng, d, (4,))], {}))
        out.append(("BiasAdd", [values(rng, d, (2, 3, 4)), values(rng, d, (4,))], {}))
        out.append(("UnsortedSegmentSum", [values(rng, d, (5, 2), "small"), np.array([1, -1, 0, 1, 3], np.int32),
                                           np.array(4, np.int32)], {}))
        out.append(("Transpose", [values(rng, d, (2, 3)), np.array([1, 0], np.int32)], {}))
        out.append(("ConcatV2", [values(rng, d, (2, 3)), values(rng, d, (2, 1)), np.array(1, np.int32)], {}))
        out.append(("Pack", [values(rng, d, (2,)), values(rng, d, (2,))], {"axis": 0}))
        out.append(("Reshape", [values(rng, d, (2, 3)), np.array([3, 2], np.int32)], {}))
    # Cast between every pair of the small dtypes and float32, int32, int64, bool.
    others = (np.float32, np.float64, np.int32, np.int64, np.bool_)
    for s in SMALL + others:
        for t in SMALL + others:
            if (s in SMALL or t in SMALL) and s != t:
                kind = "small" if np.issubdtype(s, np.integer) and t in SMALL_INTS else "any"
                x = values(rng, s, (2, 5), kind)
                if np.issubdtype(s, np.floating) and t in (np.int32, np.int64):
                    # Documented deviation (as for float32 in test_tf_oracle_ops.py): out of
                    # range and NaN, TensorFlow gives INT_MIN where we saturate (NaN: 0).
                    x = np.nan_to_num(x, nan=0, posinf=0, neginf=0)
                    x = np.clip(x, np.iinfo(t).min // 2, np.iinfo(t).max // 2).astype(s)
                elif np.issubdtype(s, np.floating) and t in SMALL_INTS:
                    if s == F16:
                        # Documented deviation: NaN and +-inf from half to a small integer give
                        # 0 or the type's minimum in TensorFlow, depending on whether its SIMD
                        # or scalar loop converts the element; ours give 0 (its float32 result).
                        x = np.nan_to_num(x, nan=0, posinf=0, neginf=0)
                    x = np.concatenate([x.ravel(), np.array([300.5, -300.5, -129, 60000], s)]).reshape(2, 7)
                out.append(("Cast", [x], {"DstT": np.dtype(t).name}))
    return out


def _compare(op, value, expected):
    """None when ours matches TensorFlow's, else what differs."""
    if value.shape != expected.shape or value.dtype != expected.dtype:
        return f"{value.dtype}{value.shape} vs TensorFlow's {expected.dtype}{expected.shape}"
    if expected.dtype != F16:
        nan = np.issubdtype(expected.dtype, np.floating)
        if np.array_equal(value, expected, equal_nan=nan):
            return None
        return f"{value.ravel()[:8]} vs TensorFlow's {expected.ravel()[:8]}"
    v, e = value.astype(np.float32), expected.astype(np.float32)
    eps = float(np.finfo(F16).eps)
    finite = np.abs(e[np.isfinite(e)])
    if op in ACCUMULATING:
        atol, rtol = SUM_ULPS * eps * (float(finite.max()) if finite.size else 0), SUM_ULPS * eps
    elif op in TRANSCENDENTAL:
        atol, rtol = 0, HALF_ULPS * eps
    else:
        atol, rtol = 0, 0
    try:
        np.testing.assert_allclose(v, e, rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError:
        bad = np.flatnonzero(~np.isclose(v, e, rtol=rtol, atol=atol, equal_nan=True))[:4]
        return f"{len(bad)}+ differ: " + "; ".join(f"[{i}] ours {v.ravel()[i]} tf {e.ravel()[i]}" for i in bad)
    return None


def test_small_dtypes_match_tensorflow(tmp_path):
    python = require_tensorflow("test_small_dtypes_match_tensorflow")
    rng = np.random.default_rng(13)
    all_cases = cases(rng)
    arrays, specs = {}, []
    for op, inputs, attrs in all_cases:
        keys = []
        for x in inputs:
            keys.append(f"a{len(arrays)}")
            arrays[keys[-1]] = x
        list_sizes = {"values": len(inputs) - 1 if op == "ConcatV2" else len(inputs), "inputs": len(inputs)}
        specs.append({"op": op, "inputs": keys, "attrs": attrs, "list_sizes": list_sizes})
    theirs = run_tf_cases(python, "raw_ops.py", tmp_path, arrays, specs)
    failures, compared, unsupported = [], 0, set()
    for i, (op, inputs, attrs) in enumerate(all_cases):
        what = f"{op} {[x.dtype.name + str(list(x.shape)) for x in inputs]} {attrs}"
        tf_error = str(theirs[f"c{i}_error"]) if f"c{i}_error" in theirs.files else None
        try:
            ours, our_error = run_ours(op, inputs, attrs), None
        except tf.errors.OpError as e:
            ours, our_error = None, e.message
        if tf_error and our_error:
            unsupported.add(f"{op}:{inputs[0].dtype.name}")
            continue
        if tf_error or our_error:
            failures.append(f"{what}: only {'TensorFlow' if our_error else 'tensorweave'} runs it "
                            f"({'ours: ' + our_error if our_error else 'TensorFlow: ' + tf_error})")
            continue
        for j, value in enumerate(ours):
            diff = _compare(op, value, theirs[f"c{i}_o{j}"])
            if diff:
                failures.append(f"{what} output {j}: {diff}")
        compared += 1
    print(f"\n{compared} small-dtype cases compared with TensorFlow; failing on both sides (dtype not "
          f"supported, or shapes the op refuses): "
          f"{', '.join(sorted(unsupported))}")
    assert compared > 200
    assert not failures, f"{len(failures)} mismatches:\n" + "\n".join(failures)
