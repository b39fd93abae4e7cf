#pragma once
// Reads a fuzz input front to back. Past the end every read returns zero, so every byte string
// is a valid case and a short input is the default case; seeds can be written by hand
// (fuzz/make_corpus.py writes them with the same field order).
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace triax_fuzz {

class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }

  // Little-endian, whatever the host: the corpus files are the same on every machine.
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= std::uint64_t(u8()) << (8 * k);
    return v;
  }
  std::int64_t i64() {
    const std::uint64_t u = u64();
    std::int64_t v;
    std::memcpy(&v, &u, sizeof v);
    return v;
  }
  std::int32_t i32() {
    std::uint32_t u = 0;
    for (int k = 0; k < 4; ++k) u |= std::uint32_t(u8()) << (8 * k);
    std::int32_t v;
    std::memcpy(&v, &u, sizeof v);
    return v;
  }
  std::size_t remaining() const { return pos_ < size_ ? size_ - pos_ : 0; }
  // A reader of the next `count` bytes (fewer where the input ends), which this one skips.
  ByteReader take(std::size_t count) {
    const std::size_t k = count < remaining() ? count : remaining();
    ByteReader part(data_ + pos_, k);
    pos_ += k;
    return part;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace triax_fuzz
