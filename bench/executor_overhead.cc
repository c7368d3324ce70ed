// Executor overhead: one Session.run of 10,000 scalar Add nodes, as a chain
// (x = x + 1, each depending on the last) and as 10,000 independent adds of two
// constants. Prints the median microseconds per node over repeated runs.
//   executor_overhead [--nodes N] [--repeats R]
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"
#include "timing.h"

namespace {

double MedianMicrosPerNode(tw::Session& sess, const std::vector<tw::Output>& fetches,
                           const std::vector<tw::Operation>& targets, int nodes, int repeats) {
  // The signature is prepared once, by the warm-up call, outside the timing.
  return 1e6 * tw::bench::MedianSeconds(repeats, /*warmup=*/1, [&] { sess.run(fetches, {}, targets); }) / nodes;
}

}  // namespace

int main(int argc, char** argv) {
  tw::InitProcess();
  int nodes = 10000, repeats = 51;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--nodes")) nodes = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
  }
  tw::Graph chain_graph;
  auto one = tw::constant(chain_graph, 1.0f);
  tw::Output x = tw::constant(chain_graph, 0.0f);
  for (int i = 0; i < nodes; ++i) x = tw::add(x, one);
  tw::Session chain_sess(chain_graph);
  double chain = MedianMicrosPerNode(chain_sess, {x}, {}, nodes, repeats);
  float value = chain_sess.run(x).scalar<float>();
  if (value != static_cast<float>(nodes)) {
    std::fprintf(stderr, "wrong chain result %f\n", value);
    return 1;
  }

  tw::Graph wide_graph;
  std::vector<tw::Operation> adds;
  for (int i = 0; i < nodes; ++i) {
    adds.push_back(tw::add(tw::constant(wide_graph, 1.0f), tw::constant(wide_graph, 2.0f)).op());
  }
  auto all = tw::group(wide_graph, adds);
  tw::Session wide_sess(wide_graph);
  double wide = MedianMicrosPerNode(wide_sess, {}, {all}, nodes, repeats);

  std::printf("tensorweave chain of %d scalar Adds:       %.3f us/node (median of %d)\n", nodes, chain, repeats);
  std::printf("tensorweave %d independent scalar Adds:    %.3f us/node (median of %d; +%d Const nodes)\n",
              nodes, wide, repeats, 2 * nodes);
  std::printf("RESULT chain_us_per_node=%.4f wide_us_per_node=%.4f\n", chain, wide);
  return 0;
}
