"""TensorFlow's error texts for bad Multinomial inputs (test_multinomial.py). Prints JSON:
case -> the kernel's message."""
import json
import re

import numpy as np
import tensorflow as tf

CASES = {
    "negative_samples": dict(logits=np.zeros((2, 3), np.float32), num_samples=-1),
    "not_a_matrix": dict(logits=np.zeros((3,), np.float32), num_samples=2),
    "no_classes": dict(logits=np.zeros((2, 0), np.float32), num_samples=2),
}
out = {}
for name, args in CASES.items():
    try:
        tf.raw_ops.Multinomial(**args)
        out[name] = None
    except tf.errors.InvalidArgumentError as e:
        out[name] = re.sub(r"^\{\{.*?\}\} ", "", e.message).split(" [Op:")[0]
print(json.dumps(out))
