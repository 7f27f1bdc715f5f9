#include "cli/man/man_page.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace dps::cli {

namespace {

std::string Bold(std::string_view text) { return "\\fB" + RoffEscape(text) + "\\fR"; }
std::string Italic(std::string_view text) { return "\\fI" + RoffEscape(text) + "\\fR"; }

// The code point starting at s[*i], advancing *i past it; a malformed
// sequence is one byte of U+FFFD.
uint32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(*i);
  const size_t length = lead < 0xC2 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF5 ? 4 : 1;
  if (lead < 0x80 || length == 1 || *i + length > s.size()) {
    ++*i;
    return lead < 0x80 ? lead : 0xFFFD;
  }
  uint32_t cp = lead & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) {
    if ((byte(*i + k) & 0xC0) != 0x80) {
      ++*i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (byte(*i + k) & 0x3F);
  }
  *i += length;
  return cp;
}

bool IsHelp(const CLI::App& app, const CLI::Option* opt) {
  return opt == app.get_help_ptr() || opt == app.get_help_all_ptr();
}

// The options a user sees, in definition order, those of option groups
// (unnamed sub-Apps) included; hidden ones (empty group) left out.
std::vector<const CLI::Option*> VisibleOptions(const CLI::App& app) {
  std::vector<const CLI::Option*> out =
      app.get_options([](const CLI::Option* opt) { return !opt->get_group().empty(); });
  for (const CLI::App* group : app.get_subcommands([](const CLI::App* sub) {
         return sub->get_name().empty() && !sub->get_group().empty();
       })) {
    // A group inherits its command's help flag, which is not one of its options.
    for (const CLI::Option* opt : VisibleOptions(*group)) {
      if (!IsHelp(*group, opt)) out.push_back(opt);
    }
  }
  return out;
}

std::vector<const CLI::App*> NamedSubcommands(const CLI::App& app) {
  return app.get_subcommands(
      [](const CLI::App* sub) { return !sub->get_name().empty() && !sub->get_group().empty(); });
}

// "-V, --version" in bold, or a positional's name in italics.
std::string OptionNames(const CLI::Option* opt) {
  if (!opt->nonpositional()) return Italic(opt->get_name(true, false));
  std::string out;
  for (const auto& s : opt->get_snames()) out += (out.empty() ? "" : ", ") + Bold("-" + s);
  for (const auto& l : opt->get_lnames()) out += (out.empty() ? "" : ", ") + Bold("--" + l);
  return out;
}

// CLI11 writes a checked type as "TEXT:{a,b}" (IsMember) or "TEXT:<check>":
// the placeholder is the part before the colon.
std::string Placeholder(const CLI::Option* opt) {
  if (!opt->get_option_text().empty()) return opt->get_option_text();
  const std::string type = opt->get_type_name();
  return type.substr(0, type.find(':'));
}

std::string AllowedValues(const CLI::Option* opt) {
  if (!opt->get_option_text().empty()) return "";
  const std::string type = opt->get_type_name();
  const size_t colon = type.find(':');
  if (colon == std::string::npos) return "";
  std::string rule = type.substr(colon + 1);
  if (rule.size() >= 2 && rule.front() == '{' && rule.back() == '}') {
    std::string values = rule.substr(1, rule.size() - 2);
    std::string out;
    for (char c : values) out += c == ',' ? std::string(", ") : std::string(1, c);
    return "One of: " + out + ".";
  }
  return "Allowed: " + rule + ".";
}

// "--a, --b": the names of a set of options, sorted (the set is ordered by
// address, which would make the page differ from run to run).
std::string NameList(const std::set<CLI::Option*>& options) {
  std::vector<std::string> names;
  for (const CLI::Option* o : options) names.push_back(o->get_name(false, false));
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + Bold(n);
  return out;
}

// As CLI11's help: a flag has no placeholder.
bool TakesValue(const CLI::Option* opt) {
  return opt->get_type_size() != 0 && !Placeholder(opt).empty();
}
bool Repeats(const CLI::Option* opt) {
  return opt->get_expected_max() >= CLI::detail::expected_max_vector_size;
}

// "inputs ..." or "[query]" as in CLI11's usage line.
std::string PositionalUsage(const CLI::Option* opt) {
  std::string out = OptionNames(opt) + (Repeats(opt) ? " ..." : "");
  return opt->get_required() ? out : "[" + out + "]";
}

// One .TP entry: the tag, the description, then what CLI11 enforces.
std::string OptionEntry(const CLI::Option* opt) {
  std::string tag = OptionNames(opt);
  if (opt->nonpositional() && TakesValue(opt)) {
    tag += " " + Italic(Placeholder(opt));
    if (Repeats(opt)) tag += " ...";
  } else if (!opt->nonpositional() && Repeats(opt)) {
    tag += " ...";
  }
  std::vector<std::string> facts;
  if (opt->get_required()) facts.push_back("Required.");
  if (const std::string values = AllowedValues(opt); !values.empty())
    facts.push_back(RoffEscape(values));
  if (!opt->get_default_str().empty())
    facts.push_back("Default: " + RoffEscape(opt->get_default_str()) + ".");
  if (!opt->get_envname().empty())
    facts.push_back("Environment variable: " + Bold(opt->get_envname()) + ".");
  if (!opt->get_needs().empty()) facts.push_back("Needs " + NameList(opt->get_needs()) + ".");
  if (!opt->get_excludes().empty())
    facts.push_back("Not with " + NameList(opt->get_excludes()) + ".");
  std::string out = ".TP\n" + tag + "\n";
  if (!opt->get_description().empty()) out += RoffEscape(opt->get_description()) + "\n";
  if (!facts.empty()) {
    // On a line of their own: descriptions need not end in a full stop.
    if (!opt->get_description().empty()) out += ".br\n";
    for (const auto& f : facts) out += f + "\n";
  }
  return out;
}

void SynopsisOf(const CLI::App& app, const std::string& prefix, std::string* out) {
  const std::string name = prefix + " " + app.get_name();
  const auto options = VisibleOptions(app);
  std::string line = Bold(name);
  bool optional = false;
  for (const CLI::Option* opt : options) {
    if (IsHelp(app, opt) || !opt->nonpositional()) continue;
    if (!opt->get_required()) {
      optional = true;
      continue;
    }
    line += " " + OptionNames(opt);
    if (TakesValue(opt)) line += " " + Italic(Placeholder(opt));
  }
  if (optional) line += " [" + Italic("options") + "]";
  for (const CLI::Option* opt : options) {
    if (!opt->nonpositional()) line += " " + PositionalUsage(opt);
  }
  const auto subs = NamedSubcommands(app);
  if (subs.empty()) *out += line + "\n.br\n";
  for (const CLI::App* sub : subs) SynopsisOf(*sub, name, out);
}

void CommandsOf(const CLI::App& app, const std::string& prefix, std::string* out) {
  const std::string name = prefix + " " + app.get_name();
  *out += ".SS \"" + RoffEscape(name) + "\"\n";
  if (!app.get_description().empty()) *out += RoffEscape(app.get_description()) + "\n";
  const auto options = VisibleOptions(app);
  for (const CLI::Option* opt : options) {  // positionals first, as in --help
    if (!opt->nonpositional()) *out += OptionEntry(opt);
  }
  for (const CLI::Option* opt : options) {
    if (opt->nonpositional() && !IsHelp(app, opt)) *out += OptionEntry(opt);
  }
  for (const CLI::App* sub : NamedSubcommands(app)) CommandsOf(*sub, name, out);
}

}  // namespace

std::string RoffEscape(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (static_cast<unsigned char>(c) >= 0x80) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\[u%04X]", NextCodePoint(text, &i));
      out += buf;
      continue;
    }
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";  // a minus (options, ranges), not a typographic hyphen
    } else {
      out += c;
    }
    ++i;
  }
  return out;
}

std::string RoffSynopsis(const CLI::App& app) {
  std::string out;
  for (const CLI::App* sub : NamedSubcommands(app)) SynopsisOf(*sub, app.get_name(), &out);
  for (const CLI::Option* opt : VisibleOptions(app)) {
    if (opt == app.get_help_ptr()) continue;
    out += Bold(app.get_name()) + " " + OptionNames(opt) + "\n.br\n";
  }
  return out;
}

std::string RoffOptions(const CLI::App& app) {
  std::string out;
  for (const CLI::Option* opt : VisibleOptions(app)) out += OptionEntry(opt);
  return out;
}

std::string RoffCommands(const CLI::App& app) {
  std::string out;
  for (const CLI::App* sub : NamedSubcommands(app)) CommandsOf(*sub, app.get_name(), &out);
  return out;
}

Result<std::string> FillManTemplate(std::string_view tmpl, const CLI::App& app,
                                    std::string_view version) {
  struct Part {
    std::string_view placeholder;
    std::string text;
    bool seen = false;
  };
  Part parts[] = {{"@SYNOPSIS@", RoffSynopsis(app)},
                  {"@OPTIONS@", RoffOptions(app)},
                  {"@COMMANDS@", RoffCommands(app)}};
  std::string out;
  size_t line_no = 0;
  for (size_t pos = 0; pos < tmpl.size();) {
    const size_t end = std::min(tmpl.find('\n', pos), tmpl.size());
    std::string line(tmpl.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    for (size_t at; (at = line.find("@VERSION@")) != std::string::npos;)
      line.replace(at, 9, version);
    const bool placeholder_line = line.size() > 2 && line.front() == '@' && line.back() == '@';
    if (!placeholder_line) {
      out += line + "\n";
      continue;
    }
    auto part = std::find_if(std::begin(parts), std::end(parts),
                             [&](const Part& p) { return p.placeholder == line; });
    if (part == std::end(parts)) {
      return Status::InvalidArgument("man page template line " + std::to_string(line_no) +
                                     ": unknown placeholder " + line);
    }
    if (part->seen) {
      return Status::InvalidArgument("man page template line " + std::to_string(line_no) +
                                     ": second " + line);
    }
    part->seen = true;
    out += part->text;
  }
  for (const Part& p : parts) {
    if (!p.seen)
      return Status::InvalidArgument("man page template: no " + std::string(p.placeholder) +
                                     " line");
  }
  return out;
}

}  // namespace dps::cli
