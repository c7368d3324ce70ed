"""TensorBoard itself on our event files: `tensorboard --logdir` from the TF environment
serves our scalars, images (same pixels) and histograms (our buckets) through its HTTP API,
and its dashboard, rendered in
headless Chromium, names our run and tags. The server is always stopped by the test."""
import glob
import json
import os
import re
import signal
import subprocess
import time
import urllib.parse
import urllib.request

import numpy as np
import pytest

import tensorweave as tf
from chromium import FLAGS as CHROMIUM_FLAGS, require_chromium, run_chromium
from conftest import free_port
from tf_peer import require_tensorflow, tf_env

RUN, TAG = "tw_run_alpha", "tw_loss_curve"
STEPS = [0, 2, 4, 6, 8]


def _get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as reply:
        return reply.read()


def _pixels(step):
    return (np.arange(2 * 4 * 3).reshape(1, 2, 4, 3) * (step + 7) % 256).astype(np.uint8)


def _write_logdir(logdir):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [])
    picture = tf.placeholder(tf.uint8, [1, 2, 4, 3])
    tf.summary.scalar(TAG, x)
    tf.summary.image("tw_picture", picture, max_outputs=1)
    tf.summary.histogram("tw_spread", tf.stack([x, 2.0 * x, -x]))
    merged = tf.summary.merge_all()
    values = []
    with tf.summary.FileWriter(os.path.join(logdir, RUN), graph=tf.get_default_graph()) as writer, \
            tf.Session() as sess:
        for step in STEPS:
            value = 2.0 / (step + 1)
            writer.add_summary(sess.run(merged, {x: value, picture: _pixels(step)}), step)
            values.append(float(np.float32(value)))
    return values


@pytest.fixture(scope="module")
def tensorboard(tmp_path_factory):
    python = require_tensorflow("test_summary_tensorboard")
    binary = os.path.join(os.path.dirname(python), "tensorboard")
    if not os.path.exists(binary):
        pytest.skip(f"test_summary_tensorboard needs the tensorboard command next to {python}")
    tmp = tmp_path_factory.mktemp("tensorboard")
    logdir = str(tmp / "logs")
    values = _write_logdir(logdir)
    port = free_port()
    log = open(tmp / "tensorboard.log", "wb")
    server = subprocess.Popen([binary, "--logdir", logdir, "--port", str(port), "--host", "127.0.0.1"],
                              env=tf_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            if server.poll() is not None:
                pytest.fail(f"tensorboard exited with {server.returncode}: {(tmp / 'tensorboard.log').read_text()[-2000:]}")
            try:
                if RUN in json.loads(_get(base + "/data/runs")):
                    break
            except OSError:
                pass
            if time.time() > deadline:
                pytest.fail("tensorboard did not list our run within 120 s")
            time.sleep(0.5)
        yield base, values, tmp
    finally:
        # Its own process group: the server and anything it started stop together.
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


def test_http_api_serves_our_scalars(tensorboard):
    base, values, _ = tensorboard
    query = urllib.parse.urlencode({"run": RUN, "tag": TAG})
    points = json.loads(_get(f"{base}/data/plugin/scalars/scalars?{query}"))
    assert [step for _, step, _ in points] == STEPS
    assert [value for _, _, value in points] == values
    tags = json.loads(_get(f"{base}/data/plugin/scalars/tags"))
    assert TAG in tags[RUN]
    graph = _get(f"{base}/data/plugin/graphs/graph?" + urllib.parse.urlencode({"run": RUN}))
    assert b"Placeholder" in graph  # our GraphDef, as TensorBoard's graph plugin serves it


def test_http_api_serves_our_images_and_histograms(tensorboard):
    from summary_checks import decode_png
    base, _, tmp = tensorboard
    logdir = str(tmp / "logs")
    query = urllib.parse.urlencode({"run": RUN, "tag": "tw_picture/image", "sample": 0})
    images = json.loads(_get(f"{base}/data/plugin/images/images?{query}"))
    assert [i["step"] for i in images] == STEPS
    for image, step in zip(images, STEPS):
        png = _get(f"{base}/data/plugin/images/individualImage?{image['query']}")
        np.testing.assert_array_equal(decode_png(png), _pixels(step)[0])
    query = urllib.parse.urlencode({"run": RUN, "tag": "tw_spread"})
    histograms = json.loads(_get(f"{base}/data/plugin/histograms/histograms?{query}"))
    assert [h[1] for h in histograms] == STEPS
    # TensorBoard serves [left, right, count] per bucket of our HistogramProto: the left of the
    # first is min, the right of the last is max, the others are our bucket limits.
    (path,) = glob.glob(os.path.join(logdir, RUN, "events.out.tfevents.*"))
    ours = [v.histo for e in tf.train.summary_iterator(path) for v in e.summary.value if v.tag == "tw_spread"]
    assert len(ours) == len(STEPS)
    for (_, _, buckets), histo in zip(histograms, ours):
        assert [count for _, _, count in buckets] == list(histo.bucket)
        assert [right for _, right, _ in buckets][:-1] == list(histo.bucket_limit)[:-1]
        assert buckets[0][0] == histo.min and buckets[-1][1] == histo.max


def test_dashboard_renders_our_run_in_chromium(tensorboard):
    base, values, tmp = tensorboard
    flags = [require_chromium("test_summary_tensorboard")] + CHROMIUM_FLAGS + ["--virtual-time-budget=20000"]
    url = base + "/#timeseries"
    dom = run_chromium(flags + ["--dump-dom", url], timeout=90)
    (tmp / "dashboard.html").write_text(dom)
    # Rendered elements, not only script text: the runs table has a cell with the run name and
    # the time-series cards a heading with the tag.
    assert re.search(r">\s*%s\s*<" % RUN, dom), "the dashboard does not list our run"
    assert re.search(r'class="group-title"[^>]*>\s*%s\s*<' % TAG, dom) or re.search(r'title="%s"' % TAG, dom), \
        "the dashboard shows no card for our tag"
    # The card's data table shows the value at the last step: ours, 2 / 9.
    assert re.search(r">\s*%.4f\s*<" % values[-1], dom), "the dashboard does not show our last value"
    # For people: the page as rendered (the runs table, the card and its data table; headless
    # Chromium's WebGL leaves the chart's line undrawn).
    shot = tmp / "dashboard.png"
    run_chromium(flags + ["--window-size=1280,900", f"--screenshot={shot}", url], timeout=45)
    assert shot.exists() and shot.stat().st_size > 10000, "no screenshot of the dashboard"
