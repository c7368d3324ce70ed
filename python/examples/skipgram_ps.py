"""Skip-gram word embeddings on parameter servers (issue 17's word2vec: negative sampling
with tf.nn.nce_loss, NUM_SAMPLED log-uniform candidates per step, or --loss softmax for the
full softmax over the small vocabulary): the embedding table and the NCE weights are
partitioned over 2 ps tasks
(tf.fixed_size_partitioner, 'mod' lookups), 2 workers train between-graph (each its own graph
and session, replica_device_setter) on a synthetic corpus whose sentences each draw their
words from one of CLUSTERS planted topics. The gradient of the lookups is IndexedSlices, so
each step moves only the looked-up rows to and from the ps. At the end every word's nearest
neighbour (cosine) should share its topic; prints how many do.

    python3 skipgram_ps.py [--steps 300] [--loss nce|softmax]
"""
import argparse
import threading

import numpy as np

import tensorweave as tf
from tensorweave.local_cluster import start_local_cluster

CLUSTERS, PER_CLUSTER, DIM, BATCH, WINDOW = 6, 8, 16, 64, 2
VOCAB = CLUSTERS * PER_CLUSTER
NUM_SAMPLED = 8


def batches(rng):
    """(center, context) word pairs from sentences of 8 words of one topic each."""
    while True:
        centers, contexts = [], []
        while len(centers) < BATCH:
            topic = rng.integers(CLUSTERS)
            sentence = topic * PER_CLUSTER + rng.integers(PER_CLUSTER, size=8)
            for i, word in enumerate(sentence):
                for j in range(max(0, i - WINDOW), min(len(sentence), i + WINDOW + 1)):
                    if j != i:
                        centers.append(word)
                        contexts.append(sentence[j])
        yield np.array(centers[:BATCH]), np.array(contexts[:BATCH])


def build(cluster, task, loss_kind):
    with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:%d" % task)):
        embeddings = tf.get_variable("embeddings", shape=[VOCAB, DIM],
                                     initializer=tf.random_uniform_initializer(-0.5, 0.5, seed=1),
                                     partitioner=tf.fixed_size_partitioner(2))
        step = tf.train.get_or_create_global_step()
        centers = tf.placeholder(tf.int64, [BATCH])
        contexts = tf.placeholder(tf.int64, [BATCH])
        embedded = tf.nn.embedding_lookup(embeddings, centers, partition_strategy="mod")
        if loss_kind == "nce":
            nce_w = tf.get_variable("nce_w", shape=[VOCAB, DIM],
                                    initializer=tf.truncated_normal_initializer(stddev=0.1, seed=2),
                                    partitioner=tf.fixed_size_partitioner(2))
            nce_b = tf.get_variable("nce_b", shape=[VOCAB], initializer=tf.zeros_initializer())
            loss = tf.reduce_mean(tf.nn.nce_loss(nce_w, nce_b, tf.reshape(contexts, [BATCH, 1]), embedded,
                                                 num_sampled=NUM_SAMPLED, num_classes=VOCAB))
        else:
            softmax_w = tf.get_variable("softmax_w", shape=[DIM, VOCAB],
                                        initializer=tf.truncated_normal_initializer(stddev=0.1, seed=2))
            logits = tf.matmul(embedded, softmax_w)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=contexts, logits=logits))
        train = tf.train.AdagradOptimizer(0.5).minimize(loss, global_step=step)
    return embeddings, centers, contexts, loss, train, step


def worker(cluster, server, task, steps, loss_kind, ready, out):
    with tf.Graph().as_default():
        embeddings, centers, contexts, loss, train, step = build(cluster, task, loss_kind)
        with tf.Session(server.target) as sess:
            if task == 0:
                sess.run(tf.global_variables_initializer())
                ready.set()
            else:
                ready.wait(60)
            data = batches(np.random.default_rng(10 + task))
            losses = []
            while sess.run(step) < steps:
                c, x = next(data)
                losses.append(sess.run([loss, train], {centers: c, contexts: x})[0])
            out[task] = losses
            if task == 0:  # 'mod': word i is row i // 2 of shard i % 2
                shards = sess.run(list(embeddings))
                out["table"] = np.stack([shards[i % 2][i // 2] for i in range(VOCAB)])


def main(steps, loss_kind):
    cluster, servers = start_local_cluster(jobs={"ps": 2, "worker": 2})
    workers = servers[2:]  # servers come in job name order: ps 0, ps 1, worker 0, worker 1
    ready, out = threading.Event(), {}
    threads = [threading.Thread(target=worker, args=(cluster, workers[t], t, steps, loss_kind, ready, out))
               for t in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    table = out["table"] / np.linalg.norm(out["table"], axis=1, keepdims=True)
    similarity = table @ table.T
    np.fill_diagonal(similarity, -np.inf)
    nearest = similarity.argmax(1)
    right = int(np.sum(nearest // PER_CLUSTER == np.arange(VOCAB) // PER_CLUSTER))
    first, last = np.mean(out[0][:10]), np.mean(out[0][-10:])
    print("loss %.3f -> %.3f" % (first, last))
    print("nearest neighbour in the same topic: %d of %d words" % (right, VOCAB))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--loss", choices=("nce", "softmax"), default="nce")
    args = parser.parse_args()
    main(args.steps, args.loss)
