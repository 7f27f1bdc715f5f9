// `dpsearch report`: compare an experiment's configurations on one page (query/bench_compare.h).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/file.h"
#include "query/bench_compare.h"

namespace dps::cli {

void RegisterReport(CLI::App& app) {
  struct Args {
    std::vector<std::string> inputs;
    std::string out, title = "dpsearch report";
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "report", "One HTML page comparing configurations from bench --json, bench --rate A,B --json and simulate --json");
  cmd->add_option("inputs", a->inputs, "Files of JSON objects, one a line (bench/straggler.sh's .jsonl)")
      ->type_name("FILE")->required();
  cmd->add_option("--out", a->out, "The HTML page to write")->type_name("FILE.html")->required();
  cmd->add_option("--title", a->title, "The page's title");
  cmd->callback([a] {
    Comparison c;
    for (const auto& path : a->inputs) {
      auto text = ReadFileToString(path);
      if (!text.ok()) return (void)Fail(Status::InvalidArgument(path + ": cannot read (" + text.status().message() + ")"));
      if (Status s = AddToComparison(*text, path, &c); !s.ok()) return (void)Fail(s);
    }
    if (c.runs.empty() && c.sweeps.empty() && c.simulated.empty()) {
      return (void)Fail(Status::InvalidArgument("no bench run, sweep or simulation in the inputs"));
    }
    Status w = WriteFileAtomically(a->out, ComparisonHtml(c, a->title));
    if (!w.ok()) return (void)Fail(w);
    std::fprintf(stderr, "dpsearch: report written to %s (%zu runs, %zu sweeps, %zu simulated rows)\n",
                 a->out.c_str(), c.runs.size(), c.sweeps.size(), c.simulated.size());
  });
}

}  // namespace dps::cli
