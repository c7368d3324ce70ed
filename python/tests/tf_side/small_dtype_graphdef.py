"""TensorFlow's side of test_small_dtypes.py's GraphDef test: builds a graph of Const nodes
of int8, uint8, int16, uint16 and float16 (a scalar, which TensorFlow stores in int_val or
half_val, and a vector, stored as tensor_content) with an op on each, writes the GraphDef
to OUT.pb and the fetched values ("<node name>") to OUT.npz.
    small_dtype_graphdef.py OUT"""
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def main(out):
    g = tf1.Graph()
    fetches = {}
    with g.as_default():
        for name in ("int8", "uint8", "int16", "uint16", "float16"):
            dtype = np.dtype(name)
            scalar = tf1.constant(dtype.type(3), name=f"{name}_scalar")
            vector = tf1.constant(np.arange(-2, 6).astype(dtype), name=f"{name}_vector")
            fetches[f"{name}_scalar"] = scalar
            fetches[f"{name}_vector"] = vector
            op = tf1.maximum if name == "uint16" else tf1.add  # TF has no Add for uint16
            fetches[f"{name}_result"] = tf1.identity(op(vector, scalar), name=f"{name}_result")
        with tf1.Session() as sess:
            values = sess.run(fetches)
    with open(out + ".pb", "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    np.savez(out + ".npz", **values)


if __name__ == "__main__":
    main(sys.argv[1])
