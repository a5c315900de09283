// engine_build/csvscan: the dataset build's first look at a plain CSV (docs/datasets.md, "CSV files read by DuckDB").
//
//   csvscan FILE DELIMITER HEADER WIDTH DISTINCT_LIMIT DISTINCT_BYTES THREADS
//
// DELIMITER is one byte; HEADER is 1 when the first line names the columns. A column's distinct texts are collected
// while they are at most DISTINCT_LIMIT and their bytes at most DISTINCT_BYTES (beyond, the file is refused). Prints one JSON object on stdout:
// {"rows", "longest_line", "refusal", "columns": [{"shapes": [...], "widest", "values": [...] | null}]}, the values sorted bytewise.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <csignal>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/json.hpp"
#include "scan.hpp"

namespace {

using ds::csvscan::Facts;
using ds::csvscan::ScanOptions;
using ds::json::Value;

constexpr std::size_t kReadBytes = 1 << 20;

class File {
 public:
  explicit File(const char* path) : fd_(::open(path, O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw std::runtime_error(std::string("cannot open the file: ") + std::strerror(errno));
  }
  ~File() { ::close(fd_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  off_t size() const {
    struct stat st{};
    if (::fstat(fd_, &st) != 0) throw std::runtime_error("cannot stat the file");
    return st.st_size;
  }

  std::size_t read_at(char* into, std::size_t bytes, off_t at) const {
    for (;;) {
      const ssize_t n = ::pread(fd_, into, bytes, at);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) throw std::runtime_error(std::string("cannot read the file: ") + std::strerror(errno));
    }
  }

  // The offset just past the first newline at or after `from`, or `end` when there is none before it.
  off_t after_newline(off_t from, off_t end) const {
    std::vector<char> buffer(1 << 16);
    for (off_t at = from; at < end;) {
      const std::size_t n = read_at(buffer.data(), buffer.size(), at);
      if (n == 0) break;
      const void* newline = std::memchr(buffer.data(), '\n', n);
      if (newline) return at + (static_cast<const char*>(newline) - buffer.data()) + 1;
      at += static_cast<off_t>(n);
    }
    return end;
  }

 private:
  int fd_;
};

// Scans [from, to), whose lines all end in a newline except perhaps the file's last one.
void scan_range(const File& file, off_t from, off_t to, const ScanOptions& options, Facts& facts) {
  std::vector<char> buffer(2 * kReadBytes);
  std::size_t kept = 0;
  for (off_t at = from; at < to && facts.refusal == ds::csvscan::Refusal::None;) {
    if (buffer.size() - kept < kReadBytes) buffer.resize(kept + kReadBytes);
    const auto wanted = std::min<std::size_t>(kReadBytes, static_cast<std::size_t>(to - at));
    const std::size_t n = file.read_at(buffer.data() + kept, wanted, at);
    if (n == 0) throw std::runtime_error("the file shrank while it was read");
    at += static_cast<off_t>(n);
    const std::size_t filled = kept + n;
    std::size_t complete = filled;
    while (complete > 0 && buffer[complete - 1] != '\n') --complete;
    ds::csvscan::scan_lines(buffer.data(), buffer.data() + complete, options, facts);
    kept = filled - complete;
    std::memmove(buffer.data(), buffer.data() + complete, kept);
  }
  if (kept > 0) ds::csvscan::scan_lines(buffer.data(), buffer.data() + kept, options, facts);
}

Value shapes_of(unsigned shapes) {
  static const std::pair<unsigned, const char*> names[] = {
      {ds::csvscan::kInteger, "integer"}, {ds::csvscan::kDecimal, "decimal"}, {ds::csvscan::kString, "string"},
      {ds::csvscan::kBoolean, "boolean"}, {ds::csvscan::kDate, "date"},       {ds::csvscan::kUnsure, "unsure"},
  };
  Value list = Value::array();
  for (const auto& [bit, name] : names) {
    if (shapes & bit) list.push(name);
  }
  return list;
}

Value report(const Facts& facts, const ScanOptions& options) {
  Value out = Value::object();
  out.set("rows", Value::u64(facts.rows));
  out.set("longest_line", Value::u64(facts.longest_line));
  out.set("refusal", ds::csvscan::refusal_name(facts.refusal));
  Value columns = Value::array();
  for (std::size_t i = 0; i < options.width && facts.refusal == ds::csvscan::Refusal::None; ++i) {
    const auto& column = facts.columns[i];
    Value entry = Value::object();
    entry.set("shapes", shapes_of(column.shapes));
    entry.set("widest", Value::u64(column.widest));
    if (column.collecting && !column.texts.overflowed()) {
      std::vector<std::string_view> sorted = column.texts.values();
      std::sort(sorted.begin(), sorted.end());
      Value values = Value::array();
      for (std::string_view text : sorted) values.push(text);
      entry.set("values", std::move(values));
    } else {
      entry.set("values", nullptr);
    }
    columns.push(std::move(entry));
  }
  out.set("columns", std::move(columns));
  return out;
}

unsigned long number_argument(const char* text, const char* what) {
  char* end = nullptr;
  errno = 0;
  const unsigned long value = std::strtoul(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0') throw std::runtime_error(std::string("bad ") + what);
  return value;
}

int run(int argc, char** argv) {
  if (argc != 8 || std::strlen(argv[2]) != 1) {
    std::fprintf(stderr, "usage: csvscan FILE DELIMITER HEADER WIDTH DISTINCT_LIMIT DISTINCT_BYTES THREADS\n");
    return 2;
  }
  const File file(argv[1]);
  ScanOptions options;
  options.delimiter = argv[2][0];
  const bool header = number_argument(argv[3], "HEADER") == 1;
  options.width = number_argument(argv[4], "WIDTH");
  options.distinct_limit = number_argument(argv[5], "DISTINCT_LIMIT");
  options.distinct_bytes = number_argument(argv[6], "DISTINCT_BYTES");
  const unsigned long threads = std::max(1ul, number_argument(argv[7], "THREADS"));
  if (options.width == 0) throw std::runtime_error("bad WIDTH");

  const off_t size = file.size();
  const off_t start = header ? file.after_newline(0, size) : 0;
  std::vector<off_t> bounds{start};
  for (unsigned long t = 1; t < threads; ++t) {
    const off_t nominal = start + (size - start) * static_cast<off_t>(t) / static_cast<off_t>(threads);
    bounds.push_back(std::max(bounds.back(), file.after_newline(nominal, size)));
  }
  bounds.push_back(size);

  std::vector<char> header_line(static_cast<std::size_t>(start));
  if (file.read_at(header_line.data(), header_line.size(), 0) != header_line.size()) {
    throw std::runtime_error("the file shrank while it was read");
  }
  std::vector<Facts> parts(threads);
  parts[0].refusal = ds::csvscan::check_header(std::string_view(header_line.data(), header_line.size()));
  std::vector<std::thread> workers;
  std::vector<std::string> errors(threads);
  for (unsigned long t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        scan_range(file, bounds[t], bounds[t + 1], options, parts[t]);
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& worker : workers) worker.join();
  for (const auto& error : errors) {
    if (!error.empty()) throw std::runtime_error(error);
  }
  Facts facts;
  for (const auto& part : parts) ds::csvscan::merge(facts, part, options);
  const std::string text = ds::json::serialize(report(facts, options));
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fputc('\n', stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // A scan of a large file outlives nothing: it dies with the daemon that asked for it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "csvscan: %s\n", e.what());
    return 1;
  }
}
