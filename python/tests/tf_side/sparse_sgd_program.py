"""TensorFlow's side of test_sparse_gradients.py: two lookups of one table (a gradient that is
an AddN of two IndexedSlices), the gradient's type and its dense value, and the table (and
slot) after some steps of each optimizer of OPTIMIZERS' minimize (TensorFlow's sparse updates).
    sparse_sgd_program.py IN.npz OUT.npz"""
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

a = np.load(sys.argv[1])
OPTIMIZERS = {
    "sgd": lambda lr: tf1.train.GradientDescentOptimizer(lr),
    "momentum": lambda lr: tf1.train.MomentumOptimizer(lr, 0.9),
    "nesterov": lambda lr: tf1.train.MomentumOptimizer(lr, 0.9, use_nesterov=True),
    "adagrad": lambda lr: tf1.train.AdagradOptimizer(lr, initial_accumulator_value=0.2),
    "rmsprop": lambda lr: tf1.train.RMSPropOptimizer(lr, decay=0.8, momentum=0.5, epsilon=1e-6),
    "adam": lambda lr: tf1.train.AdamOptimizer(lr, beta1=0.8, beta2=0.9, epsilon=1e-4),
}
out = {}
for opt_name, make in OPTIMIZERS.items():
    g = tf1.Graph()
    with g.as_default():
        table = tf1.get_variable("table", initializer=a["table"], use_resource=True)
        ids_a = tf1.placeholder(tf.int64, [None])
        ids_b = tf1.placeholder(tf.int64, [None])
        loss = (tf1.reduce_sum(tf1.nn.embedding_lookup(table, ids_a) * a["w"])
                + tf1.reduce_sum(tf1.square(tf1.nn.embedding_lookup(table, ids_b))))
        grad = tf1.gradients(loss, [table])[0]
        dense = tf1.convert_to_tensor(grad)
        opt = make(float(a["lr"]))
        train = opt.minimize(loss)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            out[f"{opt_name}_sparse"] = np.array(isinstance(grad, tf1.IndexedSlices))
            for step, (x, y) in enumerate(zip(a["batches_a"], a["batches_b"])):
                feed = {ids_a: x, ids_b: y}
                if step == 0:
                    out[f"{opt_name}_grad"] = sess.run(dense, feed)
                sess.run(train, feed)
            out[f"{opt_name}_table"] = sess.run(table)
            for slot in opt.get_slot_names():
                out[f"{opt_name}_slot_{slot}"] = sess.run(opt.get_slot(table, slot))
# ResourceGather (tf.gather of a resource variable): its gradient, IndexedSlices, made dense.
g = tf1.Graph()
with g.as_default():
    table = tf1.get_variable("table", initializer=a["table"], use_resource=True)
    rows = tf1.gather(table, a["batches_a"][:2])
    assert rows.op.type == "ResourceGather", rows.op.type
    grad = tf1.gradients(tf1.reduce_sum(rows * rows * a["w"]), [table])[0]
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        out["resource_gather_sparse"] = np.array(isinstance(grad, tf1.IndexedSlices))
        out["resource_gather_rows"], out["resource_gather_grad"] = sess.run([rows, tf1.convert_to_tensor(grad)])
np.savez(sys.argv[2], **out)
