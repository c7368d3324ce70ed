"""Shared fixtures: every test starts on a fresh default graph."""
import os
import sys

import pytest

import tensorweave as tf

SOURCE_DIR = os.environ.get("TW_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
EXAMPLES_DIR = os.path.join(SOURCE_DIR, "python", "examples")


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


@pytest.fixture
def sess():
    with tf.Session() as s:
        yield s


def python_env():
    """The environment for a child python3 that must import the same tensorweave."""
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(tf.__file__))
    env["PYTHONPATH"] = package_root + os.pathsep + env.get("PYTHONPATH", "")
    return env


PYTHON = sys.executable
