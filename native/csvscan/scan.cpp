#include "scan.hpp"

#include <cstring>
#include <new>

#include <sys/mman.h>

namespace ds::csvscan {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool equals_ignoring_case(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i] >= 'A' && text[i] <= 'Z' ? static_cast<char>(text[i] + ('a' - 'A')) : text[i];
    if (c != lower[i]) return false;
  }
  return true;
}

// -?(0|[1-9][0-9]{0,14})
bool is_integer_text(std::string_view t) {
  std::size_t i = t[0] == '-' ? 1 : 0;
  const std::size_t digits = t.size() - i;
  if (digits == 0 || digits > 15) return false;
  if (t[i] == '0') return digits == 1;
  for (; i < t.size(); ++i) {
    if (!is_digit(t[i])) return false;
  }
  return true;
}

// -?(0|[1-9][0-9]*)[.][0-9]+
bool is_decimal_text(std::string_view t) {
  std::size_t i = t[0] == '-' ? 1 : 0;
  if (i >= t.size() || !is_digit(t[i])) return false;
  if (t[i] == '0') {
    ++i;
  } else {
    while (i < t.size() && is_digit(t[i])) ++i;
  }
  if (i >= t.size() || t[i] != '.') return false;
  if (++i >= t.size()) return false;
  for (; i < t.size(); ++i) {
    if (!is_digit(t[i])) return false;
  }
  return true;
}

// At most 15 significant digits: a double holds the decimal exactly as written.
bool has_few_significant_digits(std::string_view t) {
  const bool negative = t[0] == '-';
  if (t.size() <= 16 + (negative ? 1u : 0u)) return true;
  std::string_view digits = t.substr(negative ? 1 : 0);
  while (!digits.empty() && (digits.front() == '0' || digits.front() == '.')) digits.remove_prefix(1);
  while (!digits.empty() && (digits.back() == '0' || digits.back() == '.')) digits.remove_suffix(1);
  std::size_t count = 0;
  for (char c : digits) count += c != '.';
  return count <= 15;
}

// [0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])
bool is_date_text(std::string_view t) {
  if (t.size() != 10 || t[4] != '-' || t[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!is_digit(t[i])) return false;
  }
  const int month = (t[5] - '0') * 10 + (t[6] - '0');
  const int day = (t[8] - '0') * 10 + (t[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

bool is_refused_byte(char c) { return c == '"' || c == '\r' || c == '\0'; }

bool has_high_byte(const char* p, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, p + i, 8);
    if (word & 0x8080808080808080ull) return true;
  }
  for (; i < n; ++i) {
    if (static_cast<unsigned char>(p[i]) >= 0x80) return true;
  }
  return false;
}

}  // namespace

Shape shape_of(std::string_view cell) {
  if (cell.empty()) return kNull;
  const char first = cell[0];
  if (!is_digit(first) && first != '-' && first != '.') {
    return equals_ignoring_case(cell, "true") || equals_ignoring_case(cell, "false") ? kBoolean : kString;
  }
  if (is_integer_text(cell)) return kInteger;
  if (is_decimal_text(cell) && has_few_significant_digits(cell)) return kDecimal;
  if (is_date_text(cell)) return kDate;
  return kUnsure;
}

bool is_valid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  const auto continuation = [](unsigned char c) { return (c & 0xC0) == 0x80; };
  while (p < end) {
    const unsigned char c = *p;
    if (c < 0x80) {
      ++p;
    } else if (c >= 0xC2 && c <= 0xDF) {
      if (end - p < 2 || !continuation(p[1])) return false;
      p += 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      if (end - p < 3 || !continuation(p[1]) || !continuation(p[2])) return false;
      if (c == 0xE0 && p[1] < 0xA0) return false;  // overlong
      if (c == 0xED && p[1] > 0x9F) return false;  // surrogate
      p += 3;
    } else {
      return false;
    }
  }
  return true;
}

namespace {
constexpr std::size_t kHugePage = std::size_t{1} << 21;
}

template <typename T>
T* HugePageAllocator<T>::allocate(std::size_t n) {
  const std::size_t bytes = n * sizeof(T);
  if (bytes < kHugePage) return std::allocator<T>().allocate(n);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  ::madvise(p, bytes, MADV_HUGEPAGE);  // a hint: without it the table still works, on small pages
  return static_cast<T*>(p);
}

template <typename T>
void HugePageAllocator<T>::deallocate(T* p, std::size_t n) {
  if (n * sizeof(T) < kHugePage) {
    std::allocator<T>().deallocate(p, n);
  } else {
    ::munmap(p, n * sizeof(T));
  }
}

template struct HugePageAllocator<TextSet::Slot>;

// A multiply-and-fold hash over 8-byte words: the texts worth collecting are short.
std::uint64_t TextSet::hash_of(std::string_view text) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ text.size();
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    h = (h ^ word) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  if (i < text.size()) {
    std::uint64_t word = 0;
    std::memcpy(&word, text.data() + i, text.size() - i);
    h = (h ^ word) * 0xC4CEB9FE1A85EC53ull;
  }
  h ^= h >> 29;
  h *= 0xFF51AFD7ED558CCDull;
  return h ^ (h >> 32);
}

void TextSet::prefetch(std::uint64_t hash) const {
  if (!slots_.empty()) __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
}

std::string_view TextSet::text_of(const Slot& slot) const {
  if (slot.length != kLong) return std::string_view(slot.bytes, slot.length - 1u);
  std::uint32_t at;
  std::memcpy(&at, slot.bytes, 4);
  std::uint32_t length;
  std::memcpy(&length, arena_.data() + at, 4);
  return std::string_view(arena_.data() + at + 4, length);
}

bool TextSet::add(std::string_view text, std::uint64_t hash, std::size_t limit) {
  if (overflowed_) return false;
  if (slots_.empty()) slots_.resize(64);
  const auto tag = static_cast<std::uint32_t>(hash >> 32);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.length == 0) break;
    if (slot.tag == tag && text_of(slot) == text) return true;
  }
  // Offsets are 32-bit: a set that large is far past any limit worth collecting to.
  if (count_ >= limit || arena_.size() + 4 + text.size() >= UINT32_MAX) {
    drop();
    overflowed_ = true;
    return false;
  }
  bytes_ += text.size();
  Slot slot;
  slot.tag = tag;
  if (text.size() <= kInline) {
    slot.length = static_cast<std::uint8_t>(text.size() + 1);
    std::memcpy(slot.bytes, text.data(), text.size());
  } else {
    slot.length = kLong;
    const auto at = static_cast<std::uint32_t>(arena_.size());
    const auto length = static_cast<std::uint32_t>(text.size());
    std::memcpy(slot.bytes, &at, 4);
    arena_.insert(arena_.end(), reinterpret_cast<const char*>(&length), reinterpret_cast<const char*>(&length) + 4);
    arena_.insert(arena_.end(), text.begin(), text.end());
  }
  if (++count_ * 2 > slots_.size()) grow();
  for (std::size_t i = hash & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
    if (slots_[i].length == 0) {
      slots_[i] = slot;
      return true;
    }
  }
}

void TextSet::grow() {
  decltype(slots_) old(slots_.size() * 2);
  old.swap(slots_);
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.length == 0) continue;
    std::size_t i = hash_of(text_of(slot)) & mask;
    while (slots_[i].length != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

std::vector<std::string_view> TextSet::values() const {
  std::vector<std::string_view> texts;
  texts.reserve(count_);
  for (const Slot& slot : slots_) {
    if (slot.length != 0) texts.push_back(text_of(slot));
  }
  return texts;
}

void TextSet::merge(const TextSet& other, std::size_t limit) {
  if (overflowed_) return;
  if (other.overflowed_) {
    drop();
    overflowed_ = true;
    return;
  }
  for (std::string_view text : other.values()) {
    if (!add(text, limit)) return;
  }
}

void TextSet::drop() {
  slots_ = {};
  arena_ = {};
  count_ = 0;
  bytes_ = 0;
}

namespace {

// Texts waiting to be added: looking up a batch after prefetching its slots overlaps the cache misses of a large set.
class PendingTexts {
 public:
  PendingTexts(const PendingTexts&) = delete;
  PendingTexts& operator=(const PendingTexts&) = delete;

  explicit PendingTexts(std::size_t limit, std::size_t bytes) : limit_(limit), bytes_(bytes) { batch_.reserve(kBatch); }
  bool add(ColumnFacts& column, std::string_view text) {
    const std::uint64_t hash = TextSet::hash_of(text);
    column.texts.prefetch(hash);
    batch_.push_back({&column, text, hash});
    return batch_.size() < kBatch || flush();
  }

  // False when a column's texts outgrew their bytes.
  bool flush() {
    bool within = true;
    for (const Entry& entry : batch_) {
      // A column that met another shape since has dropped its set for good.
      if (!entry.column->collecting) continue;
      entry.column->texts.add(entry.text, entry.hash, limit_);
      within = within && entry.column->texts.bytes() <= bytes_;
    }
    batch_.clear();
    return within;
  }

 private:
  static constexpr std::size_t kBatch = 256;
  struct Entry {
    ColumnFacts* column;
    std::string_view text;
    std::uint64_t hash;
  };
  std::vector<Entry> batch_;
  std::size_t limit_;
  std::size_t bytes_;
};

}  // namespace

void scan_lines(const char* begin, const char* end, const ScanOptions& options, Facts& facts) {
  if (facts.columns.size() != options.width) facts.columns.resize(options.width);
  std::vector<std::string_view> cells(options.width);
  PendingTexts pending(options.distinct_limit, options.distinct_bytes);
  for (const char* line = begin; line < end && facts.refusal == Refusal::None;) {
    const char* newline = static_cast<const char*>(std::memchr(line, '\n', static_cast<std::size_t>(end - line)));
    const char* stop = newline ? newline : end;
    const auto length = static_cast<std::size_t>(stop - line);
    if (length > facts.longest_line) facts.longest_line = length;
    // DuckDB's reader skips an empty line between rows of several cells; a one-cell file's is refused as blank.
    if (length == 0 && options.width > 1) {
      line = stop + 1;
      continue;
    }
    if (has_high_byte(line, length) && !is_valid_utf8(std::string_view(line, length))) {
      facts.refusal = Refusal::Utf8;
      return;
    }
    std::size_t count = 0;
    const char* cell = line;
    for (const char* at = line;; ++at) {
      if (at != stop && *at != options.delimiter) {
        if (is_refused_byte(*at)) {
          facts.refusal = Refusal::Quoted;
          return;
        }
        continue;
      }
      if (count == options.width) {
        facts.refusal = Refusal::Ragged;
        return;
      }
      cells[count++] = std::string_view(cell, static_cast<std::size_t>(at - cell));
      if (at == stop) break;
      cell = at + 1;
    }
    if (count != options.width) {
      facts.refusal = Refusal::Ragged;
      return;
    }
    // Wider than the row-by-row reader's blank rows: a doubtful row only sends the file that way.
    bool visible = false;
    for (std::size_t i = 0; i < count; ++i) {
      const std::string_view cell = cells[i];
      if (!cell.empty() && cell[0] >= 33 && cell[0] <= 126) visible = true;
      ColumnFacts& column = facts.columns[i];
      const Shape shape = shape_of(cell);
      column.shapes |= shape;
      if (cell.size() > column.widest) column.widest = cell.size();
      if (!column.collecting || shape == kNull) continue;
      if (shape == kString || shape == kDate) {
        if (!pending.add(column, cell)) facts.refusal = Refusal::Texts;
      } else {
        column.collecting = false;
        column.texts.drop();
      }
    }
    if (!visible) {
      facts.refusal = Refusal::Blank;
      return;
    }
    ++facts.rows;
    line = stop + 1;
  }
  if (facts.refusal == Refusal::None && !pending.flush()) facts.refusal = Refusal::Texts;
}

Refusal check_header(std::string_view header) {
  for (char c : header) {
    if (is_refused_byte(c)) return Refusal::Quoted;
  }
  return has_high_byte(header.data(), header.size()) && !is_valid_utf8(header) ? Refusal::Utf8 : Refusal::None;
}

void merge(Facts& facts, const Facts& later, const ScanOptions& options) {
  if (facts.columns.size() != options.width) facts.columns.resize(options.width);
  facts.rows += later.rows;
  if (later.longest_line > facts.longest_line) facts.longest_line = later.longest_line;
  if (facts.refusal == Refusal::None) facts.refusal = later.refusal;
  if (later.columns.empty()) return;
  for (std::size_t i = 0; i < options.width; ++i) {
    ColumnFacts& column = facts.columns[i];
    const ColumnFacts& next = later.columns[i];
    column.shapes |= next.shapes;
    if (next.widest > column.widest) column.widest = next.widest;
    if (column.collecting && next.collecting) {
      column.texts.merge(next.texts, options.distinct_limit);
      if (column.texts.bytes() > options.distinct_bytes && facts.refusal == Refusal::None) {
        facts.refusal = Refusal::Texts;
      }
    } else if (column.collecting) {
      column.collecting = false;
      column.texts.drop();
    }
  }
}

const char* refusal_name(Refusal refusal) {
  switch (refusal) {
    case Refusal::None:
      return "none";
    case Refusal::Quoted:
      return "quoted";
    case Refusal::Ragged:
      return "ragged";
    case Refusal::Blank:
      return "blank";
    case Refusal::Utf8:
      return "utf8";
    case Refusal::Texts:
      return "texts";
  }
  return "none";
}

}  // namespace ds::csvscan
