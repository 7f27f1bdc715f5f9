// dpsearch_man TEMPLATE OUTPUT: writes dpsearch(1) from the roff template
// (docs/dpsearch.1.in) and dpsearch's own CLI::App (cli/app.h). Run by the
// build (target `man_page`, build/dpsearch.1, what `cmake --install`
// installs); `ninja -C build man` also copies the result to docs/dpsearch.1,
// the checked-in page that tests/cli/man_page_test.sh compares with it.
// The work is cli/man/man_main.cc's, in the cli library (cli/run.h).
#include "cli/run.h"

int main(int argc, char** argv) { return dps::cli::RunManGenerator(argc, argv); }
