// Writes the seed corpus (valid inputs) of every fuzz target into fuzz/corpus/<target>/:
//   build/fuzz/tw_fuzz_seed_corpus fuzz/corpus
// Its output is checked in; rerun it when a target's input format changes.
#include <grpcpp/support/byte_buffer.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "distributed/rpc/tensor_wire.h"
#include "fuzz/fuzz_util.h"
#include "graph/graph_def_import.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/proto/example.pb.h"
#include "tensorweave/tensorweave.h"
#include "checkpoint/checkpoint_writer.h"

namespace tw::fuzz {
namespace {

std::filesystem::path root;

void Write(const std::string& target, const std::string& name, const std::string& bytes) {
  std::filesystem::create_directories(root / target);
  std::ofstream(root / target / name, std::ios::binary) << bytes;
}

Tensor FloatVector(std::vector<float> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return ValueOrThrow(Tensor::FromVector<float>(values, TensorShape({n})));
}

std::vector<Tensor> SampleTensors() {
  Tensor matrix(DType::kInt32, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) matrix.data<int32_t>()[i] = i - 2;
  Tensor flags(DType::kBool, TensorShape({3}));
  flags.data<bool>()[0] = true, flags.data<bool>()[1] = false, flags.data<bool>()[2] = true;
  Tensor big(DType::kInt64, TensorShape({}));
  big.data<int64_t>()[0] = int64_t{1} << 40;
  Tensor d(DType::kDouble, TensorShape({2}));
  d.data<double>()[0] = 0.5, d.data<double>()[1] = -1e300;
  Tensor empty(DType::kFloat, TensorShape({0, 4}));
  return {FloatVector({1.5f, -2, 3}), matrix, flags, big, d, empty};
}

// The tensor_wire target's framing: 2-byte little-endian length, then the message.
std::string Frame(const grpc::ByteBuffer& message) {
  std::vector<grpc::Slice> slices;
  (void)message.Dump(&slices);
  std::string bytes;
  for (const auto& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return std::string{static_cast<char>(bytes.size() & 0xff), static_cast<char>(bytes.size() >> 8)} + bytes;
}

NamedTensor Named(const std::string& name, const Tensor& t) {
  NamedTensor n;
  n.set_name(name);
  *n.mutable_tensor() = TensorToProto(t);
  return n;
}

// A client graph with internal ops, which only the partitioner may make.
GraphDef ClientGraphWithInternalOps() {
  auto def = ParseGraphDef(
      "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }\n"
      "node { name: 'a' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' value { i: 3 } } }\n"
      "node { name: 'r' op: '_Retval' input: 'c' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'index' value { i: 1000000 } } }\n"
      "node { name: 's' op: '_Send' input: 'c' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'tensor_name' value { s: 'x' } } attr { key: 'send_device' value { s: '/job:local/task:0' } } "
      "attr { key: 'recv_device' value { s: '/job:local/task:0' } } }\n"
      "node { name: 'v' op: '_Recv' attr { key: 'tensor_type' value { type: DT_FLOAT } } "
      "attr { key: 'tensor_name' value { s: 'x' } } attr { key: 'send_device' value { s: '/job:local/task:0' } } "
      "attr { key: 'recv_device' value { s: '/job:local/task:0' } } }",
      /*text=*/true);
  if (!def.ok()) throw StatusError(def.status());
  return *def;
}

// One record of the rpc_sequence target: op, index, 2-byte length, message.
std::string Call(uint8_t op, uint8_t index, const std::string& message) {
  return std::string{static_cast<char>(op), static_cast<char>(index), static_cast<char>(message.size() & 0xff),
                     static_cast<char>(message.size() >> 8)} +
         message;
}

void WriteAll() {
  const std::vector<Tensor> tensors = SampleTensors();
  // The tensor_wire target reads streams of 3 tensors: each sample three times (keys 0, 1,
  // 2), and three different samples in the order of keys 2, 0, 1.
  auto stream_of = [](const std::vector<std::pair<int, Tensor>>& keyed) {
    std::string stream;
    for (const auto& [key, tensor] : keyed) {
      TensorChunkWriter writer(tensor, key);
      for (grpc::ByteBuffer message; writer.Next(&message);) stream += Frame(message);
    }
    return stream;
  };
  for (size_t i = 0; i < tensors.size(); ++i) {
    Write("tensor_proto", absl::StrCat("tensor_", i), TensorToProto(tensors[i]).SerializeAsString());
    Write("tensor_wire", absl::StrCat("tensor_", i), stream_of({{0, tensors[i]}, {1, tensors[i]}, {2, tensors[i]}}));
  }
  Write("tensor_wire", "three_tensors", stream_of({{2, tensors[0]}, {0, tensors[1]}, {1, tensors[2]}}));
  TensorProto repeated;  // One value filling a shape (TensorFlow's compressed constants).
  repeated.set_dtype(DT_FLOAT);
  *repeated.mutable_tensor_shape() = ShapeToProto(PartialShape({4, 4}));
  repeated.add_float_val(7);
  Write("tensor_proto", "repeated_value", repeated.SerializeAsString());
  Write("tensor_proto", "resource", TensorToProto(Tensor::Resource({"/cpu:0", "", "v"})).SerializeAsString());

  Write("graph_def", "session_graph", SessionGraph().SerializeAsString());
  Write("graph_def", "partition_graph", PartitionGraph().SerializeAsString());
  for (const char* file : {"mean.pbtxt", "shared_counter.pbtxt"}) {
    auto def = ReadGraphDefFile(std::string(TW_SOURCE_DIR "/examples/graphs/") + file);
    if (def.ok()) Write("graph_def", file, def->SerializeAsString());
  }

  // saved_model: the SavedModels TensorFlow wrote for the tests (TF1 builder, simple_save, TF2).
  for (const char* model : {"builder", "simple", "tf2_module", "tf2_two_heads"}) {
    std::ifstream pb(std::string(TW_SOURCE_DIR "/tests/data/tf_saved_models/") + model + "/saved_model.pb",
                     std::ios::binary);
    if (pb) Write("saved_model", model, std::string(std::istreambuf_iterator<char>(pb), {}));
  }

  RunStepRequest step;
  *step.add_feed() = Named("x:0", FloatVector({1, 2, 3}));
  step.add_fetch("y:0");
  step.add_fetch("Sum:0");
  Write("master_run_step", "feed_x_fetch_y", step.SerializeAsString());
  RunStepRequest init;
  init.add_target("init");
  Write("master_run_step", "init", init.SerializeAsString());
  RunStepRequest ints;
  *ints.add_feed() = Named("n:0", Tensor::Scalar<int32_t>(4));
  ints.add_fetch("m:0");
  Write("master_run_step", "feed_n_fetch_m", ints.SerializeAsString());

  RunGraphRequest run;
  run.set_step_id(1);
  *run.add_send() = Named("arg:0", FloatVector({1, 2}));
  *run.add_send() = Named("arg:1", Tensor::Scalar<int32_t>(5));
  run.add_recv_key("ret:0");
  run.add_recv_key("ret:1");
  Write("worker_run_graph", "both_args", run.SerializeAsString());

  // rpc_sequence ops: 0 create, 1 extend, 2 run, 3 cancelled run, 4 close, 5 cancelled
  // create, 6 register, 7 run graph, 8 deregister.
  GraphDef extra;
  {
    Graph g;
    auto on = g.device("/job:local/task:0");
    g.AddOperation("Identity", "z", {constant(g, 5.0f)}, {});
    extra = g.ToGraphDef();
  }
  const std::string session = SessionGraph().SerializeAsString();
  Write("rpc_sequence", "create_run_extend_close",
        Call(0, 0, session) + Call(2, 0, init.SerializeAsString()) + Call(2, 0, step.SerializeAsString()) +
            Call(1, 0, extra.SerializeAsString()) + Call(3, 0, step.SerializeAsString()) + Call(4, 0, ""));
  Write("rpc_sequence", "two_sessions_one_left_open",
        Call(0, 0, session) + Call(0, 0, session) + Call(2, 1, ints.SerializeAsString()) + Call(4, 0, "") +
            Call(2, 0, step.SerializeAsString()));
  Write("rpc_sequence", "cancelled_create", Call(5, 0, session) + Call(2, 0, step.SerializeAsString()));
  Write("rpc_sequence", "internal_ops_in_client_graphs",
        Call(0, 0, ClientGraphWithInternalOps().SerializeAsString()) + Call(0, 0, session) +
            Call(1, 0, ClientGraphWithInternalOps().SerializeAsString()) + Call(2, 0, step.SerializeAsString()));
  Write("rpc_sequence", "register_run_deregister",
        Call(6, 0, PartitionGraph().SerializeAsString()) + Call(7, 0, run.SerializeAsString()) +
            Call(7, 0, run.SerializeAsString()) + Call(8, 0, "") + Call(7, 0, run.SerializeAsString()));
  Write("graph_def", "client_internal_ops", ClientGraphWithInternalOps().SerializeAsString());

  Write("cluster_spec", "one_job", "local|localhost:2222;localhost:2223");
  Write("cluster_spec", "two_jobs", "ps|h:1,worker|h:2;h:3\n/job:ps/task:0");
  Write("cluster_spec", "devices", "/job:worker/replica:0/task:1/device:CPU:0\n/cpu:0");
  Write("cluster_spec", "tf_config",
        R"({"cluster": {"ps": ["h:1"], "worker": {"0": "h:2", "1": "h:3"}}, "task": {"type": "worker", "index": 1}})");

  const std::string ckpt = (std::filesystem::temp_directory_path() / "tw_seed_checkpoint").string();
  std::vector<checkpoint::NamedTensor> named;
  for (size_t i = 0; i < tensors.size(); ++i) named.push_back({absl::StrCat("var_", i), tensors[i]});
  if (auto s = checkpoint::WriteCheckpoint(ckpt, named); !s.ok()) throw StatusError(s);
  std::ifstream in(ckpt, std::ios::binary);
  Write("checkpoint", "six_tensors", std::string(std::istreambuf_iterator<char>(in), {}));
  std::filesystem::remove(ckpt);

  // parse_example: byte 0 odd = one Example; even = records of a 2-byte length + bytes.
  Example ex;
  auto& features = *ex.mutable_features()->mutable_feature();
  for (float v : {1.f, 2.f}) features["d_f"].mutable_float_list()->add_value(v);
  features["d_i"].mutable_int64_list()->add_value(-3);
  for (const char* v : {"a", "bc"}) features["v_s"].mutable_bytes_list()->add_value(v);
  for (int64_t v : {5, 6, 7}) features["v_i"].mutable_int64_list()->add_value(v);
  for (float v : {0.5f, 1.5f, 2.5f, 3.5f}) features["q_f"].mutable_float_list()->add_value(v);
  const std::string one = ex.SerializeAsString();
  Write("parse_example", "one_example", std::string("\x01") + one);
  std::string batch(1, '\0');
  for (int i = 0; i < 3; ++i) batch += std::string{static_cast<char>(one.size() & 0xff), static_cast<char>(one.size() >> 8)} + one;
  Write("parse_example", "three_examples", batch);
}

}  // namespace
}  // namespace tw::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: tw_fuzz_seed_corpus DIR\n";
    return 2;
  }
  tw::fuzz::root = argv[1];
  tw::fuzz::WriteAll();
  return 0;
}
