"""python3 -m tensorweave.server --cluster_spec=... --job_name=... --task_index=...

Runs one task of a cluster, as `tw server`: --cluster_spec takes the seeds' syntax
("job1|host:port;host:port,job2|host:port"); without it the cluster, job and task come from
the TF_CONFIG environment variable. Stops on SIGINT or SIGTERM."""
import argparse
import os
import signal
import sys

from tensorweave import _core, errors, train


def _parse_args(argv):
    parser = argparse.ArgumentParser(prog="python3 -m tensorweave.server", description=__doc__.splitlines()[2])
    parser.add_argument("--cluster_spec", default="", help="job1|host:port;host:port,job2|host:port")
    parser.add_argument("--job_name", default="", help="this task's job")
    parser.add_argument("--task_index", type=int, default=None, help="this task's index in its job")
    parser.add_argument("--rpc_timeout_ms", type=int, default=0, help="deadline of calls between tasks")
    # As `tw server`'s flags (tw::ServerOptions).
    parser.add_argument("--tls_cert", help="serve TLS only, with this certificate (PEM) and --tls_key")
    parser.add_argument("--tls_key", help="the private key (PEM) of --tls_cert")
    parser.add_argument("--tls_ca", help="require client certificates signed by these CAs (PEM)")
    parser.add_argument("--cluster_token_file", help="require this shared token on every call (and send it)")
    parser.add_argument("--insecure_allow_remote", action="store_true",
                        help="serve a non-loopback address without TLS or a token")
    parser.add_argument("--file_access_root", help="graphs may read and write files only under this directory")
    for name in train.ResourceLimits._FIELDS:
        parser.add_argument("--" + name, type=int, help="resource limit (tw server --help)")
    return parser.parse_args(argv)


def main(argv=None):
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.cluster_spec:
            cluster = train.ClusterSpec(_core.ClusterSpec.parse(args.cluster_spec))
            job, task = args.job_name, 0 if args.task_index is None else args.task_index
            if not job:
                raise ValueError("--job_name is required with --cluster_spec")
        elif "TF_CONFIG" in os.environ:
            core_cluster, job, task = _core.ClusterSpec.from_tf_config(os.environ["TF_CONFIG"])
            cluster = train.ClusterSpec(core_cluster)
            job = args.job_name or job
            task = task if args.task_index is None else args.task_index
        else:
            raise ValueError("give --cluster_spec (or a TF_CONFIG environment variable)")
        security = train.TransportSecurity(cluster_token_file=args.cluster_token_file, tls_ca_file=args.tls_ca,
                                           tls_cert_file=args.tls_cert, tls_key_file=args.tls_key)
        limits = train.ResourceLimits(**{name: getattr(args, name) for name in train.ResourceLimits._FIELDS})
        server = train.Server(cluster, job_name=job, task_index=task, rpc_timeout_ms=args.rpc_timeout_ms,
                              security=security, insecure_allow_remote=args.insecure_allow_remote, limits=limits,
                              file_access_root=args.file_access_root)
    except (ValueError, TypeError, errors.OpError) as e:
        print("tensorweave.server: %s" % e, file=sys.stderr)
        return 2
    # SIGTERM stops like Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda signum, frame: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        print("Started server /job:%s/task:%d at %s" % (job, task, server.target), flush=True)
        server.join()
    except KeyboardInterrupt:
        server.stop()  # Already stopped when join was interrupted; not when the print was.
        print("Server /job:%s/task:%d stopped" % (job, task), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
