"""Prints the ops each differential test covers, one "<list> <op>" a line, for the C++
registry-wide op test (tests/op_registry/op_coverage.cc): the Python test files stay the one
place where an op is mapped to its test."""
import test_tf_oracle_grads as grads
import test_tf_oracle_ops as ops

for op in sorted(set(ops.SPECS) | set(ops.EXCLUDED)):
    print("kernel", op)
for op in sorted(set(grads.GRAD_SPECS) | set(grads.GRAD_EXCLUDED)):
    print("gradient", op)
for op in sorted(grads.NO_GRADIENT_IN_EITHER):
    print("no_gradient", op)
