#include "analyzer/report/fingerprint.hpp"

#include <array>
#include <cstdint>
#include <unordered_map>

namespace trl {

namespace {

constexpr std::size_t kBlock = 100;
constexpr std::uint64_t kBase = 37;
constexpr std::uint32_t kEndOfFile = 65535;

// UTF-16 code units of UTF-8 text (the text is valid UTF-8 by the time it is analysed).
std::vector<std::uint32_t> utf16_units(std::string_view s) {
  std::vector<std::uint32_t> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    std::uint32_t cp;
    std::size_t len;
    if (c < 0x80) {
      cp = c, len = 1;
    } else if ((c & 0xE0) == 0xC0) {
      cp = c & 0x1F, len = 2;
    } else if ((c & 0xF0) == 0xE0) {
      cp = c & 0x0F, len = 3;
    } else {
      cp = c & 0x07, len = 4;
    }
    for (std::size_t k = 1; k < len && i + k < s.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(0xD800 + (cp >> 10));
      out.push_back(0xDC00 + (cp & 0x3FF));
    } else {
      out.push_back(cp);
    }
  }
  return out;
}

std::string hex(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  if (v == 0) return "0";
  std::string out;
  while (v) {
    out.insert(out.begin(), digits[v & 0xF]);
    v >>= 4;
  }
  return out;
}

class LineHasher {
 public:
  explicit LineHasher(std::vector<std::string>& out) : out_(out) {
    line_of_.fill(-1);
    window_.fill(0);
    for (std::size_t i = 0; i < kBlock; ++i) first_mod_ *= kBase;
  }

  void feed(std::uint32_t c) {
    // Blanks are not hashed, nor the LF of a CRLF; a lone CR counts as LF.
    if (c == ' ' || c == '\t' || (prev_cr_ && c == '\n')) {
      prev_cr_ = false;
      return;
    }
    prev_cr_ = c == '\r';
    if (c == '\r') c = '\n';
    if (line_of_[index_] != -1) emit();
    if (line_start_) {
      line_start_ = false;
      line_of_[index_] = static_cast<std::int64_t>(++line_);
    }
    if (c == '\n') line_start_ = true;
    roll(c);
  }

  void finish() {
    feed(kEndOfFile);
    for (std::size_t i = 0; i < kBlock; ++i) {
      if (line_of_[index_] != -1) emit();
      roll(0);
    }
  }

 private:
  void roll(std::uint32_t c) {
    const std::uint32_t leaving = window_[index_];
    window_[index_] = c;
    hash_ = kBase * hash_ + c - first_mod_ * leaving;  // wraps modulo 2^64
    index_ = (index_ + 1) % kBlock;
  }

  void emit() {
    const std::string value = hex(hash_);
    const int n = ++seen_[value];
    const auto line = static_cast<std::size_t>(line_of_[index_]);
    if (out_.size() < line) out_.resize(line);
    out_[line - 1] = value + ":" + std::to_string(n);
    line_of_[index_] = -1;
  }

  std::vector<std::string>& out_;
  std::array<std::uint32_t, kBlock> window_{};
  std::array<std::int64_t, kBlock> line_of_{};
  std::uint64_t hash_ = 0;
  std::uint64_t first_mod_ = 1;
  std::size_t index_ = 0;
  std::size_t line_ = 0;
  bool line_start_ = true;
  bool prev_cr_ = false;
  std::unordered_map<std::string, int> seen_;
};

}  // namespace

std::vector<std::string> line_fingerprints(std::string_view text) {
  std::vector<std::string> out;
  LineHasher hasher(out);
  for (std::uint32_t unit : utf16_units(text)) hasher.feed(unit);
  hasher.finish();
  return out;
}

}  // namespace trl
