"""tf.nn.dynamic_rnn, tf.nn.static_rnn and tf.nn.bidirectional_dynamic_rnn as TF1 builds them:
dynamic_rnn is a tf.while_loop over time reading the inputs from TensorArrays and writing
each step's output to one (gradients: while_grad.py, O(T)); with sequence_length, a row past
its length outputs zeros and copies its state through, and the loop stops at the longest
sequence (the unwritten steps stack as zeros).

An LSTM (BasicLSTMCell, or LSTMCell without a projection or cell clipping; or a MultiRNNCell of
them) with tanh, a tuple state and float32 values runs instead as one BlockLSTM per layer over
the sequence with the cells' own variables: the same values (up to rounding), gradients and
checkpoints, several times faster than a loop of small ops. TW_FUSED_DYNAMIC_RNN=0 keeps the
loop."""
import contextlib
import os

import tensorweave as _tf  # The tf.* functions, looked up when called.
from tensorweave import dtypes
from tensorweave.control_flow_ops import _flatten, _pack_as
from tensorweave.framework import TensorShape, convert_to_tensor
from tensorweave.rnn_cell import _flat_sizes
from tensorweave.tensor_array_ops import TensorArray, _with_shape
from tensorweave.variables import VariableScope, get_variable_scope, variable_scope


def _rnn_scope(scope, default):
    """The variable scope to build in: a VariableScope object that is already the current
    scope stays as it is (TF re-enters a scope object by its full name)."""
    if isinstance(scope, VariableScope) and scope.name == get_variable_scope().name:
        return contextlib.nullcontext(scope)
    return variable_scope(scope or default)


def _transpose_batch_time(x):
    """[B, T, ...] <-> [T, B, ...]."""
    rank = x.shape.ndims
    if rank is None:
        raise ValueError("dynamic_rnn needs inputs of known rank")
    if rank < 2:
        raise ValueError("Expected input tensor %s to have rank at least 2" % x)
    return _tf.transpose(x, [1, 0] + list(range(2, rank)))


def _select_rows(keep_old, old, new):
    """Row b of `old` where keep_old[b], else of `new` (TF1's rank-1 Select)."""
    return _tf.where(keep_old, old, new)


def _zero_output(cell, batch_size, dtype):
    sizes = cell.output_size
    from tensorweave.rnn_cell import _zeros_like_size
    return [_zeros_like_size(s, batch_size, dtype) for s in _flat_sizes(sizes)]


def _initial_state(cell, initial_state, batch_size, dtype, no_dtype_message):
    """(the state the RNN starts from, its dtype): initial_state, else the cell's zero state of
    `dtype` (TF's ValueError, worded as the calling function words it, without one)."""
    if initial_state is not None:
        state = initial_state
    else:
        if dtype is None:
            raise ValueError(no_dtype_message)
        state = cell.zero_state(batch_size, dtype)
    return state, _infer_state_dtype(dtype, state)


def _infer_state_dtype(dtype, state):
    if dtype is not None:
        return dtypes.as_dtype(dtype)
    return _flatten(state)[0].dtype


def _fusable_lstm(cell):
    """Whether BlockLSTM computes what `cell` does: a BasicLSTMCell, or an LSTMCell without
    projection or clipping (BlockLSTMGrad, TF's too, lets the gradient through a clipped cell
    state where the loop's clip_by_value stops it), with tanh and a tuple state."""
    from tensorweave.rnn_cell import BasicLSTMCell, LSTMCell, _tanh
    if type(cell) not in (BasicLSTMCell, LSTMCell) or not cell._state_is_tuple:
        return False
    if cell._activation not in (_tanh, _tf.tanh):
        return False
    return type(cell) is BasicLSTMCell or (cell._num_proj is None and cell._cell_clip is None)


def _fused_lstm_layers(cell, flat_inputs, state, dtype):
    """When dynamic_rnn can run `cell` as BlockLSTMs: [(the LSTM cell, the variable scopes it
    builds in under the RNN's)], one per layer (a MultiRNNCell of such cells stacks them);
    else None."""
    from tensorweave.rnn_cell import MultiRNNCell
    if os.environ.get("TW_FUSED_DYNAMIC_RNN", "1") == "0" or dtype != dtypes.float32:
        return None
    if len(flat_inputs) != 1 or flat_inputs[0].shape.ndims != 3 or flat_inputs[0].shape.dims[2] is None:
        return None
    if type(cell) is MultiRNNCell:
        if not cell._state_is_tuple or not all(_fusable_lstm(c) for c in cell._cells):
            return None
        outer = cell._scope_name if cell._built else cell._name or cell._default_name
        layers = [(c, [outer, "cell_%d" % i, c._name or c._default_name]) for i, c in enumerate(cell._cells)]
    elif _fusable_lstm(cell):
        layers = [(cell, [cell._name or cell._default_name])]
    else:
        return None
    flat_state = _flatten(state)
    if len(flat_state) != 2 * len(layers) or any(s.dtype != dtypes.float32 for s in flat_state):
        return None
    return layers


def _fused_lstm(cell, x, state, sequence_length, layers):
    """dynamic_rnn's (time-major outputs, final state) as one BlockLSTM per layer, each cell's
    variables built (or reused) in the scopes its first call would use."""
    from tensorweave.lstm_fused import lstm_sequence
    from tensorweave.rnn_cell import LSTMStateTuple, MultiRNNCell
    flat_state, finals, h = _flatten(state), [], x
    for i, (lstm, scopes) in enumerate(layers):
        if not lstm._built:
            with contextlib.ExitStack() as stack:
                for name in scopes:
                    stack.enter_context(variable_scope(name))
                lstm.build(h.shape.dims[2], dtypes.float32)
            lstm._built = True
        peepholes = (lstm._w_i_diag, lstm._w_f_diag, lstm._w_o_diag) if getattr(lstm, "_use_peepholes", False) \
            else None
        h, (c, h_last) = lstm_sequence(h, (flat_state[2 * i], flat_state[2 * i + 1]), lstm._kernel, lstm._bias,
                                       peepholes, lstm._forget_bias, -1.0, sequence_length, dtypes.float32)
        finals.append(LSTMStateTuple(c, h_last))
    if type(cell) is MultiRNNCell:
        cell._scope_name, cell._built = layers[0][1][0], True
        return h, tuple(finals)
    return h, finals[0]


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                swap_memory=False, time_major=False, scope=None):
    """(outputs [B, T, output_size] (time_major: [T, B, ...]), final state)."""
    from tensorweave.while_loop import while_loop
    del swap_memory
    flat_inputs = [convert_to_tensor(x) for x in _flatten(inputs)]
    if not time_major:
        flat_inputs = [_transpose_batch_time(x) for x in flat_inputs]
    parallel_iterations = parallel_iterations or 32
    with _rnn_scope(scope, "rnn"):
        first = flat_inputs[0]
        time_steps = _tf.shape(first)[0]
        static_steps = first.shape.dims[0]
        static_batch = first.shape.dims[1]
        batch_size = static_batch if static_batch is not None else _tf.shape(first)[1]
        state, dtype = _initial_state(cell, initial_state, batch_size, dtype,
                                      "If there is no initial_state, you must give a dtype.")
        if sequence_length is not None:
            sequence_length = _tf.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size, but saw shape: %s"
                                 % (sequence_length.shape,))
            sequence_length = _tf.identity(sequence_length, name="sequence_length")
            loop_bound = _tf.minimum(time_steps, _tf.maximum(1, _tf.reduce_max(sequence_length)))
        else:
            loop_bound = time_steps
        layers = _fused_lstm_layers(cell, flat_inputs, state, dtype)
        if layers is not None:
            outputs, final_state = _fused_lstm(cell, flat_inputs[0], state, sequence_length, layers)
            return (outputs if time_major else _transpose_batch_time(outputs)), final_state
        inputs_ta = [TensorArray(x.dtype, size=time_steps, element_shape=TensorShape(list(x.shape.dims[1:])))
                     .unstack(x) for x in flat_inputs]
        out_sizes = _flat_sizes(cell.output_size)
        outputs_ta = [TensorArray(dtype, size=time_steps, element_shape=TensorShape([static_batch, s]))
                      for s in out_sizes]
        zero_output = _zero_output(cell, batch_size, dtype) if sequence_length is not None else None

        def body(time, state, tas):
            step_inputs = [ta.read(time) for ta in inputs_ta]
            step_inputs = [_with_shape(x, TensorShape(list(f.shape.dims[1:]))) for x, f in zip(step_inputs, flat_inputs)]
            output, new_state = cell(_pack_as(inputs, iter(step_inputs)), state)
            flat_out = [convert_to_tensor(o) for o in _flatten(output)]
            if sequence_length is not None:
                done = time >= sequence_length  # Past its length: zeros out, state copied through.
                flat_out = [_select_rows(done, z, o) for z, o in zip(zero_output, flat_out)]
                new_state = _pack_as(state, iter([_select_rows(done, s, n)
                                                  for s, n in zip(_flatten(state), _flatten(new_state))]))
            return time + 1, new_state, [ta.write(time, o) for ta, o in zip(tas, flat_out)]

        _, final_state, tas = while_loop(lambda time, s, tas: time < loop_bound, body,
                                         (convert_to_tensor(0), state, outputs_ta),
                                         parallel_iterations=parallel_iterations, return_same_structure=True)
        flat_outputs = []
        for ta, s in zip(tas, out_sizes):
            out = ta.stack()
            out = _with_shape(out, TensorShape([static_steps, static_batch, s]))
            flat_outputs.append(out if time_major else _transpose_batch_time(out))
        outputs = _pack_as(cell.output_size, iter(flat_outputs)) if isinstance(cell.output_size, (tuple, list)) \
            else flat_outputs[0]
    return outputs, final_state


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """The cell applied to each [B, D] tensor of the list `inputs` in turn: (outputs list, state)."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with _rnn_scope(scope, "rnn"):
        first = convert_to_tensor(_flatten(inputs[0])[0])
        batch_size = first.shape.dims[0] if first.shape.dims[0] is not None else _tf.shape(first)[0]
        state, dtype = _initial_state(cell, initial_state, batch_size, dtype,
                                      "If no initial_state is provided, dtype must be specified")
        if sequence_length is not None:
            sequence_length = _tf.cast(sequence_length, dtypes.int32)
            zero_output = _zero_output(cell, batch_size, dtype)
        outputs = []
        for time, x in enumerate(inputs):
            output, new_state = cell(x, state)
            if sequence_length is not None:
                done = time >= sequence_length
                output = _pack_as(output, iter([_select_rows(done, z, o)
                                                for z, o in zip(zero_output, _flatten(output))]))
                new_state = _pack_as(state, iter([_select_rows(done, s, n)
                                                  for s, n in zip(_flatten(state), _flatten(new_state))]))
            state = new_state
            outputs.append(output)
    return outputs, state


def _reverse(x, lengths, seq_axis, batch_axis):
    from tensorweave.array_reorder_ops import reverse, reverse_sequence
    if lengths is not None:
        return reverse_sequence(x, lengths, seq_axis=seq_axis, batch_axis=batch_axis)
    return reverse(x, axis=[seq_axis])


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory=False,
                              time_major=False, scope=None):
    """((outputs_fw, outputs_bw), (state_fw, state_bw)): cell_bw reads each sequence
    backwards (within its length) and its outputs are put back in forward order."""
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(cell_fw, inputs, sequence_length, initial_state_fw, dtype,
                                              parallel_iterations, swap_memory, time_major, scope=fw_scope)
        seq_axis, batch_axis = (0, 1) if time_major else (1, 0)
        if sequence_length is not None:
            sequence_length = _tf.cast(sequence_length, dtypes.int64)
        with variable_scope("bw") as bw_scope:
            reversed_inputs = _pack_as(inputs, iter([_reverse(convert_to_tensor(x), sequence_length, seq_axis,
                                                              batch_axis) for x in _flatten(inputs)]))
            tmp, state_bw = dynamic_rnn(cell_bw, reversed_inputs, sequence_length, initial_state_bw, dtype,
                                        parallel_iterations, swap_memory, time_major, scope=bw_scope)
        output_bw = _reverse(tmp, sequence_length, seq_axis, batch_axis)
    return (output_fw, output_bw), (state_fw, state_bw)
