"""The stateful ops against TensorFlow through whole programs (tf_side/stateful_programs.py,
written once for both): variables (create, initialize, assign, assign_add/sub, read,
destroy), every optimizer's ResourceApply* update with its options over a few steps on the
same variables and fed gradients, gradient descent through variable reads, FIFO queue
semantics (order, enqueue_many, dequeue_many, close) and conditional accumulators (MEAN and
SUM, stale gradients). Values must match -- integers, bools and error classes exactly,
floats within FLOAT_BOUND epsilons relative -- and every op that test_tf_oracle_ops.py
excludes as "compared through whole programs" must appear in our programs' graphs and in
TensorFlow's."""
import numpy as np

import tensorweave as tf
from test_tf_oracle_ops import EXCLUDED
from tf_peer import require_tensorflow, run_tf_script
from tf_side.stateful_programs import PROGRAMS

# Elementwise updates with the same formulas, so float results agree to rounding; a few
# epsilons cover the order of operations within a formula (e.g. Adam's sqrt(v) + epsilon),
# compounded over the steps.
FLOAT_BOUND = 8

# Documented deviations (RELIABILITY.md, "Deviations from TensorFlow's kernels"):
# (program, result) -> (why, check of ours, check of TensorFlow's).
DEVIATIONS = {
    # Our VarHandleOp registers the (uninitialized) variable each time it runs, declaring its
    # dtype and shape for the kernels that see only the handle; TensorFlow's creates nothing.
    # So destroying a destroyed variable whose handle op ran again finds that fresh entry.
    # Reads after a destroy fail alike (FailedPrecondition).
    ("variables", "destroy_again"): ("VarHandleOp re-registers the variable",
                                     lambda v: str(v) == "no error", lambda v: str(v) == "NotFoundError"),
    # TensorFlow's v1 optimizers turn a hyperparameter given as a Python number into a float32
    # tensor and cast it to the variable's dtype; ours makes it a constant of the variable's
    # dtype, so a float64 variable gets 0.1, not 0.100000001490116. Tensors are cast alike.
    ("number_hyperparameters", "gd_float64"): (
        "a Python-number hyperparameter is exact in the variable's dtype",
        lambda v: np.array_equal(v, np.array([0.3, -0.7]) - 0.1 * np.array([0.11, 0.5])),
        lambda v: np.array_equal(v, np.array([0.3, -0.7]) - float(np.float32(0.1)) * np.array([0.11, 0.5]))),
    # An index outside the variable: TensorFlow's ProximalGradientDescent and Momentum kernels
    # have updated the rows before it (row 1 here) when they fail; ours checks every index
    # first and writes nothing.
    **{("sparse_updates", f"{k}_{op}_{dtype}_rows_written_before_the_error"): (
        "a sparse update with a bad index writes no row", lambda v: v.size == 0, lambda v: v.tolist() == [1])
       for k, op in ((0, "ResourceSparseApplyProximalGradientDescent"), (1, "ResourceSparseApplyProximalGradientDescent"),
                     (2, "ResourceSparseApplyMomentum"), (3, "ResourceSparseApplyMomentum"))
       for dtype in ("float32", "float64")},
}


def stateful_ops():
    return {op for op, why in EXCLUDED.items() if why.startswith("stateful resource op")}


def _raw(op, inputs, attrs):
    return tf.get_default_graph().create_op(op, inputs, attrs)


def test_stateful_programs_match_tensorflow(tmp_path):
    python = require_tensorflow("test_stateful_programs_match_tensorflow")
    run_tf_script(python, "run_stateful.py", str(tmp_path / "out.npz"), timeout=300)
    theirs = np.load(tmp_path / "out.npz")
    failures, ours_ops, compared = [], set(), 0
    for program, run in PROGRAMS.items():
        values, graphs = run(tf, _raw)
        ops = {op.type for g in graphs for op in g.get_operations()}
        ours_ops |= ops
        tf_ops = set(theirs[f"{program}._ops"].tolist())
        missing = (ops & stateful_ops()) - tf_ops
        if missing:
            failures.append(f"{program}: TensorFlow's graph lacks {sorted(missing)}")
        names = {k[len(program) + 1:] for k in theirs.files if k.startswith(program + ".") and k != f"{program}._ops"}
        if names != set(values):
            failures.append(f"{program}: results {sorted(values)} vs TensorFlow's {sorted(names)}")
        for name, value in values.items():
            if name not in names:
                continue
            expected, value, what = theirs[f"{program}.{name}"], np.asarray(value), f"{program} {name}"
            compared += 1
            if (program, name) in DEVIATIONS:
                why, ours_ok, theirs_ok = DEVIATIONS[(program, name)]
                if not (ours_ok(value) and theirs_ok(expected)):
                    failures.append(f"{what}: the documented deviation ({why}) no longer holds: ours {value}, "
                                    f"TensorFlow's {expected}")
                continue
            if expected.dtype.kind == "U" or value.dtype.kind == "U":
                if str(value) != str(expected):
                    failures.append(f"{what}: ours {value}, TensorFlow's {expected}")
            elif value.shape != expected.shape or value.dtype != expected.dtype:
                failures.append(f"{what}: {value.dtype}{value.shape} vs TensorFlow's {expected.dtype}{expected.shape}")
            elif np.issubdtype(expected.dtype, np.floating):
                eps = np.finfo(expected.dtype).eps
                if not np.allclose(value, expected, rtol=FLOAT_BOUND * eps, atol=FLOAT_BOUND * eps):
                    failures.append(f"{what}: ours {value.ravel()}, TensorFlow's {expected.ravel()}, largest "
                                    f"difference {np.abs(value - expected).max() / eps:.1f} epsilons")
            elif not np.array_equal(value, expected):
                failures.append(f"{what}: ours {value}, TensorFlow's {expected}")
    uncovered = stateful_ops() - ours_ops
    assert not uncovered, f"stateful ops excluded from test_tf_oracle_ops.py that no program runs: {sorted(uncovered)}"
    print(f"\n{compared} results of {len(PROGRAMS)} programs compared with TensorFlow, "
          f"covering {len(stateful_ops())} stateful ops")
    assert not failures, f"{len(failures)} mismatches:\n" + "\n".join(failures)
