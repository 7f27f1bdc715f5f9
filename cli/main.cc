// dpsearch: the command-line front end. Argument handling and output only;
// every behaviour lives in the libraries so tests and benchmarks can call it.
// The command line itself is defined in cli/app.cc, main() in cli/run.cc.
//
// Exit codes (DESIGN.md): 0 success, 1 query ran but matched nothing,
// 2 usage or input error, 3 index or I/O error, 4 partial cluster answer.
#include "cli/run.h"

int main(int argc, char** argv) { return dps::cli::Run(argc, argv); }
