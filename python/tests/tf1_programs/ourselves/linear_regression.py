"""Linear regression on NumPy data: tf.nn.xw_plus_b, tf.clip_by_value on the predictions,
tf.losses.mean_squared_error and plain gradient descent, with the variables started from
NumPy arrays so that every run starts from the same point."""
import numpy as np
import tensorflow as tf

tf.app.flags.DEFINE_integer("steps", 200, "Training steps.")
tf.app.flags.DEFINE_float("learning_rate", 0.1, "Gradient descent's step size.")
tf.app.flags.DEFINE_integer("batch_size", 32, "Examples per step.")
FLAGS = tf.app.flags.FLAGS


def make_data(rng, n):
    x = rng.uniform(-1.0, 1.0, size=(n, 4)).astype(np.float32)
    true_w = np.array([[1.5], [-2.0], [0.5], [3.0]], dtype=np.float32)
    y = x.dot(true_w) + 0.25 + 0.01 * rng.randn(n, 1).astype(np.float32)
    return x, y


def main(_):
    rng = np.random.RandomState(7)
    x_train, y_train = make_data(rng, 512)
    w0 = rng.normal(0.0, 0.1, size=(4, 1)).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(w0, name="weights")
    b = tf.Variable(tf.zeros([1]), name="bias")
    prediction = tf.clip_by_value(tf.nn.xw_plus_b(x, w, b), -10.0, 10.0)
    loss = tf.losses.mean_squared_error(labels=y, predictions=prediction)
    train_op = tf.train.GradientDescentOptimizer(FLAGS.learning_rate).minimize(loss)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(FLAGS.steps):
            start = (step * FLAGS.batch_size) % len(x_train)
            batch = slice(start, start + FLAGS.batch_size)
            _, value = sess.run([train_op, loss], feed_dict={x: x_train[batch], y: y_train[batch]})
            if step % 50 == 0:
                print("step %d loss %.6f" % (step, value))
        final = sess.run(loss, feed_dict={x: x_train, y: y_train})
        print("final loss %.6f" % final)
        print("weights", " ".join("%.5f" % v for v in sess.run(w).ravel()), "bias %.5f" % sess.run(b)[0])


if __name__ == "__main__":
    tf.app.run()
