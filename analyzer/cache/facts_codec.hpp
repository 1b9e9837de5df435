// Binary form of what extract_file produces for one file (its FileFacts without the reading
// state), for the result cache's facts pack: after a change, the files whose contents are
// unchanged take their facts from the pack instead of being parsed again.
#pragma once

#include <string>
#include <string_view>

#include "analyzer/project/project.hpp"
#include "analyzer/util/binary_io.hpp"

namespace trl::cache {

// The extraction facts of `facts`: Python module, YAML documents (shared nodes stay shared),
// commands, created paths, Markdown blocks and headings, pins, problems and comments. Every
// span in them is in the file itself; the file id is not written.
std::string encode_facts(const FileFacts& facts);

// Replaces the extraction facts of `out` with the decoded ones, their spans in `file`, and sets
// `out.extracted`; the reading state (loaded, deferred, stamp, content hash) is left as it is.
// False, with `out` unchanged, when `data` is damaged.
bool decode_facts(std::string_view data, FileId file, FileFacts& out);

// A span's position (byte offsets, start and stop points) without its file, as both cache files
// write it: the findings' spans name their file, the facts' spans are in the file of the record.
void put_span_position(bin::Writer& w, const Span& s);
void get_span_position(bin::Reader& r, Span& s);

}  // namespace trl::cache
