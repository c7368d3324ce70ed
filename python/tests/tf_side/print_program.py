"""A TF1 program using tf.Print, run by TensorFlow ("tf") or by tensorweave ("tw"), for
test_check_ops.py: it compares the lines each writes to stderr and the values printed here.
    print_program.py tf|tw"""
import sys

if sys.argv[1] == "tf":
    import tensorflow as _tf
    tf = _tf.compat.v1
    tf.disable_eager_execution()
else:
    import tensorweave as tf

x = tf.placeholder_with_default([1.5, -2.0, 3.0, 0.1], [4], name="x")
y = tf.Print(x, [x, tf.constant([[1, 2], [3, 4]]), tf.constant("s\t"), tf.constant(True)], message="x is: ",
             summarize=2)
z = tf.Print(y * 2, [y], message="first twice ", first_n=2)
w = tf.Print(z, [], message="no data")
# grad_ys given: tensorweave's default seed is OnesLike(y), which would run y (and the Print)
# where TensorFlow's ones(shape(y)) of a static shape does not.
p = tf.Print(x * x, [x], message="in grad ")
g = tf.gradients(p, x, grad_ys=tf.constant([1.0, 2.0, 3.0, 4.0]))[0]
with tf.Session() as sess:
    for _ in range(3):
        out = sess.run(w)
    _, grad = sess.run([p, g])
print(out.tolist(), grad.tolist())
