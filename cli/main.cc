// dpsearch: thin command-line front end. Argument handling only; all logic
// lives in the libraries so tests and benchmarks can call it.
#include <cstdio>

int main(int argc, char** argv) {
  std::fprintf(stderr, "dpsearch: no command yet\n");
  return 2;
}
