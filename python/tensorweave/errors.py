"""tf.errors: the exception classes the runtime raises, one per status code.

Every error from the C++ engine is an OpError subclass carrying the message, the name of
the node that failed when the message names one (``node 'x' (Add): ...``), and the
error_code (the canonical status code, as TensorFlow's)."""
import re

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16

_NODE_IN_MESSAGE = re.compile(r"node '([^']+)'")


class OpError(Exception):
    """A failed operation: message, node_def (None), op (the failing Operation when the
    default graph has it, else None), node_name (from the message) and error_code."""

    def __init__(self, node_def, op, message, error_code):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code
        found = _NODE_IN_MESSAGE.search(message)
        self._node_name = found.group(1) if found else None

    @property
    def message(self):
        return self._message

    @property
    def node_def(self):
        return self._node_def

    @property
    def op(self):
        return self._op

    @property
    def node_name(self):
        return self._node_name

    @property
    def error_code(self):
        return self._error_code

    def __str__(self):
        return self._message


def _make(name, code):
    def __init__(self, node_def=None, op=None, message="", error_code=code):
        OpError.__init__(self, node_def, op, message, code)
    return type(name, (OpError,), {"__init__": __init__, "__doc__": "Status code %d." % code})


CancelledError = _make("CancelledError", CANCELLED)
UnknownError = _make("UnknownError", UNKNOWN)
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT)
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED)
NotFoundError = _make("NotFoundError", NOT_FOUND)
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _make("AbortedError", ABORTED)
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE)
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED)
InternalError = _make("InternalError", INTERNAL)
UnavailableError = _make("UnavailableError", UNAVAILABLE)
DataLossError = _make("DataLossError", DATA_LOSS)
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED)

_BY_CODE = {cls.__init__.__defaults__[-1]: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError, FailedPreconditionError,
    AbortedError, OutOfRangeError, UnimplementedError, InternalError, UnavailableError,
    DataLossError, UnauthenticatedError)}


def _from_status(code, message):
    """The exception for a C++ status (called by the extension's error translator)."""
    cls = _BY_CODE.get(code, UnknownError)
    error = cls(None, None, message)
    if error.node_name is not None:
        from tensorweave import framework  # Late: errors is imported by the extension.
        error._op = framework._find_operation(error.node_name)
    return error
