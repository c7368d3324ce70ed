"""TensorFlow's side of test_saved_model_to_tf.py: loads the SavedModel at DIR with
tf.compat.v1.saved_model.loader.load (tags TAGS, comma-separated), feeds the inputs of
signature SIG from IN (an .npz by input key) and writes the outputs to OUT by output key.
    load_saved_model.py DIR TAGS SIG IN OUT"""
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def main(export_dir, tags, sig_key, in_path, out_path):
    inputs = dict(np.load(in_path))
    with tf1.Graph().as_default(), tf1.Session() as sess:
        mg = tf1.saved_model.loader.load(sess, tags.split(","), export_dir)
        sig = mg.signature_def[sig_key]
        feed = {sess.graph.get_tensor_by_name(sig.inputs[k].name): v for k, v in inputs.items()}
        keys = sorted(sig.outputs)
        values = sess.run([sess.graph.get_tensor_by_name(sig.outputs[k].name) for k in keys], feed)
        np.savez(out_path, **dict(zip(keys, values)))


if __name__ == "__main__":
    main(*sys.argv[1:])
