#include <chrono>
#include <cstdio>
#include <exception>

#include "check.hpp"

int main(int argc, char** argv) {
  ds::test::build_dir() = argc > 1 ? argv[1] : "../engine_build";
  int passed = 0, failed = 0;
  for (const auto& c : ds::test::cases()) {
    ds::test::failures_in_case() = 0;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      c.fn();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "    FAIL exception: %s\n", e.what());
      ++ds::test::failures_in_case();
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const bool ok = ds::test::failures_in_case() == 0;
    std::printf("%s %s (%.0f ms)\n", ok ? "ok  " : "FAIL", c.name, ms);
    std::fflush(stdout);
    (ok ? passed : failed)++;
  }
  std::printf("native: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
