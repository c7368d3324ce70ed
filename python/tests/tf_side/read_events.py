"""TensorFlow's side of test_summary_events.py: reads an event directory with TensorBoard's
own EventAccumulator (keeping everything) and each file with TF's summary_iterator, and
prints what they saw as JSON.
    read_events.py LOGDIR"""
import base64
import glob
import json
import os
import sys

import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator as ea


def accumulated(logdir):
    keep_all = {ea.COMPRESSED_HISTOGRAMS: 0, ea.IMAGES: 0, ea.AUDIO: 0, ea.SCALARS: 0, ea.HISTOGRAMS: 0,
                ea.TENSORS: 0, ea.GRAPH: 0}
    acc = ea.EventAccumulator(logdir, size_guidance=keep_all)
    acc.Reload()
    tags = acc.Tags()
    out = {"tags": {k: v for k, v in tags.items() if isinstance(v, list)}, "scalars": {}, "histograms": {},
           "images": {}, "tensors": {}, "graph_nodes": []}
    for tag in tags["scalars"]:
        out["scalars"][tag] = [[e.wall_time, e.step, e.value] for e in acc.Scalars(tag)]
    for tag in tags["histograms"]:
        out["histograms"][tag] = [{"step": e.step, "min": e.histogram_value.min, "max": e.histogram_value.max,
                                   "num": e.histogram_value.num, "sum": e.histogram_value.sum,
                                   "sum_squares": e.histogram_value.sum_squares,
                                   "bucket_limit": list(e.histogram_value.bucket_limit),
                                   "bucket": list(e.histogram_value.bucket)} for e in acc.Histograms(tag)]
    for tag in tags["images"]:
        out["images"][tag] = [{"step": e.step, "width": e.width, "height": e.height,
                               "png": base64.b64encode(e.encoded_image_string).decode("ascii"),
                               "pixels": tf.io.decode_png(e.encoded_image_string).numpy().tolist()}
                              for e in acc.Images(tag)]
    for tag in tags["tensors"]:
        out["tensors"][tag] = [{"step": e.step, "strings": [s.decode("utf-8") for s in e.tensor_proto.string_val]}
                               for e in acc.Tensors(tag)]
    if tags["graph"]:
        out["graph_nodes"] = sorted(n.name for n in acc.Graph().node)
    return out


def iterated(logdir):
    files = {}
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        files[os.path.basename(path)] = [
            {"wall_time": e.wall_time, "step": e.step, "what": e.WhichOneof("what"), "file_version": e.file_version,
             "session_log": e.session_log.status if e.HasField("session_log") else None}
            for e in tf.compat.v1.train.summary_iterator(path)]
    return files


if __name__ == "__main__":
    logdir = sys.argv[1]
    print(json.dumps({"accumulator": accumulated(logdir), "iterator": iterated(logdir)}))
