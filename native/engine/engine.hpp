// Monte Carlo decision engine: one /v1/simulate request in, one result object out.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "../common/json.hpp"

namespace ds::engine {

constexpr long long kMaxRuns = 10'000'000;
constexpr long long kDefaultRuns = 10'000;
constexpr size_t kMaxVariables = 256;
constexpr size_t kMaxActions = 64;
constexpr size_t kMaxCorrelatedVariables = 64;
constexpr size_t kMaxNameLength = 64;
constexpr size_t kMaxModelLength = 10'000;
// Runs are split into chunks with their own random stream; samples are processed in blocks.
constexpr size_t kChunk = 4096;
constexpr size_t kBlock = 512;

struct FieldProblem {
  std::string field;
  std::string problem;
};

struct Error {
  std::string code;  // validation_failed | engine_timeout | internal_error
  std::string message;
  std::vector<FieldProblem> details;

  json::Value to_json() const;
};

struct Options {
  bool has_deadline = false;
  std::chrono::steady_clock::time_point deadline{};
};

// Runs one request. On success fills `result` and returns true; otherwise fills `error`.
// Never throws.
bool simulate(const json::Value& request, const Options& options, json::Value& result, Error& error);

}  // namespace ds::engine
