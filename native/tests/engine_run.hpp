// Running the engine on a request text and reading its answer, shared by the engine's test files.
#pragma once

#include <string>

#include "../common/json.hpp"
#include "../engine/engine.hpp"

namespace ds::test {

struct Outcome {
  bool ok;
  ds::json::Value result;
  ds::engine::Error error;
};

inline Outcome run(const std::string& text) {
  Outcome o;
  o.ok = ds::engine::simulate(ds::json::parse(text), {}, o.result, o.error);
  return o;
}

inline const ds::json::Value& action(const ds::json::Value& r, size_t i) { return r.find("actions")->as_array()[i]; }
inline double num(const ds::json::Value& v, const char* key) { return v.find(key)->as_number(); }
inline std::string str(const ds::json::Value& v, const char* key) { return v.find(key)->as_string(); }

// The answer's bytes without its timing, which differs between identical runs.
inline std::string without_compute_ms(ds::json::Value v) {
  auto& o = v.as_object();
  for (size_t i = 0; i < o.size(); ++i)
    if (o[i].first == "compute_ms") o.erase(o.begin() + static_cast<long>(i));
  return ds::json::serialize(v);
}

inline bool has_problem(const Outcome& o, const std::string& field, const std::string& needle) {
  for (const auto& d : o.error.details)
    if (d.field == field && d.problem.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace ds::test
