// One pass over a plain CSV (no quotes, CR or NUL; see docs/datasets.md) that tells the dataset build what DuckDB's
// writer needs first: each column's cell shapes, widest cell and distinct texts, the row count, and whether the file
// must go the row-by-row way instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ds::csvscan {

// A cell's shape, as the daemon's classifier reads the same text. Unsure: a shape only the row-by-row reader judges.
enum Shape : unsigned {
  kNull = 0,
  kInteger = 1u << 0,
  kDecimal = 1u << 1,
  kString = 1u << 2,
  kBoolean = 1u << 3,
  kDate = 1u << 4,
  kUnsure = 1u << 5,
};

Shape shape_of(std::string_view cell);

// Whether `text` is UTF-8 as DuckDB's CSV reader accepts it (no overlong forms, surrogates or sequences past the BMP).
bool is_valid_utf8(std::string_view text);

// Large tables on huge pages: a lookup into a 200,000-text set otherwise misses the TLB as well as the cache.
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}
  T* allocate(std::size_t n);
  void deallocate(T* p, std::size_t n);
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const HugePageAllocator<U>&) const { return false; }
};

// Distinct texts in an open-addressing table over one arena of their bytes (the scan's read buffer is reused).
class TextSet {
 public:
  static std::uint64_t hash_of(std::string_view text);
  // Starts loading the slot a text of this hash is looked up in: a scan prefetches a batch, then adds it.
  void prefetch(std::uint64_t hash) const;
  // False once the set would hold more than `limit` texts; it then stops collecting.
  bool add(std::string_view text, std::size_t limit) { return add(text, hash_of(text), limit); }
  bool add(std::string_view text, std::uint64_t hash, std::size_t limit);
  void merge(const TextSet& other, std::size_t limit);
  void drop();
  bool overflowed() const { return overflowed_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return bytes_; }
  std::vector<std::string_view> values() const;

 private:
  // A text of up to kInline bytes is kept in its slot, so a lookup that finds it reads one cache line.
  static constexpr std::size_t kInline = 11;
  struct Slot {
    std::uint32_t tag = 0;
    std::uint8_t length = 0;  // 0: empty; kLong: the text is in arena_ at `at` (its 4-byte length, then its bytes)
    char bytes[kInline] = {};
  };
  static constexpr std::uint8_t kLong = 0xFF;
  std::string_view text_of(const Slot& slot) const;
  void grow();
  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  std::vector<char> arena_;
  std::size_t count_ = 0;
  std::size_t bytes_ = 0;
  bool overflowed_ = false;
};

struct ColumnFacts {
  unsigned shapes = 0;
  std::size_t widest = 0;
  // Collected while every cell is text or a date; dropped at the first other shape.
  TextSet texts;
  bool collecting = true;
};

// Quoted: a quote, CR or NUL byte, which DuckDB's reader would read otherwise than the row-by-row one (Utf8 covers
// text beyond the BMP, which UTF-16 and UTF-8 order differently). Texts: a column's distinct texts outgrow
// ScanOptions::distinct_bytes (the row-by-row reader bounds its own memory).
enum class Refusal { None, Quoted, Ragged, Blank, Utf8, Texts };

struct Facts {
  std::uint64_t rows = 0;
  std::size_t longest_line = 0;  // in bytes, without its newline
  Refusal refusal = Refusal::None;
  std::vector<ColumnFacts> columns;
};

struct ScanOptions {
  char delimiter = ',';
  std::size_t width = 0;
  std::size_t distinct_limit = 0;
  std::size_t distinct_bytes = 0;
};

// Whether the header line, which the scan skips, is as plain as the rows.
Refusal check_header(std::string_view header);

// Scans the complete lines of [begin, end); `facts` accumulates. Stops early once the file is refused.
void scan_lines(const char* begin, const char* end, const ScanOptions& options, Facts& facts);

// Folds `later` (the rows after `facts`' rows) into `facts`.
void merge(Facts& facts, const Facts& later, const ScanOptions& options);

const char* refusal_name(Refusal refusal);

}  // namespace ds::csvscan
