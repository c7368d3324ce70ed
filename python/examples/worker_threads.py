"""The between-graph examples' workers as threads of one process: runs worker(task) for
each task on its own thread, waits for all, stops the local cluster's servers, and raises
the first error a worker met (a thread's exception would otherwise only be printed)."""
import threading


def run_worker_threads(worker, tasks, servers):
    errors = []

    def run(task):
        try:
            worker(task)
        except Exception as e:  # Raised again below, on the caller's thread.
            errors.append(e)

    threads = [threading.Thread(target=run, args=(t,)) for t in tasks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for server in servers:
        server.stop()
    if errors:
        raise errors[0]
