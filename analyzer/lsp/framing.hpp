// LSP base protocol: `Content-Length: N\r\n\r\n` followed by N bytes of JSON.
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <string>

namespace trl::lsp {

struct Frame {
  enum class Status { Ok, Eof, BadHeader };
  Status status = Status::Eof;
  std::string body;   // Ok: the message bytes (not yet parsed)
  std::string error;  // BadHeader: what was wrong
};

// Reads one message. A header block without a usable Content-Length yields BadHeader (the
// block is consumed, so the caller can answer and keep reading). Garbage left over by a wrong
// Content-Length is skipped up to the next `Content-Length:` header. Eof at end of input.
Frame read_frame(std::istream& in);

// Writes one message with its header and flushes.
void write_frame(std::ostream& out, const std::string& body);

}  // namespace trl::lsp
