// Small strict JSON value, parser and serializer shared by the engine and the runtime daemon.
//
// Numbers are doubles. A non-negative integer literal that fits in 64 bits also keeps its exact
// value (as_u64), so a seed above 2^53 survives a parse/serialize round trip. Objects keep their
// member order (variable declaration order is part of the engine's determinism contract).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ds::json {

enum class Type { Null, Bool, Number, String, Array, Object };

class Value;
using Array = std::vector<Value>;
using Member = std::pair<std::string, Value>;
using Object = std::vector<Member>;

class Value {
 public:
  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : type_(Type::Bool), bool_(b) {}
  Value(double d) : type_(Type::Number), num_(d) {}
  Value(int i) : type_(Type::Number), num_(i) {}
  Value(long i) : type_(Type::Number), num_(static_cast<double>(i)) {}
  Value(long long i) : type_(Type::Number), num_(static_cast<double>(i)) {}
  Value(unsigned i) : type_(Type::Number), num_(i) {}
  Value(unsigned long i) : type_(Type::Number), num_(static_cast<double>(i)) {}
  Value(unsigned long long i) : type_(Type::Number), num_(static_cast<double>(i)) {}
  Value(const char* s) : type_(Type::String), str_(std::make_unique<std::string>(s)) {}
  Value(std::string s) : type_(Type::String), str_(std::make_unique<std::string>(std::move(s))) {}
  Value(std::string_view s) : type_(Type::String), str_(std::make_unique<std::string>(s)) {}
  Value(Array a) : type_(Type::Array), arr_(std::make_unique<Array>(std::move(a))) {}
  Value(Object o) : type_(Type::Object), obj_(std::make_unique<Object>(std::move(o))) {}

  static Value array() { return Value(Array{}); }
  static Value object() { return Value(Object{}); }
  // An unsigned integer serialized exactly, even above 2^53.
  static Value u64(uint64_t u) {
    Value v(static_cast<double>(u));
    v.has_u64_ = true;
    v.u64_ = u;
    return v;
  }

  Value(const Value& o) { copy_from(o); }
  Value& operator=(const Value& o) {
    if (this != &o) {
      Value tmp(o);
      *this = std::move(tmp);
    }
    return *this;
  }
  Value(Value&&) noexcept = default;
  Value& operator=(Value&&) noexcept = default;

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::Null; }
  bool is_bool() const { return type_ == Type::Bool; }
  bool is_number() const { return type_ == Type::Number; }
  bool is_string() const { return type_ == Type::String; }
  bool is_array() const { return type_ == Type::Array; }
  bool is_object() const { return type_ == Type::Object; }

  bool as_bool() const { return bool_; }
  double as_number() const { return num_; }
  bool has_u64() const { return has_u64_; }
  uint64_t as_u64() const { return u64_; }
  const std::string& as_string() const { return *str_; }
  const Array& as_array() const { return *arr_; }
  Array& as_array() { return *arr_; }
  const Object& as_object() const { return *obj_; }
  Object& as_object() { return *obj_; }

  // Object member lookup (first match); nullptr when absent or when this is not an object.
  const Value* find(std::string_view key) const {
    if (type_ != Type::Object) return nullptr;
    for (const auto& m : *obj_)
      if (m.first == key) return &m.second;
    return nullptr;
  }
  // Appends a member (callers building output never repeat keys).
  Value& set(std::string key, Value v) {
    obj_->emplace_back(std::move(key), std::move(v));
    return obj_->back().second;
  }
  Value& push(Value v) {
    arr_->push_back(std::move(v));
    return arr_->back();
  }

 private:
  void copy_from(const Value& o) {
    type_ = o.type_;
    bool_ = o.bool_;
    has_u64_ = o.has_u64_;
    num_ = o.num_;
    u64_ = o.u64_;
    if (o.str_) str_ = std::make_unique<std::string>(*o.str_);
    if (o.arr_) arr_ = std::make_unique<Array>(*o.arr_);
    if (o.obj_) obj_ = std::make_unique<Object>(*o.obj_);
  }

  friend class Parser;
  Type type_ = Type::Null;
  bool bool_ = false;
  bool has_u64_ = false;
  double num_ = 0.0;
  uint64_t u64_ = 0;
  std::unique_ptr<std::string> str_;
  std::unique_ptr<Array> arr_;
  std::unique_ptr<Object> obj_;
};

struct ParseError : std::runtime_error {
  size_t position;
  ParseError(const std::string& what, size_t pos)
      : std::runtime_error(what + " at position " + std::to_string(pos)), position(pos) {}
};

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Value parse_document() {
    skip_ws();
    Value v = parse_value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected trailing characters after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const { throw ParseError(msg, pos_); }

  void skip_ws() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        ++pos_;
      else
        break;
    }
  }

  bool consume_literal(const char* lit) {
    size_t n = std::strlen(lit);
    if (s_.compare(pos_, n, lit) == 0) {
      pos_ += n;
      return true;
    }
    return false;
  }

  Value parse_value(int depth) {
    if (pos_ >= s_.size()) fail("unexpected end of input");
    char c = s_[pos_];
    switch (c) {
      case '{': return parse_object(depth + 1);
      case '[': return parse_array(depth + 1);
      case '"': return Value(parse_string());
      case 't':
        if (consume_literal("true")) return Value(true);
        break;
      case 'f':
        if (consume_literal("false")) return Value(false);
        break;
      case 'n':
        if (consume_literal("null")) return Value(nullptr);
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
    }
    fail("invalid JSON value");
  }

  Value parse_object(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than 64 levels");
    ++pos_;  // '{'
    Value v = Value::object();
    Object& obj = v.as_object();
    std::unordered_set<std::string> seen;
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return v;
    }
    for (;;) {
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a string key");
      size_t key_pos = pos_;
      std::string key = parse_string();
      if (!seen.insert(key).second) {
        pos_ = key_pos;
        fail("duplicate object key '" + key + "'");
      }
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != ':') fail("expected ':'");
      ++pos_;
      skip_ws();
      Value member = parse_value(depth);
      obj.emplace_back(std::move(key), std::move(member));
      skip_ws();
      if (pos_ >= s_.size()) fail("unexpected end of input in object");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == '}') {
        ++pos_;
        return v;
      }
      fail("expected ',' or '}'");
    }
  }

  Value parse_array(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than 64 levels");
    ++pos_;  // '['
    Value v = Value::array();
    Array& arr = v.as_array();
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return v;
    }
    for (;;) {
      skip_ws();
      arr.push_back(parse_value(depth));
      skip_ws();
      if (pos_ >= s_.size()) fail("unexpected end of input in array");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == ']') {
        ++pos_;
        return v;
      }
      fail("expected ',' or ']'");
    }
  }

  Value parse_number() {
    size_t start = pos_;
    bool integer = true;
    bool negative = false;
    if (s_[pos_] == '-') {
      negative = true;
      ++pos_;
    }
    if (pos_ >= s_.size() || !isdigit_(s_[pos_])) fail("invalid number");
    if (s_[pos_] == '0') {
      ++pos_;
      if (pos_ < s_.size() && isdigit_(s_[pos_])) fail("leading zeros are not allowed in numbers");
    } else {
      while (pos_ < s_.size() && isdigit_(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      integer = false;
      ++pos_;
      if (pos_ >= s_.size() || !isdigit_(s_[pos_])) fail("invalid number: digits expected after '.'");
      while (pos_ < s_.size() && isdigit_(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      integer = false;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !isdigit_(s_[pos_])) fail("invalid number: digits expected in exponent");
      while (pos_ < s_.size() && isdigit_(s_[pos_])) ++pos_;
    }
    std::string text(s_.substr(start, pos_ - start));
    double d = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(d)) {
      pos_ = start;
      fail("number out of range");
    }
    Value v(d);
    if (integer && !negative && text.size() <= 20) {
      uint64_t u = 0;
      bool overflow = false;
      for (char c : text) {
        uint64_t digit = static_cast<uint64_t>(c - '0');
        if (u > (UINT64_MAX - digit) / 10) {
          overflow = true;
          break;
        }
        u = u * 10 + digit;
      }
      if (!overflow) {
        v.has_u64_ = true;
        v.u64_ = u;
      }
    }
    return v;
  }

  static bool isdigit_(char c) { return c >= '0' && c <= '9'; }

  unsigned parse_hex4() {
    if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<unsigned>(c - 'A' + 10);
      else {
        --pos_;
        fail("invalid hex digit in \\u escape");
      }
    }
    return v;
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // Validates one raw UTF-8 sequence starting at pos_ and copies it.
  void copy_utf8(std::string& out) {
    unsigned char c = static_cast<unsigned char>(s_[pos_]);
    int len;
    uint32_t cp;
    if (c < 0x80) {
      len = 1;
      cp = c;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      fail("invalid UTF-8 in string");
    }
    if (pos_ + static_cast<size_t>(len) > s_.size()) fail("truncated UTF-8 sequence in string");
    for (int i = 1; i < len; ++i) {
      unsigned char cc = static_cast<unsigned char>(s_[pos_ + static_cast<size_t>(i)]);
      if ((cc & 0xC0) != 0x80) fail("invalid UTF-8 in string");
      cp = (cp << 6) | (cc & 0x3F);
    }
    static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail("invalid UTF-8 in string");
    out.append(s_.data() + pos_, static_cast<size_t>(len));
    pos_ += static_cast<size_t>(len);
  }

  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) fail("unescaped control character in string");
      if (c != '\\') {
        if (c < 0x80) {
          out.push_back(static_cast<char>(c));
          ++pos_;
        } else {
          copy_utf8(out);
        }
        continue;
      }
      ++pos_;
      if (pos_ >= s_.size()) fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          uint32_t cp = parse_hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (pos_ + 2 > s_.size() || s_[pos_] != '\\' || s_[pos_ + 1] != 'u')
              fail("unpaired high surrogate in \\u escape");
            pos_ += 2;
            uint32_t lo = parse_hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("invalid low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail("unpaired low surrogate in \\u escape");
          }
          append_utf8(out, cp);
          break;
        }
        default:
          --pos_;
          fail("invalid escape character");
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

inline Value parse(std::string_view text) { return Parser(text).parse_document(); }

// The shortest decimal that reads back to the same double (std::to_chars, one call), laid out as
// printf's %.<P>g would with P = max(15, digits): the text of the former "shortest of %.15g, %.16g
// and %.17g that round-trips" (same digits, same choice of exponent form, "-0" for negative zero),
// without its up to three snprintf and strtod calls per number. Non-finite numbers have no JSON
// form and print as null.
inline void format_number(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  // Scientific form: [-]D[.DDDD]e(+|-)XX[X], at most 17 significant digits.
  char sci[32];
  const char* end = std::to_chars(sci, sci + sizeof sci, d, std::chars_format::scientific).ptr;
  const char* p = sci;
  if (*p == '-') out.push_back(*p++);
  char digits[17];
  int n = 0;
  for (; *p != 'e'; ++p)
    if (*p != '.') digits[n++] = *p;
  ++p;  // 'e'
  const bool negative_exponent = *p++ == '-';
  int exponent = 0;
  for (; p < end; ++p) exponent = exponent * 10 + (*p - '0');
  if (negative_exponent) exponent = -exponent;

  const int precision = n > 15 ? n : 15;
  if (exponent < -4 || exponent >= precision) {
    out.push_back(digits[0]);
    if (n > 1) {
      out.push_back('.');
      out.append(digits + 1, static_cast<size_t>(n - 1));
    }
    out.push_back('e');
    out.push_back(exponent < 0 ? '-' : '+');
    const int magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude >= 100) out.push_back(static_cast<char>('0' + magnitude / 100));
    out.push_back(static_cast<char>('0' + magnitude / 10 % 10));
    out.push_back(static_cast<char>('0' + magnitude % 10));
  } else if (exponent < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exponent - 1), '0');
    out.append(digits, static_cast<size_t>(n));
  } else if (n <= exponent + 1) {
    out.append(digits, static_cast<size_t>(n));
    out.append(static_cast<size_t>(exponent + 1 - n), '0');
  } else {
    out.append(digits, static_cast<size_t>(exponent + 1));
    out.push_back('.');
    out.append(digits + exponent + 1, static_cast<size_t>(n - exponent - 1));
  }
}

inline void escape_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
}

inline void serialize_to(std::string& out, const Value& v) {
  switch (v.type()) {
    case Type::Null: out += "null"; break;
    case Type::Bool: out += v.as_bool() ? "true" : "false"; break;
    case Type::Number:
      if (v.has_u64())
        out += std::to_string(v.as_u64());
      else
        format_number(out, v.as_number());
      break;
    case Type::String: escape_string(out, v.as_string()); break;
    case Type::Array: {
      out.push_back('[');
      bool first = true;
      for (const auto& e : v.as_array()) {
        if (!first) out.push_back(',');
        first = false;
        serialize_to(out, e);
      }
      out.push_back(']');
      break;
    }
    case Type::Object: {
      out.push_back('{');
      bool first = true;
      for (const auto& m : v.as_object()) {
        if (!first) out.push_back(',');
        first = false;
        escape_string(out, m.first);
        out.push_back(':');
        serialize_to(out, m.second);
      }
      out.push_back('}');
      break;
    }
  }
}

inline std::string serialize(const Value& v) {
  std::string out;
  serialize_to(out, v);
  return out;
}

}  // namespace ds::json
