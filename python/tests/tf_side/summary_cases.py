"""Summary-op cases shared by both sides: each builds a graph with the `tf` module it is given
(tensorweave, or TensorFlow's tf.compat.v1) and returns (fetch, feed_dict). test_summary_ops.py
runs them here, summary_results.py in TensorFlow; the serialized Summary protos (parsed with
our generated classes, which keep TF's field numbers) or the error messages must agree.
Inputs come from integer arithmetic and one correctly rounded division, so both NumPy
versions make the same values (their sin() differ in the last bit)."""
import numpy as np


def _wave(n, scale=1.0, phase=0):
    """n values in [-scale, scale], scattered."""
    k = (np.arange(n, dtype=np.int64) * 7919 + phase) % 2003 - 1001
    return k / 1001.0 * scale


def _image(shape, dtype, lo, hi):
    n = int(np.prod(shape))
    k = (np.arange(n, dtype=np.int64) * 37) % 101
    return (k / 100.0 * (hi - lo) + lo).reshape(shape).astype(dtype)


def cases():
    def scalar_vector_tags(tf):
        p = tf.placeholder(tf.float32, [3])
        return tf.raw_scalar_summary(["a", "b/c", "d"], p), {p: np.float32([1.5, -2.25, 3e38])}

    def scalar_api_and_family(tf):
        x = tf.placeholder(tf.float64, [])
        first = tf.summary.scalar("loss", x)
        second = tf.summary.scalar("loss", x * 2.0, family="train")  # tag train/train/loss
        third = tf.summary.scalar("bad name!", tf.cast(x, tf.int32))  # tag bad_name_
        return tf.summary.merge([first, second, third]), {x: 0.1}

    def histogram_float32(tf):
        values = np.concatenate([_wave(500, 3.0), [0.0, 1e-13, -1e-13, 1e19, -7.5]]).astype(np.float32)
        return tf.summary.histogram("weights", tf.constant(values)), {}

    def histogram_float64_wide(tf):
        values = np.concatenate([_wave(97, 1e6), _wave(13, 1e-9, 5), [2.0 ** 60]])
        return tf.summary.histogram("wide", tf.constant(values)), {}

    def histogram_int_and_half(tf):
        ints = tf.constant(np.arange(-40, 60, 3, dtype=np.int32))
        halves = tf.constant(_wave(64, 100.0).astype(np.float16))
        u8 = tf.constant(np.arange(0, 250, 7, dtype=np.uint8))
        return tf.summary.merge([tf.summary.histogram("ints", ints), tf.summary.histogram("halves", halves),
                                 tf.summary.histogram("bytes", u8)]), {}

    def histogram_empty(tf):
        return tf.summary.histogram("empty", tf.constant(np.zeros([0, 3], np.float32))), {}

    def image_uint8_rgb(tf):
        images = _image([4, 5, 6, 3], np.float64, 0, 255).astype(np.uint8)
        return tf.summary.image("rgb", tf.constant(images), max_outputs=2), {}

    def image_float_gray_one(tf):
        images = _image([2, 7, 3, 1], np.float32, 0.0, 2.5)
        return tf.summary.image("gray", tf.constant(images), max_outputs=1), {}

    def image_float_negative_rgba(tf):
        images = _image([3, 4, 4, 4], np.float32, -3.0, 1.0)
        return tf.summary.image("rgba", tf.constant(images)), {}

    def image_float_nonfinite(tf):
        images = _image([1, 3, 4, 3], np.float32, -1.0, 5.0)
        images[0, 1, 2, 0] = np.nan
        images[0, 2, 0, 2] = np.inf
        return tf.summary.image("bad", tf.constant(images)), {}

    def image_half_and_double(tf):
        half = _image([1, 3, 5, 3], np.float32, 0.0, 3.3).astype(np.float16)
        double = _image([2, 2, 3, 1], np.float64, -1e-3, 7e-4)
        zeros = np.zeros([1, 2, 2, 1], np.float32)  # max below the zero threshold: all black
        return tf.summary.merge([tf.summary.image("half", tf.constant(half)),
                                 tf.summary.image("double", tf.constant(double)),
                                 tf.summary.image("zeros", tf.constant(zeros))]), {}

    def audio_mono_clipped(tf):
        clips = (_wave(2 * 50, 1.3).reshape(2, 50) + np.float32(0.5) / 32768).astype(np.float32)  # past +-1: clamped
        return tf.summary.audio("voice", tf.constant(clips), 16000), {}

    def audio_stereo_one(tf):
        clips = _wave(3 * 20 * 2, 0.9, 11).reshape(3, 20, 2).astype(np.float32)
        rate = tf.placeholder(tf.float32, [])
        return tf.summary.audio("music", tf.constant(clips), rate, max_outputs=1), {rate: 44100.6}

    def text_strings(tf):
        return tf.summary.text("notes", tf.constant([["a", "é" * 20], ["", "x\x00y"]])), {}

    def merge_all_collection(tf):
        x = tf.placeholder(tf.float32, [])
        tf.summary.scalar("s1", x)
        tf.summary.histogram("h1", x + tf.constant([1.0, 2.0]))
        tf.summary.scalar("other", x, collections=["mine"])
        return [tf.summary.merge_all(), tf.summary.merge_all("mine")], {x: 4.0}

    # Errors: fed placeholders of unknown shape, so both reach the kernels' run-time checks.
    def error_scalar_shapes(tf):
        tags, values = tf.placeholder(tf.string), tf.placeholder(tf.float32)
        return tf.raw_scalar_summary(tags, values), {tags: ["a", "b"], values: [1.0, 2.0, 3.0]}

    def error_scalar_single_tag(tf):
        tags, values = tf.placeholder(tf.string), tf.placeholder(tf.float32)
        return tf.raw_scalar_summary(tags, values), {tags: ["only"], values: [1.0, 2.0]}

    def error_histogram_nan(tf):
        v = tf.placeholder(tf.float32)
        return tf.summary.histogram("nan_hist", v), {v: [1.0, np.nan]}

    def error_histogram_inf(tf):
        v = tf.placeholder(tf.float64)
        return tf.summary.histogram("inf_hist", v), {v: [np.inf]}

    def error_histogram_tag(tf):
        tag, v = tf.placeholder(tf.string), tf.placeholder(tf.float32)
        return tf.raw_histogram_summary(tag, v), {tag: ["a", "b"], v: [1.0]}

    def error_image_rank(tf):
        img = tf.placeholder(tf.float32)
        return tf.summary.image("img", img), {img: np.zeros([2, 3, 3], np.float32)}

    def error_image_depth(tf):
        img = tf.placeholder(tf.uint8)
        return tf.summary.image("img", img), {img: np.zeros([1, 2, 2, 2], np.uint8)}

    def error_image_tag(tf):
        tag, img = tf.placeholder(tf.string), tf.placeholder(tf.uint8)
        return tf.raw_image_summary(tag, img), {tag: ["a", "b"], img: np.zeros([1, 2, 2, 1], np.uint8)}

    def error_audio_rank(tf):
        clips = tf.placeholder(tf.float32)
        return tf.summary.audio("a", clips, 8000.0), {clips: np.zeros([1, 2, 2, 2], np.float32)}

    def error_audio_rate(tf):
        rate = tf.placeholder(tf.float32, [])
        return tf.summary.audio("a", tf.constant(np.zeros([1, 4], np.float32)), rate), {rate: 0.0}

    def error_merge_duplicate(tf):
        x = tf.placeholder(tf.float32, [])
        return tf.summary.merge([tf.raw_scalar_summary("same", x), tf.raw_scalar_summary("same", x)]), {x: 1.0}

    def error_merge_garbage(tf):
        s = tf.placeholder(tf.string)
        return tf.summary.merge([s]), {s: b"\xff\xff\xff"}

    return [scalar_vector_tags, scalar_api_and_family, histogram_float32, histogram_float64_wide,
            histogram_int_and_half, histogram_empty, image_uint8_rgb, image_float_gray_one,
            image_float_negative_rgba, image_float_nonfinite, image_half_and_double, audio_mono_clipped,
            audio_stereo_one, error_audio_rank, error_audio_rate, text_strings,
            merge_all_collection, error_scalar_shapes, error_scalar_single_tag, error_histogram_nan,
            error_histogram_inf, error_histogram_tag, error_image_rank, error_image_depth, error_image_tag,
            error_merge_duplicate, error_merge_garbage]


def run_all(tf, session_factory, op_error):
    """{case name: ("ok", [serialized summaries]) or ("error", message)}, each case in a fresh
    graph; op_error is the module's OpError class."""
    results = {}
    for case in cases():
        g = tf.Graph()
        with g.as_default():
            fetch, feed = case(tf)
            fetches = fetch if isinstance(fetch, list) else [fetch]
            with session_factory(g) as sess:
                try:
                    results[case.__name__] = ("ok", [bytes(v) for v in sess.run(fetches, feed)])
                except op_error as e:
                    results[case.__name__] = ("error", e.message)
    return results
