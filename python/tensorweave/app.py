"""tf.app: run(main, argv) as TensorFlow 1.x had it: parse the flags, call main with the
arguments left, exit with its return value."""
import sys

from tensorweave import flags

__all__ = ["run", "flags"]


def run(main=None, argv=None):
    args = sys.argv if argv is None else argv
    if any(a in ("--help", "-help", "--helpfull", "-h") for a in args[1:]):
        print(f"usage: {args[0]} [flags]\n\nflags:\n{flags.FLAGS.get_help()}")
        sys.exit(0)
    try:
        rest = flags.FLAGS(args, known_only=True)
    except flags.Error as e:
        print(f"FATAL Flags parsing error: {e}\nPass --help to see the flags.", file=sys.stderr)
        sys.exit(1)
    main = main or sys.modules["__main__"].main
    sys.exit(main(rest))
