#include "analyzer/lsp/framing.hpp"

#include <algorithm>
#include <cctype>

namespace trl::lsp {

namespace {

constexpr std::size_t kMaxBody = 256u << 20;  // a message above 256 MB is refused

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

Frame read_frame(std::istream& in) {
  Frame frame;
  std::size_t length = 0;
  bool have_length = false;
  bool any_header = false;
  bool bad_length = false;
  std::string line;
  while (true) {
    if (!std::getline(in, line)) {
      frame.status = Frame::Status::Eof;
      return frame;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (!any_header) continue;  // stray blank lines between messages
      break;
    }
    const std::string l = lower(line);
    // Leftovers of a message whose Content-Length was too short end up in front of the next
    // header: resynchronise on the header name.
    auto pos = l.find("content-length:");
    if (pos != std::string::npos) {
      any_header = true;
      std::string value = line.substr(pos + 15);
      value.erase(0, value.find_first_not_of(" \t"));
      value.erase(value.find_last_not_of(" \t") + 1);
      std::size_t n = 0;
      bool ok = !value.empty() && value.size() <= 12 &&
                std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); });
      if (ok) n = std::stoull(value);
      if (!ok || n > kMaxBody) {
        bad_length = true;
        have_length = false;
      } else {
        length = n;
        have_length = true;
        bad_length = false;
      }
      continue;
    }
    if (l.find("content-type:") != std::string::npos) {
      any_header = true;
      continue;
    }
    // Another header (`Name: value`) is allowed and ignored; anything else is garbage (the
    // rest of a message whose Content-Length was too short) and skipped.
    const auto colon = line.find(':');
    if (colon != std::string::npos && colon > 0 &&
        std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(colon),
                    [](unsigned char c) { return std::isalnum(c) || c == '-'; }))
      any_header = true;
  }
  if (!have_length || bad_length) {
    frame.status = Frame::Status::BadHeader;
    frame.error = bad_length ? "invalid Content-Length header" : "missing Content-Length header";
    return frame;
  }
  frame.body.resize(length);
  in.read(frame.body.data(), static_cast<std::streamsize>(length));
  if (static_cast<std::size_t>(in.gcount()) != length) {
    frame.body.resize(static_cast<std::size_t>(in.gcount()));
    if (frame.body.empty()) {
      frame.status = Frame::Status::Eof;
      return frame;
    }
  }
  frame.status = Frame::Status::Ok;
  return frame;
}

void write_frame(std::ostream& out, const std::string& body) {
  out << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out.flush();
}

}  // namespace trl::lsp
