"""tf.nn.rnn_cell (TF1): BasicRNNCell, BasicLSTMCell, LSTMCell (optional peepholes,
projection and clipping), GRUCell, MultiRNNCell, DropoutWrapper and LSTMStateTuple, with
TF1's math (gate order i, j, f, o; forget_bias added to f) and variable names
(<scope>/basic_lstm_cell/kernel, .../bias; gru_cell/gates/..., gru_cell/candidate/...), so
checkpoints line up. A cell makes its variables on its first call, in the variable scope
open then, and reuses them on every later call (a loop body runs again for its gradient)."""
import collections

import tensorweave as _tf  # The tf.* functions, looked up when called.
from tensorweave.framework import TensorShape, convert_to_tensor
from tensorweave.variables import get_variable, variable_scope


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """(c, h): the LSTM's cell state and output."""
    __slots__ = ()

    @property
    def dtype(self):
        if self.c.dtype != self.h.dtype:
            raise TypeError("Inconsistent internal state: %s vs %s" % (self.c.dtype, self.h.dtype))
        return self.c.dtype


def _flat_sizes(size):
    if isinstance(size, (tuple, list)):
        return [s for item in size for s in _flat_sizes(item)]
    return [size]


def _zeros_like_size(size, batch_size, dtype):
    if isinstance(size, LSTMStateTuple):
        return LSTMStateTuple(*[_zeros_like_size(s, batch_size, dtype) for s in size])
    if isinstance(size, (tuple, list)):
        return type(size)(_zeros_like_size(s, batch_size, dtype) for s in size)
    if isinstance(batch_size, int):
        return _tf.zeros([batch_size, size], dtype=dtype)
    from tensorweave.tensor_array_ops import _with_shape
    return _with_shape(_tf.zeros(_tf.stack([batch_size, size]), dtype=dtype), TensorShape([None, size]))


def _sigmoid(x):
    return _tf.sigmoid(x)


def _tanh(x):
    return _tf.tanh(x)


class RNNCell:
    """The base of TF1's cells: __call__(inputs, state) -> (output, new_state)."""
    _default_name = "rnn_cell"

    def __init__(self, name=None, dtype=None):
        self._name = name
        self._dtype = dtype
        self._built = False

    @property
    def state_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        raise NotImplementedError("Abstract method")

    def zero_state(self, batch_size, dtype):
        """Zeros of shape [batch_size, size] for each part of the state."""
        return _zeros_like_size(self.state_size, batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        inputs = convert_to_tensor(inputs)
        if not self._built:
            if inputs.shape.dims is None or inputs.shape.dims[-1] is None:
                raise ValueError("The last dimension of the inputs to `%s` should be defined. Found `None`."
                                 % type(self).__name__)
            with variable_scope(scope or self._name or self._default_name):
                self.build(inputs.shape.dims[-1], inputs.dtype)
            self._built = True
        return self.call(inputs, state)

    def build(self, input_depth, dtype):
        pass

    def call(self, inputs, state):
        raise NotImplementedError("Abstract method")


# TF1's names for the cell base classes.
LayerRNNCell = RNNCell


def _dense(parts, kernel, bias=None):
    x = _tf.concat(parts, 1) if len(parts) > 1 else parts[0]
    y = _tf.matmul(x, kernel)
    return y if bias is None else y + bias


class BasicRNNCell(RNNCell):
    """output = new_state = activation(W [inputs, state] + b)."""
    _default_name = "basic_rnn_cell"

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None):
        del reuse
        super().__init__(name, dtype)
        self._num_units = num_units
        self._activation = activation or _tanh

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, input_depth, dtype):
        self._kernel = get_variable("kernel", [input_depth + self._num_units, self._num_units], dtype=dtype)
        self._bias = get_variable("bias", [self._num_units], dtype=dtype, initializer=_zeros(dtype))

    def call(self, inputs, state):
        output = self._activation(_dense([inputs, state], self._kernel, self._bias))
        return output, output


def _zeros(dtype):
    from tensorweave.variables import zeros_initializer
    return zeros_initializer(dtype=dtype)


class BasicLSTMCell(RNNCell):
    """TF1's basic LSTM: [i, j, f, o] = W [inputs, h] + b; c' = c * sigmoid(f + forget_bias)
    + sigmoid(i) * act(j); h' = act(c') * sigmoid(o)."""
    _default_name = "basic_lstm_cell"

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None):
        del reuse
        super().__init__(name, dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or _tanh

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    output_size = property(lambda self: self._num_units)

    def build(self, input_depth, dtype):
        n = self._num_units
        self._kernel = get_variable("kernel", [input_depth + n, 4 * n], dtype=dtype)
        self._bias = get_variable("bias", [4 * n], dtype=dtype, initializer=_zeros(dtype))

    def call(self, inputs, state):
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = _tf.split(state, 2, axis=1)
        i, j, f, o = _tf.split(_dense([inputs, h], self._kernel, self._bias), 4, axis=1)
        forget = _tf.add(f, _tf.cast(self._forget_bias, f.dtype))
        new_c = c * _sigmoid(forget) + _sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * _sigmoid(o)
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else _tf.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(RNNCell):
    """TF1's LSTMCell: BasicLSTMCell's gates with optional peepholes (diagonal weights
    w_f_diag, w_i_diag on the previous cell state and w_o_diag on the new one), then optional
    cell_clip, a projection of h (num_proj, 'projection/kernel') and proj_clip."""
    _default_name = "lstm_cell"

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None):
        del reuse, num_unit_shards, num_proj_shards
        super().__init__(name, dtype)
        self._num_units, self._cell_clip, self._initializer = num_units, cell_clip, initializer
        self._use_peepholes = use_peepholes
        self._num_proj, self._proj_clip = num_proj, proj_clip
        self._forget_bias, self._state_is_tuple = forget_bias, state_is_tuple
        self._activation = activation or _tanh

    @property
    def state_size(self):
        out = self._num_proj or self._num_units
        return LSTMStateTuple(self._num_units, out) if self._state_is_tuple else self._num_units + out

    output_size = property(lambda self: self._num_proj or self._num_units)

    def build(self, input_depth, dtype):
        n, h_depth = self._num_units, self._num_proj or self._num_units
        self._kernel = get_variable("kernel", [input_depth + h_depth, 4 * n], dtype=dtype,
                                    initializer=self._initializer)
        self._bias = get_variable("bias", [4 * n], dtype=dtype, initializer=_zeros(dtype))
        if self._use_peepholes:  # created in TF's order: checkpoints line up
            self._w_f_diag, self._w_i_diag, self._w_o_diag = (
                get_variable(name, [n], dtype=dtype, initializer=self._initializer)
                for name in ("w_f_diag", "w_i_diag", "w_o_diag"))
        if self._num_proj is not None:
            with variable_scope("projection"):
                self._proj_kernel = get_variable("kernel", [n, self._num_proj], dtype=dtype,
                                                 initializer=self._initializer)

    def call(self, inputs, state):
        n = self._num_units
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = _tf.slice(state, [0, 0], [-1, n])
            m_prev = _tf.slice(state, [0, n], [-1, self._num_proj or n])
        i, j, f, o = _tf.split(_dense([inputs, m_prev], self._kernel, self._bias), 4, axis=1)
        if self._use_peepholes:
            c = (_sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev +
                 _sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = _sigmoid(f + self._forget_bias) * c_prev + _sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = _tf.clip_by_value(c, -self._cell_clip, self._cell_clip)
        m = _sigmoid(o + self._w_o_diag * c if self._use_peepholes else o) * self._activation(c)
        if self._num_proj is not None:
            m = _tf.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = _tf.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else _tf.concat([c, m], 1)
        return m, new_state


class GRUCell(RNNCell):
    """TF1's GRU: [r, u] = sigmoid(W_g [x, h] + b_g) (b_g starts at 1); c = act(W_c [x, r h] + b_c);
    h' = u h + (1 - u) c."""
    _default_name = "gru_cell"

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None):
        del reuse
        super().__init__(name, dtype)
        self._num_units = num_units
        self._activation = activation or _tanh
        self._kernel_initializer, self._bias_initializer = kernel_initializer, bias_initializer

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, input_depth, dtype):
        from tensorweave.variables import constant_initializer
        n = self._num_units
        with variable_scope("gates"):
            self._gate_kernel = get_variable("kernel", [input_depth + n, 2 * n], dtype=dtype,
                                             initializer=self._kernel_initializer)
            self._gate_bias = get_variable("bias", [2 * n], dtype=dtype, initializer=(
                self._bias_initializer or constant_initializer(1.0, dtype=dtype)))
        with variable_scope("candidate"):
            self._candidate_kernel = get_variable("kernel", [input_depth + n, n], dtype=dtype,
                                                  initializer=self._kernel_initializer)
            self._candidate_bias = get_variable("bias", [n], dtype=dtype,
                                                initializer=self._bias_initializer or _zeros(dtype))

    def call(self, inputs, state):
        value = _sigmoid(_dense([inputs, state], self._gate_kernel, self._gate_bias))
        r, u = _tf.split(value, 2, axis=1)
        c = self._activation(_dense([inputs, r * state], self._candidate_kernel, self._candidate_bias))
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class MultiRNNCell(RNNCell):
    """Cells stacked: cell i runs in scope cell_i on the previous cell's output."""
    _default_name = "multi_rnn_cell"

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(sum(_flat_sizes(cell.state_size)) for cell in self._cells)

    output_size = property(lambda self: self._cells[-1].output_size)

    def zero_state(self, batch_size, dtype):
        if self._state_is_tuple:
            return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
        return super().zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        # No variables of its own: each cell builds in <scope>/multi_rnn_cell/cell_i on first call.
        if not self._built:
            self._scope_name = scope or self._name or self._default_name
        cur, new_states, offset = inputs, [], 0
        for i, cell in enumerate(self._cells):
            if self._state_is_tuple:
                cur_state = state[i]
            else:
                size = sum(_flat_sizes(cell.state_size))
                cur_state = _tf.slice(state, [0, offset], [-1, size])
                offset += size
            if cell._built:
                cur, new_state = cell(cur, cur_state)
            else:
                with variable_scope(self._scope_name):
                    with variable_scope("cell_%d" % i):
                        cur, new_state = cell(cur, cur_state)
            new_states.append(new_state)
        self._built = True
        new_states = tuple(new_states) if self._state_is_tuple else _tf.concat(new_states, 1)
        return cur, new_states


def _map_leaves(fn, value, counter=None):
    """`value` (a tensor or nested tuples of them) with fn(index, leaf) applied to each leaf,
    leaves numbered in order as TF's _enumerated_map_structure_up_to does."""
    counter = counter if counter is not None else [0]
    if isinstance(value, (tuple, list)):
        items = [_map_leaves(fn, v, counter) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    index = counter[0]
    counter[0] += 1
    return fn(index, value)


def _is_one(keep_prob):
    return isinstance(keep_prob, (int, float)) and keep_prob == 1.0


class DropoutWrapper(RNNCell):
    """Dropout on a cell's inputs, outputs and state (keep probabilities; 1.0 is no dropout).
    The wrapped cell keeps its own scope and variable names. variational_recurrent=True draws
    one mask per input, state and output leaf when the wrapper is made ([1, size]: shared by
    the batch) and applies it at every time step, as TF1 (seeds salted as TF salts them)."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None):
        del dropout_state_filter_visitor
        super().__init__()
        for name, p in (("input_keep_prob", input_keep_prob), ("state_keep_prob", state_keep_prob),
                        ("output_keep_prob", output_keep_prob)):
            if isinstance(p, (int, float)) and not 0.0 < p <= 1.0:
                raise ValueError("Parameter %s must be between 0 and 1: %f" % (name, p))
        self._cell = cell
        self._input_keep_prob, self._output_keep_prob = input_keep_prob, output_keep_prob
        self._state_keep_prob, self._seed = state_keep_prob, seed
        self._variational = variational_recurrent
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")
            noise = lambda salt, sizes: _map_leaves(  # noqa: E731
                lambda i, size: _tf.random_uniform([1] + TensorShape(size).as_list(), seed=self._gen_seed(salt, i),
                                                   dtype=dtype), sizes)
            if not _is_one(input_keep_prob):
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 or is unknown, "
                                     "input_size must be provided")
                self._input_noise = noise("input", input_size)
            self._state_noise = noise("state", cell.state_size)
            self._output_noise = noise("output", cell.output_size)

    state_size = property(lambda self: self._cell.state_size)
    output_size = property(lambda self: self._cell.output_size)
    wrapped_cell = property(lambda self: self._cell)

    def zero_state(self, batch_size, dtype):
        return self._cell.zero_state(batch_size, dtype)

    def _gen_seed(self, salt_prefix, index):
        """TF's per-mask seed: the first 32 bits of md5(seed + salt), or None without a seed."""
        import hashlib
        if self._seed is None:
            return None
        digest = hashlib.md5((str(self._seed) + "%s_%d" % (salt_prefix, index)).encode("utf-8")).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    def _dropout(self, value, keep_prob, noise=None, kept=()):
        """`value`'s leaves dropped out, except the leaf numbers in `kept`; with variational
        noise (one [1, size] tensor per leaf), leaf i keeps where keep_prob + noise[i] >= 1."""
        from tensorweave import nn
        if _is_one(keep_prob):
            return value

        def drop(index, leaf):
            if index in kept:
                return leaf
            if noise is None:
                return nn.dropout(leaf, keep_prob=keep_prob, seed=self._seed)
            return _tf.divide(leaf, keep_prob) * _tf.floor(keep_prob + noise[index])
        return _map_leaves(drop, value)

    def __call__(self, inputs, state, scope=None):
        def noise(name):
            return _flat_sizes(getattr(self, name)) if self._variational and hasattr(self, name) else None
        inputs = self._dropout(convert_to_tensor(inputs), self._input_keep_prob, noise("_input_noise"))
        output, new_state = self._cell(inputs, state, scope=scope)
        new_state = self._dropout(new_state, self._state_keep_prob, noise("_state_noise"), _lstm_c_leaves(new_state))
        return self._dropout(output, self._output_keep_prob, noise("_output_noise")), new_state


def _lstm_c_leaves(state):
    """The leaf numbers of every LSTMStateTuple's c in `state`: TF's default state filter keeps
    an LSTM's cell state whole and drops out the rest."""
    kept = set()
    counter = [0]

    def walk(value, is_c=False):
        if isinstance(value, (tuple, list)):
            for k, item in enumerate(value):
                walk(item, isinstance(value, LSTMStateTuple) and k == 0)
            return
        if is_c:
            kept.add(counter[0])
        counter[0] += 1
    walk(state)
    return kept
