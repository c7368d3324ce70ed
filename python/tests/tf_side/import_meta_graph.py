"""TensorFlow's side of test_meta_graph_to_tf.py: tf.compat.v1.train.import_meta_graph(META)
and restore of checkpoint PREFIX with the Saver it returns; writes to OUT every global
variable's value ("var:<name>"), every fetch named in FETCHES (comma-separated tensor
names, fed "x:0" from IN's "x") and the int/float/bytes collections named in COLLECTIONS.
    import_meta_graph.py META PREFIX IN FETCHES COLLECTIONS OUT"""
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def main(meta, prefix, in_path, fetches, collections, out_path):
    inputs = dict(np.load(in_path))
    arrays = {}
    with tf1.Graph().as_default() as g, tf1.Session() as sess:
        saver = tf1.train.import_meta_graph(meta)
        saver.restore(sess, prefix)
        for v in tf1.global_variables():
            arrays["var:" + v.op.name] = sess.run(v)
        arrays["trainable"] = np.array(sorted(v.op.name for v in tf1.trainable_variables()))
        feed = {g.get_tensor_by_name(k + ":0"): v for k, v in inputs.items()}
        for name in filter(None, fetches.split(",")):
            arrays["fetch:" + name] = sess.run(g.get_tensor_by_name(name), feed)
        for key in filter(None, collections.split(",")):
            arrays["collection:" + key] = np.array(g.get_collection(key))
        # A further save by TF's own saver subgraph (ours, written as NodeDefs): read back by the test.
        saver.save(sess, prefix + "-by-tf", write_meta_graph=False)
    np.savez(out_path, **arrays)


if __name__ == "__main__":
    main(*sys.argv[1:])
