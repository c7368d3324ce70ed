"""For the --tensorflow mode of run_tf1_program.py only: TensorFlow 2's compat.v1 has no
tf.contrib, so the few contrib names the project's TF1 programs use are given to it here,
each as TF 1.x defined it (contrib.layers' l2_regularizer is scale * l2_loss, its
xavier_initializer is glorot uniform). It also lets TensorFlow write its graph.pbtxt
with the protobuf the venv holds, whose text_format dropped the float_format argument that
TF's write_graph still passes (Supervisor and MonitoredTrainingSession write one)."""
import types

from google.protobuf import descriptor_pb2, text_format


def _accept_float_format(message_to_string):
    def wrapper(*args, float_format=None, **kwargs):  # noqa: ARG001 - dropped by newer protobuf.
        return message_to_string(*args, **kwargs)
    return wrapper


def install(tf):
    if hasattr(tf, "contrib"):
        return
    try:
        text_format.MessageToString(descriptor_pb2.FileDescriptorProto(), float_format="")
    except TypeError:
        text_format.MessageToString = _accept_float_format(text_format.MessageToString)

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
