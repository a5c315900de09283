#include "modules.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <unordered_set>
#include <vector>

#include "../common/distributions.hpp"
#include "../common/select.hpp"
#include "../common/version.hpp"

namespace ds::runtime {

namespace {

using json::Value;

struct Param {
  const char* name;
  bool required;
};

class Args;
using Handler = Value (*)(const Args&);

struct Function {
  const char* name;
  std::vector<Param> params;
  Handler handler;
};

struct Module {
  const char* name;
  std::vector<Function> functions;
};

[[noreturn]] void fail(const std::string& code, const std::string& message) { throw ExecError{code, message}; }

class Args {
 public:
  Args(const std::string& qualified, const Function& fn, const Value& raw) : q_(qualified), fn_(fn) {
    vals_.assign(fn.params.size(), nullptr);
    if (raw.is_null()) {
      // no arguments
    } else if (raw.is_object()) {
      for (const auto& m : raw.as_object()) {
        int i = index(m.first);
        if (i < 0) fail("invalid_args", "Unknown argument '" + m.first + "' for " + q_ + "; expected " + param_list() + ".");
        vals_[static_cast<size_t>(i)] = &m.second;
      }
    } else if (raw.is_array()) {
      positional(raw.as_array(), raw);
    } else {
      single_ = raw;
      vals_[0] = &single_;
    }
    for (size_t i = 0; i < fn.params.size(); ++i)
      if (fn.params[i].required && !vals_[i])
        fail("invalid_args", "Missing required argument '" + std::string(fn.params[i].name) + "' for " + q_ + "; expected " +
                                 param_list() + ".");
  }

  const Value* get(const char* name) const {
    int i = index(name);
    return i < 0 ? nullptr : vals_[static_cast<size_t>(i)];
  }

  [[noreturn]] void bad(const char* name, const std::string& what) const {
    fail("invalid_args", "Argument '" + std::string(name) + "' of " + q_ + " " + what + ".");
  }

  double number(const char* name) const {
    const Value* v = get(name);
    if (!v || !v->is_number()) bad(name, "must be a number");
    return v->as_number();
  }

  double number_or(const char* name, double def) const { return get(name) ? number(name) : def; }

  std::vector<double> numbers(const char* name, size_t min_len) const {
    const Value* v = get(name);
    if (!v || !v->is_array()) bad(name, "must be an array of numbers");
    std::vector<double> out;
    out.reserve(v->as_array().size());
    size_t i = 0;
    for (const auto& e : v->as_array()) {
      if (!e.is_number()) bad(name, "must contain only numbers (element " + std::to_string(i) + " is not a number)");
      out.push_back(e.as_number());
      ++i;
    }
    if (out.size() < min_len)
      bad(name, min_len == 1 ? "must not be empty" : "must contain at least " + std::to_string(min_len) + " numbers");
    return out;
  }

  std::string string(const char* name) const {
    const Value* v = get(name);
    if (!v || !v->is_string()) bad(name, "must be a string");
    return v->as_string();
  }

 private:
  int index(const std::string& name) const {
    for (size_t i = 0; i < fn_.params.size(); ++i)
      if (name == fn_.params[i].name) return static_cast<int>(i);
    return -1;
  }

  std::string param_list() const {
    std::string s;
    for (const auto& p : fn_.params) {
      if (!s.empty()) s += ", ";
      s += p.name;
      if (!p.required) s += "?";
    }
    return "(" + s + ")";
  }

  void positional(const json::Array& arr, const Value& raw) {
    const auto& params = fn_.params;
    // A function whose first parameter is a list of numbers may take that list directly:
    // args [1, 2, 3] means values = [1, 2, 3].
    if (!arr.empty() && arr[0].is_number() && first_is_list()) {
      vals_[0] = &raw;
      return;
    }
    size_t required = 0;
    for (const auto& p : params) required += p.required ? 1 : 0;
    if (arr.size() > params.size())
      fail("invalid_args", "Too many positional arguments for " + q_ + ": got " + std::to_string(arr.size()) +
                               ", expected at most " + std::to_string(params.size()) + " " + param_list() + ".");
    if (arr.size() == required && required < params.size()) {
      // Exactly the required ones: optional parameters in between are skipped.
      size_t k = 0;
      for (size_t i = 0; i < params.size(); ++i)
        if (params[i].required) vals_[i] = &arr[k++];
      return;
    }
    for (size_t i = 0; i < arr.size(); ++i) vals_[i] = &arr[i];
  }

  bool first_is_list() const {
    static const std::unordered_set<std::string> lists = {"values", "cashflows"};
    return lists.count(fn_.params[0].name) > 0;
  }

  std::string q_;
  const Function& fn_;
  std::vector<const Value*> vals_;
  Value single_;
};

// ---------------------------------------------------------------------------------------------
// stats

double mean_of(const std::vector<double>& v) {
  // Neumaier-compensated sum.
  double sum = 0, comp = 0;
  for (double x : v) {
    const double t = sum + x;
    comp += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  return (sum + comp) / static_cast<double>(v.size());
}

double std_dev_of(const std::vector<double>& v, double mean) {
  if (v.size() < 2) return 0.0;
  double m2 = 0;
  for (double x : v) m2 += (x - mean) * (x - mean);
  return std::sqrt(m2 / static_cast<double>(v.size() - 1));
}

std::vector<double> quantiles(std::vector<double> v, const std::vector<double>& ps) {
  return select::quantiles_type7(v.data(), v.size(), ps);
}

Value stats_mean(const Args& a) {
  auto v = a.numbers("values", 1);
  return Value(mean_of(v));
}

Value stats_median(const Args& a) {
  auto v = a.numbers("values", 1);
  return Value(quantiles(std::move(v), {0.5})[0]);
}

Value stats_percentile(const Args& a) {
  auto v = a.numbers("values", 1);
  const double p = a.number("p");
  if (!(p >= 0 && p <= 100)) a.bad("p", "must be a number between 0 and 100");
  return Value(quantiles(std::move(v), {p / 100.0})[0]);
}

Value stats_std_dev(const Args& a) {
  auto v = a.numbers("values", 1);
  return Value(std_dev_of(v, mean_of(v)));
}

Value stats_describe(const Args& a) {
  auto v = a.numbers("values", 1);
  const double m = mean_of(v);
  const double sd = std_dev_of(v, m);
  auto q = quantiles(v, {0.0, 0.25, 0.5, 0.75, 1.0});
  Value o = Value::object();
  o.set("count", static_cast<double>(v.size()));
  o.set("mean", m);
  o.set("std_dev", sd);
  o.set("min", q[0]);
  o.set("p25", q[1]);
  o.set("median", q[2]);
  o.set("p75", q[3]);
  o.set("max", q[4]);
  return o;
}

// ---------------------------------------------------------------------------------------------
// finance (spreadsheet conventions: money paid out is negative)

double rate_arg(const Args& a, const char* name) {
  const double r = a.number(name);
  if (!(r > -1.0)) a.bad(name, "must be greater than -1");
  return r;
}

double when_arg(const Args& a) {
  const Value* w = a.get("when");
  if (!w) return 0.0;
  if (w->is_string()) {
    if (w->as_string() == "end") return 0.0;
    if (w->as_string() == "begin") return 1.0;
  } else if (w->is_number() && (w->as_number() == 0.0 || w->as_number() == 1.0)) {
    return w->as_number();
  }
  a.bad("when", "must be 0 (end of period) or 1 (beginning of period)");
}

double nper_arg(const Args& a) {
  const double n = a.number("nper");
  if (!(n > 0) || !std::isfinite(n)) a.bad("nper", "must be a positive number of periods");
  return n;
}

double npv_at(double r, const std::vector<double>& cf) {
  double total = 0, disc = 1;
  const double f = 1.0 / (1.0 + r);
  for (double c : cf) {
    total += c * disc;
    disc *= f;
  }
  return total;
}

double npv_slope(double r, const std::vector<double>& cf) {
  double total = 0;
  for (size_t t = 1; t < cf.size(); ++t) total -= static_cast<double>(t) * cf[t] * std::pow(1.0 + r, -static_cast<double>(t) - 1.0);
  return total;
}

Value finance_npv(const Args& a) {
  const double r = rate_arg(a, "rate");
  auto cf = a.numbers("cashflows", 1);
  return Value(npv_at(r, cf));
}

Value finance_irr(const Args& a) {
  auto cf = a.numbers("cashflows", 2);
  const double guess = a.number_or("guess", 0.1);
  if (!(guess > -1.0)) a.bad("guess", "must be greater than -1");
  bool pos = false, neg = false;
  for (double c : cf) {
    pos = pos || c > 0;
    neg = neg || c < 0;
  }
  if (!pos || !neg) a.bad("cashflows", "must contain at least one positive and one negative value (no sign change, so no IRR exists)");

  // Newton from the guess.
  double r = guess;
  for (int it = 0; it < 100; ++it) {
    const double f = npv_at(r, cf);
    const double d = npv_slope(r, cf);
    if (!std::isfinite(f) || !std::isfinite(d) || d == 0.0) break;
    const double nr = r - f / d;
    if (!(nr > -1.0) || !std::isfinite(nr)) break;
    if (std::fabs(nr - r) <= 1e-12 * std::max(1.0, std::fabs(nr))) return Value(nr);
    r = nr;
  }
  // Bisection on the bracket nearest the guess.
  const double grid[] = {-0.999, -0.99, -0.9, -0.75, -0.5, -0.25, -0.1, 0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75,
                         1.0,    1.5,   2.0,  3.0,   5.0,  10.0,  20.0, 50.0, 100.0, 1e3, 1e4, 1e5, 1e6};
  const size_t ng = sizeof grid / sizeof grid[0];
  double lo = 0, hi = 0, best_dist = HUGE_VAL;
  bool found = false;
  for (size_t i = 0; i + 1 < ng; ++i) {
    const double fa = npv_at(grid[i], cf), fb = npv_at(grid[i + 1], cf);
    if (!std::isfinite(fa) || !std::isfinite(fb)) continue;
    if ((fa <= 0 && fb >= 0) || (fa >= 0 && fb <= 0)) {
      const double dist = guess < grid[i] ? grid[i] - guess : guess > grid[i + 1] ? guess - grid[i + 1] : 0.0;
      if (dist < best_dist) {
        best_dist = dist;
        lo = grid[i];
        hi = grid[i + 1];
        found = true;
      }
    }
  }
  if (!found) fail("execution_failed", "finance.irr found no rate between -99.9% and 1e8% at which the NPV of the cash flows is zero.");
  double flo = npv_at(lo, cf);
  for (int it = 0; it < 300 && hi - lo > 1e-15 * std::max(1.0, std::fabs(lo)); ++it) {
    const double mid = 0.5 * (lo + hi);
    const double fm = npv_at(mid, cf);
    if (fm == 0.0) return Value(mid);
    if ((fm < 0) == (flo < 0)) {
      lo = mid;
      flo = fm;
    } else {
      hi = mid;
    }
  }
  return Value(0.5 * (lo + hi));
}

Value finance_pmt(const Args& a) {
  const double r = rate_arg(a, "rate");
  const double n = nper_arg(a);
  const double pv = a.number("pv");
  const double fv = a.number_or("fv", 0.0);
  const double when = when_arg(a);
  if (r == 0.0) return Value(-(pv + fv) / n);
  const double growth = std::expm1(n * std::log1p(r));  // (1+r)^n - 1
  return Value(-(fv + pv * (growth + 1.0)) * r / ((1.0 + r * when) * growth));
}

Value finance_fv(const Args& a) {
  const double r = rate_arg(a, "rate");
  const double n = nper_arg(a);
  const double pmt = a.number("pmt");
  const double pv = a.number_or("pv", 0.0);
  const double when = when_arg(a);
  if (r == 0.0) return Value(-(pv + pmt * n));
  const double growth = std::expm1(n * std::log1p(r));
  return Value(-(pv * (growth + 1.0) + pmt * (1.0 + r * when) * growth / r));
}

// ---------------------------------------------------------------------------------------------
// decision

struct Table {
  std::vector<std::string> actions;
  std::vector<std::vector<double>> payoffs;
  std::vector<double> probs;
};

Table decision_table(const Args& a) {
  Table t;
  t.probs = a.numbers("probabilities", 1);
  double sum = 0;
  for (size_t i = 0; i < t.probs.size(); ++i) {
    if (!(t.probs[i] >= 0 && t.probs[i] <= 1)) a.bad("probabilities", "must contain numbers between 0 and 1");
    sum += t.probs[i];
  }
  if (std::fabs(sum - 1.0) > 1e-9) a.bad("probabilities", "must sum to 1 (they sum to " + std::to_string(sum) + ")");
  const Value* p = a.get("payoffs");
  if (!p || !p->is_object() || p->as_object().empty())
    a.bad("payoffs", "must be a non-empty object mapping each action to its payoffs per state");
  for (const auto& m : p->as_object()) {
    if (!m.second.is_array()) a.bad("payoffs", "must map action '" + m.first + "' to an array of numbers");
    std::vector<double> row;
    for (const auto& e : m.second.as_array()) {
      if (!e.is_number()) a.bad("payoffs", "must contain only numbers (action '" + m.first + "')");
      row.push_back(e.as_number());
    }
    if (row.size() != t.probs.size())
      a.bad("payoffs", "must give action '" + m.first + "' one payoff per state: it has " + std::to_string(row.size()) +
                           " but there are " + std::to_string(t.probs.size()) + " probabilities");
    t.actions.push_back(m.first);
    t.payoffs.push_back(std::move(row));
  }
  return t;
}

std::vector<double> expected_values(const Table& t) {
  std::vector<double> ev;
  for (const auto& row : t.payoffs) {
    double s = 0;
    for (size_t j = 0; j < row.size(); ++j) s += t.probs[j] * row[j];
    ev.push_back(s);
  }
  return ev;
}

size_t argmax(const std::vector<double>& v) {
  size_t b = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[b]) b = i;
  return b;
}

Value decision_expected_value(const Args& a) {
  Table t = decision_table(a);
  auto ev = expected_values(t);
  Value values = Value::object();
  for (size_t i = 0; i < ev.size(); ++i) values.set(t.actions[i], ev[i]);
  const size_t b = argmax(ev);
  Value o = Value::object();
  o.set("values", std::move(values));
  o.set("best_action", t.actions[b]);
  o.set("best_value", ev[b]);
  return o;
}

Value decision_evpi(const Args& a) {
  Table t = decision_table(a);
  auto ev = expected_values(t);
  const double best = ev[argmax(ev)];
  double perfect = 0;
  for (size_t j = 0; j < t.probs.size(); ++j) {
    double m = t.payoffs[0][j];
    for (const auto& row : t.payoffs) m = std::max(m, row[j]);
    perfect += t.probs[j] * m;
  }
  Value o = Value::object();
  o.set("evpi", std::max(0.0, perfect - best));
  o.set("ev_with_perfect_information", perfect);
  o.set("best_expected_value", best);
  return o;
}

// ---------------------------------------------------------------------------------------------
// distributions (the engine's own code in native/common/distributions.hpp)

dist::Dist dist_arg(const Args& a) {
  dist::Kind kind;
  const std::string name = a.string("distribution");
  if (!dist::parse_kind(name, kind)) a.bad("distribution", "must be one of uniform, triangular, pert, normal, lognormal");
  const double low = a.number("low"), high = a.number("high");
  const bool has_mode = a.get("mode") != nullptr;
  const double mode = has_mode ? a.number("mode") : 0.0;
  auto problems = dist::validate(kind, low, high, has_mode, mode);
  if (!problems.empty()) a.bad(problems[0].field.c_str(), problems[0].problem);
  return dist::Dist::make(kind, low, high, has_mode, mode);
}

Value dist_cdf(const Args& a) {
  dist::Dist d = dist_arg(a);
  const double x = a.number("x");
  return Value(d.cdf(x));
}

Value dist_quantile(const Args& a) {
  dist::Dist d = dist_arg(a);
  const double p = a.number("p");
  const bool open = d.kind() == dist::Kind::Normal || d.kind() == dist::Kind::Lognormal;
  if (open && !(p > 0 && p < 1)) a.bad("p", "must be strictly between 0 and 1 for a normal or lognormal distribution");
  if (!(p >= 0 && p <= 1)) a.bad("p", "must be a probability between 0 and 1");
  return Value(d.quantile(p));
}

const std::vector<Module>& registry() {
  static const std::vector<Module> mods = {
      {"stats",
       {
           {"mean", {{"values", true}}, stats_mean},
           {"median", {{"values", true}}, stats_median},
           {"percentile", {{"values", true}, {"p", true}}, stats_percentile},
           {"std_dev", {{"values", true}}, stats_std_dev},
           {"describe", {{"values", true}}, stats_describe},
       }},
      {"finance",
       {
           {"npv", {{"rate", true}, {"cashflows", true}}, finance_npv},
           {"irr", {{"cashflows", true}, {"guess", false}}, finance_irr},
           {"pmt", {{"rate", true}, {"nper", true}, {"pv", true}, {"fv", false}, {"when", false}}, finance_pmt},
           {"fv", {{"rate", true}, {"nper", true}, {"pmt", true}, {"pv", false}, {"when", false}}, finance_fv},
       }},
      {"decision",
       {
           {"expected_value", {{"payoffs", true}, {"probabilities", true}}, decision_expected_value},
           {"evpi", {{"payoffs", true}, {"probabilities", true}}, decision_evpi},
       }},
      {"distributions",
       {
           {"cdf", {{"distribution", true}, {"low", true}, {"high", true}, {"mode", false}, {"x", true}}, dist_cdf},
           {"quantile", {{"distribution", true}, {"low", true}, {"high", true}, {"mode", false}, {"p", true}}, dist_quantile},
       }},
  };
  return mods;
}

}  // namespace

std::vector<ModuleSummary> list_modules() {
  std::vector<ModuleSummary> out;
  for (const auto& m : registry()) {
    ModuleSummary s{m.name, {}};
    for (const auto& f : m.functions) s.functions.push_back(f.name);
    out.push_back(std::move(s));
  }
  return out;
}

json::Value manifest() {
  Value mods = Value::array();
  for (const auto& m : list_modules()) {
    Value o = Value::object();
    o.set("name", m.name);
    o.set("engine", "native");
    Value fns = Value::array();
    for (const auto& f : m.functions) fns.push(f);
    o.set("functions", std::move(fns));
    mods.push(std::move(o));
  }
  Value out = Value::object();
  out.set("type", "manifest");
  out.set("version", DS_RUNTIME_VERSION);
  out.set("modules", std::move(mods));
  return out;
}

bool execute(const std::string& module, const std::string& function, const json::Value& args, json::Value& result,
             ExecError& error) {
  try {
    const Module* mod = nullptr;
    for (const auto& m : registry())
      if (module == m.name) mod = &m;
    if (!mod) {
      std::string names;
      for (const auto& m : registry()) names += (names.empty() ? "" : ", ") + std::string(m.name);
      fail("unknown_module", "No runtime module named '" + module + "'; available modules: " + names + ".");
    }
    const Function* fn = nullptr;
    for (const auto& f : mod->functions)
      if (function == f.name) fn = &f;
    if (!fn) {
      std::string names;
      for (const auto& f : mod->functions) names += (names.empty() ? "" : ", ") + std::string(f.name);
      fail("unknown_function", "Module '" + module + "' has no function named '" + function + "'; available: " + names + ".");
    }
    const std::string qualified = module + "." + function;
    Args a(qualified, *fn, args);
    result = fn->handler(a);
    if (result.is_number() && !std::isfinite(result.as_number()))
      fail("execution_failed", qualified + " produced a non-finite number for these arguments.");
    return true;
  } catch (const ExecError& e) {
    error = e;
  } catch (const std::exception& e) {
    error = ExecError{"execution_failed", std::string("The function failed: ") + e.what() + "."};
  } catch (...) {
    error = ExecError{"execution_failed", "The function failed with an unknown error."};
  }
  return false;
}

}  // namespace ds::runtime
