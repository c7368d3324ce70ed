"""TensorFlow's message classes under TensorFlow's names: tf.GraphDef, tf.NodeDef, ...
are the protobuf classes generated from proto/*.proto (package tensorweave, TF's field
numbers, so bytes interchange with TensorFlow's), and the module paths programs import
them from (`from tensorweave.core.framework import graph_pb2`) are thin alias modules
registered in sys.modules (the package is installed flat, without subfolders)."""
import sys
import types

from tensorweave import config
from tensorweave.proto import (event_pb2, graph_pb2, meta_graph_pb2, saver_pb2, step_stats_pb2, summary_pb2,
                               tensor_pb2)

GraphDef = graph_pb2.GraphDef
NodeDef = graph_pb2.NodeDef
AttrValue = graph_pb2.AttrValue
VersionDef = graph_pb2.VersionDef
NameAttrList = graph_pb2.NameAttrList  # proto/graph.proto
TensorShapeProto = tensor_pb2.TensorShapeProto
TensorProto = tensor_pb2.TensorProto
MetaGraphDef = meta_graph_pb2.MetaGraphDef

_DATA_TYPE_NAMES = [name for name in tensor_pb2.DataType.keys()]

# module path -> {attribute: object}. The config_pb2 classes are tensorweave.config's
# (they behave as the protobuf ones; the session reads them).
_MODULES = {
    "core.framework.graph_pb2": {"GraphDef": GraphDef},
    "core.framework.node_def_pb2": {"NodeDef": NodeDef},
    "core.framework.attr_value_pb2": {"AttrValue": AttrValue, "NameAttrList": NameAttrList},
    "core.framework.versions_pb2": {"VersionDef": VersionDef},
    "core.framework.tensor_pb2": {"TensorProto": TensorProto},
    "core.framework.tensor_shape_pb2": {"TensorShapeProto": TensorShapeProto},
    "core.framework.resource_handle_pb2": {"ResourceHandleProto": tensor_pb2.ResourceHandleProto},
    "core.framework.types_pb2": dict({"DataType": tensor_pb2.DataType},
                                     **{n: getattr(tensor_pb2, n) for n in _DATA_TYPE_NAMES}),
    "core.framework.summary_pb2": {n: getattr(summary_pb2, n) for n in
                                   ("Summary", "HistogramProto", "SummaryMetadata", "SummaryDescription")},
    "core.framework.step_stats_pb2": {n: getattr(step_stats_pb2, n) for n in
                                      ("StepStats", "DeviceStepStats", "NodeExecStats", "NodeOutput",
                                       "AllocatorMemoryUsed", "AllocationRecord", "MemoryStats")},
    "core.framework.tensor_description_pb2": {"TensorDescription": step_stats_pb2.TensorDescription},
    "core.framework.allocation_description_pb2": {"AllocationDescription": step_stats_pb2.AllocationDescription},
    "core.protobuf.config_pb2": {n: getattr(config, n) for n in
                                 ("ConfigProto", "GPUOptions", "GraphOptions", "OptimizerOptions", "RunOptions",
                                  "RunMetadata", "ThreadPoolOptionProto")},
    "core.protobuf.meta_graph_pb2": {n: getattr(meta_graph_pb2, n) for n in
                                     ("MetaGraphDef", "CollectionDef", "TensorInfo", "SignatureDef",
                                      "AssetFileDef")},
    "core.protobuf.saver_pb2": {"SaverDef": saver_pb2.SaverDef},
    "core.util.event_pb2": {n: getattr(event_pb2, n) for n in
                            ("Event", "LogMessage", "SessionLog", "TaggedRunMetadata")},
}


def _module(full_name):
    module = sys.modules.get(full_name)
    if module is None:
        module = types.ModuleType(full_name)
        module.__path__ = []  # a package, so that submodules import
        sys.modules[full_name] = module
        parent, _, leaf = full_name.rpartition(".")
        setattr(_module(parent) if parent != "tensorweave" else sys.modules["tensorweave"], leaf, module)
    return module


def register_modules():
    """Creates tensorweave.core.framework.graph_pb2 and the other alias modules."""
    for path, attrs in _MODULES.items():
        module = _module("tensorweave." + path)
        for name, value in attrs.items():
            setattr(module, name, value)
