"""Progress lines for the examples' training loops: the step out of the total, the loss,
steps per second and the time left, e.g.
    step 200/400  loss 0.3881  83.1 steps/s  ETA 2s
Each line is written whole: the between-graph examples run their workers as threads that
share stdout, and print() writes the text and its newline separately."""
import sys
import threading
import time

_lock = threading.Lock()


def say(line):
    with _lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class Progress:
    """Call step(global_step, loss) after every step; it prints at step 1 and every
    `every` steps. The rate counts global steps since the first line (all workers' steps
    when they share the global step)."""

    def __init__(self, total, label="", every=100):
        self._total, self._label, self._every = total, label, every
        self._first = None  # (step, time) of the first line

    def step(self, step, loss):
        if step != 1 and step % self._every:
            return
        now = time.monotonic()
        line = "%sstep %d/%d  loss %.4f" % (self._label, step, self._total, loss)
        if self._first is None:
            self._first = (step, now)
        elif step > self._first[0] and now > self._first[1]:
            rate = (step - self._first[0]) / (now - self._first[1])
            line += "  %.1f steps/s  ETA %ds" % (rate, round(max(self._total - step, 0) / rate))
        say(line)
