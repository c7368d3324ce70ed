"""Timelines: RunMetadata.step_stats of traced runs (tf.RunOptions(trace_level=FULL_TRACE))
and timeline.Timeline's Chrome trace JSON, on a local session with two CPU devices and on a
real 2-task cluster (a ps process and a worker task in this process). TensorFlow's own
timeline.Timeline (tf_side/timeline_events.py) reads our RunMetadata bytes and must give
the same processes and op events as ours."""
import json
import os

import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

LOCAL = "/job:localhost/replica:0/task:0/device:CPU:%d"


def _traced_run(sess, fetch):
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    value = sess.run(fetch, options=options, run_metadata=metadata)
    return value, metadata


def _chain_graph(first_device, second_device):
    """b = (a * 2) on the first device, d = (b + 1) * 3 on the second: one Send/Recv pair."""
    g = tf.Graph()
    with g.as_default():
        with tf.device(first_device):
            a = tf.constant([1.0, 2.0, 3.0], name="a")
            b = tf.multiply(a, tf.constant(2.0, name="two"), name="b")
        with tf.device(second_device):
            c = tf.add(b, tf.constant(1.0, name="one"), name="c")
            d = tf.multiply(c, tf.constant(3.0, name="three"), name="d")
    return g, d


def _nodes(metadata):
    """node name -> (device, NodeExecStats); each node recorded once."""
    nodes = {}
    for dev in metadata.step_stats.dev_stats:
        for ns in dev.node_stats:
            assert ns.node_name not in nodes, ns.node_name
            assert 0 <= ns.op_start_rel_micros <= ns.op_end_rel_micros <= ns.all_end_rel_micros
            assert ns.timeline_label.startswith(ns.node_name + " = ")
            nodes[ns.node_name] = (dev.device, ns)
    return nodes


def _end(ns):
    return ns.all_start_micros + ns.all_end_rel_micros


def _transfer(nodes, op):
    found = [(name, dev, ns) for name, (dev, ns) in nodes.items() if " = %s(" % op in ns.timeline_label]
    assert len(found) == 1, (op, found)
    return found[0]


def _check_chain(metadata, first, second):
    nodes = _nodes(metadata)
    assert {dev.device for dev in metadata.step_stats.dev_stats} == {first, second}
    for name, device in (("a", first), ("b", first), ("c", second), ("d", second)):
        assert nodes[name][0] == device, (name, nodes[name][0])
    _, send_dev, send = _transfer(nodes, "_Send")
    _, recv_dev, recv = _transfer(nodes, "_Recv")
    assert (send_dev, recv_dev) == (first, second)
    assert "@" + second in send.timeline_label and "@" + first in recv.timeline_label
    assert "us in the rendezvous" in recv.timeline_label
    # Along the chain, each node starts after its input's producer ended.
    a, b, c, d = (nodes[n][1] for n in "abcd")
    assert b.all_start_micros >= _end(a)
    assert send.all_start_micros >= _end(b)
    assert _end(recv) >= _end(b)
    assert c.all_start_micros >= _end(recv)
    assert d.all_start_micros >= _end(c)
    assert d.timeline_label == "d = Mul(c, three)"
    (out,) = d.output
    assert out.slot == 0 and out.tensor_description.dtype == tf.float32.as_datatype_enum
    assert [dim.size for dim in out.tensor_description.shape.dim] == [3]
    assert out.tensor_description.allocation_description.requested_bytes == 12
    return nodes


def _check_trace(metadata, first, second):
    trace = json.loads(tf.python.client.timeline.Timeline(metadata.step_stats).generate_chrome_trace_format())
    events = trace["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    devices = [dev.device for dev in metadata.step_stats.dev_stats]
    expected = {0: "Allocators"}
    for i, dev in enumerate(devices):
        expected[1 + 2 * i] = dev + " Compute"
        expected[2 + 2 * i] = dev + " Tensors"
    assert processes == expected
    pid = {dev: 1 + 2 * i for i, dev in enumerate(devices)}
    ops = [e for e in events if e["ph"] == "X"]
    assert sorted(e["args"]["name"] for e in ops) == sorted(_nodes(metadata))
    for e in ops:
        assert set(e) >= {"pid", "tid", "ts", "dur", "name", "args", "cat"}
        assert e["args"]["op"] == e["name"] and e["dur"] >= 0
    d = next(e for e in ops if e["args"]["name"] == "d")
    assert d["pid"] == pid[second] and d["name"] == "Mul" and (d["args"]["input0"], d["args"]["input1"]) == ("c", "three")
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "t"}
    assert starts.keys() == ends.keys() and starts
    # The Send -> Recv arrow crosses from the first device's process to the second's.
    crossing = [(starts[i], ends[i]) for i in starts if (starts[i]["pid"], ends[i]["pid"]) == (pid[first], pid[second])]
    assert crossing, events
    recv = next(e for e in ops if e["name"] == "_Recv")
    assert any(t["ts"] >= recv["ts"] and t["ts"] <= recv["ts"] + recv["dur"] and t["tid"] == recv["tid"]
               for _, t in crossing)
    return events


def _check_tf_reads_it(metadata, ours, tmp_path):
    """TF's timeline on our bytes: the same processes and op events (flows are ours only for
    Send -> Recv, which TF's timeline does not draw)."""
    python = require_tensorflow("test_timeline")
    path = tmp_path / "run_metadata.pb"
    path.write_bytes(metadata.SerializeToString())
    theirs = json.loads(run_tf_script(python, "timeline_events.py", str(path)))["traceEvents"]

    def key(e):
        return json.dumps({k: e[k] for k in ("ph", "name", "pid", "tid", "ts", "dur", "args") if k in e},
                          sort_keys=True)
    pick = ("M", "X")
    assert sorted(key(e) for e in theirs if e["ph"] in pick) == sorted(key(e) for e in ours if e["ph"] in pick)


def test_local_session_on_two_devices(tmp_path):
    g, d = _chain_graph("/cpu:1", "/cpu:0")
    with tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        value, metadata = _traced_run(sess, d)
        assert value.tolist() == [9.0, 15.0, 21.0]
        _check_chain(metadata, LOCAL % 1, LOCAL % 0)
        events = _check_trace(metadata, LOCAL % 1, LOCAL % 0)
        _check_tf_reads_it(metadata, events, tmp_path)
        # Untraced runs record nothing.
        metadata = tf.RunMetadata()
        sess.run(d, run_metadata=metadata)
        assert metadata.step_stats.ByteSize() == 0
        sess.run(d, options=tf.RunOptions(trace_level=tf.RunOptions.NO_TRACE), run_metadata=metadata)
        assert metadata.step_stats.ByteSize() == 0


def test_timeline_import_paths_and_bad_input():
    from tensorweave.python.client import timeline
    from tensorweave.client import timeline as same
    assert timeline is same and timeline.Timeline is tf.python.client.timeline.Timeline
    from tensorweave.core.framework import step_stats_pb2
    empty = json.loads(timeline.Timeline(step_stats_pb2.StepStats()).generate_chrome_trace_format())
    assert empty["traceEvents"] == [{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "Allocators"}}]
    with pytest.raises(TypeError, match="StepStats"):
        timeline.Timeline(b"not a message")


def test_two_task_cluster(ps_and_worker, tmp_path):
    """Each task's partition reports its device's stats; the master merges them."""
    ps, worker = "/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0"
    g, d = _chain_graph("/job:ps/task:0", "/job:worker/task:0")
    with tf.Session(ps_and_worker[1].target, graph=g) as sess:
        value, metadata = _traced_run(sess, d)
        assert value.tolist() == [9.0, 15.0, 21.0]
        _check_chain(metadata, ps, worker)
        events = _check_trace(metadata, ps, worker)
        _check_tf_reads_it(metadata, events, tmp_path)
        metadata = tf.RunMetadata()
        sess.run(d, run_metadata=metadata)
        assert metadata.step_stats.ByteSize() == 0


def test_tw_run_trace_writes_the_timeline(tmp_path):
    """`tw run --trace FILE`: the same Chrome trace JSON from the C++ command line."""
    import subprocess

    from tf_peer import BUILD_DIR
    g, d = _chain_graph("/cpu:0", "/cpu:0")
    tf.train.write_graph(g.as_graph_def(), str(tmp_path), "chain.pb", as_text=False)
    trace = tmp_path / "trace.json"
    done = subprocess.run([os.path.join(BUILD_DIR, "tools", "tw"), "run", "--graph", str(tmp_path / "chain.pb"),
                           "--fetch", "d", "--trace", str(trace)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "d = float32 [3] [9 15 21]\n"
    events = json.loads(trace.read_text())["traceEvents"]
    assert "wrote the timeline of %d nodes on 1 device(s)" % sum(e["ph"] == "X" for e in events) in done.stderr
    assert [e["args"]["name"] for e in events if e["ph"] == "M"] == ["Allocators", LOCAL % 0 + " Compute",
                                                                   LOCAL % 0 + " Tensors"]
    ops = {e["args"]["name"]: e for e in events if e["ph"] == "X"}
    assert {"a", "b", "c", "d"} <= set(ops) and all(e["pid"] == 1 for e in ops.values())
    assert ops["c"]["name"] == "Add" and (ops["c"]["args"]["input0"], ops["c"]["args"]["input1"]) == ("b", "one")
    bad = subprocess.run([os.path.join(BUILD_DIR, "tools", "tw"), "run", "--graph", str(tmp_path / "chain.pb"),
                          "--fetch", "d", "--trace", str(tmp_path / "no" / "such" / "dir.json")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "--trace: cannot write" in bad.stderr
