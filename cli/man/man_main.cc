#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/app.h"
#include "cli/man/man_page.h"
#include "cli/run.h"
#include "cli/version.h"

namespace dps::cli {

int RunManGenerator(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: dpsearch_man TEMPLATE OUTPUT\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream tmpl;
  if (!(tmpl << in.rdbuf())) {
    std::fprintf(stderr, "dpsearch_man: %s: cannot read\n", argv[1]);
    return 1;
  }
  CLI::App app;
  BuildApp(app);
  auto page = FillManTemplate(tmpl.str(), app, ProjectVersion());
  if (!page.ok()) {
    std::fprintf(stderr, "dpsearch_man: %s: %s\n", argv[1], page.status().ToString().c_str());
    return 1;
  }
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  if (!(out << *page) || !out.flush()) {
    std::fprintf(stderr, "dpsearch_man: %s: cannot write\n", argv[2]);
    return 1;
  }
  return 0;
}

}  // namespace dps::cli
