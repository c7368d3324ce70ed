"""The small tf.layers model that test_layers.py builds twice: with tensorweave and, in
layers_cases.py, with TensorFlow's tf.compat.v1 (the same code, `tf` being either module).
build(tf, l2, mode): mode "tensor" feeds the training flag as a bool placeholder, "python"
builds one graph with training=True (train) and reuses its variables for training=False."""


def _net(tf, x, l2, training, reuse):
    # No bias before a batch norm with only linear ops between: its gradient is zero but for
    # rounding, which Adam would turn into full steps of either sign.
    h = tf.layers.conv2d(x, 4, 3, padding="same", use_bias=False, kernel_regularizer=l2, name="conv2d",
                         reuse=reuse)
    h = tf.layers.batch_normalization(h, training=training, momentum=0.9, name="batch_normalization", reuse=reuse)
    h = tf.nn.relu(h)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.conv2d(h, 6, (3, 2), strides=(1, 1), padding="valid", name="conv2d_1", reuse=reuse,
                         activation=tf.nn.tanh, bias_initializer=tf.constant_initializer(0.1))
    h = tf.layers.average_pooling2d(h, 2, 1, padding="same")
    up = tf.layers.conv2d_transpose(h, 2, 3, strides=2, padding="same", name="conv2d_transpose", reuse=reuse)
    h = tf.layers.flatten(h)
    h = tf.layers.dropout(h, rate=0.5, training=False)
    h = tf.layers.dense(h, 16, use_bias=False, kernel_regularizer=l2, name="dense", reuse=reuse)
    h = tf.layers.batch_normalization(h, training=training, epsilon=1e-2, center=False,
                                      name="batch_normalization_1", reuse=reuse)
    h = tf.nn.tanh(h)
    logits = tf.layers.dense(h, 10, name="dense_1", reuse=reuse)
    return logits, up


def build(tf, l2, mode, optimizer):
    """Returns dict of tensors/ops: x, y, logits_train, logits_eval, up, loss, train, feed_train, feed_eval."""
    x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    if mode == "tensor":
        training = tf.placeholder(tf.bool, [], name="training")
        logits, up = _net(tf, x, l2, training, None)
        out = {"logits_train": logits, "logits_eval": logits, "feed_train": {training: True},
               "feed_eval": {training: False}}
    else:
        logits, up = _net(tf, x, l2, True, None)
        logits_eval, _ = _net(tf, x, l2, False, True)
        out = {"logits_train": logits, "logits_eval": logits_eval, "feed_train": {}, "feed_eval": {}}
    tf.losses.sparse_softmax_cross_entropy(labels=y, logits=out["logits_train"])
    loss = tf.losses.get_total_loss()
    opt = tf.train.AdamOptimizer(0.01) if optimizer == "adam" else tf.train.GradientDescentOptimizer(0.1)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = opt.minimize(loss)
    out.update(x=x, y=y, up=up, loss=loss, train=train,
               reg=tf.losses.get_regularization_loss(),
               updates=len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)))
    return out


def placed_variables(tf):
    """[name, device] of the model's variables built under replica_device_setter(ps_tasks=3)."""
    with tf.device(tf.train.replica_device_setter(ps_tasks=3)):
        _net(tf, tf.placeholder(tf.float32, [None, 8, 8, 1]), None, True, None)
    return [[v.name, v.device] for v in tf.global_variables()]


# (input shape, batch_normalization kwargs): the paths besides the model's.
BN_CONFIGS = [
    ((4, 3, 5, 5), {"axis": 1}),  # channels first, fused in TF
    ((4, 5, 5, 3), {"fused": False, "momentum": 0.5}),  # 4-D not fused: biased variance
    ((6, 5), {"scale": False, "epsilon": 0.1}),
]


def batch_norm_results(tf, x_value, shape, kwargs):
    """One training run (its output, input/gamma gradients, moving statistics after the
    update) and then the inference output."""
    x = tf.constant(x_value)
    out = tf.layers.batch_normalization(x, training=True, name="bn", **kwargs)
    out_eval = tf.layers.batch_normalization(x, training=False, name="bn", reuse=True, **kwargs)
    loss = tf.reduce_sum(out * tf.constant(x_value[::-1].copy()))
    variables = sorted(tf.trainable_variables(), key=lambda v: v.name)
    grads = tf.gradients(loss, [x] + variables)
    moving = sorted((v for v in tf.global_variables() if "moving" in v.name), key=lambda v: v.name)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        results = sess.run([out] + grads)
        sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
        results += sess.run(moving) + [sess.run(out_eval)]
    return results


def model_variables(tf):
    """The model's global variables (optimizer slots and counters left out), sorted by name."""
    return sorted((v for v in tf.global_variables() if "Adam" not in v.name and "beta1_power" not in v.name
                   and "beta2_power" not in v.name), key=lambda v: v.name)
