#include "engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <sys/mman.h>

#include "../common/distributions.hpp"
#include "../common/rng.hpp"
#include "../common/select.hpp"
#include "../common/version.hpp"
#include "correlate.hpp"
#include "expr.hpp"

namespace ds::engine {

json::Value Error::to_json() const {
  json::Value e = json::Value::object();
  e.set("code", code);
  e.set("message", message);
  if (!details.empty()) {
    json::Value arr = json::Value::array();
    for (const auto& d : details) {
      json::Value item = json::Value::object();
      item.set("field", d.field);
      item.set("problem", d.problem);
      arr.push(std::move(item));
    }
    e.set("details", std::move(arr));
  }
  return e;
}

namespace {

using json::Value;
using Clock = std::chrono::steady_clock;

enum class Objective { MaximizeNetValue, MaximizeValue, MinimizeCost };

// A sample slot: the values of one variable, or of a variable re-distributed by an action's `set`
// (computed from the base variable's uniform: common random numbers).
struct Slot {
  int base_var;
  dist::Dist dist;
};

// A rank-correlation target between two variables: as requested, as used (after adjustment), and
// the sum over chunks of chunk size x the chunk's Spearman of the draws.
struct CorrPair {
  int a, b;  // variable indices
  double target, used;
  bool listed;
};

struct ActionPlan {
  std::string name;
  std::string model_field;
  expr::Program program;
};

struct Plan {
  uint64_t seed = 0;
  size_t runs = static_cast<size_t>(kDefaultRuns);
  bool full = false;
  Objective objective = Objective::MaximizeNetValue;
  std::string objective_name;
  bool has_target = false;
  double target = 0;
  std::vector<std::string> var_names;
  std::vector<Slot> slots;  // the first var_names.size() slots are the variables themselves
  std::vector<ActionPlan> actions;
  // Correlated inputs: the variables involved (ascending index), the pairs to report, and the
  // Cholesky factor of the normal-score correlation Iman–Conover imposes.
  std::vector<int> corr_vars;
  std::vector<CorrPair> corr_pairs;
  corr::Matrix corr_chol;
  bool corr_adjusted = false;
};

struct ValidationFailed {};

class Validator {
 public:
  std::vector<FieldProblem> problems;
  // The error code when it is not validation_failed (correlation_matrix_invalid).
  std::string code = "validation_failed";

  void add(const std::string& field, const std::string& problem) { problems.push_back({field, problem}); }

  void check_keys(const Value& obj, const std::string& prefix, std::initializer_list<const char*> allowed) {
    for (const auto& m : obj.as_object()) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || m.first == a;
      if (!ok) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        add(join(prefix, m.first), "unknown field; allowed fields are " + list);
      }
    }
  }

  static std::string join(const std::string& prefix, const std::string& key) {
    return prefix.empty() ? key : prefix + "." + key;
  }

  // A required or optional finite number.
  bool number(const Value* v, const std::string& field, double& out, bool required) {
    if (!v) {
      if (required) add(field, "is required");
      return false;
    }
    if (!v->is_number()) {
      add(field, "must be a number");
      return false;
    }
    out = v->as_number();
    return true;
  }

  // A distribution spec: a range {low, high, distribution?, mode?}, explicit parameters
  // {distribution, params}, or a sample to resample {distribution: "empirical", values}.
  bool distribution(const Value& spec, const std::string& field, dist::Dist& out) {
    if (!spec.is_object()) {
      add(field, "must be an object {low, high, distribution?, mode?}, {distribution, params} or {distribution: \"empirical\", values}");
      return false;
    }
    if (spec.find("params")) return parametric(spec, field, out);
    if (spec.find("values")) return empirical(spec, field, out);
    size_t before = problems.size();
    check_keys(spec, field, {"low", "high", "distribution", "mode"});
    double low = 0, high = 0, mode = 0;
    bool has_low = number(spec.find("low"), field + ".low", low, true);
    bool has_high = number(spec.find("high"), field + ".high", high, true);
    bool has_mode = number(spec.find("mode"), field + ".mode", mode, false);
    dist::Kind kind = dist::Kind::Uniform;
    if (const Value* d = spec.find("distribution")) {
      if (!d->is_string() || !dist::parse_kind(d->as_string(), kind))
        add(field + ".distribution",
            "must be one of uniform, triangular, pert, normal, lognormal with low/high (gamma, weibull, exponential "
            "take params; empirical takes values)");
    }
    if (has_low && has_high)
      for (const auto& p : dist::validate(kind, low, high, has_mode, mode)) add(field + "." + p.field, p.problem);
    if (problems.size() != before) return false;
    out = dist::Dist::make(kind, low, high, has_mode, mode);
    return true;
  }

  bool parametric(const Value& spec, const std::string& field, dist::Dist& out) {
    size_t before = problems.size();
    check_keys(spec, field, {"distribution", "params"});
    dist::Kind kind = dist::Kind::Uniform;
    const Value* d = spec.find("distribution");
    if (!d) {
      add(field + ".distribution", "is required with params");
    } else if (!d->is_string() || !dist::parse_param_family(d->as_string(), kind)) {
      add(field + ".distribution",
          "must be one of normal, lognormal, gamma, weibull, exponential, uniform, triangular, pert with params");
      d = nullptr;
    }
    const Value& params = *spec.find("params");
    if (!params.is_object()) {
      add(field + ".params", "must be an object of the family's parameters");
      return false;
    }
    if (!d) return false;
    const auto names = dist::param_names(kind);
    std::string list;
    for (const char* n : names) list += (list.empty() ? "" : ", ") + std::string(n);
    for (const auto& m : params.as_object()) {
      bool ok = false;
      for (const char* n : names) ok = ok || m.first == n;
      if (!ok) add(field + ".params." + m.first, "unknown parameter; " + d->as_string() + " takes " + list);
    }
    std::vector<double> p(names.size(), 0.0);
    for (size_t i = 0; i < names.size(); ++i) number(params.find(names[i]), field + ".params." + names[i], p[i], true);
    if (problems.size() != before) return false;
    for (const auto& pr : dist::validate_params(kind, p)) add(field + "." + pr.field, pr.problem);
    if (problems.size() != before) return false;
    out = dist::Dist::make_params(kind, p);
    return true;
  }

  bool empirical(const Value& spec, const std::string& field, dist::Dist& out) {
    size_t before = problems.size();
    check_keys(spec, field, {"distribution", "values"});
    const Value* d = spec.find("distribution");
    if (!d || !d->is_string() || d->as_string() != "empirical") add(field + ".distribution", "must be \"empirical\" with values");
    const Value& vals = *spec.find("values");
    if (!vals.is_array() || vals.as_array().empty() || vals.as_array().size() > dist::kMaxEmpiricalValues) {
      add(field + ".values", "must be an array of 1 to 1000000 numbers");
      return false;
    }
    std::vector<double> v;
    v.reserve(vals.as_array().size());
    for (size_t i = 0; i < vals.as_array().size(); ++i) {
      const Value& x = vals.as_array()[i];
      const std::string f = field + ".values[" + std::to_string(i) + "]";
      if (!x.is_number() || !std::isfinite(x.as_number())) {
        add(f, "must be a finite number");
        break;
      }
      if (std::fabs(x.as_number()) > dist::kMaxMagnitude) {
        add(f, dist::kMagnitudeProblem);
        break;
      }
      v.push_back(x.as_number());
    }
    if (problems.size() != before) return false;
    out = dist::Dist::make_empirical(std::move(v));
    return true;
  }
};

bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > kMaxNameLength) return false;
  auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!start(s[0])) return false;
  for (char c : s)
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

bool has_control_chars(const std::string& s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return true;
  return false;
}

uint64_t pick_seed() {
  // 53 bits so that a JavaScript client can echo the seed back exactly.
  uint64_t s = 0;
  try {
    std::random_device rd;
    s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  } catch (...) {
    s = static_cast<uint64_t>(Clock::now().time_since_epoch().count());
  }
  s ^= static_cast<uint64_t>(Clock::now().time_since_epoch().count()) * rng::kGolden;
  return rng::splitmix_mix(s) & ((uint64_t{1} << 53) - 1);
}

expr::Ast sum_of_variables(size_t nvars) {
  expr::Ast ast;
  for (size_t i = 0; i < nvars; ++i) {
    expr::Node v{expr::Node::Kind::Var};
    v.var = static_cast<int>(i);
    ast.nodes.push_back(v);
    int idx = static_cast<int>(ast.nodes.size() - 1);
    if (i == 0) {
      ast.root = idx;
    } else {
      expr::Node add{expr::Node::Kind::Binary};
      add.op = expr::Op::Add;
      add.kids[0] = ast.root;
      add.kids[1] = idx;
      ast.nodes.push_back(add);
      ast.root = static_cast<int>(ast.nodes.size() - 1);
    }
  }
  return ast;
}

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

// The target matrix of the correlated variables: refused when not positive semi-definite (naming the
// pairs the nearest valid matrix changes) unless `adjust`, which uses that matrix; then the Cholesky
// factor of the normal-score correlations to impose.
bool correlation_plan(Plan& plan, bool adjust, Validator& val) {
  const size_t k = plan.corr_vars.size();
  std::vector<size_t> at(plan.var_names.size(), 0);
  for (size_t j = 0; j < k; ++j) at[static_cast<size_t>(plan.corr_vars[j])] = j;
  corr::Matrix m(k * k, 0.0);
  for (size_t j = 0; j < k; ++j) m[j * k + j] = 1.0;
  for (const auto& p : plan.corr_pairs) {
    const size_t i = at[static_cast<size_t>(p.a)], j = at[static_cast<size_t>(p.b)];
    m[i * k + j] = m[j * k + i] = p.target;
  }
  if (corr::min_eigenvalue(m, k) < -1e-10) {
    if (!adjust) {
      // The same adjustment adjust_correlations would make (below), for the message.
      corr::Matrix near(k * k);
      for (size_t i = 0; i < k * k; ++i) near[i] = corr::pearson_for_spearman(m[i]);
      near = corr::nearest_correlation(near, k);
      for (size_t i = 0; i < k * k; ++i) near[i] = corr::spearman_for_pearson(near[i]);
      // The pairs the nearest valid matrix moves most; at least the largest move is named.
      double largest = 0;
      for (const auto& p : plan.corr_pairs)
        largest = std::max(largest, std::fabs(near[at[static_cast<size_t>(p.a)] * k + at[static_cast<size_t>(p.b)]] - p.target));
      for (size_t i = 0; i < plan.corr_pairs.size(); ++i) {
        const auto& p = plan.corr_pairs[i];
        const double v = near[at[static_cast<size_t>(p.a)] * k + at[static_cast<size_t>(p.b)]];
        if (std::fabs(v - p.target) < 0.1 * largest) continue;  // the largest move is always named
        val.add("scenario.correlations[" + std::to_string(i) + "]",
                "the rank correlations of " + plan.var_names[static_cast<size_t>(p.a)] + " and " +
                    plan.var_names[static_cast<size_t>(p.b)] +
                    " and the other pairs are not a valid correlation matrix (not positive semi-definite); the "
                    "nearest valid matrix has " + fmt(v) + " here instead of " + fmt(p.target) +
                    " (set adjust_correlations to use it)");
      }
      val.code = "correlation_matrix_invalid";
      return false;
    }
    plan.corr_adjusted = true;
  }
  corr::Matrix pearson(k * k);
  for (size_t i = 0; i < k * k; ++i) pearson[i] = corr::pearson_for_spearman(m[i]);
  // The adjustment is made where Iman–Conover works, on the normal-score correlations, so that the
  // matrix reported back (in rank terms) is the one imposed. The sine map keeps a valid rank matrix
  // valid in all but rare near-singular cases; those get the nearest one too, without a report.
  if (corr::min_eigenvalue(pearson, k) < -1e-12) pearson = corr::nearest_correlation(pearson, k);
  if (plan.corr_adjusted) {
    auto used = [&](size_t i, size_t j) { return corr::spearman_for_pearson(pearson[i * k + j]); };
    std::vector<bool> listed(k * k, false);
    for (auto& p : plan.corr_pairs) {
      const size_t i = at[static_cast<size_t>(p.a)], j = at[static_cast<size_t>(p.b)];
      p.used = used(i, j);
      listed[i * k + j] = listed[j * k + i] = true;
    }
    for (size_t i = 0; i < k; ++i)
      for (size_t j = i + 1; j < k; ++j)
        if (!listed[i * k + j] && std::fabs(used(i, j)) > 1e-9)
          plan.corr_pairs.push_back(CorrPair{plan.corr_vars[i], plan.corr_vars[j], 0.0, used(i, j), false});
  }
  plan.corr_chol = corr::cholesky_psd(pearson, k);
  return true;
}

// Parses and checks the request. Returns false with problems collected in `val`.
bool build_plan(const Value& req, Plan& plan, Validator& val) {
  if (!req.is_object()) {
    val.add("", "the request body must be a JSON object");
    return false;
  }
  val.check_keys(req, "", {"mode", "runs", "seed", "detail", "scenario"});

  if (const Value* m = req.find("mode")) {
    if (!m->is_string() || m->as_string() != "auto") val.add("mode", "must be \"auto\"");
  }
  if (const Value* r = req.find("runs")) {
    double d = r->is_number() ? r->as_number() : NAN;
    if (!r->is_number() || d != std::floor(d))
      val.add("runs", "must be an integer");
    else if (d < 1 || d > static_cast<double>(kMaxRuns))
      val.add("runs", "must be between 1 and 10000000");
    else
      plan.runs = static_cast<size_t>(d);
  }
  if (const Value* s = req.find("seed")) {
    bool ok = false;
    if (s->is_number()) {
      if (s->has_u64()) {
        plan.seed = s->as_u64();
        ok = true;
      } else {
        double d = s->as_number();
        if (d >= 0 && d < 18446744073709551616.0 && d == std::floor(d)) {
          plan.seed = static_cast<uint64_t>(d);
          ok = true;
        }
      }
    } else if (s->is_string()) {
      const std::string& t = s->as_string();
      ok = !t.empty() && t.size() <= 20;
      uint64_t u = 0;
      for (char c : t) {
        if (!ok) break;
        if (c < '0' || c > '9') ok = false;
        else {
          uint64_t digit = static_cast<uint64_t>(c - '0');
          if (u > (UINT64_MAX - digit) / 10) ok = false;
          else u = u * 10 + digit;
        }
      }
      plan.seed = u;
    }
    if (!ok) val.add("seed", "must be an unsigned 64-bit integer (0 to 18446744073709551615)");
  } else {
    plan.seed = pick_seed();
  }
  if (const Value* d = req.find("detail")) {
    if (d->is_string() && d->as_string() == "summary")
      plan.full = false;
    else if (d->is_string() && d->as_string() == "full")
      plan.full = true;
    else
      val.add("detail", "must be \"summary\" or \"full\"");
  }

  const Value* sc = req.find("scenario");
  if (!sc) {
    val.add("scenario", "is required");
    return false;
  }
  if (!sc->is_object()) {
    val.add("scenario", "must be an object");
    return false;
  }
  val.check_keys(*sc, "scenario",
                 {"variables", "objective", "model", "actions", "target", "correlations", "adjust_correlations"});

  if (const Value* o = sc->find("objective")) {
    std::string s = o->is_string() ? o->as_string() : "";
    if (s == "maximize_net_value") plan.objective = Objective::MaximizeNetValue;
    else if (s == "maximize_value") plan.objective = Objective::MaximizeValue;
    else if (s == "minimize_cost") plan.objective = Objective::MinimizeCost;
    else val.add("scenario.objective", "must be one of maximize_net_value, maximize_value, minimize_cost");
    plan.objective_name = s;
  } else {
    val.add("scenario.objective", "is required");
  }
  if (const Value* t = sc->find("target")) {
    if (val.number(t, "scenario.target", plan.target, true)) plan.has_target = true;
  }

  // Variables, in declaration order.
  std::unordered_map<std::string, int> var_index;
  const Value* vars = sc->find("variables");
  if (!vars) {
    val.add("scenario.variables", "is required");
  } else if (!vars->is_object()) {
    val.add("scenario.variables", "must be an object mapping variable names to {low, high, ...}");
  } else if (vars->as_object().empty()) {
    val.add("scenario.variables", "must define at least one variable");
  } else if (vars->as_object().size() > kMaxVariables) {
    val.add("scenario.variables", "must define at most 256 variables");
  } else {
    for (const auto& m : vars->as_object()) {
      const std::string field = "scenario.variables." + m.first;
      if (!is_identifier(m.first)) {
        val.add(field, "variable names must match [A-Za-z_][A-Za-z0-9_]* and be at most 64 characters");
        continue;
      }
      dist::Dist d;
      val.distribution(m.second, field, d);
      var_index[m.first] = static_cast<int>(plan.var_names.size());
      plan.var_names.push_back(m.first);
      plan.slots.push_back(Slot{static_cast<int>(plan.slots.size()), d});
    }
  }
  auto lookup = [&](const std::string& name) -> int {
    auto it = var_index.find(name);
    return it == var_index.end() ? -1 : it->second;
  };

  bool adjust_correlations = false;
  if (const Value* adj = sc->find("adjust_correlations")) {
    if (!adj->is_bool()) val.add("scenario.adjust_correlations", "must be true or false");
    else adjust_correlations = adj->as_bool();
  }
  if (const Value* cs = sc->find("correlations")) {
    if (!cs->is_array()) {
      val.add("scenario.correlations", "must be an array of {a, b, rank}");
    } else {
      std::unordered_map<uint64_t, size_t> seen;
      std::unordered_set<int> involved;
      const auto& arr = cs->as_array();
      for (size_t i = 0; i < arr.size(); ++i) {
        const std::string field = "scenario.correlations[" + std::to_string(i) + "]";
        const Value& c = arr[i];
        if (!c.is_object()) {
          val.add(field, "must be an object {a, b, rank}");
          continue;
        }
        val.check_keys(c, field, {"a", "b", "rank"});
        int ends[2] = {-1, -1};
        const char* keys[2] = {"a", "b"};
        for (int e = 0; e < 2; ++e) {
          const Value* n = c.find(keys[e]);
          const std::string f = field + "." + keys[e];
          if (!n) val.add(f, "is required");
          else if (!n->is_string()) val.add(f, "must be a variable name");
          else if ((ends[e] = lookup(n->as_string())) < 0) val.add(f, "unknown variable '" + n->as_string() + "'");
          else if (plan.slots[static_cast<size_t>(ends[e])].dist.is_constant())
            val.add(f, "variable '" + n->as_string() + "' is constant and cannot be correlated");
        }
        double rank = 0;
        if (val.number(c.find("rank"), field + ".rank", rank, true) && !(rank >= -1.0 && rank <= 1.0))
          val.add(field + ".rank", "must be between -1 and 1");
        if (ends[0] < 0 || ends[1] < 0) continue;
        if (ends[0] == ends[1]) {
          val.add(field + ".b", "must name a different variable than a");
          continue;
        }
        const int lo = std::min(ends[0], ends[1]), hi = std::max(ends[0], ends[1]);
        const uint64_t key = (static_cast<uint64_t>(lo) << 32) | static_cast<uint64_t>(hi);
        auto [it, fresh] = seen.emplace(key, i);
        if (!fresh) {
          val.add(field, "duplicate pair: the same variables are already correlated at scenario.correlations[" +
                             std::to_string(it->second) + "]");
          continue;
        }
        involved.insert(ends[0]);
        involved.insert(ends[1]);
        plan.corr_pairs.push_back(CorrPair{ends[0], ends[1], rank, rank, true});
      }
      if (involved.size() > kMaxCorrelatedVariables)
        val.add("scenario.correlations", "may involve at most 64 distinct variables");
      plan.corr_vars.assign(involved.begin(), involved.end());
      std::sort(plan.corr_vars.begin(), plan.corr_vars.end());
    }
  }

  auto parse_model = [&](const Value* m, const std::string& field, expr::Ast& ast) -> bool {
    if (!m->is_string()) {
      val.add(field, "must be a string expression");
      return false;
    }
    if (m->as_string().size() > kMaxModelLength) {
      val.add(field, "must be at most 10000 characters");
      return false;
    }
    try {
      ast = expr::parse(m->as_string(), lookup);
      return true;
    } catch (const expr::ExprError& e) {
      val.add(field, e.what());
      return false;
    }
  };

  expr::Ast scenario_ast;
  std::string scenario_model_field = "scenario.variables";
  bool scenario_ast_ok = true;
  if (const Value* m = sc->find("model")) {
    scenario_model_field = "scenario.model";
    scenario_ast_ok = parse_model(m, "scenario.model", scenario_ast);
  } else if (!plan.var_names.empty()) {
    scenario_ast = sum_of_variables(plan.var_names.size());
  }

  const size_t nvars = plan.var_names.size();
  std::vector<expr::Operand> base_bindings(nvars);
  for (size_t i = 0; i < nvars; ++i) {
    base_bindings[i].kind = expr::Operand::Kind::Slot;
    base_bindings[i].index = static_cast<int>(i);
  }

  const Value* acts = sc->find("actions");
  struct PendingAction {
    std::string name;
    std::string model_field;
    bool constant_zero = false;
    expr::Ast own_ast;
    bool has_own_ast = false;
    std::vector<expr::Operand> bindings;
  };
  std::vector<PendingAction> pending;
  if (!acts) {
    PendingAction proceed;
    proceed.name = "proceed";
    proceed.model_field = scenario_model_field;
    proceed.bindings = base_bindings;
    pending.push_back(std::move(proceed));
    PendingAction nothing;
    nothing.name = "do_nothing";
    nothing.constant_zero = true;
    pending.push_back(std::move(nothing));
  } else if (!acts->is_array()) {
    val.add("scenario.actions", "must be an array of {name, model?, set?}");
  } else if (acts->as_array().empty()) {
    val.add("scenario.actions", "must contain at least one action");
  } else if (acts->as_array().size() > kMaxActions) {
    val.add("scenario.actions", "must contain at most 64 actions");
  } else {
    std::unordered_set<std::string> names;
    const auto& arr = acts->as_array();
    for (size_t i = 0; i < arr.size(); ++i) {
      const std::string field = "scenario.actions[" + std::to_string(i) + "]";
      const Value& a = arr[i];
      if (!a.is_object()) {
        val.add(field, "must be an object {name, model?, set?}");
        continue;
      }
      val.check_keys(a, field, {"name", "model", "set"});
      PendingAction pa;
      pa.bindings = base_bindings;
      const Value* name = a.find("name");
      if (!name) {
        val.add(field + ".name", "is required");
      } else if (!name->is_string() || name->as_string().empty() || name->as_string().size() > 128 ||
                 has_control_chars(name->as_string())) {
        val.add(field + ".name", "must be a non-empty string of at most 128 characters without control characters");
      } else if (!names.insert(name->as_string()).second) {
        val.add(field + ".name", "duplicate action name '" + name->as_string() + "'");
      } else {
        pa.name = name->as_string();
      }
      if (const Value* m = a.find("model")) {
        pa.model_field = field + ".model";
        pa.has_own_ast = parse_model(m, pa.model_field, pa.own_ast);
      } else {
        pa.model_field = scenario_model_field;
      }
      if (const Value* set = a.find("set")) {
        if (!set->is_object()) {
          val.add(field + ".set", "must be an object mapping variable names to a number or {low, high, ...}");
        } else {
          for (const auto& m : set->as_object()) {
            const std::string sf = field + ".set." + m.first;
            int vi = lookup(m.first);
            if (vi < 0) {
              val.add(sf, "unknown variable '" + m.first + "'");
              continue;
            }
            expr::Operand& b = pa.bindings[static_cast<size_t>(vi)];
            if (m.second.is_number()) {
              b.kind = expr::Operand::Kind::Const;
              b.value = m.second.as_number();
              if (!std::isfinite(b.value)) val.add(sf, "must be a finite number");
              else if (std::fabs(b.value) > dist::kMaxMagnitude) val.add(sf, dist::kMagnitudeProblem);
            } else if (m.second.is_object()) {
              dist::Dist d;
              if (val.distribution(m.second, sf, d)) {
                if (d.is_constant() && d.kind() != dist::Kind::Lognormal) {
                  b.kind = expr::Operand::Kind::Const;
                  b.value = d.low();
                } else {
                  b.kind = expr::Operand::Kind::Slot;
                  b.index = static_cast<int>(plan.slots.size());
                  plan.slots.push_back(Slot{vi, d});
                }
              }
            } else {
              val.add(sf, "must be a number or an object {low, high, distribution?, mode?}");
            }
          }
        }
      }
      pending.push_back(std::move(pa));
    }
  }

  if (!val.problems.empty()) return false;
  (void)scenario_ast_ok;
  if (!plan.corr_pairs.empty() && !correlation_plan(plan, adjust_correlations, val)) return false;

  for (auto& pa : pending) {
    ActionPlan ap;
    ap.name = pa.name;
    ap.model_field = pa.model_field;
    if (pa.constant_zero) {
      ap.program.result.kind = expr::Operand::Kind::Const;
      ap.program.result.value = 0.0;
    } else {
      ap.program = expr::compile(pa.has_own_ast ? pa.own_ast : scenario_ast, pa.bindings);
    }
    plan.actions.push_back(std::move(ap));
  }
  return true;
}

// Co-moments merged with Chan et al.'s pairwise update: per-slot mean and M2 for the variables and
// the actions, and the cross co-moment of every (variable, action) pair.
struct Moments {
  size_t nv = 0, na = 0;
  double n = 0;
  std::vector<double> mean, m2, co;

  void init(size_t v, size_t a) {
    nv = v;
    na = a;
    mean.assign(v + a, 0.0);
    m2.assign(v + a, 0.0);
    co.assign(v * a, 0.0);
    n = 0;
  }
  void reset() {
    std::fill(mean.begin(), mean.end(), 0.0);
    std::fill(m2.begin(), m2.end(), 0.0);
    std::fill(co.begin(), co.end(), 0.0);
    n = 0;
  }
  void merge(const Moments& b) {
    if (b.n == 0) return;
    if (n == 0) {
      n = b.n;
      mean = b.mean;
      m2 = b.m2;
      co = b.co;
      return;
    }
    const double total = n + b.n;
    const double f = n * b.n / total;
    const double w = b.n / total;
    for (size_t v = 0; v < nv; ++v) {
      const double dx = b.mean[v] - mean[v];
      if (dx == 0.0) {
        for (size_t a = 0; a < na; ++a) co[v * na + a] += b.co[v * na + a];
      } else {
        for (size_t a = 0; a < na; ++a) {
          const double dy = b.mean[nv + a] - mean[nv + a];
          co[v * na + a] += b.co[v * na + a] + dx * dy * f;
        }
      }
    }
    for (size_t k = 0; k < nv + na; ++k) {
      const double d = b.mean[k] - mean[k];
      m2[k] += b.m2[k] + d * d * f;
      mean[k] += d * w;
    }
    n = total;
  }
};

// Plain tallies: counts, extremes and sums, merged block -> chunk -> run.
struct Tallies {
  std::vector<double> min, max, loss, top_sum, bot_sum;
  std::vector<uint64_t> positive, target, best, top_n, bot_n;

  void init(size_t nvars, size_t nact) {
    min.assign(nact, HUGE_VAL);
    max.assign(nact, -HUGE_VAL);
    loss.assign(nact, 0.0);
    positive.assign(nact, 0);
    target.assign(nact, 0);
    best.assign(nact, 0);
    top_sum.assign(nvars * nact, 0.0);
    bot_sum.assign(nvars * nact, 0.0);
    top_n.assign(nvars, 0);
    bot_n.assign(nvars, 0);
  }
  void reset() { init(top_n.size(), min.size()); }
  void merge(const Tallies& b) {
    for (size_t a = 0; a < min.size(); ++a) {
      min[a] = std::min(min[a], b.min[a]);
      max[a] = std::max(max[a], b.max[a]);
      loss[a] += b.loss[a];
      positive[a] += b.positive[a];
      target[a] += b.target[a];
      best[a] += b.best[a];
    }
    for (size_t k = 0; k < top_sum.size(); ++k) {
      top_sum[k] += b.top_sum[k];
      bot_sum[k] += b.bot_sum[k];
    }
    for (size_t v = 0; v < top_n.size(); ++v) {
      top_n[v] += b.top_n[v];
      bot_n[v] += b.bot_n[v];
    }
  }
};

// One double per run for an action's values, left uninitialised (every element is written once).
// Large arrays are 2 MiB aligned and advised for transparent huge pages, as numpy does for its large
// arrays: first-touch page faults (one per 4 KiB page otherwise) are a large share of the run time on
// virtual machines. Without THP support the advice is ignored and nothing else changes.
class RunValues {
 public:
  explicit RunValues(size_t n) {
    const size_t bytes = n * sizeof(double);
    constexpr size_t kHuge = size_t{2} << 20;
    if (bytes >= 2 * kHuge) {
      const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
      p_ = static_cast<double*>(std::aligned_alloc(kHuge, rounded));
      if (p_) {
#ifdef MADV_HUGEPAGE
        if (!std::getenv("SIMULATE_NO_HUGEPAGES")) madvise(p_, rounded, MADV_HUGEPAGE);
#endif
        return;
      }
    }
    p_ = static_cast<double*>(std::malloc(bytes == 0 ? 1 : bytes));
    if (!p_) throw std::bad_alloc();
  }
  ~RunValues() { std::free(p_); }
  RunValues(const RunValues&) = delete;
  RunValues& operator=(const RunValues&) = delete;
  double* get() const { return p_; }

 private:
  double* p_ = nullptr;
};

struct NonFinite {
  size_t action;
  size_t run;
  bool overflow;  // every value was finite, but their sums are not
};

class Runner {
 public:
  Runner(const Plan& plan, const Options& opt) : p_(plan), opt_(opt) {}

  // Returns false on timeout (timed_out_) or a non-finite model value (bad_).
  bool run() {
    const size_t V = p_.var_names.size();
    const size_t S = p_.slots.size();
    const size_t A = p_.actions.size();
    // Blocks of kBlock samples, smaller when many slots would make the block buffers exceed 4 MiB
    // (the block size is a function of the request, so results stay reproducible).
    size_t B = kBlock;
    while (B > 16 && S * B * sizeof(double) > (4u << 20)) B /= 2;
    bsize_ = B;
    maximize_ = p_.objective != Objective::MinimizeCost;

    int nregs = 0;
    for (const auto& a : p_.actions) nregs = std::max(nregs, a.program.nregs);
    ubuf_.assign(V * B, 0.0);
    sbuf_.assign(S * B, 0.0);
    regs_.assign(static_cast<size_t>(std::max(nregs, 1)) * B, 0.0);
    ybuf_.assign(A * B, 0.0);
    yp_.assign(A * B, 0.0);
    dx_.assign(B, 0.0);
    best_.assign(B, 0.0);
    bestidx_.assign(B, 0);
    counts_.assign(4 * A, 0);
    ysum_.assign(A, 0.0);
    xc_.assign(A, 0.0);
    slot_ptrs_.resize(S);
    for (size_t k = 0; k < S; ++k) slot_ptrs_[k] = sbuf_.data() + k * B;

    // A variable keeps its raw uniform when it is not uniform itself or an action re-distributes it.
    std::vector<bool> raw(V, false);
    for (size_t k = V; k < S; ++k) raw[static_cast<size_t>(p_.slots[k].base_var)] = true;
    draw_dst_.resize(V);
    draw_lo_.resize(V);
    draw_w_.resize(V);
    shift_.resize(V);
    for (size_t v = 0; v < V; ++v) {
      const dist::Dist& d = p_.slots[v].dist;
      if (d.kind() != dist::Kind::Uniform) raw[v] = true;
      draw_dst_[v] = raw[v] ? ubuf_.data() + v * B : slot_ptrs_[v];
      draw_lo_[v] = raw[v] ? 0.0 : d.low();
      draw_w_[v] = raw[v] ? 1.0 : d.high() - d.low();
      if (raw[v]) transforms_.push_back({v, v});
      shift_[v] = d.quantile(0.5);
    }
    for (size_t k = V; k < S; ++k) transforms_.push_back({k, static_cast<size_t>(p_.slots[k].base_var)});

    constant_.resize(A);
    store_.resize(A);
    for (size_t a = 0; a < A; ++a) {
      const auto& prog = p_.actions[a].program;
      constant_[a] = prog.is_constant();
      if (constant_[a]) {
        // A constant model never reaches the per-block check, so it is checked here.
        if (!std::isfinite(prog.constant())) {
          bad_ = {a, 0, false};
          return false;
        }
        std::fill(ybuf_.begin() + static_cast<long>(a * B), ybuf_.begin() + static_cast<long>((a + 1) * B), prog.constant());
      } else {
        store_[a] = std::make_unique<RunValues>(p_.runs);
        nonconst_.push_back(a);
      }
    }
    if (p_.full) {
      q10_.resize(V);
      q90_.resize(V);
      for (size_t v = 0; v < V; ++v) {
        q10_[v] = p_.slots[v].dist.quantile(0.1);
        q90_[v] = p_.slots[v].dist.quantile(0.9);
      }
    }

    const size_t K = p_.corr_vars.size();
    if (K > 0) {
      cu_.assign(V * kChunk, 0.0);
      kx_.assign(K * kChunk, 0.0);
      ic_ = std::make_unique<corr::ImanConover>(p_.corr_chol, K);
      rho_sum_.assign(p_.corr_pairs.size(), 0.0);
      rho_weight_ = 0;
    }

    total_.init(V, A);
    chunk_.init(V, A);
    block_.init(V, A);
    tot_tally_.init(V, A);
    chunk_tally_.init(V, A);
    block_tally_.init(V, A);

    const size_t nchunks = (p_.runs + kChunk - 1) / kChunk;
    for (size_t c = 0; c < nchunks; ++c) {
      rng::Xoshiro256ss g = rng::Xoshiro256ss::for_chunk(p_.seed, c);
      const size_t start = c * kChunk;
      const size_t len = std::min(kChunk, p_.runs - start);
      chunk_.reset();
      chunk_tally_.reset();
      if (K > 0) correlate_chunk(g, len);
      for (size_t off = 0; off < len; off += B) {
        const size_t n = std::min(B, len - off);
        if (!block(g, start + off, n)) return false;
        chunk_.merge(block_);
        chunk_tally_.merge(block_tally_);
      }
      total_.merge(chunk_);
      tot_tally_.merge(chunk_tally_);
      if (opt_.has_deadline && Clock::now() > opt_.deadline) {
        timed_out_ = true;
        done_runs_ = start + len;
        return false;
      }
    }
    return true;
  }

  Value result() {
    const size_t V = p_.var_names.size();
    const size_t A = p_.actions.size();
    const double n = static_cast<double>(p_.runs);

    std::vector<double> means(A);
    // An action whose every value was the same reports that value exactly, with no spread.
    std::vector<bool> flat(A);
    for (size_t a = 0; a < A; ++a) {
      flat[a] = tot_tally_.min[a] == tot_tally_.max[a];
      means[a] = flat[a] ? tot_tally_.min[a] : total_.mean[V + a];
    }
    size_t rec = 0;
    for (size_t a = 1; a < A; ++a)
      if (maximize_ ? means[a] > means[rec] : means[a] < means[rec]) rec = a;

    Value actions = Value::array();
    for (size_t a = 0; a < A; ++a) {
      Value o = Value::object();
      o.set("name", p_.actions[a].name);
      const double sd = p_.runs > 1 && !flat[a] ? std::sqrt(total_.m2[V + a] / (n - 1.0)) : 0.0;
      std::vector<double> q;
      if (constant_[a]) {
        const double c = p_.actions[a].program.constant();
        q = {c, c, c};
      } else {
        q = select::quantiles_type7(store_[a]->get(), p_.runs, {0.05, 0.5, 0.95});
      }
      o.set("mean", means[a]);
      o.set("std_dev", sd);
      o.set("std_error", sd / std::sqrt(n));
      o.set("p5", q[0]);
      o.set("p50", q[1]);
      o.set("p95", q[2]);
      o.set("min", tot_tally_.min[a]);
      o.set("max", tot_tally_.max[a]);
      o.set("prob_positive", static_cast<double>(tot_tally_.positive[a]) / n);
      o.set("prob_best", static_cast<double>(tot_tally_.best[a]) / n);
      o.set("expected_loss", tot_tally_.loss[a] / n);
      if (p_.has_target) o.set("prob_target", static_cast<double>(tot_tally_.target[a]) / n);
      actions.push(std::move(o));
    }

    struct Sens {
      size_t var;
      double corr;
      double swing;
    };
    std::vector<Sens> sens;
    const double m2y = total_.m2[V + rec];
    for (size_t v = 0; v < V; ++v) {
      double corr = 0.0;
      const double m2x = total_.m2[v];
      if (!p_.slots[v].dist.is_constant() && !flat[rec] && m2x > 0 && m2y > 0) {
        corr = total_.co[v * A + rec] / std::sqrt(m2x * m2y);
        if (!std::isfinite(corr)) corr = 0.0;
        corr = std::max(-1.0, std::min(1.0, corr));
      }
      double swing = 0.0;
      if (p_.full && tot_tally_.top_n[v] > 0 && tot_tally_.bot_n[v] > 0) {
        swing = tot_tally_.top_sum[v * A + rec] / static_cast<double>(tot_tally_.top_n[v]) -
                tot_tally_.bot_sum[v * A + rec] / static_cast<double>(tot_tally_.bot_n[v]);
      }
      sens.push_back({v, corr, swing});
    }
    std::sort(sens.begin(), sens.end(), [&](const Sens& x, const Sens& y) {
      const double ax = std::fabs(x.corr), ay = std::fabs(y.corr);
      if (ax != ay) return ax > ay;
      return p_.var_names[x.var] < p_.var_names[y.var];
    });
    Value sensitivity = Value::array();
    for (const auto& s : sens) {
      Value o = Value::object();
      o.set("variable", p_.var_names[s.var]);
      o.set("correlation", s.corr);
      if (p_.full) o.set("swing", s.swing);
      sensitivity.push(std::move(o));
    }

    Value r = Value::object();
    r.set("engine_version", DS_ENGINE_VERSION);
    r.set("runs", static_cast<double>(p_.runs));
    r.set("seed", Value::u64(p_.seed));
    r.set("objective", p_.objective_name);
    r.set("recommended_action", p_.actions[rec].name);
    r.set("expected_value", means[rec]);
    r.set("confidence", static_cast<double>(tot_tally_.best[rec]) / n);
    // E[best per sample] - E[recommended], sign-adjusted: the recommended action's expected loss,
    // which is >= 0 by construction.
    r.set("evpi", tot_tally_.loss[rec] / n);
    r.set("actions", std::move(actions));
    r.set("sensitivity", std::move(sensitivity));
    if (!p_.corr_pairs.empty()) {
      Value cs = Value::array();
      for (size_t i = 0; i < p_.corr_pairs.size(); ++i) {
        const auto& pr = p_.corr_pairs[i];
        Value o = Value::object();
        o.set("a", p_.var_names[static_cast<size_t>(pr.a)]);
        o.set("b", p_.var_names[static_cast<size_t>(pr.b)]);
        o.set("target", pr.target);
        if (p_.corr_adjusted) o.set("adjusted", pr.used);
        o.set("achieved", rho_weight_ > 0 ? rho_sum_[i] / rho_weight_ : 0.0);
        cs.push(std::move(o));
      }
      r.set("correlations", std::move(cs));
      r.set("correlations_adjusted", p_.corr_adjusted);
    }
    return r;
  }

  bool timed_out() const { return timed_out_; }
  size_t done_runs() const { return done_runs_; }
  const NonFinite& bad() const { return bad_; }

 private:
  bool block(rng::Xoshiro256ss& g, size_t global, size_t n) {
    const size_t V = p_.var_names.size();
    const size_t A = p_.actions.size();
    const double nd = static_cast<double>(n);

    // Draw per sample, variables in declaration order. Uniform variables are transformed on the fly
    // (lo + w u, the same expression as Dist::transform); the others keep u for a transform pass.
    if (cu_.empty()) {
      rng::Xoshiro256ss r = g;
      double* const* dst = draw_dst_.data();
      const double* lo = draw_lo_.data();
      const double* w = draw_w_.data();
      for (size_t s = 0; s < n; ++s)
        for (size_t v = 0; v < V; ++v) dst[v][s] = lo[v] + w[v] * rng::to_unit(r.next());
      g = r;
    } else {
      // Correlated inputs: the chunk's uniforms were drawn (in the same order) and re-paired already.
      const size_t off = global % kChunk;
      for (size_t v = 0; v < V; ++v) {
        double* dst = draw_dst_[v];
        const double lo = draw_lo_[v], w = draw_w_[v];
        const double* u = cu_.data() + v * kChunk + off;
        for (size_t s = 0; s < n; ++s) dst[s] = lo + w * u[s];
      }
    }
    for (const auto& [slot, base] : transforms_)
      p_.slots[slot].dist.transform(ubuf_.data() + base * bsize_, slot_ptrs_[slot], n);

    block_.reset();
    block_.n = nd;
    block_tally_.reset();

    // Each action: values, then one pass of shifted sums, extremes and counts; yp keeps the shifted
    // values. The shift is the chunk's running mean (the first block of a chunk computes its own
    // mean first), so S2 - S1^2/n never cancels badly.
    y_.resize(A);
    for (size_t a = 0; a < A; ++a) {
      if (constant_[a]) {
        y_[a] = ybuf_.data() + a * bsize_;
        const double c = y_[a][0];
        block_.mean[V + a] = c;
        block_tally_.min[a] = c;
        block_tally_.max[a] = c;
        block_tally_.positive[a] = c > 0 ? n : 0;
        if (p_.has_target) block_tally_.target[a] = hits_target(c) ? n : 0;
        continue;
      }
      double* y = store_[a]->get() + global;
      y_[a] = y;
      expr::eval(p_.actions[a].program, slot_ptrs_.data(), regs_.data(), bsize_, n, y);
      double* yp = yp_.data() + a * bsize_;
      double k;
      if (chunk_.n > 0) {
        k = chunk_.mean[V + a];
      } else {
        double t0 = 0, t1 = 0;
        size_t i = 0;
        for (; i + 2 <= n; i += 2) {
          t0 += y[i];
          t1 += y[i + 1];
        }
        for (; i < n; ++i) t0 += y[i];
        k = (t0 + t1) / nd;
        if (!std::isfinite(k)) k = y[0];
      }
      // Two interleaved accumulators per sum break the add latency chain; named scalars stay in
      // registers (arrays get spilled to the stack).
      double s1a = 0, s1b = 0, s2a = 0, s2b = 0;
      double mn = y[0], mx = y[0];
      uint64_t pos = 0;
      size_t s = 0;
      for (; s + 2 <= n; s += 2) {
        const double v0 = y[s], v1 = y[s + 1];
        const double d0 = v0 - k, d1 = v1 - k;
        yp[s] = d0;
        yp[s + 1] = d1;
        s1a += d0;
        s1b += d1;
        s2a += d0 * d0;
        s2b += d1 * d1;
        mn = v0 < mn ? v0 : mn;
        mx = v0 > mx ? v0 : mx;
        mn = v1 < mn ? v1 : mn;
        mx = v1 > mx ? v1 : mx;
        pos += (v0 > 0 ? 1 : 0) + (v1 > 0 ? 1 : 0);
      }
      for (; s < n; ++s) {
        const double v = y[s];
        const double d = v - k;
        yp[s] = d;
        s1a += d;
        s2a += d * d;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        pos += v > 0 ? 1 : 0;
      }
      const double S1 = s1a + s1b;
      const double S2 = s2a + s2b;
      if (!std::isfinite(S1) || !std::isfinite(S2)) {
        for (size_t i = 0; i < n; ++i)
          if (!std::isfinite(y[i])) {
            bad_ = {a, global + i, false};
            return false;
          }
        bad_ = {a, global, true};
        return false;
      }
      if (p_.has_target) {
        uint64_t tgt = 0;
        if (maximize_)
          for (size_t i = 0; i < n; ++i) tgt += y[i] >= p_.target ? 1 : 0;
        else
          for (size_t i = 0; i < n; ++i) tgt += y[i] <= p_.target ? 1 : 0;
        block_tally_.target[a] = tgt;
      }
      ysum_[a] = S1;
      block_.mean[V + a] = k + S1 / nd;
      block_.m2[V + a] = std::max(0.0, S2 - S1 * S1 / nd);
      block_tally_.min[a] = mn;
      block_tally_.max[a] = mx;
      block_tally_.positive[a] = pos;
    }

    // Best action per sample (ties go to the earlier action), its share, and each action's loss.
    if (A == 2) {
      // The common two-action case in one pass; same sums, in the same order, as the general path.
      const double* y0 = y_[0];
      const double* y1 = y_[1];
      uint64_t wins1 = 0;
      double l0a = 0, l0b = 0, l1a = 0, l1b = 0;
      size_t s = 0;
      for (; s + 2 <= n; s += 2) {
        const bool b0 = maximize_ ? y1[s] > y0[s] : y1[s] < y0[s];
        const bool b1 = maximize_ ? y1[s + 1] > y0[s + 1] : y1[s + 1] < y0[s + 1];
        const double d0 = std::fabs(y1[s] - y0[s]), d1 = std::fabs(y1[s + 1] - y0[s + 1]);
        wins1 += static_cast<uint64_t>(b0) + static_cast<uint64_t>(b1);
        l0a += b0 ? d0 : 0.0;
        l0b += b1 ? d1 : 0.0;
        l1a += b0 ? 0.0 : d0;
        l1b += b1 ? 0.0 : d1;
      }
      for (; s < n; ++s) {
        const bool b = maximize_ ? y1[s] > y0[s] : y1[s] < y0[s];
        const double d = std::fabs(y1[s] - y0[s]);
        wins1 += static_cast<uint64_t>(b);
        l0a += b ? d : 0.0;
        l1a += b ? 0.0 : d;
      }
      block_tally_.best[0] = n - wins1;
      block_tally_.best[1] = wins1;
      block_tally_.loss[0] = l0a + l0b;
      block_tally_.loss[1] = l1a + l1b;
    } else {
      double* best = best_.data();
      uint32_t* idx = bestidx_.data();
      std::memcpy(best, y_[0], n * sizeof(double));
      std::fill(idx, idx + n, 0u);
      for (size_t a = 1; a < A; ++a) {
        const double* y = y_[a];
        const uint32_t ai = static_cast<uint32_t>(a);
        // Selects instead of branches: which action wins a run is unpredictable.
        if (maximize_) {
          for (size_t s = 0; s < n; ++s) {
            const bool better = y[s] > best[s];
            best[s] = better ? y[s] : best[s];
            idx[s] = better ? ai : idx[s];
          }
        } else {
          for (size_t s = 0; s < n; ++s) {
            const bool better = y[s] < best[s];
            best[s] = better ? y[s] : best[s];
            idx[s] = better ? ai : idx[s];
          }
        }
      }
      if (A == 1) {
        block_tally_.best[0] = n;
      } else {
        // Four interleaved counters avoid a store-to-load chain on one counter.
        uint64_t* c = counts_.data();
        std::fill(counts_.begin(), counts_.end(), 0);
        size_t s = 0;
        for (; s + 4 <= n; s += 4) {
          ++c[idx[s]];
          ++c[A + idx[s + 1]];
          ++c[2 * A + idx[s + 2]];
          ++c[3 * A + idx[s + 3]];
        }
        for (; s < n; ++s) ++c[idx[s]];
        for (size_t a = 0; a < A; ++a) block_tally_.best[a] = c[a] + c[A + a] + c[2 * A + a] + c[3 * A + a];
      }
      for (size_t a = 0; a < A; ++a) {
        const double* y = y_[a];
        double la = 0, lb = 0;
        size_t s = 0;
        for (; s + 2 <= n; s += 2) {
          la += std::fabs(best[s] - y[s]);
          lb += std::fabs(best[s + 1] - y[s + 1]);
        }
        for (; s < n; ++s) la += std::fabs(best[s] - y[s]);
        block_tally_.loss[a] = la + lb;
      }
    }

    // Sensitivity: shifted sums of each variable (shift = its distribution's median) and their
    // cross products with every non-constant action's shifted values.
    const size_t nc = nonconst_.size();
    for (size_t v = 0; v < V; ++v) {
      const double* x = slot_ptrs_[v];
      if (p_.slots[v].dist.is_constant()) {
        block_.mean[v] = x[0];
        continue;
      }
      const double k = shift_[v];
      double s1a = 0, s1b = 0, s2a = 0, s2b = 0;
      if (nc == 1) {
        const size_t a = nonconst_[0];
        const double* yp = yp_.data() + a * bsize_;
        double ca = 0, cb = 0;
        size_t s = 0;
        for (; s + 2 <= n; s += 2) {
          const double d0 = x[s] - k, d1 = x[s + 1] - k;
          s1a += d0;
          s1b += d1;
          s2a += d0 * d0;
          s2b += d1 * d1;
          ca += d0 * yp[s];
          cb += d1 * yp[s + 1];
        }
        for (; s < n; ++s) {
          const double d = x[s] - k;
          s1a += d;
          s2a += d * d;
          ca += d * yp[s];
        }
        xc_[a] = ca + cb;
      } else {
        double* dx = dx_.data();
        size_t s = 0;
        for (; s + 2 <= n; s += 2) {
          const double d0 = x[s] - k, d1 = x[s + 1] - k;
          dx[s] = d0;
          dx[s + 1] = d1;
          s1a += d0;
          s1b += d1;
          s2a += d0 * d0;
          s2b += d1 * d1;
        }
        for (; s < n; ++s) {
          const double d = x[s] - k;
          dx[s] = d;
          s1a += d;
          s2a += d * d;
        }
        for (size_t a : nonconst_) {
          const double* yp = yp_.data() + a * bsize_;
          double ca = 0, cb = 0;
          size_t i = 0;
          for (; i + 2 <= n; i += 2) {
            ca += dx[i] * yp[i];
            cb += dx[i + 1] * yp[i + 1];
          }
          for (; i < n; ++i) ca += dx[i] * yp[i];
          xc_[a] = ca + cb;
        }
      }
      const double S1 = s1a + s1b;
      const double S2 = s2a + s2b;
      block_.mean[v] = k + S1 / nd;
      block_.m2[v] = std::max(0.0, S2 - S1 * S1 / nd);
      for (size_t a : nonconst_) block_.co[v * A + a] = xc_[a] - S1 * ysum_[a] / nd;
    }

    if (p_.full) {
      for (size_t v = 0; v < V; ++v) {
        const double* x = slot_ptrs_[v];
        const double lo = q10_[v], hi = q90_[v];
        uint64_t tn = 0, bn = 0;
        for (size_t s = 0; s < n; ++s) {
          tn += x[s] >= hi ? 1 : 0;
          bn += x[s] <= lo ? 1 : 0;
        }
        block_tally_.top_n[v] = tn;
        block_tally_.bot_n[v] = bn;
        for (size_t a = 0; a < A; ++a) {
          const double* y = y_[a];
          double ts = 0, bs = 0;
          for (size_t s = 0; s < n; ++s) {
            ts += x[s] >= hi ? y[s] : 0.0;
            bs += x[s] <= lo ? y[s] : 0.0;
          }
          block_tally_.top_sum[v * A + a] = ts;
          block_tally_.bot_sum[v * A + a] = bs;
        }
      }
    }
    return true;
  }

  bool hits_target(double y) const { return maximize_ ? y >= p_.target : y <= p_.target; }

  // Draws the chunk's uniforms in the order block() would, re-pairs the correlated variables' draws
  // (Iman–Conover on their values, carrying the uniforms along so that every slot computed from a
  // variable's uniform follows it), and adds the chunk's Spearman of each reported pair.
  void correlate_chunk(rng::Xoshiro256ss& g, size_t len) {
    const size_t V = p_.var_names.size();
    const size_t K = p_.corr_vars.size();
    rng::Xoshiro256ss r = g;
    for (size_t s = 0; s < len; ++s)
      for (size_t v = 0; v < V; ++v) cu_[v * kChunk + s] = rng::to_unit(r.next());
    g = r;
    std::vector<double*> keys(K), carry(K);
    std::vector<size_t> col(V, 0);
    for (size_t j = 0; j < K; ++j) {
      const size_t v = static_cast<size_t>(p_.corr_vars[j]);
      col[v] = j;
      keys[j] = kx_.data() + j * kChunk;
      carry[j] = cu_.data() + v * kChunk;
      p_.slots[v].dist.transform(carry[j], keys[j], len);
    }
    ic_->apply(len, keys, carry);
    if (len < 2) return;
    const double w = static_cast<double>(len);
    for (size_t i = 0; i < p_.corr_pairs.size(); ++i) {
      const auto& pr = p_.corr_pairs[i];
      rho_sum_[i] += w * corr::spearman_of_ranks(ic_->ranks(col[static_cast<size_t>(pr.a)]),
                                                  ic_->ranks(col[static_cast<size_t>(pr.b)]), len);
    }
    rho_weight_ += w;
  }

  const Plan& p_;
  const Options& opt_;
  bool maximize_ = true;
  size_t bsize_ = kBlock;
  bool timed_out_ = false;
  size_t done_runs_ = 0;
  NonFinite bad_{0, 0, false};

  std::vector<double> ubuf_, sbuf_, regs_, ybuf_, yp_, dx_, best_, q10_, q90_, draw_lo_, draw_w_, shift_, ysum_, xc_;
  std::vector<double*> draw_dst_;
  std::vector<double> cu_, kx_, rho_sum_;  // correlated inputs: a chunk's uniforms, keys, Spearman sums
  double rho_weight_ = 0;
  std::unique_ptr<corr::ImanConover> ic_;
  std::vector<std::pair<size_t, size_t>> transforms_;  // (slot, base variable) computed from raw uniforms
  std::vector<size_t> nonconst_;
  std::vector<uint64_t> counts_;
  std::vector<uint32_t> bestidx_;
  std::vector<const double*> y_;
  std::vector<double*> slot_ptrs_;
  std::vector<bool> constant_;
  std::vector<std::unique_ptr<RunValues>> store_;  // one value per run per non-constant action
  Moments total_, chunk_, block_;
  Tallies tot_tally_, chunk_tally_, block_tally_;
};

// Sums over many runs of huge but finite values overflow even when every value is finite; no
// statistic may leave the engine as NaN or infinity (JSON would carry it as null).
bool first_non_finite(const Value& v, const std::string& path, std::string& where) {
  if (v.is_number()) {
    if (std::isfinite(v.as_number())) return false;
    where = path;
    return true;
  }
  if (v.is_array()) {
    const auto& arr = v.as_array();
    for (size_t i = 0; i < arr.size(); ++i)
      if (first_non_finite(arr[i], path + "[" + std::to_string(i) + "]", where)) return true;
  } else if (v.is_object()) {
    for (const auto& m : v.as_object())
      if (first_non_finite(m.second, path.empty() ? m.first : path + "." + m.first, where)) return true;
  }
  return false;
}

}  // namespace

bool simulate(const json::Value& request, const Options& options, json::Value& result, Error& error) {
  const auto t0 = Clock::now();
  try {
    Plan plan;
    Validator val;
    if (!build_plan(request, plan, val)) {
      error.code = val.code;
      error.message = (val.code == "correlation_matrix_invalid"
                           ? std::string("The rank correlations do not form a valid correlation matrix: ")
                           : std::string("The simulation request is invalid: ")) +
                      std::to_string(val.problems.size()) +
                      (val.problems.size() == 1 ? " problem" : " problems") + " found; first: " +
                      (val.problems[0].field.empty() ? "" : val.problems[0].field + " ") + val.problems[0].problem + ".";
      error.details = std::move(val.problems);
      return false;
    }
    Runner runner(plan, options);
    if (!runner.run()) {
      if (runner.timed_out()) {
        error.code = "engine_timeout";
        error.message = "The computation exceeded its deadline after " + std::to_string(runner.done_runs()) + " of " +
                        std::to_string(plan.runs) + " runs.";
        return false;
      }
      const auto& bad = runner.bad();
      const ActionPlan& ap = plan.actions[bad.action];
      error.code = "validation_failed";
      if (bad.overflow) {
        error.message = "The values of action '" + ap.name + "' are too large: their sums overflow a double.";
        error.details.push_back({ap.model_field, "its values for action '" + ap.name +
                                                     "' are too large: their sums overflow a double (NaN or "
                                                     "infinity); scale the model down"});
        return false;
      }
      error.message = "The model of action '" + ap.name + "' evaluates to a non-finite number (NaN or infinity) at run " +
                      std::to_string(bad.run) + ".";
      error.details.push_back({ap.model_field,
                               "evaluates to a non-finite number for action '" + ap.name + "' at run " +
                                   std::to_string(bad.run) +
                                   "; check for division by zero, sqrt or log of negative numbers, or overflow"});
      return false;
    }
    result = runner.result();
    std::string where;
    if (first_non_finite(result, "", where)) {
      std::string field = "scenario";
      const Value* actions = result.find("actions");
      for (size_t a = 0; actions && a < actions->as_array().size(); ++a) {
        std::string in_action;
        if (first_non_finite(actions->as_array()[a], "actions[" + std::to_string(a) + "]", in_action)) {
          field = plan.actions[a].model_field;
          where = in_action;
          break;
        }
      }
      error.code = "validation_failed";
      error.message = "The statistic " + where + " of the simulation is not a finite number: the values overflow a double.";
      error.details.push_back({field, "its values are too large: the statistic " + where +
                                          " overflows a double (NaN or infinity); scale the model down"});
      return false;
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    result.set("compute_ms", ms);
    return true;
  } catch (const std::bad_alloc&) {
    error = Error{"internal_error", "The engine ran out of memory for this request; lower runs or the number of actions.", {}};
  } catch (const std::exception& e) {
    error = Error{"internal_error", std::string("The engine failed: ") + e.what(), {}};
  } catch (...) {
    error = Error{"internal_error", "The engine failed with an unknown error.", {}};
  }
  return false;
}

}  // namespace ds::engine
