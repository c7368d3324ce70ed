"""Draws `tw board`'s runs with matplotlib (Agg, no display): one panel per scalar tag with a
curve per run, and one per (histogram tag, run) overlaying the histograms of a few steps.
HTML gets each panel as inline SVG with its text kept as text; PNG gets all panels in one image."""
import html
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after choosing the backend
import numpy as np  # noqa: E402

# Text stays <text> in the SVG: selectable, searchable, and readable by tests.
matplotlib.rcParams["svg.fonttype"] = "none"

_HISTOGRAM_BINS = 30  # TensorBoard re-bins histograms into 30 even bins as well
_HISTOGRAM_STEPS = 8  # overlaid steps per histogram panel
_MARKERS_UP_TO = 30  # points per curve drawn with markers


def _run_colors(runs):
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return {run.name: cycle[i % len(cycle)] for i, run in enumerate(runs)}


def _draw_scalar(ax, tag, runs, colors):
    for run in runs:
        points = run.scalars.get(tag)
        if not points:
            continue
        steps = sorted(points)
        ax.plot(steps, [points[s] for s in steps], color=colors[run.name], label=run.name,
                marker="o" if len(steps) <= _MARKERS_UP_TO else None, markersize=3, linewidth=1.5)
    ax.set_title(tag)
    ax.set_xlabel("step")
    ax.set_ylabel(tag)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")


def _even_bins(histo, edges):
    """Counts of `histo` (TF's buckets, each (previous limit, limit]) spread over `edges`,
    in proportion to the overlap of each bucket with each bin."""
    limits = np.asarray(histo.bucket_limit, np.float64)
    counts = np.asarray(histo.bucket, np.float64)
    lefts = np.concatenate([[histo.min], limits[:-1]])
    rights = np.minimum(limits, histo.max)
    lefts = np.maximum(lefts, histo.min)
    out = np.zeros(len(edges) - 1)
    for left, right, count in zip(lefts, rights, counts):
        if count == 0:
            continue
        if right <= left:  # all of it at one value
            out[min(max(np.searchsorted(edges, left, side="right") - 1, 0), len(out) - 1)] += count
            continue
        overlap = np.clip(np.minimum(edges[1:], right) - np.maximum(edges[:-1], left), 0, None)
        out += count * overlap / (right - left)
    return out


def _draw_histogram(fig, ax, tag, run):
    by_step = run.histograms[tag]
    steps = sorted(by_step)
    shown = [steps[i] for i in np.unique(np.linspace(0, len(steps) - 1, min(len(steps), _HISTOGRAM_STEPS)).astype(int))]
    low = min(by_step[s].min for s in shown)
    high = max(by_step[s].max for s in shown)
    if high <= low:
        low, high = low - 0.5, high + 0.5
    edges = np.linspace(low, high, _HISTOGRAM_BINS + 1)
    centers = (edges[:-1] + edges[1:]) / 2
    colormap = plt.get_cmap("viridis")
    norm = matplotlib.colors.Normalize(vmin=shown[0], vmax=max(shown[-1], shown[0] + 1))
    for step in shown:
        ax.plot(centers, _even_bins(by_step[step], edges), color=colormap(norm(step)), linewidth=1.2)
    ax.set_title("%s (%s)" % (tag, run.name))
    ax.set_xlabel(tag)
    ax.set_ylabel("count")
    ax.grid(True, alpha=0.3)
    bar = fig.colorbar(matplotlib.cm.ScalarMappable(norm=norm, cmap=colormap), ax=ax)
    bar.set_label("step")


def _panels(runs):
    """(kind, tag, run or None) for each panel, scalars first, in tag order."""
    scalar_tags = sorted({tag for run in runs for tag in run.scalars})
    histogram_panels = sorted((tag, i) for i, run in enumerate(runs) for tag in run.histograms)
    return ([("scalar", tag, None) for tag in scalar_tags] +
            [("histogram", tag, runs[i]) for tag, i in histogram_panels])


def _draw(fig, ax, panel, runs, colors):
    kind, tag, run = panel
    if kind == "scalar":
        _draw_scalar(ax, tag, runs, colors)
    else:
        _draw_histogram(fig, ax, tag, run)


def write_png(runs, path, columns=2):
    panels = _panels(runs)
    rows = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(6.4 * columns, 4.2 * rows), squeeze=False)
    colors = _run_colors(runs)
    for ax, panel in zip(axes.flat, panels):
        _draw(fig, ax, panel, runs, colors)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _svg(fig):
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and doctype: inline in HTML


def _run_rows(runs):
    rows = []
    for run in runs:
        steps = [s for points in list(run.scalars.values()) + list(run.histograms.values()) for s in points]
        rows.append("<tr><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td></tr>" % (
            html.escape(run.name), len(run.files), len(run.scalars), len(run.histograms),
            max(steps) if steps else "-"))
    return "\n".join(rows)


def write_html(runs, path, title):
    colors = _run_colors(runs)
    figures = []
    for panel in _panels(runs):
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        _draw(fig, ax, panel, runs, colors)
        fig.tight_layout()
        figures.append('<div class="panel">%s</div>' % _svg(fig))
    page = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>tw board: {title}</title>
<style>body{{font-family:sans-serif;margin:16px}} .panel{{display:inline-block;vertical-align:top}}
table{{border-collapse:collapse}} td,th{{border:1px solid #ccc;padding:2px 8px;text-align:left}}</style>
</head><body>
<h1>tw board: {title}</h1>
<table><tr><th>run</th><th>event files</th><th>scalar tags</th><th>histogram tags</th><th>last step</th></tr>
{rows}
</table>
{figures}
</body></html>
""".format(title=html.escape(title), rows=_run_rows(runs), figures="\n".join(figures))
    with open(path, "w", encoding="utf-8") as out:
        out.write(page)
