"""TensorFlow's view of model files, for test_tw_show.py: argv is KIND:PATH items, KIND one of
saved_model (what `saved_model_cli show --all` prints), graph (a GraphDef's or a MetaGraph's
placeholders and variables as TensorFlow imports them) or checkpoint (tf.train.list_variables
with dtypes). Prints one JSON object {item: result}."""
import contextlib
import io
import json
import sys

import tensorflow as tf
from tensorflow.python.tools import saved_model_cli

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def shape_text(shape):
    if shape.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def graph_info(path):
    data = open(path, "rb").read()
    if path.endswith(".meta"):
        meta = tf1.MetaGraphDef()
        meta.ParseFromString(data)
        gd = meta.graph_def
    else:
        gd = tf1.GraphDef()
        try:
            gd.ParseFromString(data)
        except Exception:
            from google.protobuf import text_format
            text_format.Merge(data.decode(), gd)
    with tf1.Graph().as_default() as g:
        tf1.import_graph_def(gd, name="")
    placeholders, variables = [], []
    for op in g.get_operations():
        if op.type == "Placeholder":
            placeholders.append([op.name, op.get_attr("dtype").name, shape_text(tf.TensorShape(op.get_attr("shape")))])
        if op.type in ("VariableV2", "VarHandleOp"):
            shape = tf.TensorShape(op.get_attr("shape"))
            dtype = op.get_attr("dtype")
            variables.append([op.name, dtype.name, shape_text(shape), shape.num_elements() * dtype.size])
    return {"placeholders": placeholders, "variables": variables, "nodes": len(gd.node)}


def main():
    result = {}
    for item in sys.argv[1:]:
        kind, path = item.split(":", 1)
        if kind == "saved_model":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                saved_model_cli._show_all(path)
            result[item] = out.getvalue()
        elif kind == "graph":
            result[item] = graph_info(path)
        else:
            reader = tf.train.load_checkpoint(path)
            dtypes = reader.get_variable_to_dtype_map()
            result[item] = [[name, dtypes[name].name, shape] for name, shape in tf.train.list_variables(path)]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
