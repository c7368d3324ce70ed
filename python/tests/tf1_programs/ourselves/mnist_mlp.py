"""A two-layer perceptron on MNIST (the synthetic stand-in when run by the tests): Xavier
initializers from tf.contrib.layers, ReLU, tf.nn.dropout with the keep probability fed
through a placeholder (1.0 to evaluate), tf.losses.softmax_cross_entropy, Adam."""
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

flags = tf.app.flags
flags.DEFINE_string("data_dir", "/tmp/mnist_data", "Where MNIST is (downloaded if missing).")
flags.DEFINE_integer("hidden_units", 64, "Units in the hidden layer.")
flags.DEFINE_integer("train_steps", 150, "Training steps.")
flags.DEFINE_integer("batch_size", 100, "Examples per step.")
flags.DEFINE_float("keep_prob", 0.8, "Dropout's keep probability while training.")
FLAGS = flags.FLAGS


def dense(inputs, in_units, units, name, activation=None):
    with tf.variable_scope(name):
        w = tf.get_variable("weights", [in_units, units],
                            initializer=tf.contrib.layers.xavier_initializer(seed=1))
        b = tf.get_variable("biases", [units], initializer=tf.constant_initializer(0.0))
        out = tf.nn.xw_plus_b(inputs, w, b)
        return activation(out) if activation else out


def main(_):
    tf.set_random_seed(1)
    mnist = input_data.read_data_sets(FLAGS.data_dir, one_hot=True)
    images = tf.placeholder(tf.float32, [None, 784], name="images")
    labels = tf.placeholder(tf.float32, [None, 10], name="labels")
    keep_prob = tf.placeholder(tf.float32, name="keep_prob")

    hidden = dense(images, 784, FLAGS.hidden_units, "hidden", tf.nn.relu)
    logits = dense(tf.nn.dropout(hidden, keep_prob), FLAGS.hidden_units, 10, "logits")
    loss = tf.losses.softmax_cross_entropy(onehot_labels=labels, logits=logits)
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(labels, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)

    test_feed = {images: mnist.test.images, labels: mnist.test.labels, keep_prob: 1.0}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print("initial loss %.4f" % sess.run(loss, test_feed))
        for step in range(FLAGS.train_steps):
            xs, ys = mnist.train.next_batch(FLAGS.batch_size)
            _, value = sess.run([train_op, loss], {images: xs, labels: ys, keep_prob: FLAGS.keep_prob})
            if step % 50 == 0:
                tf.logging.info("step %d: training loss %.4f", step, value)
        test_loss, test_accuracy = sess.run([loss, accuracy], test_feed)
        print("test loss %.4f" % test_loss)
        print("test accuracy %.4f" % test_accuracy)


if __name__ == "__main__":
    tf.app.run()
