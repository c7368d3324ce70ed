"""Gradients by central differences, the oracle for gradients TensorFlow has not (or has
wrong): each element of x nudged by +-eps in turn."""
import numpy as np


def central_differences(f, x, eps=1e-6):
    """d f / d x for a scalar function f of the float64 array x, element by element."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        grad[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return grad
