// dpsearch_man TEMPLATE OUTPUT: writes dpsearch(1) from the roff template
// (docs/dpsearch.1.in) and dpsearch's own CLI::App (cli/app.h). Run by the
// build (target `man_page`, build/dpsearch.1, what `cmake --install`
// installs); `ninja -C build man` also copies the result to docs/dpsearch.1,
// the checked-in page that tests/cli/man_page_test.sh compares with it.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/app.h"
#include "cli/man/man_page.h"
#include "cli/version.h"

int main(int argc, char** argv) {
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
  dps::cli::BuildApp(app);
  auto page = dps::cli::FillManTemplate(tmpl.str(), app, dps::cli::ProjectVersion());
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
