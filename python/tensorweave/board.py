"""`tw board LOGDIR... --out run.html|run.png`: the scalar curves and histograms of one or
several runs, drawn with matplotlib, for people without TensorBoard.

A run is a directory holding event files (events.out.tfevents.*), named by its path under the
LOGDIR given, as TensorBoard names runs. Also `python3 -m tensorweave.board`."""
import argparse
import collections
import os
import sys

from tensorweave import errors
from tensorweave.summary import summary_iterator

Run = collections.namedtuple("Run", "name files scalars histograms")  # tag -> {step: value}


class BoardError(Exception):
    """Bad input named for the user: printed as `tw board: <message>`, exit status 2."""


def _is_event_file(name):
    return "tfevents" in name


def find_runs(logdir):
    """(run name, [event files, oldest first]) for each directory under `logdir` with event files."""
    if not os.path.isdir(logdir):
        raise BoardError("%s: no such directory" % logdir)
    found = []
    for directory, subdirs, files in os.walk(logdir):
        subdirs.sort()
        events = sorted(f for f in files if _is_event_file(f))
        if events:
            relative = os.path.relpath(directory, logdir)
            name = os.path.basename(os.path.abspath(logdir)) if relative == "." else relative
            found.append((name, [os.path.join(directory, f) for f in events]))
    return found


def _scalar_of(value):
    """The float a Summary.Value carries as a scalar: simple_value, or a one-element float tensor
    (what TF2's tf.summary.scalar writes); None for anything else."""
    kind = value.WhichOneof("value")
    if kind == "simple_value":
        return float(value.simple_value)
    if kind == "tensor" and value.tensor.dtype in (1, 2):  # DT_FLOAT, DT_DOUBLE
        import numpy as np
        t = value.tensor
        if t.tensor_content:
            items = np.frombuffer(t.tensor_content, np.float32 if t.dtype == 1 else np.float64)
        else:
            items = list(t.float_val) or list(t.double_val)
        if len(items) == 1 and not t.tensor_shape.dim:
            return float(items[0])
    return None


def load_run(name, files, warn=print):
    """Reads a run's scalars and histograms. A step written twice (a restarted job) keeps its last
    value. A damaged file gives what precedes the damage, with a warning."""
    scalars = collections.defaultdict(dict)
    histograms = collections.defaultdict(dict)
    for path in files:
        try:
            for event in summary_iterator(path):
                for value in event.summary.value:
                    scalar = _scalar_of(value)
                    if scalar is not None:
                        scalars[value.tag][event.step] = scalar
                    elif value.WhichOneof("value") == "histo":
                        histograms[value.tag][event.step] = value.histo
        except errors.DataLossError as e:
            warn("tw board: %s; using the events before it" % e.message)
    return Run(name, files, dict(scalars), dict(histograms))


def load_runs(logdirs, warn=print):
    runs = []
    for logdir in logdirs:
        for name, files in find_runs(logdir):
            if len(logdirs) > 1 and name != os.path.basename(os.path.abspath(logdir)):
                name = os.path.join(os.path.basename(os.path.abspath(logdir)), name)
            runs.append(load_run(name, files, warn))
    if not runs:
        raise BoardError("no event files (events.out.tfevents.*) under %s" % ", ".join(logdirs))
    if not any(run.scalars or run.histograms for run in runs):
        raise BoardError("the event files under %s hold no scalar or histogram summaries" % ", ".join(logdirs))
    return runs


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tw board", description="Draw the scalar curves and histograms of TensorBoard event files.")
    parser.add_argument("logdirs", nargs="+", metavar="LOGDIR",
                        help="a directory of runs (each directory below it with event files is a run)")
    parser.add_argument("--out", default="board.html",
                        help="the file to write: .html (curves as SVG, text selectable) or .png (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        from tensorweave import board_render
        extension = os.path.splitext(args.out)[1].lower()
        if extension not in (".html", ".htm", ".png"):
            raise BoardError("--out %s: the file must end in .html or .png" % args.out)
        runs = load_runs(args.logdirs, warn=lambda line: print(line, file=sys.stderr))
        if extension == ".png":
            board_render.write_png(runs, args.out)
        else:
            board_render.write_html(runs, args.out, title=" ".join(args.logdirs))
    except BoardError as e:
        print("tw board: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("tw board: %s" % e, file=sys.stderr)
        return 1
    scalar_tags = sorted({t for r in runs for t in r.scalars})
    histogram_tags = sorted({t for r in runs for t in r.histograms})
    print("tw board: %d run%s (%s), %d scalar tag%s, %d histogram tag%s -> %s" % (
        len(runs), "" if len(runs) == 1 else "s", ", ".join(r.name for r in runs),
        len(scalar_tags), "" if len(scalar_tags) == 1 else "s",
        len(histogram_tags), "" if len(histogram_tags) == 1 else "s", args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
