// Bounds-checked binary encoding shared by the embedded knowledge blob and the result cache.
// Integers are written byte by byte (little-endian on every host); strings are a u32 length and
// the bytes. A Reader never reads past its input: a short or malformed input throws
// BinaryFormatError.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace trl::bin {

class BinaryFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Writer {
 public:
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void u8(std::uint8_t v) { out.push_back(static_cast<char>(v)); }
  void f64(double d) {
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    u64(bits);
  }
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out.append(s);
  }
  void strings(const std::vector<std::string>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const auto& s : v) str(s);
  }
  std::string out;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  std::uint64_t u64() {
    need(8);
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return v;
  }
  std::uint32_t u32() {
    need(4);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i);
    pos_ += 4;
    return v;
  }
  std::uint8_t u8() {
    need(1);
    return static_cast<unsigned char>(in_[pos_++]);
  }
  double f64() {
    std::uint64_t bits = u64();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  std::string str() {
    std::uint32_t n = u32();
    need(n);
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  // A string as str() reads it, viewed in the input (valid while the input is).
  std::string_view str_view() {
    std::uint32_t n = u32();
    need(n);
    const std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<std::string> strings() {
    std::uint32_t n = count();
    std::vector<std::string> v;
    v.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) v.push_back(str());
    return v;
  }
  // A count of entries that each take at least one byte: bounded by what is left, so a damaged
  // count cannot make the caller reserve or loop beyond the input.
  std::uint32_t count() {
    std::uint32_t n = u32();
    if (n > in_.size() - pos_) fail();
    return n;
  }
  // Consumes `magic` or throws.
  void expect(std::string_view magic) {
    need(magic.size());
    if (in_.substr(pos_, magic.size()) != magic) fail();
    pos_ += magic.size();
  }
  std::string_view rest() const { return in_.substr(pos_); }
  // Moves past `n` bytes (throws when fewer are left).
  void skip(std::size_t n) {
    need(n);
    pos_ += n;
  }
  bool at_end() const { return pos_ == in_.size(); }
  [[noreturn]] static void fail() { throw BinaryFormatError("truncated or malformed binary data"); }

 private:
  void need(std::size_t n) const {
    if (n > in_.size() - pos_) fail();
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

// A fast non-cryptographic 64-bit hash of a byte string: xxHash's XXH3 (Debian libxxhash-dev,
// compiled in from its header by binary_io.cpp alone). `seed` gives independent hashes of the
// same input. It hashes every file read (content hashes) and the cache's entries; the
// hand-written hash it replaced took 1.5 instructions a byte, 4% of a first run over 20,000 files.
std::uint64_t hash64(std::string_view s, std::uint64_t seed = 0);

}  // namespace trl::bin
