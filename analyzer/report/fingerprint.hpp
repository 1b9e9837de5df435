// `partialFingerprints.primaryLocationLineHash` for SARIF, computed the way GitHub's
// codeql-action computes it when it uploads a SARIF file, so that results keep their identity
// across commits even when uploaded through the REST API (which computes nothing).
//
// The hash of a line is a rolling hash (base 37, wrapping 64-bit arithmetic) of the 100
// characters (UTF-16 code units) that start at the line, skipping spaces and tabs, with CR and
// CRLF read as LF and an end-of-file marker (65535) followed by zeros after the last line. It is
// printed as lowercase hex followed by `:N`, where N counts earlier lines of the file with the
// same hash (1 for the first), so repeated lines stay distinct.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trl {

// One fingerprint per line of `text`, index 0 for line 1. A file without text has one line.
std::vector<std::string> line_fingerprints(std::string_view text);

}  // namespace trl
