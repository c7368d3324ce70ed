"""TensorFlow's answers for test_graph_def_workflow.py: argv[1] is a JSON request file,
argv[2] the JSON answer file. Requests: import cases on a GraphDef (names of the returned
elements, the ops added, errors), write_graph of a GraphDef, make_tensor_proto cases,
and re-serializing a GraphDef in TF's own class."""
import base64
import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf
from google.protobuf import text_format

tf.disable_eager_execution()


def graph_def(b64):
    gd = tf.GraphDef()
    gd.ParseFromString(base64.b64decode(b64))
    return gd


def element_name(e):
    return e.name if isinstance(e, tf.Tensor) else "op:" + e.name


def import_case(gd, case):
    if case.get("graph_def"):
        gd = graph_def(case["graph_def"])
    with tf.Graph().as_default() as g:
        tf.constant(1.0, name="existing")
        existing = set(op.name for op in g.get_operations())
        for _ in range(case.get("times", 1) - 1):
            tf.import_graph_def(gd, name=case.get("name"))
        input_map = {k: g.as_graph_element(v) for k, v in case.get("input_map_names", {}).items()}
        for k, v in case.get("input_map_consts", {}).items():
            input_map[k] = tf.constant(v, name="mapped")
        try:
            controls = [g.get_operation_by_name("existing")] if case.get("under_control") else []
            with tf.device(case.get("device")), tf.control_dependencies(controls):
                r = tf.import_graph_def(gd, input_map=input_map or None, return_elements=case.get("return_elements"),
                                        name=case.get("name"))
        except Exception as e:  # noqa: BLE001 - the error is the answer
            return {"error": type(e).__name__, "message": str(e)}
        ops = [op.name for op in g.get_operations() if op.name not in existing]
        node_defs = {op.name: base64.b64encode(op.node_def.SerializeToString()).decode()
                     for op in g.get_operations() if op.name in case.get("node_defs", [])}
        return {"returned": None if r is None else [element_name(e) for e in r], "ops": ops,
                "node_defs": node_defs}


def tensor_case(case):
    kw = {}
    if case.get("dtype"):
        kw["dtype"] = tf.as_dtype(case["dtype"])
    if case.get("shape") is not None:
        kw["shape"] = case["shape"]
    values = case["values"]
    if case.get("numpy"):
        values = np.array(values, dtype=case["numpy"])
    if case.get("bytes"):
        values = [v.encode() for v in values] if isinstance(values, list) else values.encode()
    proto = tf.make_tensor_proto(values, **kw)
    array = tf.make_ndarray(proto)
    value = [v.decode("latin-1") for v in array.ravel()] if array.dtype == object else array.ravel().tolist()
    return {"proto": base64.b64encode(proto.SerializeToString(deterministic=True)).decode(),
            "dtype": str(array.dtype), "shape": list(array.shape), "value": value}


def normalized(value):
    """A get_attr result as JSON: dtypes by name, messages as base64, bytes as latin-1."""
    if isinstance(value, list):
        return [normalized(v) for v in value]
    if isinstance(value, tf.DType):
        return "dtype:" + value.name
    if hasattr(value, "SerializeToString"):
        return "proto:" + base64.b64encode(value.SerializeToString(deterministic=True)).decode()
    if isinstance(value, bytes):
        return "bytes:" + value.decode("latin-1")
    return value


def attrs_of(b64, wanted):
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def(b64), name="")
        return [normalized(g.get_operation_by_name(op).get_attr(attr)) for op, attr in wanted]


def main():
    request = json.load(open(sys.argv[1]))
    answer = {}
    gd = graph_def(request["graph_def"])
    answer["reserialized"] = base64.b64encode(gd.SerializeToString(deterministic=True)).decode()
    answer["text"] = text_format.MessageToString(gd)
    out_dir = request["write_dir"]
    try:
        tf.io.write_graph(gd, out_dir, "tf.pbtxt", as_text=True)
    except TypeError:  # protobuf 7 (this venv) dropped float_format: the same text for exact floats
        with open(os.path.join(out_dir, "tf.pbtxt"), "w") as f:
            f.write(text_format.MessageToString(gd))
    tf.io.write_graph(gd, out_dir, "tf.pb", as_text=False)
    answer["tensors"] = [tensor_case(c) for c in request.get("tensors", [])]
    answer["imports"] = [import_case(gd, c) for c in request.get("imports", [])]
    if request.get("attrs"):
        answer["attrs"] = attrs_of(request["attrs"]["graph_def"], request["attrs"]["wanted"])
    answer["configs"] = []
    for kind, b64 in request.get("configs", []):  # TF re-serializes our bytes; its own for the default
        message = getattr(tf, kind)()
        message.ParseFromString(base64.b64decode(b64))
        answer["configs"].append([base64.b64encode(message.SerializeToString(deterministic=True)).decode(),
                                  text_format.MessageToString(message)])
    json.dump(answer, open(sys.argv[2], "w"))
    os.sync()


if __name__ == "__main__":
    main()
