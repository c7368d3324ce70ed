"""The batch-norm graphs of test_batch_norm.py, built by one function on both sides: with
tensorweave (`tf1` = tensorweave) and with TensorFlow (`tf1` = tf.compat.v1, in
tf_side/batch_norm_cases.py). Each case's inputs come from the shared .npz; the fetches are
named <what><i>, so the two sides' results pair up by key. `raw(op, inputs, attrs)` runs
an op by name (inputs an ordered list of (name, tensor)) and returns all its outputs: the
"raw" cases cover FusedBatchNorm, V2 and the three FusedBatchNormGrad ops directly."""

FORWARD_INPUTS = ("x", "scale", "offset", "mean", "variance")
GRAD_INPUTS = ("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2", "reserve_space_3")


def build(tf1, raw, data, i, case):
    """Adds case `i` to the default graph; returns {key: tensor}."""
    get = lambda name: tf1.constant(data[f"{name}_{i}"])  # noqa: E731
    kind = case["kind"]
    if kind == "fused":
        x, scale, offset, dy = get("x"), get("scale"), get("offset"), data[f"dy_{i}"]
        mean = get("mean") if case["stats"] else None
        variance = get("variance") if case["stats"] else None
        y, m, v = tf1.nn.fused_batch_norm(x, scale, offset, mean=mean, variance=variance, epsilon=case["epsilon"],
                                          data_format=case["data_format"], is_training=case["is_training"],
                                          exponential_avg_factor=case["factor"])
        dy = tf1.constant(dy)
        dx, dscale, doffset = tf1.gradients(y, [x, scale, offset], grad_ys=dy)
        out = {f"y{i}": y, f"mean{i}": m, f"variance{i}": v, f"dx{i}": dx, f"dscale{i}": dscale,
               f"doffset{i}": doffset}
        if case.get("second_order"):  # FusedBatchNormGrad's gradient in dy, x and scale
            seeds = [tf1.constant(data[f"{n}_{i}"]) for n in ("ddx", "ddscale", "ddoffset")]
            second = tf1.gradients([dx, dscale, doffset], [dy, x, scale], grad_ys=seeds)
            out.update({f"dd{n}{i}": t for n, t in zip(("dy", "x", "scale"), second)})
        return out
    if kind == "raw":
        names = FORWARD_INPUTS if case["op"].startswith("FusedBatchNormV") or case["op"] == "FusedBatchNorm" \
            else GRAD_INPUTS[: 6 if case["op"].endswith("V3") else 5]
        inputs = [(n, get(n)) for n in names]
        outputs = raw(case["op"], inputs, case["attrs"])
        # reserve_space_3 of V3 is TF's internal scratch (empty on CPU): compared by shape only.
        out = {f"out{k}_{i}": o if not (case["op"] == "FusedBatchNormV3" and k == 5) else tf1.shape(o)
               for k, o in enumerate(outputs)}
        if names is FORWARD_INPUTS:  # each version's gradient function too
            grads = tf1.gradients(outputs[0], [t for _, t in inputs[:3]], grad_ys=get("y_backprop"))
            out.update({f"grad{k}_{i}": g for k, g in enumerate(grads)})
        return out
    if kind == "plain":
        x, mean, variance, offset, scale = (get(n) for n in ("x", "mean", "variance", "offset", "scale"))
        y = tf1.nn.batch_normalization(x, mean, variance, offset, scale, case["epsilon"])
        grads = tf1.gradients(y, [x, mean, variance, offset, scale], grad_ys=tf1.constant(data[f"dy_{i}"]))
        out = {f"y{i}": y}
        out.update({f"d{n}{i}": g for n, g in zip(("x", "mean", "variance", "offset", "scale"), grads)})
        return out
    if kind == "moments":
        x = get("x")
        mean, variance = tf1.nn.moments(x, case["axes"], keep_dims=case["keep_dims"])
        (dx,) = tf1.gradients([mean, variance], [x], grad_ys=[tf1.constant(data[f"dmean_{i}"]),
                                                              tf1.constant(data[f"dvariance_{i}"])])
        return {f"mean{i}": mean, f"variance{i}": variance, f"dx{i}": dx}
    if kind == "l2_normalize":
        x = get("x")
        y = tf1.nn.l2_normalize(x, axis=case["axis"])
        (dx,) = tf1.gradients(y, [x], grad_ys=tf1.constant(data[f"dy_{i}"]))
        return {f"y{i}": y, f"dx{i}": dx}
    raise ValueError(f"unknown case kind {kind}")
