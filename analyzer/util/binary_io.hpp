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

// A fast non-cryptographic 64-bit hash of a byte string (8 bytes per step, with a final
// avalanche); `seed` gives independent hashes of the same input.
inline std::uint64_t hash64(std::string_view s, std::uint64_t seed = 0) {
  constexpr std::uint64_t k1 = 0x9e3779b97f4a7c15ull, k2 = 0xbf58476d1ce4e5b9ull, k3 = 0x94d049bb133111ebull;
  std::uint64_t h = seed ^ (s.size() * k1);
  auto mix = [&](std::uint64_t v) {
    v *= k2;
    v ^= v >> 31;
    v *= k3;
    h ^= v;
    h = ((h << 27) | (h >> 37)) * k1 + 0x52dce729;
  };
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t v;
    std::memcpy(&v, s.data() + i, 8);
    mix(v);
  }
  std::uint64_t tail = 0;
  for (std::size_t k = 0; i + k < s.size(); ++k) tail |= std::uint64_t(static_cast<unsigned char>(s[i + k])) << (8 * k);
  mix(tail ^ 0xff);
  h ^= h >> 33;
  h *= k2;
  h ^= h >> 29;
  h *= k3;
  h ^= h >> 32;
  return h;
}

}  // namespace trl::bin
