// The small tablet file the term list fuzz target parses values against
// (a term list's values point into its tablet file's postings and
// positions regions) and the seed generator writes the term list seeds
// beside: both must be this one file, byte for byte.
#pragma once

#include <string>

namespace dps::fuzz {

// Writes bins 0 to 3, each with lists of 1, 2, 7, 9 and 300 postings with
// and without weights above 1 (inline and in the file, one and several
// blocks), to `path`, and its term list beside it (TermListPathFor).
// `positions`: with word positions. Aborts on an error.
void WriteFuzzTablet(const std::string& path, bool positions);

}  // namespace dps::fuzz
