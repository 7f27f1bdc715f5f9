#include "cli/version.h"

#include <oneapi/tbb/version.h>
#include <simdjson.h>
#include <unicode/uversion.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#include <CLI/Version.hpp>
#include <boost/version.hpp>

#include "index/global_index.h"
#include "index/manifest.h"
#include "index/tablet_format.h"
#include "index/term_list.h"
#include "ingest/run_file.h"
#include "ingest/stemmer.h"
#include "shards/protocol.h"

#ifndef DPS_PROJECT_VERSION
#error "DPS_PROJECT_VERSION comes from CMake's project(VERSION) (cli/CMakeLists.txt)"
#endif

namespace dps::cli {

namespace {

std::string Dotted(unsigned major, unsigned minor, unsigned patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

// "  NAME BUILT", and "(running R)" when the shared library loaded at run
// time is another version than the headers compiled against.
std::string Library(std::string_view name, const std::string& built,
                    const std::string& running = "") {
  std::string line = "  " + std::string(name) + " " + built;
  if (!running.empty() && running != built) line += " (running " + running + ")";
  return line + "\n";
}

std::string IcuRunning() {
  UVersionInfo v;
  u_getVersion(v);
  char text[U_MAX_VERSION_STRING_LENGTH];
  u_versionToString(v, text);
  return text;
}

}  // namespace

std::string_view ProjectVersion() { return DPS_PROJECT_VERSION; }

std::string VersionText() {
  std::string out = "dpsearch " + std::string(ProjectVersion()) + "\n";
  // Names as in docs/FORMAT.md's table, which tests/cli/version_test.sh
  // compares with this text.
  out += "index files: MANIFEST " + std::to_string(kManifestVersion) + ", tablet file " +
         std::to_string(kTabletFormatVersion) + ", global index " +
         std::to_string(kGlobalIndexVersion) + ", term list " + std::to_string(kTermListVersion) +
         ", spill run " + std::to_string(kRunVersion) + "\n";
  out += "wire protocol: " + std::to_string(kWireVersion) + "\n";
  // What `ingest --analyzer/--fold-accents/--stem` accept (index/analyzer_spec.h).
  out += "analyzers: icu (options fold-accents, stem=LANG), whitespace\n";
  out += "stemmers (libstemmer):";
  for (const auto& language : Stemmer::Languages()) out += " " + language;
  out += "\n";
  out += "built with:\n";
  out += Library("ICU", U_ICU_VERSION, IcuRunning());
  out += Library("zstd", ZSTD_VERSION_STRING, ZSTD_versionString());
  // TBB_runtime_version() is "major.minor" like TBB_VERSION_STRING, which
  // leaves out the patch level the headers know.
  const std::string_view tbb_running = TBB_runtime_version();
  out += Library("oneTBB", Dotted(TBB_VERSION_MAJOR, TBB_VERSION_MINOR, TBB_VERSION_PATCH),
                 tbb_running == TBB_VERSION_STRING ? "" : std::string(tbb_running));
  out += Library("Boost",
                 Dotted(BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100));
  out +=
      Library("simdjson", Dotted(simdjson::SIMDJSON_VERSION_MAJOR, simdjson::SIMDJSON_VERSION_MINOR,
                                 simdjson::SIMDJSON_VERSION_REVISION));
  out += Library("CLI11", CLI11_VERSION);
  const unsigned xxh = XXH_versionNumber();
  out += Library("xxHash", Dotted(XXH_VERSION_MAJOR, XXH_VERSION_MINOR, XXH_VERSION_RELEASE),
                 Dotted(xxh / 10000, xxh / 100 % 100, xxh % 100));
  out += Library("zlib", ZLIB_VERSION, zlibVersion());
  out.pop_back();  // the caller ends the last line
  return out;
}

}  // namespace dps::cli
