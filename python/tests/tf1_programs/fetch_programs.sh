#!/bin/sh
# Downloads the public TensorFlow 1.x programs test_tf1_programs.py runs, each from the
# commit pinned in README.md, into DIR (default build/tf1_programs). They are other
# people's code under their own licenses (README.md), so they are not kept in this
# repository. Needs network access to raw.githubusercontent.com.
set -eu
dir=${1:-build/tf1_programs}
mkdir -p "$dir"
fetch() {  # repository commit path [local name]
  name=${4:-$(basename "$3")}
  curl -fsSL "https://raw.githubusercontent.com/$1/$2/$3" -o "$dir/$name"
  echo "$dir/$name  <-  $1@$2:$3"
}
AE=aymericdamien/TensorFlow-Examples
AEC=6dcbe14649163814e72a22a999f20c5e247ce988
fetch $AE $AEC tensorflow_v1/examples/1_Introduction/helloworld.py
fetch $AE $AEC tensorflow_v1/examples/1_Introduction/basic_operations.py
fetch $AE $AEC tensorflow_v1/examples/2_BasicModels/linear_regression.py
fetch $AE $AEC tensorflow_v1/examples/2_BasicModels/logistic_regression.py
fetch $AE $AEC tensorflow_v1/examples/2_BasicModels/nearest_neighbor.py
fetch $AE $AEC tensorflow_v1/examples/2_BasicModels/kmeans.py
fetch $AE $AEC tensorflow_v1/examples/3_NeuralNetworks/multilayer_perceptron.py
fetch $AE $AEC tensorflow_v1/examples/3_NeuralNetworks/neural_network_raw.py
fetch $AE $AEC tensorflow_v1/examples/3_NeuralNetworks/convolutional_network_raw.py
fetch $AE $AEC tensorflow_v1/examples/3_NeuralNetworks/recurrent_network.py
fetch $AE $AEC tensorflow_v1/examples/4_Utils/save_restore_model.py
fetch $AE $AEC tensorflow_v1/examples/4_Utils/tensorboard_basic.py
# TensorFlow's r1.x mnist_replica.py (task_index / job_name flags, Supervisor with local_init_op),
# as kept in a fork (upstream's copy at 1024d00b does not parse).
fetch GuanhuaWang/tensorflow 362332c238782e134cded3c28d39988f5ad980ad tensorflow/tools/dist_test/python/mnist_replica.py
fetch miglopst/cs263_spring2018 51d0e2c36edb66e7752453836123b6653c718bf1 \
  tensorflow/examples/tutorials/mnist/mnist_softmax.py
