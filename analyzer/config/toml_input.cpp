#include "analyzer/config/toml_input.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>

#include "analyzer/source/source_file.hpp"

namespace trl {

namespace {

constexpr std::uint32_t kShift = 0xF0000;

// The characters toml++ 3.3.0's whitespace test cannot classify (see the header).
bool unclassifiable(std::uint32_t c) {
  return (c >= 0x00A1 && c <= 0x0499) || (c >= 0x2C5E && c <= 0x2FFF) || (c >= 0x3001 && c <= 0x3057) ||
         (c >= 0xFB26 && c <= 0xFEFE);
}

// The UTF-8 sequence at `text[i]` (2 to 4 bytes, well formed), or nullopt; `length` is set.
std::optional<std::uint32_t> decode_at(std::string_view text, std::size_t i, std::size_t& length) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = b(0);
  std::size_t n = 0;
  std::uint32_t c = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
    c = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    c = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    c = lead & 0x07u;
  } else {
    return std::nullopt;
  }
  if (i + n > text.size()) return std::nullopt;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0u) != 0x80u) return std::nullopt;
    c = (c << 6) | (b(k) & 0x3Fu);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are left to toml++ to refuse.
  if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10FFFF)) || (c >= 0xD800 && c <= 0xDFFF))
    return std::nullopt;
  length = n;
  return c;
}

bool shifted_back(std::uint32_t c) {
  return c >= kShift && unclassifiable(c - kShift);
}

// The first character at or after byte `from` that `pick` chooses: where it is, its length in
// bytes and its code point.
struct Picked {
  std::size_t at = 0;
  std::size_t length = 0;
  std::uint32_t c = 0;
};
template <typename Pick>
std::optional<Picked> next_picked(std::string_view text, std::size_t from, Pick pick) {
  for (std::size_t i = from; i < text.size();) {
    std::size_t length = 1;
    if (static_cast<unsigned char>(text[i]) >= 0x80)
      if (const auto c = decode_at(text, i, length); c && pick(*c)) return Picked{i, length, *c};
    i += length;
  }
  return std::nullopt;
}

// `text` with every character that `pick` chooses replaced by `move(c)`.
template <typename Pick, typename Move>
std::string rewrite(std::string_view text, Pick pick, Move move) {
  std::string out;
  out.reserve(text.size());
  std::size_t done = 0;
  while (const auto p = next_picked(text, done, pick)) {
    out.append(text, done, p->at - done);
    append_utf8(out, move(p->c));
    done = p->at + p->length;
  }
  out.append(text, done);
  return out;
}

// The shifted characters of `s` moved back to where the file has them.
std::string unshifted(std::string_view s) {
  return rewrite(s, shifted_back, [](std::uint32_t c) { return c - kShift; });
}

// Where byte `offset` of `text` is, as toml++ counts: 1-based lines, and characters in the line.
toml::source_position position_of(std::string_view text, std::size_t offset) {
  toml::source_position at{1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++at.line;
      at.column = 1;
    } else if ((c & 0xC0u) != 0x80u) {  // not a continuation byte: a character starts here
      ++at.column;
    }
  }
  return at;
}

// A description toml++ wrote about the shifted text, about the file's own text: shifted
// characters written raw, or escaped as toml++ escapes what it quotes (`\U000F00A7`, where the
// file has U+00A7, which it would have written `\u00A7`). toml++ cuts descriptions at 511 bytes,
// which may leave half a character at the end: it is dropped.
std::string described(std::string_view description) {
  const std::string raw = unshifted(description);
  std::string out;
  out.reserve(raw.size());
  const auto hex = [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'F'); };
  for (std::size_t i = 0; i < raw.size();) {
    if (raw.compare(i, 2, "\\U") == 0 && i + 10 <= raw.size() &&
        std::all_of(raw.begin() + static_cast<std::ptrdiff_t>(i) + 2, raw.begin() + static_cast<std::ptrdiff_t>(i) + 10,
                    hex)) {
      const auto c = static_cast<std::uint32_t>(std::stoul(raw.substr(i + 2, 8), nullptr, 16));
      if (shifted_back(c)) {
        static constexpr char kDigits[] = "0123456789ABCDEF";
        const std::uint32_t original = c - kShift;
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out += kDigits[(original >> shift) & 0xFu];
        i += 10;
        continue;
      }
    }
    out += raw[i++];
  }
  // Half a character at the end: its lead byte and whatever continuation bytes follow it.
  std::size_t lead = out.size();
  while (lead > 0 && out.size() - lead < 4 && (static_cast<unsigned char>(out[lead - 1]) & 0xC0u) == 0x80u) --lead;
  if (lead > 0 && static_cast<unsigned char>(out[lead - 1]) >= 0xC0u) {
    std::size_t length = 0;
    if (!decode_at(out, lead - 1, length) || lead - 1 + length != out.size()) out.erase(lead - 1);
  }
  return out;
}

}  // namespace

TomlDocument::TomlDocument(std::string_view text, std::string_view path) {
  if (!next_picked(text, 0, unclassifiable)) {
    table_ = toml::parse(text, path);
    return;
  }
  // A plane-15 character of the shifted ranges, or an escape that may write one (`\U000F...`,
  // looked for anywhere: in a literal string or a comment it is no escape, and the file is
  // refused all the same).
  const auto plane15 = next_picked(text, 0, shifted_back);
  std::size_t clash = plane15 ? plane15->at : std::string_view::npos;
  for (const std::string_view escape : {"\\U000F", "\\U000f"}) clash = std::min(clash, text.find(escape));
  if (clash != std::string_view::npos)
    throw toml::parse_error(
        "private-use characters of plane 15 in a file with characters that toml++ 3.3.0 cannot read safely "
        "(U+00A1-U+0499, U+2C5E-U+2FFF, U+3001-U+3057, U+FB26-U+FEFE); not read",
        position_of(text, clash), std::make_shared<const std::string>(path));
  shifted_ = true;
  try {
    const std::string shifted = rewrite(text, unclassifiable, [](std::uint32_t c) { return c + kShift; });
    table_ = toml::parse(shifted, path);
  } catch (const toml::parse_error& e) {
    const std::string description = described(e.description());
    throw toml::parse_error(description.c_str(), e.source());
  }
}

std::string TomlDocument::text(std::string_view s) const {
  return shifted_ ? unshifted(s) : std::string(s);
}

}  // namespace trl
