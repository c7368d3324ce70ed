// The seeds' first distributed program: y2 = x - 66 on task 1, y1 = x + 300 and
// y = y1 + y2 on task 0, run through a session on task 0. Prints 238.
//   distributed_238 [--cluster_spec=local|localhost:2222;localhost:2223] [--job=local]
#include <iostream>

#include "example_cluster.h"
#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

int main(int argc, char** argv) {
  tw::InitProcess();
  try {
    std::string job;
    auto cluster = tw::examples::ClusterFromArgs(argc, argv, "local", 2, &job);
    tw::Graph g;
    auto x = tw::constant(g, 2);
    tw::Output y1, y2, y;
    {
      auto on = g.device("/job:" + job + "/task:1");
      y2 = x - 66;
    }
    {
      auto on = g.device("/job:" + job + "/task:0");
      y1 = x + 300;
      y = y1 + y2;
    }
    tw::Session sess(g, "grpc://" + tw::ValueOrThrow(cluster.spec.address(job, 0)));
    std::cout << sess.run(y).scalar<int32_t>() << "\n";
  } catch (const tw::StatusError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
