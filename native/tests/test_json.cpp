#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "../common/framing.hpp"
#include "../common/json.hpp"
#include "../common/rng.hpp"
#include "../common/select.hpp"
#include "check.hpp"

using ds::json::Value;

namespace {

bool rejects(const std::string& text) {
  try {
    ds::json::parse(text);
    return false;
  } catch (const ds::json::ParseError&) {
    return true;
  }
}

std::string roundtrip(const std::string& text) { return ds::json::serialize(ds::json::parse(text)); }

// The JSON text of d reads back to d bit for bit (the sign of zero included).
bool reads_back(double d) {
  const std::string text = ds::json::serialize(Value(d));
  const double back = ds::json::parse(text).as_number();
  return std::memcmp(&back, &d, sizeof d) == 0;
}

}  // namespace

TEST(json_parse_and_serialize) {
  Value v = ds::json::parse(R"J( {"b": [1, 2.5, -3e2, true, false, null], "a": {"x": "y"}} )J");
  CHECK(v.is_object());
  CHECK(v.as_object()[0].first == "b");  // member order is kept
  CHECK(v.find("b")->as_array().size() == 6);
  CHECK(v.find("b")->as_array()[2].as_number() == -300);
  CHECK_EQ_STR(ds::json::serialize(v), R"J({"b":[1,2.5,-300,true,false,null],"a":{"x":"y"}})J");
  CHECK_EQ_STR(roundtrip("0.1"), "0.1");
  CHECK_EQ_STR(roundtrip("[1e300,-0,123456789012]"), "[1e+300,-0,123456789012]");
  CHECK_EQ_STR(ds::json::serialize(Value(1.0 / 3.0)), "0.3333333333333333");
  CHECK(ds::json::parse(ds::json::serialize(Value(1.0 / 3.0))).as_number() == 1.0 / 3.0);
  CHECK_EQ_STR(ds::json::serialize(Value(NAN)), "null");
  CHECK_EQ_STR(ds::json::serialize(Value(HUGE_VAL)), "null");
  // Integers above 2^53 keep their exact value.
  CHECK_EQ_STR(roundtrip("18446744073709551615"), "18446744073709551615");
  CHECK(ds::json::parse("9007199254740993").as_u64() == 9007199254740993ULL);
  CHECK_EQ_STR(ds::json::serialize(Value::u64(12345678901234567890ULL)), "12345678901234567890");
}

TEST(json_number_formatting) {
  const auto text = [](double d) { return ds::json::serialize(Value(d)); };
  CHECK_EQ_STR(text(0.0), "0");
  CHECK_EQ_STR(text(-0.0), "-0");
  CHECK_EQ_STR(text(1.0), "1");
  CHECK_EQ_STR(text(-42.0), "-42");
  CHECK_EQ_STR(text(100000.0), "100000");
  CHECK_EQ_STR(text(123456789012345.0), "123456789012345");
  CHECK_EQ_STR(text(1e15), "1e+15");
  CHECK_EQ_STR(text(1234567890123456.0), "1234567890123456");  // 16 digits: fixed up to exponent 15
  CHECK_EQ_STR(text(12345678901234567890.0), "1.2345678901234567e+19");
  CHECK_EQ_STR(text(9007199254740993.0), "9007199254740992");  // not a double: the nearest one
  CHECK_EQ_STR(text(2.5), "2.5");
  CHECK_EQ_STR(text(-0.001), "-0.001");
  CHECK_EQ_STR(text(0.0001), "0.0001");
  CHECK_EQ_STR(text(0.00001), "1e-05");
  CHECK_EQ_STR(text(-1.5e-7), "-1.5e-07");
  CHECK_EQ_STR(text(0.1 + 0.2), "0.30000000000000004");
  CHECK_EQ_STR(text(44.60021297004883), "44.60021297004883");
  CHECK_EQ_STR(text(1e100), "1e+100");
  CHECK_EQ_STR(text(1e-300), "1e-300");
  CHECK_EQ_STR(text(1.7976931348623157e308), "1.7976931348623157e+308");
  CHECK_EQ_STR(text(2.2250738585072014e-308), "2.2250738585072014e-308");  // smallest normal
  // Subnormals and powers of two take the shortest text that reads back, which %.15g/%.16g did not
  // always find (4.94065645841247e-324, 5.3169119831396635e+36 before).
  CHECK_EQ_STR(text(5e-324), "5e-324");
  CHECK_EQ_STR(text(-2.5e-320), "-2.5e-320");
  CHECK_EQ_STR(text(std::ldexp(1.0, 122)), "5.316911983139664e+36");

  CHECK(reads_back(0.0) && reads_back(-0.0));
  for (int e = -1074; e <= 1023; ++e) {
    const double p = std::ldexp(1.0, e);
    CHECK(reads_back(p) && reads_back(-p));
    CHECK(reads_back(std::nextafter(p, 0.0)) && reads_back(std::nextafter(p, 2 * p)));
  }
  for (int e = -323; e <= 308; ++e) {
    const double p = std::pow(10.0, e);
    CHECK(reads_back(p) && reads_back(std::nextafter(p, 0.0)) && reads_back(std::nextafter(p, 2 * p)));
  }
  // Any bit pattern that is a finite double, and the short decimals statistics are made of.
  auto rng = ds::rng::Xoshiro256ss::for_chunk(2026, 0);
  int failed = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t bits = rng.next();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d) && !reads_back(d)) ++failed;
    const double decimal = static_cast<double>(static_cast<int64_t>(bits % 2000001) - 1000000) / 1000.0;
    if (!reads_back(decimal) || text(decimal).size() > 9) ++failed;
  }
  CHECK(failed == 0);
}

TEST(json_strings_and_escapes) {
  Value v = ds::json::parse(R"J("a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00")J");
  CHECK(v.as_string() == "a\"b\\c/d\b\f\n\r\t\xC3\xA9\xF0\x9F\x98\x80");
  CHECK_EQ_STR(ds::json::serialize(v), "\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\xC3\xA9\xF0\x9F\x98\x80\"");
  CHECK_EQ_STR(ds::json::serialize(Value(std::string("\x01", 1))), "\"\\u0001\"");
  CHECK(ds::json::parse("\"\xE2\x82\xAC\"").as_string() == "\xE2\x82\xAC");
  CHECK(rejects(R"J("\ud83d")J"));        // lone high surrogate
  CHECK(rejects(R"J("\ude00")J"));        // lone low surrogate
  CHECK(rejects(R"J("\ud83d\u0041")J"));  // high surrogate + non-low
  CHECK(rejects(R"J("\x")J"));
  CHECK(rejects(R"J("\u12G4")J"));
  CHECK(rejects("\"a\nb\""));           // raw control character
  CHECK(rejects("\"\xC0\xAF\""));       // overlong UTF-8
  CHECK(rejects("\"\xED\xA0\x80\""));   // UTF-8 encoded surrogate
  CHECK(rejects("\"\xFF\""));
  CHECK(rejects("\"abc"));
}

TEST(json_strictness) {
  CHECK(rejects("{} x"));
  CHECK(rejects("[1,]"));
  CHECK(rejects("{\"a\":1,}"));
  CHECK(rejects("01"));
  CHECK(rejects("+1"));
  CHECK(rejects("1."));
  CHECK(rejects(".5"));
  CHECK(rejects("1e"));
  CHECK(rejects("NaN"));
  CHECK(rejects("Infinity"));
  CHECK(rejects("1e400"));
  CHECK(rejects("tru"));
  CHECK(rejects(""));
  CHECK(rejects("{'a':1}"));
  CHECK(rejects(R"J({"a":1,"a":2})J"));
  std::string deep64(64, '['), deep65(65, '[');
  deep64 += std::string(64, ']');
  deep65 += std::string(65, ']');
  CHECK(!rejects(deep64));
  CHECK(rejects(deep65));
  try {
    ds::json::parse("[1, 2, x]");
    CHECK(false);
  } catch (const ds::json::ParseError& e) {
    CHECK(e.position == 7);
  }
}

TEST(framing_decoder) {
  std::string wire = ds::frame::encode("{\"a\":1}") + ds::frame::encode("[]");
  ds::frame::Decoder d;
  std::string out;
  d.feed(wire.data(), 3);
  CHECK(d.next(out) == ds::frame::Decoder::Result::NeedMore);
  d.feed(wire.data() + 3, wire.size() - 3);
  CHECK(d.next(out) == ds::frame::Decoder::Result::Frame);
  CHECK(out == "{\"a\":1}");
  CHECK(d.next(out) == ds::frame::Decoder::Result::Frame);
  CHECK(out == "[]");
  CHECK(d.next(out) == ds::frame::Decoder::Result::NeedMore);
  const char big[4] = {0x04, 0x00, 0x00, 0x01};  // 64 MiB + 1
  d.feed(big, 4);
  CHECK(d.next(out) == ds::frame::Decoder::Result::TooLarge);
  CHECK(wire.substr(0, 4) == std::string("\0\0\0\x07", 4));
}

TEST(rng_reference_values) {
  // xoshiro256** from state {1,2,3,4}: first outputs 11520 and 0 (by hand from the update rule).
  ds::rng::Xoshiro256ss g{{1, 2, 3, 4}};
  CHECK(g.next() == 11520u);
  CHECK(g.next() == 0u);
  // SplitMix64 from state 0: first output is the published 0xE220A8397B1DCDAF.
  CHECK(ds::rng::splitmix_at(0, 0) == 0xE220A8397B1DCDAFULL);
  // Chunk streams differ and are reproducible.
  auto a = ds::rng::Xoshiro256ss::for_chunk(42, 0), b = ds::rng::Xoshiro256ss::for_chunk(42, 1);
  auto a2 = ds::rng::Xoshiro256ss::for_chunk(42, 0);
  CHECK(a.next() != b.next());
  a = ds::rng::Xoshiro256ss::for_chunk(42, 0);
  CHECK(a.next() == a2.next());
  CHECK(ds::rng::to_unit(~0ULL) < 1.0);
  CHECK(ds::rng::to_unit(0) == 0.0);
  CHECK(ds::rng::open_unit(0.0) == 0x1.0p-53);
  CHECK(ds::rng::open_unit(ds::rng::to_unit(~0ULL)) == 1.0 - 0x1.0p-53);
}

TEST(percentiles_type7) {
  std::vector<double> v = {15, 20, 35, 40, 50};
  auto q = ds::select::quantiles_type7(v.data(), v.size(), {0.0, 0.05, 0.25, 0.4, 0.5, 0.95, 1.0});
  CHECK_NEAR(q[0], 15, 0);
  CHECK_NEAR(q[1], 16, 1e-12);   // h = 0.2
  CHECK_NEAR(q[2], 20, 0);
  CHECK_NEAR(q[3], 29, 1e-12);   // h = 1.6
  CHECK_NEAR(q[4], 35, 0);
  CHECK_NEAR(q[5], 48, 1e-12);   // h = 3.8
  CHECK_NEAR(q[6], 50, 0);
  // Against a full sort on a shuffled larger array.
  std::vector<double> big;
  ds::rng::Xoshiro256ss g = ds::rng::Xoshiro256ss::for_chunk(1, 0);
  for (int i = 0; i < 100001; ++i) big.push_back(ds::rng::to_unit(g.next()));
  std::vector<double> sorted = big;
  std::sort(sorted.begin(), sorted.end());
  auto qb = ds::select::quantiles_type7(big.data(), big.size(), {0.05, 0.5, 0.95, 0.123456});
  CHECK(qb[0] == sorted[5000]);
  CHECK(qb[1] == sorted[50000]);
  CHECK(qb[2] == sorted[95000]);
  const double h = 100000 * 0.123456;
  const size_t k = static_cast<size_t>(h);
  CHECK(qb[3] == sorted[k] + (h - k) * (sorted[k + 1] - sorted[k]));
  std::vector<double> one = {7};
  CHECK(ds::select::quantiles_type7(one.data(), 1, {0.05, 0.95})[1] == 7);
}

TEST(percentiles_large_inputs_match_a_full_sort) {
  // Large inputs take the sample-bracketed path; sorted, reversed, tied and constant data must give
  // the same exact order statistics (through the fallback where a bracket misses).
  ds::rng::Xoshiro256ss g = ds::rng::Xoshiro256ss::for_chunk(5, 0);
  const size_t n = 400003;
  std::vector<std::vector<double>> inputs(5, std::vector<double>(n));
  for (size_t i = 0; i < n; ++i) {
    const double u = ds::rng::to_unit(g.next());
    inputs[0][i] = u * u - 0.3;                          // random
    inputs[1][i] = static_cast<double>(i);               // sorted
    inputs[2][i] = static_cast<double>(n - i);           // reversed
    inputs[3][i] = std::floor(u * 7);                    // heavy ties
    inputs[4][i] = 2.5;                                  // constant
  }
  for (auto& in : inputs) {
    std::vector<double> sorted = in;
    std::sort(sorted.begin(), sorted.end());
    const std::vector<double> ps = {0.05, 0.5, 0.95, 0.999};
    auto q = ds::select::quantiles_type7(in.data(), n, ps);
    for (size_t j = 0; j < ps.size(); ++j) {
      const double h = static_cast<double>(n - 1) * ps[j];
      const size_t k = static_cast<size_t>(h);
      const double expect = sorted[k] + (h - static_cast<double>(k)) * (sorted[k + 1] - sorted[k]);
      CHECK_NEAR(q[j], expect, 0);
    }
  }
}
