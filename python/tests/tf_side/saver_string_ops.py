"""TensorFlow's side of test_tf_ref_graphs.py's string-op cases: runs ShardedFilename,
ShardedFilespec and StaticRegexFullMatch (tf.raw_ops) on the JSON cases in CASES and prints
one JSON result per case ({"value": ...} or {"error": <exception class name>}).
    saver_string_ops.py CASES"""
import json
import sys

import tensorflow as tf


def run(case):
    op, args = case["op"], case["args"]
    try:
        if op == "ShardedFilename":
            value = tf.raw_ops.ShardedFilename(basename=args[0], shard=args[1], num_shards=args[2])
        elif op == "ShardedFilespec":
            value = tf.raw_ops.ShardedFilespec(basename=args[0], num_shards=args[1])
        else:
            value = tf.raw_ops.StaticRegexFullMatch(input=args[0], pattern=args[1])
        value = value.numpy()
        return {"value": value.decode() if isinstance(value, bytes) else bool(value)}
    except Exception as e:  # the kind of error is what the test compares
        return {"error": type(e).__name__}


if __name__ == "__main__":
    print(json.dumps([run(c) for c in json.loads(open(sys.argv[1]).read())]))
