"""TensorFlow's tf.graph_util answers for test_graph_util.py. argv[1]: JSON request with a
base64 GraphDef and cases; argv[2]: JSON answer. Each case: extract_sub_graph(dest) or
remove_training_nodes(protected) -> the result's deterministic bytes (or the error), or
freeze: import a GraphDef, run init and train steps, convert_variables_to_constants ->
the frozen GraphDef's (name, op) list and the output's value."""
import base64
import json
import sys

import numpy as np
import tensorflow.compat.v1 as tf
graph_util = tf.graph_util

tf.disable_eager_execution()


def graph_def(b64):
    gd = tf.GraphDef()
    gd.ParseFromString(base64.b64decode(b64))
    return gd


def encode(gd):
    return base64.b64encode(gd.SerializeToString(deterministic=True)).decode()


def freeze(case):
    with tf.Graph().as_default() as g, tf.Session() as sess:
        tf.import_graph_def(graph_def(case["graph_def"]), name="")
        sess.run(case["init"])
        feeds = {k: np.array(v, np.float32) for k, v in case["feeds"].items()}
        for _ in range(case["steps"]):
            sess.run(case["train"], feeds)
        live = sess.run(case["output"] + ":0", feeds)
        frozen = graph_util.convert_variables_to_constants(sess, g.as_graph_def(), [case["output"]])
    return {"nodes": [[n.name, n.op] for n in frozen.node], "live": live.tolist()}


def main():
    request = json.load(open(sys.argv[1]))
    gd = graph_def(request["graph_def"])
    answers = []
    for case in request["cases"]:
        try:
            if case["kind"] == "extract":
                answers.append({"bytes": encode(graph_util.extract_sub_graph(gd, case["dest"]))})
            elif case["kind"] == "remove_training":
                answers.append({"bytes": encode(graph_util.remove_training_nodes(gd, case.get("protected")))})
            else:
                answers.append(freeze(case))
        except Exception as e:  # noqa: BLE001 - the error is the answer
            answers.append({"error": type(e).__name__, "message": str(e)})
    json.dump(answers, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
