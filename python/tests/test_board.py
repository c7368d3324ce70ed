"""`tw board`: event files drawn with matplotlib into HTML (inline SVG) or PNG. The values it
reads are the ones written (ours and TensorFlow's files); the HTML, rendered in headless
Chromium, shows a curve per run and axes named by tag and step; bad input is named."""
import json
import os
import re
import subprocess

import numpy as np
import pytest

import tensorweave as tf
from chromium import FLAGS as CHROMIUM_FLAGS, require_chromium, run_chromium
from tensorweave import board
from tf_peer import BUILD_DIR, require_tensorflow, run_tf_script

TW = os.path.join(BUILD_DIR, "tools", "tw")
STEPS = list(range(0, 200, 10))
RUNS = {"run_a": 1.0, "run_b": 0.5}
BLUE, ORANGE = (0x1F, 0x77, 0xB4), (0xFF, 0x7F, 0x0E)  # matplotlib's first two run colours


def _loss(scale, step):
    return float(np.float32(scale * 2.0 / (1 + step / 20)))


def _write_runs(logdir):
    for run, scale in RUNS.items():
        tf.reset_default_graph()
        x = tf.placeholder(tf.float32, [])
        w = tf.placeholder(tf.float32, [100])
        tf.summary.scalar("loss", x)
        tf.summary.histogram("weights", w)
        merged = tf.summary.merge_all()
        rng = np.random.RandomState(0)
        with tf.summary.FileWriter(os.path.join(logdir, run)) as writer, tf.Session() as sess:
            for step in STEPS:
                writer.add_summary(sess.run(merged, {x: _loss(scale, step), w: rng.randn(100) * (1 + step / 100)}),
                                   step)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    path = tmp_path_factory.mktemp("board") / "logs"
    _write_runs(str(path))
    return str(path)


def _tw_board(*args):
    return subprocess.run([TW, "board", *args], capture_output=True, text=True, timeout=120)


def test_reads_every_value_and_step_written(logdir):
    runs = board.load_runs([logdir])
    assert [r.name for r in runs] == ["run_a", "run_b"]
    for run in runs:
        assert run.scalars["loss"] == {s: _loss(RUNS[run.name], s) for s in STEPS}
        assert sorted(run.histograms["weights"]) == STEPS
        assert all(h.num == 100 for h in run.histograms["weights"].values())


def test_reads_the_event_files_tensorflow_writes(tmp_path):
    python = require_tensorflow("test_board")
    written = json.loads(run_tf_script(python, "write_board_events.py", str(tmp_path)))
    runs = {r.name: r for r in board.load_runs([str(tmp_path)])}
    assert sorted(runs) == ["tf_v1", "tf_v2"]
    assert runs["tf_v1"].scalars["v1_loss"] == {int(s): v for s, v in written["v1_loss"].items()}
    assert sorted(runs["tf_v1"].histograms["v1_weights"]) == [int(s) for s in written["v1_loss"]]
    assert runs["tf_v2"].scalars["v2_rate"] == {int(s): v for s, v in written["v2_rate"].items()}
    done = _tw_board(str(tmp_path), "--out", str(tmp_path / "tf.html"))
    assert done.returncode == 0, done.stderr
    assert "2 runs (tf_v1, tf_v2), 2 scalar tags, 1 histogram tag" in done.stdout


def _longest_curve(svg, color):
    """The vertex count of the longest stroked path of `color` (#rrggbb) in matplotlib's SVG."""
    counts = [len(re.findall(r"[ML] ", d)) for d, style in re.findall(r'<path d="([^"]*)"[^>]*style="([^"]*)"', svg)
              if "stroke: %s" % color in style]
    return max(counts, default=0)


def test_html_has_a_curve_per_run_and_named_axes(logdir, tmp_path):
    out = tmp_path / "run.html"
    done = _tw_board(logdir, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("2 runs (run_a, run_b), 1 scalar tag, 1 histogram tag -> %s" % out)
    page = out.read_text()
    scalar_svg = page[page.index("<svg"):page.index("</svg>")]
    # Text is kept as text: the title and y label are the tag, the x label is "step", the legend names the runs.
    texts = [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", scalar_svg)]
    assert texts.count("loss") == 2 and "step" in texts and "run_a" in texts and "run_b" in texts
    # Each run's curve has a vertex per step written.
    assert _longest_curve(scalar_svg, "#1f77b4") == len(STEPS)
    assert _longest_curve(scalar_svg, "#ff7f0e") == len(STEPS)
    assert page.count("<svg") == 3  # loss, and weights for each run
    assert "weights (run_a)" in page and "weights (run_b)" in page


def _pixels_near(image, rgb, tolerance=24):
    rgb = np.asarray(rgb, np.float64) / 255.0
    return int((np.abs(image[..., :3] - rgb).max(axis=-1) < tolerance / 255.0).sum())


def test_rendered_in_chromium_shows_both_curves_and_labels(logdir, tmp_path):
    import matplotlib.image
    chromium = require_chromium("test_board")
    out = tmp_path / "run.html"
    assert _tw_board(logdir, "--out", str(out)).returncode == 0
    url = "file://%s" % out
    dom = run_chromium([chromium] + CHROMIUM_FLAGS + ["--dump-dom", url], timeout=60)
    assert re.search(r">\s*step\s*<", dom) and re.search(r">\s*loss\s*<", dom), "no axis labels in the rendered page"
    shot = tmp_path / "board.png"
    run_chromium([chromium] + CHROMIUM_FLAGS + ["--window-size=1400,1000", f"--screenshot={shot}", url], timeout=60)
    print("tw board's page as Chromium shows it:", shot)  # for a person to look at
    image = matplotlib.image.imread(str(shot))
    assert image.shape[:2] == (1000, 1400)
    # Both runs' curves are drawn: hundreds of pixels of each run's colour (a legend swatch alone is ~40).
    assert _pixels_near(image, BLUE) > 300 and _pixels_near(image, ORANGE) > 300


def test_png_holds_every_panel(logdir, tmp_path):
    import matplotlib.image
    out = tmp_path / "run.png"
    done = _tw_board(logdir, "--out", str(out))
    assert done.returncode == 0, done.stderr
    image = matplotlib.image.imread(str(out))
    assert image.shape[:2] == (2 * 420, 2 * 640)  # 3 panels on a grid of 2 columns, 100 dpi
    assert _pixels_near(image, BLUE) > 300 and _pixels_near(image, ORANGE) > 300


def test_several_logdirs_name_runs_by_their_logdir(logdir, tmp_path):
    other = tmp_path / "other"
    _write_runs(str(other))
    names = [r.name for r in board.load_runs([logdir, str(other)])]
    assert names == ["logs/run_a", "logs/run_b", "other/run_a", "other/run_b"]


def test_bad_input_is_named(logdir, tmp_path):
    done = _tw_board(str(tmp_path / "missing"), "--out", str(tmp_path / "x.html"))
    assert done.returncode == 2 and "tw board: %s: no such directory" % (tmp_path / "missing") in done.stderr
    (tmp_path / "empty").mkdir()
    done = _tw_board(str(tmp_path / "empty"), "--out", str(tmp_path / "x.html"))
    assert done.returncode == 2 and "no event files (events.out.tfevents.*) under" in done.stderr
    done = _tw_board(logdir, "--out", str(tmp_path / "x.txt"))
    assert done.returncode == 2 and "the file must end in .html or .png" in done.stderr
    done = _tw_board()
    assert done.returncode == 2 and "LOGDIR" in done.stderr
    assert not (tmp_path / "x.html").exists()


def test_damaged_file_gives_the_events_before_the_damage(logdir, tmp_path):
    damaged = tmp_path / "damaged" / "run_a"
    damaged.mkdir(parents=True)
    (source,) = [f for f in os.listdir(os.path.join(logdir, "run_a"))]
    data = open(os.path.join(logdir, "run_a", source), "rb").read()
    (damaged / source).write_bytes(data[:-20])  # the last record cut short
    warnings = []
    (run,) = board.load_runs([str(tmp_path / "damaged")], warn=warnings.append)
    assert len(warnings) == 1 and source in warnings[0] and "using the events before it" in warnings[0]
    assert sorted(run.scalars["loss"]) == STEPS[:-1]
