"""tf.Dimension: TF 1's size of one dim of a static shape (None when unknown)."""


class Dimension:
    """TF 1's tf.Dimension: a dim's size or None when unknown. Comparisons with an unknown
    dim give None, arithmetic with one an unknown Dimension. (Our TensorShape keeps plain
    ints, as TF 2's; it accepts Dimensions.)"""

    def __init__(self, value):
        if value is None:
            self._value = None
        elif isinstance(value, Dimension):
            self._value = value.value
        else:
            try:  # TF's check: an integer, or what has __index__ (not a float, not a DType)
                self._value = int(value.__index__())
            except AttributeError:
                raise TypeError("Dimension value must be integer or None or have an __index__ method, got value "
                                "'{0!r}' with type '{1!r}'".format(value, type(value))) from None
            if self._value < 0:
                raise ValueError("Dimension %d must be >= 0" % self._value)

    value = property(lambda self: self._value)

    def __repr__(self):
        return "Dimension(%r)" % (self._value,)

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    __index__ = __int__

    def __hash__(self):
        return hash(self._value)

    def is_compatible_with(self, other):
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Dimensions %s and %s are not compatible" % (self, other))

    def merge_with(self, other):
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(other.value if self._value is None else self._value)

    def _binary(self, other, fn):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None if fn is None else Dimension(None)
        return (self._value, other.value) if fn is None else Dimension(fn(self._value, other.value))

    def __eq__(self, other):
        pair = self._binary(other, None)
        return pair if pair is None or pair is NotImplemented else pair[0] == pair[1]

    def __ne__(self, other):
        pair = self._binary(other, None)
        return pair if pair is None or pair is NotImplemented else pair[0] != pair[1]

    def _compare(self, other, fn):
        other = as_dimension(other)
        return None if self._value is None or other.value is None else fn(self._value, other.value)

    __lt__ = lambda self, other: self._compare(other, lambda a, b: a < b)  # noqa: E731
    __le__ = lambda self, other: self._compare(other, lambda a, b: a <= b)  # noqa: E731
    __gt__ = lambda self, other: self._compare(other, lambda a, b: a > b)  # noqa: E731
    __ge__ = lambda self, other: self._compare(other, lambda a, b: a >= b)  # noqa: E731
    __add__ = __radd__ = lambda self, other: self._binary(other, lambda a, b: a + b)  # noqa: E731
    __mul__ = __rmul__ = lambda self, other: self._binary(other, lambda a, b: a * b)  # noqa: E731
    __sub__ = lambda self, other: self._binary(other, lambda a, b: a - b)  # noqa: E731
    __rsub__ = lambda self, other: self._binary(other, lambda a, b: b - a)  # noqa: E731
    __floordiv__ = lambda self, other: self._binary(other, lambda a, b: a // b)  # noqa: E731
    __rfloordiv__ = lambda self, other: self._binary(other, lambda a, b: b // a)  # noqa: E731
    __mod__ = lambda self, other: self._binary(other, lambda a, b: a % b)  # noqa: E731
    __rmod__ = lambda self, other: self._binary(other, lambda a, b: b % a)  # noqa: E731

    def __truediv__(self, other):
        raise TypeError("unsupported operand type(s) for /: 'Dimension' and '{}', please use // instead"
                        .format(type(other).__name__))

    def __reduce__(self):
        return Dimension, (self._value,)


def as_dimension(value):
    return value if isinstance(value, Dimension) else Dimension(value)
