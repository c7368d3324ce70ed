"""tf.train.Coordinator and tf.train.LooperThread, as TensorFlow 1.x: threads of a training
program agree when to stop, and the first error any of them reports is raised again by
join(). OutOfRangeError (the end of the input) is a clean stop, not an error."""
import threading
import time

from tensorweave import errors
from tensorweave import tf_logging as logging


class Coordinator:
    """request_stop(ex) from any thread; should_stop() polled by the loops; join(threads)
    waits for them (at most stop_grace_period_secs after the stop request) and re-raises
    the exception given to request_stop."""

    def __init__(self, clean_stop_exception_types=None):
        self._clean_stop_exception_types = (tuple(clean_stop_exception_types)
                                            if clean_stop_exception_types is not None
                                            else (errors.OutOfRangeError,))
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        if isinstance(ex, tuple):
            ex2 = ex[1]
        else:
            ex2 = ex
        if isinstance(ex2, self._clean_stop_exception_types):
            ex = None  # The end of the input: a clean stop.
        return ex

    def request_stop(self, ex=None):
        """Asks every thread to stop. ex: an exception (or sys.exc_info()) to re-raise in join()."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    _, ex_instance, _ = ex
                else:
                    ex_instance = ex
                if ex_instance is not None:
                    # The stop was already joined: report it, as TF, instead of losing it.
                    logging.error("Error reported to Coordinator after join: %r", ex_instance)
                    raise ex_instance
            if not self._stop_event.is_set():
                if ex and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        logging.info("Error reported to Coordinator: %s", ex[1])
                        self._exc_info_to_raise = ex
                    else:
                        logging.info("Error reported to Coordinator: %s, %s", type(ex), ex)
                        self._exc_info_to_raise = (type(ex), ex, ex.__traceback__)
                    if not isinstance(self._exc_info_to_raise[1], BaseException):
                        raise ValueError("ex must be an exception or a sys.exc_info() tuple, got %r" % (ex,))
                self._stop_event.set()

    def clear_stop(self):
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self):
        return self._stop_event.is_set()

    def stop_on_exception(self):
        """A context manager: an exception inside it requests a stop (and is swallowed)."""
        return _StopOnException(self)

    def wait_for_stop(self, timeout=None):
        """True once a stop was requested; False when `timeout` seconds passed first."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for `threads` (and the registered ones) to end; re-raises the exception
        reported with request_stop. RuntimeError naming the threads still running
        stop_grace_period_secs after the stop request (unless ignore_live_threads)."""
        with self._lock:
            if threads is None:
                threads = self._registered_threads
            else:
                threads = self._registered_threads.union(set(threads))
            threads = list(threads)
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        stop_wait_secs = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait_secs)
            stop_grace_period_secs -= stop_wait_secs
            stop_wait_secs = min(2 * stop_wait_secs, 1.0)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _, ex_instance, tb = self._exc_info_to_raise
                raise ex_instance.with_traceback(tb)
            if stragglers:
                if ignore_live_threads:
                    logging.info("Coordinator stopped with threads still running: %s", " ".join(stragglers))
                else:
                    raise RuntimeError("Coordinator stopped with threads still running: %s" % " ".join(stragglers))

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        with self._lock:
            if self._exc_info_to_raise:
                _, ex_instance, tb = self._exc_info_to_raise
                raise ex_instance.with_traceback(tb)


class _StopOnException:
    def __init__(self, coord):
        self._coord = coord

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            return False
        self._coord.request_stop((exc_type, exc, tb))
        return True


class LooperThread(threading.Thread):
    """Calls run_loop() every timer_interval_secs (the first call at once) until the
    coordinator stops, then stop_loop(); an exception stops the coordinator with it."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError("'coord' argument must be a Coordinator: %s" % coord)
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(max(0.0, next_timer_time - time.time())):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        pass

    def stop_loop(self):
        pass

    def run_loop(self):
        if self._target:
            self._target(*self._args, **self._kwargs)

