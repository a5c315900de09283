// Minimal test harness: TEST(name) registers a case, CHECK* record failures, main prints
// "N passed, N failed" and exits non-zero on any failure.
#pragma once

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace ds::test {

struct Case {
  const char* name;
  std::function<void()> fn;
};

inline std::vector<Case>& cases() {
  static std::vector<Case> c;
  return c;
}

inline int& failures_in_case() {
  static int f = 0;
  return f;
}

// Directory of the built binaries (argv[1]).
inline std::string& build_dir() {
  static std::string d;
  return d;
}

struct Reg {
  Reg(const char* name, std::function<void()> fn) { cases().push_back({name, std::move(fn)}); }
};

inline bool check(bool ok, const std::string& what, const char* file, int line) {
  if (!ok) {
    ++failures_in_case();
    std::fprintf(stderr, "    FAIL %s:%d: %s\n", file, line, what.c_str());
  }
  return ok;
}

inline std::string fmt(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

}  // namespace ds::test

#define TEST(name)                                                        \
  static void test_##name();                                              \
  static ::ds::test::Reg reg_##name(#name, test_##name);                  \
  static void test_##name()

#define CHECK(cond) ::ds::test::check(static_cast<bool>(cond), #cond, __FILE__, __LINE__)

#define CHECK_NEAR(actual, expected, tol)                                                                    \
  do {                                                                                                       \
    const double a_ = (actual), e_ = (expected), t_ = (tol);                                                 \
    ::ds::test::check(std::fabs(a_ - e_) <= t_,                                                              \
                      std::string(#actual) + " = " + ::ds::test::fmt(a_) + ", expected " + ::ds::test::fmt(e_) + \
                          " +- " + ::ds::test::fmt(t_),                                                      \
                      __FILE__, __LINE__);                                                                   \
  } while (0)

#define CHECK_EQ_STR(actual, expected)                                                                  \
  do {                                                                                                  \
    const std::string a_ = (actual), e_ = (expected);                                                   \
    ::ds::test::check(a_ == e_, std::string(#actual) + " = \"" + a_ + "\", expected \"" + e_ + "\"", __FILE__, \
                      __LINE__);                                                                        \
  } while (0)
