"""tf.data (TF 1.x API): Dataset, its sources and transformations, and Iterator. Each
dataset builds TensorFlow's dataset op (a DT_VARIANT tensor, kernels in
src/kernels/cpu/dataset_*_kernels.cc); functions given to map/filter/flat_map/interleave
are traced into the graph's function library (data_function.py). A dataset can rebuild
its ops in another graph: make_one_shot_iterator rebuilds them in its dataset_factory."""
import weakref

import numpy as np

from tensorweave import array_ops, dtypes, framework
from tensorweave import data_function, data_structure as nest
from tensorweave.framework import Tensor, TensorShape

AUTOTUNE = -1


class _Spec:
    """One component: dtype and (partial) shape."""

    def __init__(self, dtype, shape):
        self.dtype = dtypes.as_dtype(dtype)
        self.shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)


class _Structure:
    """The element structure's views that datasets and iterators share (from self._specs)."""

    @property
    def output_types(self):
        return nest.map_structure(lambda s: s.dtype, self._specs)

    @property
    def output_shapes(self):
        return nest.map_structure(lambda s: s.shape, self._specs)

    @property
    def output_classes(self):
        return nest.map_structure(lambda s: Tensor, self._specs)

    @property
    def element_spec(self):
        return self._specs


def _shape_list(shape):
    return None if shape.ndims is None else shape.as_list()


def _attrs(specs):
    flat = nest.flatten(specs)
    return {"output_types": [s.dtype._core for s in flat],
            "output_shapes": [s.shape._as_core() for s in flat]}


def _int64(value, name):
    return framework.convert_to_tensor(value, dtype=dtypes.int64, name=name) if isinstance(value, Tensor) \
        else array_ops.constant(value, dtype=dtypes.int64, name=name)


def _normalize(structure):
    """Lists become tuples (as TF 1.x does for dataset elements)."""
    if isinstance(structure, list):
        return tuple(_normalize(x) for x in structure)
    if isinstance(structure, tuple) and not hasattr(structure, "_fields"):
        return tuple(_normalize(x) for x in structure)
    if isinstance(structure, dict):
        return {k: _normalize(v) for k, v in structure.items()}
    return structure


def _lists_as_leaves(structure):
    """Input structures: tuples and dicts nest, a Python list is one tensor (as tf.data)."""
    if isinstance(structure, dict):
        return {k: _lists_as_leaves(v) for k, v in structure.items()}
    if isinstance(structure, tuple):
        parts = [_lists_as_leaves(x) for x in structure]
        return type(structure)(*parts) if hasattr(structure, "_fields") else tuple(parts)
    if isinstance(structure, list):
        return np.array(structure) if not any(isinstance(x, Tensor) for x in structure) else structure
    return structure


class Dataset(_Structure):
    """A sequence of elements (tf.data.Dataset)."""

    def __init__(self, specs):
        self._specs = specs
        self._variants = weakref.WeakKeyDictionary()  # graph -> this dataset's variant tensor there

    # ---- the op, per graph
    def _build(self):
        raise NotImplementedError

    @property
    def _variant_tensor(self):
        graph = framework.get_default_graph()
        tensor = self._variants.get(graph)
        if tensor is None:
            tensor = self._build()
            self._variants[graph] = tensor
        return tensor

    def _op(self, op_type, inputs, attrs, name=None):
        return framework._op(op_type, inputs, attrs, name=name or op_type, graph=framework.get_default_graph()).outputs[0]


    # ---- sources
    @staticmethod
    def from_tensors(tensors):
        return _TensorDataset(tensors, slices=False)

    @staticmethod
    def from_tensor_slices(tensors):
        return _TensorDataset(tensors, slices=True)

    @staticmethod
    def range(*args):
        return _RangeDataset(*args)

    @staticmethod
    def zip(datasets):
        return _ZipDataset(datasets)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        """The files matching now, in the client (no MatchingFiles op yet: the pattern is
        expanded when the graph is built, not when it runs)."""
        import glob
        patterns = file_pattern if isinstance(file_pattern, (list, tuple)) else [file_pattern]
        files = sorted(f for p in patterns for f in glob.glob(p if isinstance(p, str) else p.decode()))
        if not files:
            from tensorweave import errors
            raise errors.InvalidArgumentError(None, None, "No files matched pattern: %s" % ", ".join(map(str, patterns)))
        dataset = Dataset.from_tensor_slices(np.array(files, dtype=object))
        if shuffle is None or shuffle:
            dataset = dataset.shuffle(len(files), seed=seed)
        return dataset

    # ---- transformations
    def concatenate(self, dataset):
        _check_same_types(self, dataset)
        specs = nest.pack_sequence_as(self._specs, [
            _Spec(a.dtype, _most_specific_compatible(a.shape, b.shape))
            for a, b in zip(nest.flatten(self._specs), nest.flatten(dataset._specs))])
        return _UnaryDataset(self, "ConcatenateDataset", lambda: [dataset._variant_tensor], specs)

    def repeat(self, count=None):
        return _UnaryDataset(self, "RepeatDataset", lambda: [_int64(-1 if count is None else count, "count")],
                             self._specs)

    def take(self, count):
        return _UnaryDataset(self, "TakeDataset", lambda: [_int64(count, "count")], self._specs)

    def skip(self, count):
        return _UnaryDataset(self, "SkipDataset", lambda: [_int64(count, "count")], self._specs)

    def shard(self, num_shards, index):
        return _UnaryDataset(self, "ShardDataset",
                             lambda: [_int64(num_shards, "num_shards"), _int64(index, "index")], self._specs,
                             extra_attrs={"require_non_empty": False})

    def cache(self, filename=""):
        return _UnaryDataset(self, "CacheDataset", lambda: [array_ops.constant(filename, name="filename")],
                             self._specs)

    def prefetch(self, buffer_size):
        return _UnaryDataset(self, "PrefetchDataset", lambda: [_int64(buffer_size, "buffer_size")], self._specs)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        graph = framework.get_default_graph()
        seed1, seed2 = graph._next_seeds(seed)
        if seed1 == 0 and seed2 == 0 and seed is not None:
            seed1, seed2 = 0, int(seed)
        return _UnaryDataset(self, "ShuffleDataset",
                             lambda: [_int64(buffer_size, "buffer_size"), _int64(seed1, "seed"), _int64(seed2, "seed2")],
                             self._specs,
                             extra_attrs={"reshuffle_each_iteration": True if reshuffle_each_iteration is None
                                          else bool(reshuffle_each_iteration)})

    def batch(self, batch_size, drop_remainder=False):
        specs = nest.map_structure(
            lambda s: _Spec(s.dtype, _batched(s.shape, batch_size if drop_remainder else None)), self._specs)
        return _UnaryDataset(self, "BatchDatasetV2",
                             lambda: [_int64(batch_size, "batch_size"),
                                      array_ops.constant(bool(drop_remainder), name="drop_remainder")],
                             specs, extra_attrs={"parallel_copy": False})

    def padded_batch(self, batch_size, padded_shapes, padding_values=None, drop_remainder=False):
        flat_specs = nest.flatten(self._specs)
        flat_shapes = _flat_padded_shapes(padded_shapes, self._specs)
        if padding_values is None:
            flat_pads = [None] * len(flat_specs)
        else:
            flat_pads = nest.flatten(_normalize(padding_values))
        specs = nest.pack_sequence_as(self._specs, [
            _Spec(s.dtype, _batched(TensorShape(shape), batch_size if drop_remainder else None))
            for s, shape in zip(flat_specs, flat_shapes)])

        def inputs():
            shapes = [array_ops.constant(np.array([-1 if d is None else d for d in shape], dtype=np.int64),
                                         name="padded_shapes") for shape in flat_shapes]
            pads = [array_ops.constant(_zero(s.dtype) if p is None else p, dtype=s.dtype, name="padding_value")
                    for s, p in zip(flat_specs, flat_pads)]
            return [_int64(batch_size, "batch_size")] + shapes + pads + [
                array_ops.constant(bool(drop_remainder), name="drop_remainder")]
        return _UnaryDataset(self, "PaddedBatchDatasetV2", inputs, specs,
                             extra_attrs={"parallel_copy": False,
                                          "Toutput_types": [s.dtype._core for s in flat_specs],
                                          "N": len(flat_specs)})

    def map(self, map_func, num_parallel_calls=None, deterministic=None):
        return _MapDataset(self, map_func, num_parallel_calls)

    def filter(self, predicate):
        return _FunctionDataset(self, "FilterDataset", "predicate", predicate, "filter", self._specs)

    def flat_map(self, map_func):
        return _FunctionDataset(self, "FlatMapDataset", "f", map_func, "flat_map", None)

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None):
        cycle = AUTOTUNE if cycle_length is None else cycle_length
        block = 1 if block_length is None else block_length
        if num_parallel_calls is None:
            return _FunctionDataset(self, "InterleaveDataset", "f", map_func, "interleave", None,
                                    trailing=lambda: [_int64(cycle, "cycle_length"), _int64(block, "block_length")])
        return _FunctionDataset(self, "ParallelInterleaveDatasetV2", "f", map_func, "interleave", None,
                                trailing=lambda: [_int64(cycle, "cycle_length"), _int64(block, "block_length"),
                                                  _int64(num_parallel_calls, "num_parallel_calls")],
                                extra_attrs={"sloppy": False})

    def apply(self, transformation_func):
        return transformation_func(self)

    # ---- iterators
    def make_one_shot_iterator(self):
        return make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name=None):
        return make_initializable_iterator(self, shared_name)

    def __iter__(self):
        raise RuntimeError("__iter__() is only supported inside of tf.function or when eager execution is enabled.")


def _zero(dtype):
    return b"" if dtype == dtypes.string else np.zeros((), dtype=dtype.as_numpy_dtype)


def _flat_padded_shapes(padded_shapes, specs):
    """One list of dims (None: the batch's largest) per component, in flattened order."""
    if isinstance(specs, dict):
        return [dims for k in sorted(specs) for dims in _flat_padded_shapes(padded_shapes[k], specs[k])]
    if isinstance(specs, tuple):
        return [dims for p, s in zip(padded_shapes, specs) for dims in _flat_padded_shapes(p, s)]
    if isinstance(padded_shapes, TensorShape):
        return [padded_shapes.as_list()]
    return [[None if d is None or d == -1 else int(d) for d in padded_shapes]]


def _batched(shape, size):
    dims = _shape_list(shape)
    return TensorShape(None if dims is None else [size] + dims)


def _most_specific_compatible(a, b):
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def _check_same_types(a, b):
    if nest.flatten(a.output_types) != nest.flatten(b.output_types):
        raise TypeError("Two datasets to concatenate have different types %s and %s" % (a.output_types, b.output_types))


class _TensorDataset(Dataset):
    def __init__(self, tensors, slices):
        values = _lists_as_leaves(tensors)
        self._raw = nest.flatten(values)
        structure = nest.map_structure(framework.convert_to_tensor, values)
        self._structure = structure
        self._home = framework.get_default_graph()
        self._slices = slices
        flat = nest.flatten(structure)
        if slices:
            specs = [_Spec(t.dtype, TensorShape(None if t.shape.ndims is None else t.shape.as_list()[1:]))
                     for t in flat]
        else:
            specs = [_Spec(t.dtype, t.shape) for t in flat]
        super().__init__(nest.pack_sequence_as(structure, specs))
        self._variants[framework.get_default_graph()] = self._build()

    def _build(self):
        flat = nest.flatten(self._structure)
        if framework.get_default_graph() is self._home:
            inputs = flat
        else:  # Rebuilt (a one-shot iterator's factory): values become constants there again.
            inputs = [raw if isinstance(raw, Tensor) else framework.convert_to_tensor(raw, dtype=t.dtype)
                      for raw, t in zip(self._raw, flat)]
        attrs = _attrs(self._specs)
        return self._op("TensorSliceDataset" if self._slices else "TensorDataset", inputs,
                        {"Toutput_types": attrs["output_types"], "output_shapes": attrs["output_shapes"]})


class _RangeDataset(Dataset):
    def __init__(self, *args, output_type=dtypes.int64):
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            start, stop, step = args[0], args[1], 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError("Invalid arguments to RangeDataset: %s" % (args,))
        self._args = (start, stop, step)
        super().__init__(_Spec(output_type, []))
        self._variants[framework.get_default_graph()] = self._build()

    def _build(self):
        start, stop, step = self._args
        return self._op("RangeDataset", [_int64(start, "start"), _int64(stop, "stop"), _int64(step, "step")],
                        _attrs(self._specs))


class _ZipDataset(Dataset):
    def __init__(self, datasets):
        self._datasets = datasets
        for d in nest.flatten(datasets):
            if not isinstance(d, Dataset):
                raise TypeError("The argument to `Dataset.zip()` must be a (nested) structure of `Dataset` objects.")
        super().__init__(nest.map_structure(lambda d: d._specs, datasets))
        self._variants[framework.get_default_graph()] = self._build()

    def _build(self):
        flat = nest.flatten(self._datasets)
        attrs = _attrs(self._specs)
        attrs["N"] = len(flat)
        return self._op("ZipDataset", [d._variant_tensor for d in flat], attrs)


class _UnaryDataset(Dataset):
    def __init__(self, input_dataset, op_type, inputs, specs, extra_attrs=None, check=None):
        if check is not None:
            check()
        self._input = input_dataset
        self._op_type = op_type
        self._inputs = inputs
        self._extra = extra_attrs or {}
        super().__init__(specs)
        self._variants[framework.get_default_graph()] = self._build()

    def _build(self):
        attrs = _attrs(self._specs)
        attrs.update(self._extra)
        if "Toutput_types" in attrs:  # PaddedBatchDatasetV2 names its types so (as TF).
            del attrs["output_types"]
        return self._op(self._op_type, [self._input._variant_tensor] + self._inputs(), attrs)


def _placeholders_for(specs):
    def make():
        flat = [array_ops.placeholder(s.dtype, _shape_list(s.shape), name="arg") for s in nest.flatten(specs)]
        element = nest.pack_sequence_as(specs, flat)
        args = element if isinstance(element, tuple) and not hasattr(element, "_fields") else (element,)
        return flat, args
    return make


def _convert_result(result):
    result = _normalize(result)
    if result is None:
        raise TypeError("The function passed to the dataset transformation returned None; it must return tensors.")
    flat = []
    for leaf in nest.flatten(result):
        flat.append(leaf._variant_tensor if isinstance(leaf, Dataset) else framework.convert_to_tensor(leaf))
    return flat, result


class _FunctionDataset(Dataset):
    """filter / flat_map / interleave (and map through _MapDataset)."""

    def __init__(self, input_dataset, op_type, fn_attr, fn, kind, specs, trailing=None, extra_attrs=None):
        self._input = input_dataset
        self._op_type = op_type
        self._fn_attr = fn_attr
        self._trailing = trailing or (lambda: [])
        self._extra = extra_attrs or {}
        name, captured, flat, result = data_function.trace(fn, _placeholders_for(input_dataset._specs),
                                                           "Dataset_" + kind, _convert_result)
        if op_type == "FilterDataset":
            if len(flat) != 1 or flat[0].dtype != dtypes.bool or flat[0].shape.ndims not in (None, 0):
                raise ValueError("`predicate` return type must be convertible to a scalar boolean tensor. "
                                 "Was %s." % (result,))
        if specs is None:  # flat_map / interleave: the element structure of the returned dataset.
            if not isinstance(result, Dataset):
                raise TypeError("`map_func` must return a `Dataset` object. Got %s" % type(result))
            specs = result._specs
        self._fn_name, self._captured, self._result = name, captured, result
        super().__init__(specs)
        self._variants[framework.get_default_graph()] = self._build()

    def _build(self):
        attrs = _attrs(self._specs)
        attrs.update(self._extra)
        attrs[self._fn_attr] = data_function.func_attr(self._fn_name)
        attrs["Targuments"] = [t.dtype._core for t in self._captured]
        return self._op(self._op_type, [self._input._variant_tensor] + list(self._captured) + self._trailing(), attrs)


class _MapDataset(_FunctionDataset):
    def __init__(self, input_dataset, fn, num_parallel_calls):
        self._input = input_dataset
        name, captured, flat, result = data_function.trace(fn, _placeholders_for(input_dataset._specs),
                                                           "Dataset_map", _convert_result)
        specs = nest.pack_sequence_as(result, [_Spec(t.dtype, t.shape) for t in flat])
        self._fn_name, self._captured, self._result = name, captured, result
        self._fn_attr = "f"
        if num_parallel_calls is None:
            self._op_type = "MapDataset"
            self._trailing = lambda: []
            self._extra = {"preserve_cardinality": True}
        else:
            self._op_type = "ParallelMapDatasetV2"
            self._trailing = lambda: [_int64(num_parallel_calls, "num_parallel_calls")]
            self._extra = {"preserve_cardinality": True, "deterministic": "default"}
        Dataset.__init__(self, specs)
        self._variants[framework.get_default_graph()] = self._build()


class _FileDataset(Dataset):
    def __init__(self, op_type, filenames, inputs):
        self._op_type = op_type
        self._filenames = filenames
        self._inputs = inputs
        super().__init__(_Spec(dtypes.string, []))
        self._variants[framework.get_default_graph()] = self._build()

    def _build(self):
        names = self._filenames
        if not isinstance(names, Tensor):
            names = framework.convert_to_tensor(names, dtype=dtypes.string, name="filenames")
        return self._op(self._op_type, [names] + self._inputs(), {})


class TFRecordDataset(_FileDataset):
    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        super().__init__("TFRecordDataset", filenames,
                         lambda: [array_ops.constant(compression_type or "", name="compression_type"),
                                  _int64(buffer_size or 262144, "buffer_size")])


class TextLineDataset(_FileDataset):
    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        super().__init__("TextLineDataset", filenames,
                         lambda: [array_ops.constant(compression_type or "", name="compression_type"),
                                  _int64(buffer_size or 262144, "buffer_size")])


class FixedLengthRecordDataset(_FileDataset):
    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None):
        super().__init__("FixedLengthRecordDatasetV2", filenames,
                         lambda: [_int64(header_bytes or 0, "header_bytes"), _int64(record_bytes, "record_bytes"),
                                  _int64(footer_bytes or 0, "footer_bytes"), _int64(buffer_size or 262144, "buffer_size"),
                                  array_ops.constant(compression_type or "", name="compression_type")])


class Iterator(_Structure):
    """tf.data.Iterator (TF 1.x): a resource walking a dataset."""

    def __init__(self, handle, initializer, specs):
        self._handle = handle
        self._initializer = initializer
        self._specs = specs

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None):
        if output_shapes is None:
            output_shapes = nest.map_structure(lambda _: TensorShape(None), output_types)
        flat_shapes = nest.flatten(_normalize_shapes_like(output_shapes, output_types))
        specs = nest.pack_sequence_as(output_types, [
            _Spec(t, s) for t, s in zip(nest.flatten(output_types), flat_shapes)])
        handle = framework._op("IteratorV2", [], dict(_attrs(specs), shared_name=shared_name or "", container=""),
                               name="IteratorV2", graph=framework.get_default_graph()).outputs[0]
        return Iterator(handle, None, specs)

    @property
    def _iterator_resource(self):
        """The iterator's resource handle (TF's name for it)."""
        return self._handle

    @property
    def initializer(self):
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        if nest.flatten(dataset.output_types) != nest.flatten(self.output_types):
            raise TypeError("Expected output types %r but got dataset with output types %r."
                            % (self.output_types, dataset.output_types))
        for mine, theirs in zip(nest.flatten(self.output_shapes), nest.flatten(dataset.output_shapes)):
            if not _compatible(mine, theirs):
                raise TypeError("Expected output shapes compatible with %r but got dataset with output shapes %r."
                                % (self.output_shapes, dataset.output_shapes))
        return framework._op("MakeIterator", [dataset._variant_tensor, self._handle], {},
                             name=name or "MakeIterator", graph=framework.get_default_graph())

    def get_next(self, name=None):
        op = framework._op("IteratorGetNext", [self._handle], _attrs(self._specs), name=name or "IteratorGetNext",
                           graph=self._handle.graph)
        return nest.pack_sequence_as(self._specs, op.outputs)

    def string_handle(self, name=None):
        raise NotImplementedError("Iterator.string_handle is not supported by tensorweave yet")



def _normalize_shapes_like(shapes, types):
    if isinstance(types, dict):
        return {k: _normalize_shapes_like(shapes[k], types[k]) for k in types}
    if isinstance(types, (tuple, list)):
        return tuple(_normalize_shapes_like(s, t) for s, t in zip(shapes, types))
    return shapes if isinstance(shapes, TensorShape) else TensorShape(shapes)


def _compatible(a, b):
    if a.ndims is None or b.ndims is None:
        return True
    if a.ndims != b.ndims:
        return False
    return all(x is None or y is None or x == y for x, y in zip(a.as_list(), b.as_list()))


def make_initializable_iterator(dataset, shared_name=None):
    iterator = Iterator.from_structure(dataset.output_types, dataset.output_shapes, shared_name=shared_name)
    iterator._initializer = iterator.make_initializer(dataset)
    return iterator


def make_one_shot_iterator(dataset):
    """An iterator that needs no initializer: OneShotIterator builds the dataset once with
    a function that rebuilds the dataset's ops (its dataset_factory)."""
    def factory():
        return dataset

    def convert(result):
        return [result._variant_tensor], result

    name, captured, _, _ = data_function.trace(factory, lambda: ([], ()), "make_dataset", convert)
    if captured:
        raise ValueError("Failed to create a one-shot iterator for a dataset that captures tensors of the graph "
                         "(%s); use make_initializable_iterator() instead." % ", ".join(t.name for t in captured))
    handle = framework._op("OneShotIterator", [],
                           dict(_attrs(dataset._specs), dataset_factory=data_function.func_attr(name),
                                container="", shared_name=""),
                           name="OneShotIterator", graph=framework.get_default_graph()).outputs[0]
    return Iterator(handle, None, dataset._specs)
