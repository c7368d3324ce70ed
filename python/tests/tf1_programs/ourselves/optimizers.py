"""One softmax classifier trained by each optimizer named on the command line, each in its
own graph: variable_scope / get_variable with NumPy starting values, an L2 penalty from
tf.contrib.layers, tf.losses.sparse_softmax_cross_entropy."""
import numpy as np
import tensorflow as tf

tf.app.flags.DEFINE_list("optimizers", ["sgd", "momentum", "adam", "adagrad", "rmsprop"], "Which to train with.")
tf.app.flags.DEFINE_integer("steps", 60, "Training steps for each optimizer.")
tf.app.flags.DEFINE_float("weight_decay", 1e-3, "Scale of the L2 penalty.")
FLAGS = tf.app.flags.FLAGS

OPTIMIZERS = {
    "sgd": lambda: tf.train.GradientDescentOptimizer(0.5),
    "momentum": lambda: tf.train.MomentumOptimizer(0.1, momentum=0.9),
    "adam": lambda: tf.train.AdamOptimizer(0.05),
    "adagrad": lambda: tf.train.AdagradOptimizer(0.5),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01),
}


def make_data():
    rng = np.random.RandomState(3)
    centers = rng.normal(0.0, 2.0, size=(3, 5))
    labels = rng.randint(0, 3, size=300)
    features = centers[labels] + rng.normal(0.0, 1.0, size=(300, 5))
    w0 = rng.normal(0.0, 0.1, size=(5, 3))
    return features.astype(np.float32), labels.astype(np.int32), w0.astype(np.float32)


def model(features, w0):
    with tf.variable_scope("softmax"):
        w = tf.get_variable("weights", [5, 3], initializer=tf.constant_initializer(w0))
        b = tf.get_variable("biases", [3], initializer=tf.zeros_initializer())
    return tf.matmul(features, w) + b, w


def train(name, features, labels, w0):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 5])
        y = tf.placeholder(tf.int32, [None])
        logits, w = model(x, w0)
        penalty = tf.contrib.layers.l2_regularizer(FLAGS.weight_decay)(w)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits) + penalty
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1, output_type=tf.int32), y), tf.float32))
        global_step = tf.train.get_or_create_global_step()
        train_op = OPTIMIZERS[name]().minimize(loss, global_step=global_step)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(loss, {x: features, y: labels})
            for _ in range(FLAGS.steps):
                sess.run(train_op, {x: features, y: labels})
            last, acc, step = sess.run([loss, accuracy, global_step], {x: features, y: labels})
    print("%s: step %d loss %.6f -> %.6f accuracy %.4f" % (name, step, first, last, acc))


def main(_):
    features, labels, w0 = make_data()
    for name in FLAGS.optimizers:
        if name not in OPTIMIZERS:
            raise ValueError("unknown optimizer %r" % name)
        train(name, features, labels, w0)


if __name__ == "__main__":
    tf.app.run()
