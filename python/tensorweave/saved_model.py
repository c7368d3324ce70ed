"""SavedModels (tf.saved_model in TF 1.x): saved_model.pb with one MetaGraphDef per tag
set, the variables in variables/variables.{index,data-00000-of-00001} (a V2 checkpoint).
Written so that TensorFlow's loader reads them; TF1 SavedModels are read here, TF2 ones
(tf.saved_model.save) through the C++ loader, which inlines their function calls."""
import os
import types

from google.protobuf import text_format

from tensorweave import errors, meta_graph
from tensorweave.framework import get_default_graph
from tensorweave.proto import meta_graph_pb2, saved_model_pb2

SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
ASSETS_DIRECTORY = "assets"
SAVED_MODEL_SCHEMA_VERSION = 1
MAIN_OP_KEY = "saved_model_main_op"
LEGACY_INIT_OP_KEY = "legacy_init_op"

tag_constants = types.SimpleNamespace(SERVING="serve", TRAINING="train", EVAL="eval", GPU="gpu", TPU="tpu")

signature_constants = types.SimpleNamespace(
    DEFAULT_SERVING_SIGNATURE_DEF_KEY="serving_default",
    PREDICT_METHOD_NAME="tensorflow/serving/predict", PREDICT_INPUTS="inputs", PREDICT_OUTPUTS="outputs",
    CLASSIFY_METHOD_NAME="tensorflow/serving/classify", CLASSIFY_INPUTS="inputs",
    CLASSIFY_OUTPUT_CLASSES="classes", CLASSIFY_OUTPUT_SCORES="scores",
    REGRESS_METHOD_NAME="tensorflow/serving/regress", REGRESS_INPUTS="inputs", REGRESS_OUTPUTS="outputs")


# ---- TensorInfo and SignatureDef

def build_tensor_info(tensor):
    """The TensorInfo (name, dtype, static shape) of a tensor."""
    info = meta_graph_pb2.TensorInfo(name=tensor.name, dtype=int(tensor.dtype._core))
    dims = tensor.shape.dims
    if dims is None:
        info.tensor_shape.unknown_rank = True
    else:
        for d in dims:
            info.tensor_shape.dim.add().size = -1 if d is None else d
    return info


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The tensor a (dense) TensorInfo names in `graph`."""
    if tensor_info.WhichOneof("encoding") != "name":
        raise errors.UnimplementedError(None, None, "get_tensor_from_tensor_info: only dense tensors (TensorInfo.name)"
                                        " are supported, not %s" % tensor_info.WhichOneof("encoding"))
    graph = graph or get_default_graph()
    prefix = import_scope.rstrip("/") + "/" if import_scope else ""
    return graph.get_tensor_by_name(prefix + tensor_info.name)


def build_signature_def(inputs=None, outputs=None, method_name=None, defaults=None):
    sig = meta_graph_pb2.SignatureDef(method_name=method_name or "")
    for key, info in (inputs or {}).items():
        sig.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        sig.outputs[key].CopyFrom(info)
    return sig


def _infos(tensors, what):
    if not tensors:
        raise ValueError("%s cannot be None or empty." % what)
    return {key: build_tensor_info(t) for key, t in tensors.items()}


def predict_signature_def(inputs, outputs):
    return build_signature_def(_infos(inputs, "Prediction inputs"), _infos(outputs, "Prediction outputs"),
                               signature_constants.PREDICT_METHOD_NAME)


def regression_signature_def(examples, predictions):
    return build_signature_def({signature_constants.REGRESS_INPUTS: build_tensor_info(examples)},
                               {signature_constants.REGRESS_OUTPUTS: build_tensor_info(predictions)},
                               signature_constants.REGRESS_METHOD_NAME)


def classification_signature_def(examples, classes, scores):
    outputs = {}
    if classes is not None:
        outputs[signature_constants.CLASSIFY_OUTPUT_CLASSES] = build_tensor_info(classes)
    if scores is not None:
        outputs[signature_constants.CLASSIFY_OUTPUT_SCORES] = build_tensor_info(scores)
    return build_signature_def({signature_constants.CLASSIFY_INPUTS: build_tensor_info(examples)}, outputs,
                               signature_constants.CLASSIFY_METHOD_NAME)


utils = types.SimpleNamespace(build_tensor_info=build_tensor_info,
                              get_tensor_from_tensor_info=get_tensor_from_tensor_info)
signature_def_utils = types.SimpleNamespace(
    build_signature_def=build_signature_def, predict_signature_def=predict_signature_def,
    regression_signature_def=regression_signature_def, classification_signature_def=classification_signature_def)


# ---- writing

def _variables_prefix(export_dir):
    return os.path.join(export_dir, VARIABLES_DIRECTORY, VARIABLES_FILENAME)


class SavedModelBuilder:
    """tf.saved_model.builder.SavedModelBuilder: add_meta_graph_and_variables once, then
    add_meta_graph for further tag sets, then save."""

    def __init__(self, export_dir):
        self._export_dir = os.fspath(export_dir)
        if os.path.exists(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError(
                    "Export directory %s already exists, and isn't empty. Please choose a different export directory, "
                    "or delete all the contents of the specified directory." % self._export_dir)
        else:
            os.makedirs(self._export_dir)
        self._saved_model = saved_model_pb2.SavedModel(saved_model_schema_version=SAVED_MODEL_SCHEMA_VERSION)
        self._has_saved_variables = False

    def _check_tags(self, tags):
        if isinstance(tags, str) or not all(isinstance(t, str) for t in tags):
            raise TypeError("tags must be a list of strings, got %r" % (tags,))
        for mg in self._saved_model.meta_graphs:
            if set(mg.meta_info_def.tags) == set(tags):
                raise AssertionError("MetaGraphDef associated with tags %s already exists." % sorted(tags))

    def _add(self, graph, saver, tags, signature_def_map, clear_devices, main_op):
        if main_op is not None:
            graph.add_to_collection(MAIN_OP_KEY, main_op)
        mg = meta_graph.build_meta_graph_def(graph, saver, clear_devices=clear_devices, tags=list(tags))
        for key, sig in (signature_def_map or {}).items():
            # Ours, or TensorFlow's own message class (the same fields): copied by bytes.
            mg.signature_def[key].ParseFromString(sig.SerializeToString())
        self._saved_model.meta_graphs.add().CopyFrom(mg)

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None, assets_collection=None,
                                     clear_devices=False, main_op=None, strip_default_attrs=False, saver=None,
                                     legacy_init_op=None, **kwargs):
        from tensorweave import train, variables
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been saved. Please invoke "
                                 "`add_meta_graph()` instead.")
        if assets_collection:
            raise errors.UnimplementedError(None, None, "SavedModelBuilder: assets are not supported")
        self._check_tags(tags)
        graph = sess.graph
        with graph.as_default():
            if saver is None and variables.global_variables():
                saver = train.Saver()
            if saver is not None:
                prefix = _variables_prefix(self._export_dir)
                os.makedirs(os.path.dirname(prefix), exist_ok=True)
                saver.save(sess, prefix, write_meta_graph=False)
                # TF's builder writes no checkpoint state file (the loader never reads one).
                state = os.path.join(os.path.dirname(prefix), "checkpoint")
                if os.path.exists(state):
                    os.remove(state)
            self._add(graph, saver, tags, signature_def_map, clear_devices, main_op or legacy_init_op)
        self._has_saved_variables = True

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None, clear_devices=False, main_op=None,
                       strip_default_attrs=False, saver=None, legacy_init_op=None, **kwargs):
        from tensorweave import train, variables
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been saved yet. Please invoke "
                                 "`add_meta_graph_and_variables()` first.")
        self._check_tags(tags)
        graph = get_default_graph()
        if saver is None and variables.global_variables():
            saver = train.Saver()
        self._add(graph, saver, tags, signature_def_map, clear_devices, main_op or legacy_init_op)

    def save(self, as_text=False):
        name = SAVED_MODEL_FILENAME_PBTXT if as_text else SAVED_MODEL_FILENAME_PB
        path = os.path.join(self._export_dir, name)
        meta_graph._write_proto(self._saved_model, path, as_text)
        return path


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """One MetaGraph tagged "serve" with the signature "serving_default" (predict)."""
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        session, [tag_constants.SERVING],
        signature_def_map={signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                           predict_signature_def(inputs, outputs)},
        main_op=legacy_init_op)
    builder.save()


# ---- reading

def maybe_saved_model_directory(export_dir):
    return any(os.path.isfile(os.path.join(export_dir, n)) for n in (SAVED_MODEL_FILENAME_PB,
                                                                    SAVED_MODEL_FILENAME_PBTXT))


def read_saved_model(export_dir):
    """The SavedModel of a directory: OSError when there is none, DataLoss naming the file
    when it does not parse."""
    export_dir = os.fspath(export_dir)
    pb = os.path.join(export_dir, SAVED_MODEL_FILENAME_PB)
    pbtxt = os.path.join(export_dir, SAVED_MODEL_FILENAME_PBTXT)
    sm = saved_model_pb2.SavedModel()
    if os.path.isfile(pb):
        with open(pb, "rb") as f:
            data = f.read()
        try:
            sm.ParseFromString(data)
        except Exception as e:  # noqa: BLE001 - protobuf's DecodeError
            raise errors.DataLossError(None, None, "Cannot parse file %s as a SavedModel: %s" % (pb, e))
    elif os.path.isfile(pbtxt):
        with open(pbtxt, "rb") as f:
            data = f.read()
        try:
            text_format.Merge(data.decode("utf-8"), sm)
        except Exception as e:  # noqa: BLE001
            raise errors.DataLossError(None, None, "Cannot parse file %s as a SavedModel: %s" % (pbtxt, e))
    else:
        raise OSError("SavedModel file does not exist at: %s/{%s|%s}" % (export_dir.rstrip("/"),
                                                                         SAVED_MODEL_FILENAME_PBTXT,
                                                                         SAVED_MODEL_FILENAME_PB))
    return sm


def _tag_list(tags):
    return ", ".join("'%s'" % t for t in tags)


def find_meta_graph(saved_model, tags):
    for mg in saved_model.meta_graphs:
        if set(mg.meta_info_def.tags) == set(tags):
            return mg
    available = "[%s]" % ", ".join("{%s}" % _tag_list(mg.meta_info_def.tags) for mg in saved_model.meta_graphs)
    raise RuntimeError("MetaGraphDef associated with tags %s could not be found in SavedModel, with available tags "
                       "'%s'. To inspect available tag-sets in the SavedModel, please use the SavedModel CLI: "
                       "`saved_model_cli`." % (_tag_list(tags), available))


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Imports the MetaGraph of `tags` into sess.graph, restores its variables and runs its
    main op; returns the MetaGraphDef (a tensorweave proto message, TF's fields)."""
    if isinstance(tags, str):
        tags = [tags]
    sm = read_saved_model(export_dir)
    mg = find_meta_graph(sm, tags)
    graph = sess.graph
    if any(n.op in meta_graph._FUNCTION_CALL_OPS for n in mg.graph_def.node):
        return _load_tf2(sess, mg, os.fspath(export_dir), import_scope)
    with graph.as_default():
        named = meta_graph.import_meta_graph_def(graph, mg, import_scope=import_scope,
                                                 where="SavedModel %s" % os.fspath(export_dir))
        if named:
            from tensorweave import train
            prefix = _variables_prefix(os.fspath(export_dir))
            if not os.path.isfile(prefix + ".index"):
                raise errors.NotFoundError(None, None, "SavedModel %s: its variables checkpoint %s.index is missing"
                                           % (export_dir, prefix))
            train.Saver(named).restore(sess, prefix)
        scope = import_scope.rstrip("/") + "/" if import_scope else ""
        for key in (MAIN_OP_KEY, LEGACY_INIT_OP_KEY):
            cd = mg.collection_def.get(key) if key in mg.collection_def else None
            if cd is not None and cd.node_list.value:
                sess.run(graph.as_graph_element(scope + cd.node_list.value[0]))
                break
    return mg


def _load_tf2(sess, mg, export_dir, import_scope):
    """A TF2 SavedModel: its function calls inlined by the C++ loader (function_inliner),
    the variables restored by the keys TF2's restore function reads, the init op run.
    Returns the MetaGraphDef with its signatures pointing at the inlined outputs."""
    from tensorweave import _core
    if import_scope:
        raise errors.UnimplementedError(None, None, "SavedModel %s: import_scope is not supported for a TF2 "
                                        "SavedModel" % export_dir)
    prefix = _variables_prefix(export_dir)
    graph_def, restore_op, renamed = _core.graph_def_for_load(mg.SerializeToString(), prefix)
    graph = sess.graph
    graph.import_graph_def(graph_def)
    if restore_op:
        if not os.path.isfile(prefix + ".index"):
            raise errors.NotFoundError(None, None, "SavedModel %s: its variables checkpoint %s.index is missing"
                                       % (export_dir, prefix))
        sess.run(graph.get_operation_by_name(restore_op))
    loaded = meta_graph_pb2.MetaGraphDef()
    loaded.CopyFrom(mg)
    for sig in loaded.signature_def.values():
        for info in list(sig.inputs.values()) + list(sig.outputs.values()):
            info.name = renamed.get(info.name, info.name)
    init = loaded.signature_def.get("__saved_model_init_op") if "__saved_model_init_op" in loaded.signature_def \
        else None
    if init is not None and len(init.outputs) == 1:
        sess.run(graph.get_operation_by_name(next(iter(init.outputs.values())).name.split(":")[0]))
    return loaded


def signature_tensors(meta_graph_def, signature_key, graph=None, import_scope=None):
    """({input key: Tensor}, {output key: Tensor}) of one signature; KeyError listing the
    signatures present for an unknown key."""
    if signature_key not in meta_graph_def.signature_def:
        raise KeyError("Signature '%s' is not in the MetaGraph; it has: %s"
                       % (signature_key, sorted(meta_graph_def.signature_def)))
    sig = meta_graph_def.signature_def[signature_key]
    get = lambda info: get_tensor_from_tensor_info(info, graph, import_scope)  # noqa: E731
    return ({k: get(v) for k, v in sig.inputs.items()}, {k: get(v) for k, v in sig.outputs.items()})


builder = types.SimpleNamespace(SavedModelBuilder=SavedModelBuilder)
Builder = SavedModelBuilder
loader = types.SimpleNamespace(load=load, maybe_saved_model_directory=maybe_saved_model_directory)
