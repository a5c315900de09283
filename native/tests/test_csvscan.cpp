#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include <unistd.h>

#include "../common/json.hpp"
#include "../csvscan/scan.hpp"
#include "check.hpp"

namespace cs = ds::csvscan;

namespace {

cs::Facts scan(const std::string& text, std::size_t width, std::size_t limit = 100, std::size_t bytes = 1000) {
  cs::ScanOptions options;
  options.width = width;
  options.distinct_limit = limit;
  options.distinct_bytes = bytes;
  cs::Facts facts;
  cs::scan_lines(text.data(), text.data() + text.size(), options, facts);
  return facts;
}

// Runs engine_build/csvscan on `text` written to a file; its stdout.
std::string run_binary(const std::string& text, const std::string& args) {
  char path[] = "/tmp/csvscan-test-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return "";
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  std::string out;
  if (written) {
    const std::string command = ds::test::build_dir() + "/csvscan " + path + " " + args;
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    char chunk[4096];
    for (std::size_t n; pipe && (n = std::fread(chunk, 1, sizeof chunk, pipe.get())) > 0;) out.append(chunk, n);
  }
  unlink(path);
  return out;
}

}  // namespace

TEST(csvscan_shapes_follow_the_classifier) {
  CHECK(cs::shape_of("") == cs::kNull);
  CHECK(cs::shape_of("0") == cs::kInteger);
  CHECK(cs::shape_of("-123456789012345") == cs::kInteger);
  CHECK(cs::shape_of("1234567890123456") == cs::kUnsure);  // 16 digits: past a double's exact integers
  CHECK(cs::shape_of("007") == cs::kUnsure);
  CHECK(cs::shape_of("-0.50") == cs::kDecimal);
  CHECK(cs::shape_of("0.000000000000000000001") == cs::kDecimal);  // long, but one significant digit
  CHECK(cs::shape_of("-0.00123456789012345") == cs::kDecimal);  // long, with 15 significant digits
  CHECK(cs::shape_of("0.0001234567890123456") == cs::kUnsure);   // 16
  CHECK(cs::shape_of("1234567890.123456") == cs::kUnsure);
  CHECK(cs::shape_of("1.") == cs::kUnsure);
  CHECK(cs::shape_of(".5") == cs::kUnsure);
  CHECK(cs::shape_of("1e5") == cs::kUnsure);
  CHECK(cs::shape_of("2024-02-29") == cs::kDate);
  CHECK(cs::shape_of("2024-13-01") == cs::kUnsure);
  CHECK(cs::shape_of("2024-01-00") == cs::kUnsure);
  CHECK(cs::shape_of("TRUE") == cs::kBoolean);
  CHECK(cs::shape_of("False") == cs::kBoolean);
  CHECK(cs::shape_of("truth") == cs::kString);
  CHECK(cs::shape_of(" 1") == cs::kString);
  CHECK(cs::shape_of("Zürich") == cs::kString);
}

TEST(csvscan_utf8_is_what_duckdb_reads_within_the_bmp) {
  CHECK(cs::is_valid_utf8("S\xC3\xA3o \xE6\x9D\xB1"));
  CHECK(!cs::is_valid_utf8("\xC0\x80"));          // overlong NUL
  CHECK(!cs::is_valid_utf8("\xE0\x80\xAF"));      // overlong slash
  CHECK(!cs::is_valid_utf8("\xED\xA0\x80"));      // a surrogate
  CHECK(!cs::is_valid_utf8("\xF0\x9F\x98\x80"));  // beyond the BMP
  CHECK(!cs::is_valid_utf8("\xC3"));              // cut short
  CHECK(!cs::is_valid_utf8("\xFF"));
}

TEST(csvscan_collects_distinct_texts_until_another_shape_or_the_limit) {
  const cs::Facts facts = scan("b,1,x,2024-01-01\na,2,,2024-01-01\nb,x,y,z\n", 4, 100, 1000);
  CHECK(facts.refusal == cs::Refusal::None);
  CHECK(facts.rows == 3);
  CHECK(facts.longest_line == 16);
  CHECK(facts.columns[0].collecting && facts.columns[0].texts.size() == 2);
  CHECK(!facts.columns[1].collecting);
  CHECK(facts.columns[1].shapes == (cs::kInteger | cs::kString));
  CHECK(facts.columns[2].texts.size() == 2);
  CHECK(facts.columns[3].shapes == (cs::kDate | cs::kString) && facts.columns[3].texts.size() == 2);
  CHECK(facts.columns[3].widest == 10);
  const cs::Facts many = scan("a\nb\nc\n", 1, 2, 1000);
  CHECK(many.refusal == cs::Refusal::None && many.columns[0].texts.overflowed());
  CHECK(scan("aaaa\nbbbb\n", 1, 100, 6).refusal == cs::Refusal::Texts);
}

TEST(csvscan_refuses_what_the_row_by_row_reader_must_read) {
  CHECK(scan("1,2\n3\n", 2).refusal == cs::Refusal::Ragged);
  CHECK(scan("1,2\n3,4,5\n", 2).refusal == cs::Refusal::Ragged);
  CHECK(scan("1,2\n , \n", 2).refusal == cs::Refusal::Blank);
  CHECK(scan("1\n\n2\n", 1).refusal == cs::Refusal::Blank);
  CHECK(scan("1,\"2\"\n", 2).refusal == cs::Refusal::Quoted);
  CHECK(scan(std::string("1,2\r\n"), 2).refusal == cs::Refusal::Quoted);
  CHECK(scan(std::string("1,a\0b\n", 6), 2).refusal == cs::Refusal::Quoted);
  CHECK(scan("1,\xED\xA0\x80\n", 2).refusal == cs::Refusal::Utf8);
  const cs::Facts skipped = scan("1,2\n\n3,4", 2);
  CHECK(skipped.refusal == cs::Refusal::None && skipped.rows == 2);  // DuckDB skips the empty line too
  CHECK(cs::check_header("a,b\n") == cs::Refusal::None);
  CHECK(cs::check_header("\"a\",b\n") == cs::Refusal::Quoted);
  CHECK(cs::check_header("a\xF0\x9F\x98\x80\n") == cs::Refusal::Utf8);
}

TEST(csvscan_answers_the_same_at_any_thread_count) {
  std::string text = "id,day,who,price\n";
  for (int i = 0; i < 20000; ++i) {
    text += std::to_string(i) + ",2024-01-" + std::to_string(10 + i % 20) + ",C-" + std::to_string(i * 7919 % 3001) +
            "," + std::to_string(i % 97) + "." + std::to_string(i % 10) + "\n";
  }
  const std::string one = run_binary(text, ", 1 4 4096 1000000 1");
  const ds::json::Value parsed = ds::json::parse(one);
  CHECK(parsed.find("rows")->as_number() == 20000);
  CHECK(parsed.find("columns")->as_array()[2].find("values")->as_array().size() == 3001);
  CHECK(parsed.find("columns")->as_array()[3].find("values")->is_null());
  for (const char* threads : {"2", "3", "7"}) CHECK_EQ_STR(run_binary(text, std::string(", 1 4 4096 1000000 ") + threads), one);
  // Past the limit of distinct texts, no values are listed whichever part of the file met it.
  const ds::json::Value capped = ds::json::parse(run_binary(text, ", 1 4 3000 1000000 3"));
  CHECK(capped.find("columns")->as_array()[2].find("values")->is_null());
  CHECK(capped.find("columns")->as_array()[1].find("values")->as_array().size() == 20);
}
