"""For the --tensorflow mode of run_tf1_program.py only: TensorFlow 2's compat.v1 has no
tf.contrib, so the few contrib names the project's TF1 programs use are given to it here,
each as TF 1.x defined it (contrib.layers' l2_regularizer is scale * l2_loss, its
xavier_initializer is glorot uniform)."""
import types


def install(tf):
    if hasattr(tf, "contrib"):
        return

    def l2_regularizer(scale, scope=None):  # noqa: ARG001
        return lambda w: None if scale == 0.0 else tf.multiply(tf.nn.l2_loss(w), scale)

    def l1_regularizer(scale, scope=None):  # noqa: ARG001
        return lambda w: None if scale == 0.0 else tf.multiply(tf.reduce_sum(tf.abs(w)), scale)

    def xavier_initializer(uniform=True, seed=None, dtype=tf.float32):
        return (tf.glorot_uniform_initializer if uniform else tf.glorot_normal_initializer)(seed=seed, dtype=dtype)

    tf.contrib = types.SimpleNamespace(
        layers=types.SimpleNamespace(l2_regularizer=l2_regularizer, l1_regularizer=l1_regularizer,
                                     xavier_initializer=xavier_initializer),
        framework=types.SimpleNamespace(get_or_create_global_step=tf.train.get_or_create_global_step,
                                        get_global_step=tf.train.get_global_step))
