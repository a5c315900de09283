// Runtime-library modules compiled into engine_build/runtime.
#pragma once

#include <string>
#include <vector>

#include "../common/json.hpp"

namespace ds::runtime {

struct ExecError {
  std::string code;  // unknown_module | unknown_function | invalid_args | execution_failed
  std::string message;
};

struct ModuleSummary {
  std::string name;
  std::vector<std::string> functions;
};

std::vector<ModuleSummary> list_modules();

// {"type":"manifest","version":..,"modules":[{"name","engine":"native","functions":[..]}]}
json::Value manifest();

// Runs module.function(args). Returns true with `result`, or false with `error`. Never throws.
bool execute(const std::string& module, const std::string& function, const json::Value& args, json::Value& result,
             ExecError& error);

}  // namespace ds::runtime
