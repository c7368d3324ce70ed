"""TensorFlow's text form of GraphDefs, for test_tw_convert.py. argv: pairs BINARY TEXT: prints
one JSON object {BINARY: [TensorFlow's text_format of it, whether TEXT (tw convert's) parses
with TensorFlow's GraphDef into the same message]}."""
import json
import sys

import tensorflow as tf
from google.protobuf import text_format


def main():
    result = {}
    args = sys.argv[1:]
    for binary, text in zip(args[::2], args[1::2]):
        gd = tf.compat.v1.GraphDef()
        with open(binary, "rb") as f:
            gd.ParseFromString(f.read())
        ours = tf.compat.v1.GraphDef()
        with open(text) as f:
            text_format.Parse(f.read(), ours)
        result[binary] = [text_format.MessageToString(gd), ours == gd]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
