"""tf.app.run, tf.flags / tf.app.flags and tf.logging with TensorFlow 1.x's behaviour, run as
TF1 programs run them: a script with flags, started with a command line."""
import subprocess
import sys
import textwrap

import pytest

import tensorweave as tf
from conftest import python_env

PROGRAM = textwrap.dedent("""
    import tensorweave as tf
    flags = tf.app.flags
    FLAGS = flags.FLAGS
    flags.DEFINE_string("data_dir", "/tmp/data", "Where the data is.")
    flags.DEFINE_integer("steps", "10", "Training steps.", lower_bound=1)
    flags.DEFINE_float("learning_rate", 0.5, "Learning rate.")
    flags.DEFINE_boolean("fake_data", False, "Use fake data.")
    flags.DEFINE_bool("verbose", True, "Talk.")
    flags.DEFINE_list("hosts", "a,b", "Hosts.")
    flags.DEFINE_enum("mode", "train", ["train", "eval"], "Mode.")
    tf.flags.DEFINE_multi_string("tag", [], "Tags.")

    def main(argv):
        print(FLAGS.data_dir, FLAGS.steps, FLAGS.learning_rate, FLAGS.fake_data, FLAGS.verbose,
              ",".join(FLAGS.hosts), FLAGS.mode, "+".join(FLAGS.tag), argv[1:])
        return 3

    if __name__ == "__main__":
        tf.app.run()
""")


def run_program(tmp_path, *args):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return subprocess.run([sys.executable, str(path), *args], env=python_env(), capture_output=True, text=True,
                          timeout=60)


def test_app_run_parses_flags_and_exits_with_mains_value(tmp_path):
    done = run_program(tmp_path)
    assert done.returncode == 3, done.stderr
    assert done.stdout.split("\n")[0] == "/tmp/data 10 0.5 False True a,b train  []"
    done = run_program(tmp_path, "--data_dir=/x", "--steps", "7", "--learning_rate=0.01", "--fake_data",
                       "--noverbose", "--hosts=h1,h2,h3", "--mode=eval", "--tag=a", "--tag", "b", "extra",
                       "--unknown=1", "--", "--steps=99")
    assert done.returncode == 3, done.stderr
    assert done.stdout.split("\n")[0] == \
        "/x 7 0.01 True False h1,h2,h3 eval a+b ['extra', '--unknown=1', '--steps=99']"


@pytest.mark.parametrize("args,message", [
    (["--steps=ten"], "flag --steps=ten: invalid literal for int()"),
    (["--steps=0"], "flag --steps=0: must be at least 1"),
    (["--mode=test"], "flag --mode=test: must be one of train, eval"),
    (["--fake_data=maybe"], "is not a boolean"),
    (["--data_dir"], "flag --data_dir needs a value"),
])
def test_bad_flag_values_name_the_flag(tmp_path, args, message):
    done = run_program(tmp_path, *args)
    assert done.returncode == 1
    assert "FATAL Flags parsing error" in done.stderr and message in done.stderr, done.stderr


def test_help_prints_every_flag_and_exits_0(tmp_path):
    done = run_program(tmp_path, "--help")
    assert done.returncode == 0
    assert "--learning_rate: Learning rate." in done.stdout and "(default: 0.5)" in done.stdout


def test_flags_parse_sys_argv_on_first_read(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["prog", "--batch_size=32", "--other"])
    fv = tf.flags._FlagValues()
    fv._define(tf.flags._Flag("batch_size", 8, "", int, "integer"))
    assert not fv.is_parsed()
    assert fv.batch_size == 32
    fv.batch_size = 64  # programs assign flags too
    assert fv.batch_size == 64 and fv.flag_values_dict() == {"batch_size": 64}
    with pytest.raises(AttributeError, match="no flag named 'nope'"):
        fv.nope
    with pytest.raises(tf.flags.DuplicateFlagError):
        fv._define(tf.flags._Flag("batch_size", 1, "", int, "integer"))


def test_logging_levels_format_and_every_n(capfd):
    assert tf.logging.get_verbosity() == tf.logging.WARN
    tf.logging.info("hidden")
    tf.logging.set_verbosity(tf.logging.INFO)
    try:
        tf.logging.info("step %d", 5)
        tf.logging.warn("careful")
        for i in range(7):
            tf.logging.log_every_n(tf.logging.INFO, "every3 %d", 3, i)
            tf.logging.log_first_n(tf.logging.INFO, "first2 %d", 2, i)
    finally:
        tf.logging.set_verbosity(tf.logging.WARN)
    err = capfd.readouterr().err.splitlines()
    assert "INFO:tensorweave:hidden" not in err
    assert err[:2] == ["INFO:tensorweave:step 5", "WARNING:tensorweave:careful"]
    assert [line for line in err if "every3" in line] == [f"INFO:tensorweave:every3 {i}" for i in (0, 3, 6)]
    assert [line for line in err if "first2" in line] == [f"INFO:tensorweave:first2 {i}" for i in (0, 1)]
    assert (tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR, tf.logging.FATAL) == \
        (10, 20, 30, 40, 50)
