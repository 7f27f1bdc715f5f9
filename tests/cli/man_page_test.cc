// The roff that dpsearch(1) is made of (cli/man/man_page.h), on small
// CLI::Apps built here: escaping, each kind of option entry, the synopsis
// and the template's placeholders. tests/cli/man_page_test.sh checks the
// real page.
#include "cli/man/man_page.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dps::cli {
namespace {

TEST(RoffEscape, EscapesWhatRoffWouldReadAsMarkup) {
  EXPECT_EQ(RoffEscape("--index DIR"), "\\-\\-index DIR");
  EXPECT_EQ(RoffEscape("a\\b"), "a\\eb");
  EXPECT_EQ(RoffEscape(".starts a request"), "\\&.starts a request");
  EXPECT_EQ(RoffEscape("one\n'two\n.three"), "one\n\\&'two\n\\&.three");
  EXPECT_EQ(RoffEscape("mid.line and 'quote'"), "mid.line and 'quote'");
}

TEST(RoffEscape, NonAsciiBecomesNamedCodePoints) {
  EXPECT_EQ(RoffEscape("caf\xC3\xA9"), "caf\\[u00E9]");
  EXPECT_EQ(RoffEscape("\xE7\x99\xBD"), "\\[u767D]");
  EXPECT_EQ(RoffEscape("\xF0\x9F\x98\x80"), "\\[u1F600]");
  // Malformed: a lone continuation byte, a truncated sequence.
  EXPECT_EQ(RoffEscape("a\x80z"), "a\\[uFFFD]z");
  EXPECT_EQ(RoffEscape("a\xE7\x99"), "a\\[uFFFD]\\[uFFFD]");
}

// An app with one subcommand holding every kind of option.
struct Fixture {
  CLI::App app{"test program", "prog"};
  std::string index, format, hidden, grouped, mode = "fast";
  std::vector<std::string> inputs;
  bool flag = false;
  unsigned count = 0;
  CLI::App* cmd = nullptr;

  Fixture() {
    app.set_version_flag("-V,--version", "1.0");
    cmd = app.add_subcommand("run", "Run things");
    cmd->add_option("inputs", inputs, "Files to read")->required();
    cmd->add_option("--index", index, "Index directory")->required();
    auto* a =
        cmd->add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "tsv"}));
    auto* b = cmd->add_flag("-q,--quiet", flag, "Say less");
    a->excludes(b);
    cmd->add_option("--mode", mode, "Mode")->capture_default_str()->envname("PROG_MODE");
    cmd->add_option("--count", count, "How many")->needs(a);
    cmd->add_option("--secret", hidden, "Not shown")->group("");
    cmd->add_option_group("Advanced")->add_option("--grouped", grouped, "In a group");
  }
};

// Positionals first, then options in definition order; what CLI11 enforces
// after the description; hidden options and the help flag left out, an
// option group's options included.
TEST(RoffCommands, EachOptionKindHasItsEntry) {
  Fixture f;
  EXPECT_EQ(
      RoffCommands(f.app),
      ".SS \"prog run\"\nRun things\n"
      ".TP\n\\fIinputs\\fR ...\nFiles to read\n.br\nRequired.\n"
      ".TP\n\\fB\\-\\-index\\fR \\fITEXT\\fR\nIndex directory\n.br\nRequired.\n"
      ".TP\n\\fB\\-\\-format\\fR \\fITEXT\\fR\nOutput format\n.br\n"
      "One of: text, tsv.\nNot with \\fB\\-\\-quiet\\fR.\n"
      ".TP\n\\fB\\-q\\fR, \\fB\\-\\-quiet\\fR\nSay less\n.br\nNot with \\fB\\-\\-format\\fR.\n"
      ".TP\n\\fB\\-\\-mode\\fR \\fITEXT\\fR\nMode\n.br\n"
      "Default: fast.\nEnvironment variable: \\fBPROG_MODE\\fR.\n"
      ".TP\n\\fB\\-\\-count\\fR \\fIUINT\\fR\nHow many\n.br\nNeeds \\fB\\-\\-format\\fR.\n"
      ".TP\n\\fB\\-\\-grouped\\fR \\fITEXT\\fR\nIn a group\n");
}

TEST(RoffCommands, NestedSubcommandsGetTheirOwnSection) {
  CLI::App app{"", "prog"};
  bool deep = false;
  CLI::App* outer = app.add_subcommand("outer", "Outer");
  outer->add_subcommand("inner", "Inner")->add_flag("--deep", deep, "Deep flag");
  const std::string out = RoffCommands(app);
  EXPECT_NE(out.find(".SS \"prog outer\"\nOuter\n"), std::string::npos) << out;
  EXPECT_NE(out.find(".SS \"prog outer inner\"\nInner\n.TP\n\\fB\\-\\-deep\\fR\nDeep flag\n"),
            std::string::npos)
      << out;
}

TEST(RoffSynopsis, RequiredOptionsThenOptionsThenPositionals) {
  Fixture f;
  EXPECT_EQ(RoffSynopsis(f.app),
            "\\fBprog run\\fR \\fB\\-\\-index\\fR \\fITEXT\\fR [\\fIoptions\\fR] \\fIinputs\\fR "
            "...\n.br\n"
            "\\fBprog\\fR \\fB\\-V\\fR, \\fB\\-\\-version\\fR\n.br\n");
}

TEST(RoffOptions, TheProgramsOwnFlags) {
  Fixture f;
  EXPECT_EQ(
      RoffOptions(f.app),
      ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nPrint this help message and exit\n"
      ".TP\n\\fB\\-V\\fR, \\fB\\-\\-version\\fR\nDisplay program version information and exit\n");
}

TEST(FillManTemplate, ReplacesPlaceholderLinesAndVersion) {
  Fixture f;
  auto page = FillManTemplate(
      ".TH PROG 1 \"\" \"prog @VERSION@\"\n.SH SYNOPSIS\n@SYNOPSIS@\n.SH OPTIONS\n"
      "@OPTIONS@\n.SH COMMANDS\n@COMMANDS@\n.SH END\n@VERSION@ again\n",
      f.app, "9.8.7");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(*page, ".TH PROG 1 \"\" \"prog 9.8.7\"\n.SH SYNOPSIS\n" + RoffSynopsis(f.app) +
                       ".SH OPTIONS\n" + RoffOptions(f.app) + ".SH COMMANDS\n" +
                       RoffCommands(f.app) + ".SH END\n9.8.7 again\n");
}

TEST(FillManTemplate, RefusesUnknownMissingOrRepeatedPlaceholders) {
  Fixture f;
  auto unknown = FillManTemplate("@SYNOPSIS@\n@OPTIONS@\n@COMMANDS@\n@EXAMPLES@\n", f.app, "1");
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(unknown.status().IsInvalidArgument());
  EXPECT_NE(unknown.status().ToString().find("line 4: unknown placeholder @EXAMPLES@"),
            std::string::npos)
      << unknown.status().ToString();
  auto missing = FillManTemplate("@SYNOPSIS@\n@COMMANDS@\n", f.app, "1");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find("no @OPTIONS@ line"), std::string::npos)
      << missing.status().ToString();
  auto twice = FillManTemplate("@SYNOPSIS@\n@OPTIONS@\n@COMMANDS@\n@OPTIONS@\n", f.app, "1");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().ToString().find("line 4: second @OPTIONS@"), std::string::npos)
      << twice.status().ToString();
}

}  // namespace
}  // namespace dps::cli
