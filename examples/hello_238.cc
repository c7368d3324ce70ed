// The seeds' first program: a constant and three additions, run in one process.
//   x = 2; y1 = x + 300; y2 = x - 66; y = y1 + y2   -> prints 238
#include <iostream>

#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

int main() {
  tw::InitProcess();
  try {
    tw::Graph g;
    auto x = tw::constant(g, 2);
    auto y1 = x + 300;
    auto y2 = x - 66;
    auto y = y1 + y2;

    tw::Session sess(g);
    std::cout << sess.run(y).scalar<int32_t>() << "\n";
  } catch (const tw::StatusError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
