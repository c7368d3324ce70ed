"""tf.contrib.rnn.LSTMBlockFusedCell: a whole LSTM sequence in one BlockLSTM op (TF1's
fastest LSTM on CPU), with TF1's variables (<scope>/lstm_fused_cell/kernel [input + units,
4 * units], .../bias [4 * units]; w_i_diag, w_f_diag, w_o_diag with peepholes) and gates in
BasicLSTMCell's order, so a BasicLSTMCell checkpoint loads into it. Inputs are time-major
[time, batch, input] (or a list of [batch, input]); beyond a sequence_length the outputs are
zeros and the final state is the one at that length, as dynamic_rnn's."""
import tensorweave as _tf  # The tf.* functions, looked up when called.
from tensorweave import dtypes
from tensorweave.framework import _op, convert_to_tensor
from tensorweave.rnn_cell import LSTMStateTuple
from tensorweave.variables import get_variable, variable_scope, zeros_initializer


def block_lstm(seq_len_max, x, cs_prev, h_prev, w, wci, wcf, wco, b, forget_bias=1.0, cell_clip=3.0,
               use_peephole=False, name=None):
    """TF's gen_rnn_ops.block_lstm: the op's outputs (i, cs, f, o, ci, co, h)."""
    op = _op("BlockLSTM", [seq_len_max, x, cs_prev, h_prev, w, wci, wcf, wco, b],
             {"forget_bias": float(forget_bias), "cell_clip": float(cell_clip), "use_peephole": bool(use_peephole)},
             name or "BlockLSTM")
    return tuple(op.outputs)


def lstm_sequence(inputs, initial_state, kernel, bias, peepholes, forget_bias, cell_clip, sequence_length, dtype):
    """One BlockLSTM over time-major inputs [time, batch, input] from initial_state (c, h):
    (h [time, batch, units], LSTMStateTuple(c, h) final). peepholes: (w_i_diag, w_f_diag,
    w_o_diag) or None; cell_clip <= 0: none. Past a sequence_length, h is zeros and the final
    state is the one at that length, as dynamic_rnn's."""
    c0, h0 = (convert_to_tensor(s, dtype=dtype) for s in initial_state)
    units = kernel.shape.dims[1] // 4
    time_len = inputs.shape.dims[0] if inputs.shape.dims[0] is not None else _tf.shape(inputs)[0]
    if sequence_length is None:
        max_len = _tf.cast(time_len, dtypes.int64)
    else:
        sequence_length = convert_to_tensor(sequence_length)
        max_len = _tf.cast(_tf.reduce_max(sequence_length), dtypes.int64)
    wci, wcf, wco = peepholes if peepholes is not None else [_tf.zeros([units], dtype=dtype)] * 3
    outs = block_lstm(max_len, inputs, c0, h0, kernel, wci, wcf, wco, bias, forget_bias=forget_bias,
                      cell_clip=cell_clip, use_peephole=peepholes is not None)
    cs, h = outs[1], outs[6]
    if sequence_length is None:
        return h, LSTMStateTuple(cs[-1], h[-1])
    mask = _tf.transpose(_tf.sequence_mask(sequence_length, time_len, dtype=dtype), [1, 0])
    h = h * _tf.expand_dims(mask, -1)
    # Step t's state sits at t + 1 once the initial state is put in front, so a sequence of
    # length 0 ends in its initial state.
    batch_range = _tf.range(_tf.shape(inputs)[1])
    where = _tf.stack([_tf.cast(sequence_length, dtypes.int32), batch_range], axis=1)
    return h, LSTMStateTuple(_tf.gather_nd(_tf.concat([_tf.expand_dims(c0, 0), cs], 0), where),
                             _tf.gather_nd(_tf.concat([_tf.expand_dims(h0, 0), h], 0), where))


class LSTMBlockFusedCell:
    """cell(inputs, initial_state=None, dtype=None, sequence_length=None, scope=None)
    -> (outputs [time, batch, units], LSTMStateTuple(c, h))."""

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False, reuse=None,
                 dtype=None, name="lstm_fused_cell"):
        del reuse
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._cell_clip = cell_clip if cell_clip is not None else -1
        self._use_peephole = use_peephole
        self._dtype = dtype
        self._name = name
        self._built = False

    num_units = property(lambda self: self._num_units)
    state_size = property(lambda self: LSTMStateTuple(self._num_units, self._num_units))
    output_size = property(lambda self: self._num_units)

    def _build(self, input_size, dtype):
        n = self._num_units
        self._kernel = get_variable("kernel", [input_size + n, 4 * n], dtype=dtype)
        self._bias = get_variable("bias", [4 * n], dtype=dtype, initializer=zeros_initializer(dtype=dtype))
        if self._use_peephole:
            self._peepholes = [get_variable(name, [n], dtype=dtype) for name in ("w_i_diag", "w_f_diag", "w_o_diag")]
        self._built = True

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        is_list = isinstance(inputs, (list, tuple))
        inputs = _tf.stack(inputs) if is_list else convert_to_tensor(inputs)
        dims = inputs.shape.dims
        if dims is None or len(dims) != 3:
            raise ValueError("Shape must be rank 3 but is rank %s for the inputs of LSTMBlockFusedCell"
                             % (None if dims is None else len(dims)))
        if dims[2] is None:
            raise ValueError("Expecting input_size to be set.")
        if initial_state is None:
            if dtype is None:
                raise ValueError("Either initial_state or dtype needs to be specified")
            batch = dims[1] if dims[1] is not None else _tf.shape(inputs)[1]
            z = _tf.zeros(_tf.stack([batch, self._num_units]) if dims[1] is None
                                else [batch, self._num_units], dtype=dtype)
            initial_state = (z, z)
        else:
            if len(initial_state) != 2:
                raise ValueError("Expecting initial_state to be a tuple with length 2 or None")
            dtype = dtype or initial_state[0].dtype
        dtype = dtypes.as_dtype(dtype)
        with variable_scope(scope or self._name):
            if not self._built:
                self._build(dims[2], dtype)
            peepholes = self._peepholes if self._use_peephole else None
            h, final = lstm_sequence(inputs, initial_state, self._kernel, self._bias, peepholes, self._forget_bias,
                                     self._cell_clip, sequence_length, dtype)
        return (_tf.unstack(h) if is_list else h), final
