"""TensorFlow's side of build/bench/dp_training: the same synchronous data-parallel MLP
training (784 -> 256 -> 10, Adam 0.001, batch 128 per worker held on the worker as a
constant) on real TensorFlow servers: 1 ps + WORKERS tf.distribute.Server processes on
loopback, 1 kernel thread each (as tw server --intra_op_threads=1 --inter_op_threads=1
and torch.set_num_threads(1)), in either of tensorweave's modes:
  in_graph:      one client; variables, the mean gradient and Adam on the ps, a tower per
                 worker (seed 003)
  sync_replicas: between-graph; a client thread per worker, replica_device_setter,
                 SyncReplicasOptimizer under MonitoredTrainingSessions (the chief times)
examples/s = global steps x 128 x WORKERS / time; median of REPEATS runs of STEPS steps.
Usage: tf_dp_training.py MODE WORKERS STEPS REPEATS WARMUP"""
import os
import sys
import threading
import time

import peer_env

mode = sys.argv[1]
workers = int(sys.argv[2]) if len(sys.argv) > 2 else 2
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 100
repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 5
warmup = int(sys.argv[5]) if len(sys.argv) > 5 else 30
if mode not in ("in_graph", "sync_replicas"):
    sys.exit(f"tf_dp_training: MODE must be in_graph or sync_replicas, not {mode!r}")
peer_env.configure(1)
import numpy as np  # noqa: E402

import tf_peer  # noqa: E402

v1 = tf_peer.v1
batch, n_in, hidden, n_out = 128, 784, 256, 10


def params():
    return (v1.Variable(v1.truncated_normal([n_in, hidden], stddev=0.05), name="w1"),
            v1.Variable(v1.zeros([hidden]), name="b1"),
            v1.Variable(v1.truncated_normal([hidden, n_out], stddev=0.05), name="w2"),
            v1.Variable(v1.zeros([n_out]), name="b2"))


def loss_of(p, task):
    rng = np.random.RandomState(5 + task)
    x = v1.constant(rng.uniform(size=(batch, n_in)).astype(np.float32))
    labels = v1.constant(np.eye(n_out, dtype=np.float32)[[i % n_out for i in range(batch)]])
    w1, b1, w2, b2 = p
    logits = v1.matmul(v1.nn.relu(v1.matmul(x, w1) + b1), w2) + b2
    return v1.reduce_mean(v1.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))


def time_repeats(global_step_after_train):
    """Examples/s of each repeat; global_step_after_train() runs a step, returns the global step."""
    at = global_step_after_train()
    while at < warmup:
        at = global_step_after_train()
    rates = []
    for _ in range(repeats):
        start, first = time.perf_counter(), at
        while at < first + steps:
            at = global_step_after_train()
        rates.append((at - first) * batch * workers / (time.perf_counter() - start))
    return rates


def in_graph(spec):
    graph = v1.Graph()
    with graph.as_default():
        v1.set_random_seed(1)
        adam = v1.train.AdamOptimizer(0.001)
        with v1.device("/job:ps/task:0"):
            p = params()
            step = v1.train.get_or_create_global_step()
        towers = []
        for t in range(workers):
            with v1.device(f"/job:worker/task:{t}"):
                towers.append(adam.compute_gradients(loss_of(p, t), var_list=list(p)))
        with v1.device("/job:ps/task:0"):
            mean = [(v1.add_n([tower[i][0] for tower in towers]) / workers, var) for i, (_, var) in enumerate(towers[0])]
            train = adam.apply_gradients(mean, global_step=step)
        init = v1.global_variables_initializer()
    with v1.Session("grpc://" + spec["ps"][0], graph=graph, config=tf_peer.config()) as sess:
        sess.run(init)
        run = sess.make_callable([train, step])
        return time_repeats(lambda: run()[1])


def quiet_cancel(args, default=threading.excepthook):
    """The chief's sync-token QueueRunner thread ends with CancelledError when its session closes."""
    if not issubclass(args.exc_type, v1.errors.CancelledError):
        default(args)


def sync_replicas(spec):
    threading.excepthook = quiet_cancel
    cluster = v1.train.ClusterSpec(spec)
    rates, errors = [], []
    chief_ready = threading.Event()

    def worker(task):
        try:
            graph = v1.Graph()
            with graph.as_default():
                v1.set_random_seed(1)
                with v1.device(v1.train.replica_device_setter(cluster=cluster, worker_device=f"/job:worker/task:{task}")):
                    p = params()
                    step = v1.train.get_or_create_global_step()
                    sync = v1.train.SyncReplicasOptimizer(v1.train.AdamOptimizer(0.001), replicas_to_aggregate=workers,
                                                          total_num_replicas=workers)
                    train = sync.minimize(loss_of(p, task), global_step=step)
                hook = sync.make_session_run_hook(task == 0)
                with v1.train.MonitoredTrainingSession(master="grpc://" + spec["worker"][task], is_chief=task == 0,
                                                       hooks=[hook], config=tf_peer.config(), log_step_count_steps=None,
                                                       save_checkpoint_secs=None, save_summaries_steps=None) as sess:
                    if task != 0:
                        while not sess.should_stop():
                            sess.run(train)
                        return
                    chief_ready.set()
                    rates.extend(time_repeats(lambda: sess.run([train, step])[1]))
        except (v1.errors.OutOfRangeError, v1.errors.CancelledError, v1.errors.AbortedError):
            pass  # A non-chief worker's token queue closed as the chief stopped.
        except Exception as e:  # noqa: BLE001 - reported by the main thread.
            errors.append(f"worker {task}: {type(e).__name__}: {e}")
        finally:
            chief_ready.set()

    threads = [threading.Thread(target=worker, args=(0,), daemon=True)]
    threads[0].start()
    chief_ready.wait()  # The others find the model initialized (else they poll every 30 s).
    threads += [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(1, workers)]
    for t in threads[1:]:
        t.start()
    threads[0].join()
    for t in threads[1:]:
        t.join(timeout=10)  # A worker left waiting for a token is ended with the servers.
    if errors:
        raise RuntimeError("; ".join(errors))
    return rates


with tf_peer.cluster({"ps": 1, "worker": workers}) as spec:
    rates = in_graph(spec) if mode == "in_graph" else sync_replicas(spec)
for r, rate in enumerate(rates):
    print(f"repeat {r}: {rate:.0f} examples/s")
median = peer_env.median(rates)
print(f"TensorFlow {tf_peer.tf.__version__} sync data-parallel ({'in-graph' if mode == 'in_graph' else 'SyncReplicas'}) "
      f"MLP 784-256-10 Adam, 1 ps + {workers} worker(s), batch {batch} per worker: {median:.0f} examples/s median "
      f"({1000 * batch * workers / median:.2f} ms/step)", flush=True)
print(f"RESULT examples_per_s={median:.1f}")
sys.stdout.flush()
os._exit(0)  # Daemon client threads may still be inside a TensorFlow call.
