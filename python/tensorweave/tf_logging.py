"""tf.logging: TensorFlow 1.x's logging functions on a `logging` logger named 'tensorweave'
(stderr, "LEVEL:tensorweave:message", as TF1 printed "INFO:tensorflow:message")."""
import logging as _logging
import sys as _sys

DEBUG, INFO, WARN, ERROR, FATAL = _logging.DEBUG, _logging.INFO, _logging.WARN, _logging.ERROR, _logging.FATAL

class _StderrHandler(_logging.StreamHandler):
    """Writes to sys.stderr as it is at each message (a program may redirect it later)."""

    @property
    def stream(self):
        return _sys.stderr

    @stream.setter
    def stream(self, value):
        pass


_logger = _logging.getLogger("tensorweave")
if not _logger.handlers:
    _handler = _StderrHandler()
    _handler.setFormatter(_logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
    _logger.addHandler(_handler)
    _logger.propagate = False
_logger.setLevel(WARN)  # TF1's default verbosity

_counts = {}


def get_logger():
    return _logger


def set_verbosity(v):
    _logger.setLevel(v)


def get_verbosity():
    return _logger.getEffectiveLevel()


def log(level, msg, *args, **kwargs):
    _logger.log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    _logger.debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    _logger.info(msg, *args, **kwargs)


def warn(msg, *args, **kwargs):
    _logger.warning(msg, *args, **kwargs)


warning = warn


def error(msg, *args, **kwargs):
    _logger.error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    _logger.critical(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    _logger.log(level, msg, *args, **kwargs)


def log_if(level, msg, condition, *args):
    if condition:
        log(level, msg, *args)


def _call_site():
    frame = _sys._getframe(2)  # the caller of log_every_n / log_first_n
    return frame.f_code.co_filename, frame.f_lineno


def log_every_n(level, msg, n, *args):
    """Logs the 1st, (n+1)th, (2n+1)th, ... call from one line."""
    site = _call_site()
    count = _counts.get(site, 0)
    _counts[site] = count + 1
    log_if(level, msg, count % n == 0, *args)


def log_first_n(level, msg, n, *args):
    """Logs the first n calls from one line."""
    site = _call_site()
    count = _counts.get(site, 0)
    _counts[site] = count + 1
    log_if(level, msg, count < n, *args)


def flush():
    for h in _logger.handlers:
        h.flush()
