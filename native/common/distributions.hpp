// The engine's input distributions, shared with the runtime daemon's `distributions` module.
//
// Every distribution takes exactly one uniform of the run's stream per variable per sample, which is
// what makes common random numbers across actions possible and keeps existing seeds' numbers when a
// family is added. All but gamma are sampled by inversion; gamma runs Marsaglia–Tsang on a sub-stream
// seeded by that one uniform. Nothing here uses <random>.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rng.hpp"

namespace ds::dist {

// ---------------------------------------------------------------------------------------------
// Standard normal quantile: Wichura, Algorithm AS 241 (PPND16), Applied Statistics 37(3), 1988.
// Relative accuracy about 1e-16 over (0, 1). Returns -inf/+inf at 0/1.
inline double normal_quantile(double p) {
  if (!(p > 0.0)) return p == 0.0 ? -HUGE_VAL : NAN;
  if (!(p < 1.0)) return p == 1.0 ? HUGE_VAL : NAN;
  const double q = p - 0.5;
  if (std::fabs(q) <= 0.425) {
    const double r = 0.180625 - q * q;
    const double num =
        ((((((2.5090809287301226727e+3 * r + 3.3430575583588128105e+4) * r + 6.7265770927008700853e+4) * r +
             4.5921953931549871457e+4) * r + 1.3731693765509461125e+4) * r + 1.9715909503065514427e+3) * r +
         1.3314166789178437745e+2) * r + 3.3871328727963666080e0;
    const double den =
        ((((((5.2264952788528545610e+3 * r + 2.8729085735721942674e+4) * r + 3.9307895800092710610e+4) * r +
             2.1213794301586595867e+4) * r + 5.3941960214247511077e+3) * r + 6.8718700749205790830e+2) * r +
         4.2313330701600911252e+1) * r + 1.0;
    return q * num / den;
  }
  double r = q < 0 ? p : 1.0 - p;
  r = std::sqrt(-std::log(r));
  double z;
  if (r <= 5.0) {
    r -= 1.6;
    const double num =
        ((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r + 2.41780725177450611770e-1) * r +
             1.27045825245236838258e0) * r + 3.64784832476320460504e0) * r + 5.76949722146069140550e0) * r +
         4.63033784615654529590e0) * r + 1.42343711074968357734e0;
    const double den =
        ((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r + 1.51986665636164571966e-2) * r +
             1.48103976427480074590e-1) * r + 6.89767334985100004550e-1) * r + 1.67638483018380384940e0) * r +
         2.05319162663775882187e0) * r + 1.0;
    z = num / den;
  } else {
    r -= 5.0;
    const double num =
        ((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 1.24266094738807843860e-3) * r +
             2.65321895265761230930e-2) * r + 2.96560571828504891230e-1) * r + 1.78482653991729133580e0) * r +
         5.46378491116411436990e0) * r + 6.65790464350110377720e0;
    const double den =
        ((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r + 1.84631831751005468180e-5) * r +
             7.86869131145613259100e-4) * r + 1.48753612908506148525e-2) * r + 1.36929880922735805310e-1) * r +
         5.99832206555887937690e-1) * r + 1.0;
    z = num / den;
  }
  return q < 0 ? -z : z;
}

inline double normal_cdf(double z) { return 0.5 * std::erfc(-z * 0.70710678118654752440); }

// z such that P(Z <= z) = 0.95: low/high of normal and lognormal ranges are the 5th/95th percentiles.
inline double z95() {
  static const double z = normal_quantile(0.95);
  return z;
}

// ---------------------------------------------------------------------------------------------
// Regularized incomplete beta I_x(a, b) by its continued fraction (modified Lentz), using the
// symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges slowly.
inline double beta_cf(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + num * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1.0 + num / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + num * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1.0 + num / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < 1e-16) break;
  }
  return h;
}

inline double log_beta(double a, double b) { return std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b); }

inline double inc_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double lfront = a * std::log(x) + b * std::log1p(-x) - log_beta(a, b);
  if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(lfront) * beta_cf(a, b, x) / a;
  return 1.0 - std::exp(lfront) * beta_cf(b, a, 1.0 - x) / b;
}

inline double beta_pdf(double a, double b, double x) {
  if (x <= 0.0 || x >= 1.0) return 0.0;
  return std::exp((a - 1.0) * std::log(x) + (b - 1.0) * std::log1p(-x) - log_beta(a, b));
}

// Beta(a, b) quantile by safeguarded Newton: Newton steps on I_x - p, bisection whenever a step
// leaves the current bracket. `guess` must lie inside [lo, hi].
inline double beta_quantile(double a, double b, double p, double lo = 0.0, double hi = 1.0, double guess = -1.0) {
  if (p <= 0.0) return 0.0;
  if (p >= 1.0) return 1.0;
  double x = (guess > lo && guess < hi) ? guess : 0.5 * (lo + hi);
  for (int it = 0; it < 200; ++it) {
    const double f = inc_beta(a, b, x) - p;
    if (f == 0.0) return x;
    if (f < 0)
      lo = x;
    else
      hi = x;
    const double dens = beta_pdf(a, b, x);
    double nx = dens > 0 ? x - f / dens : -1.0;
    if (!(nx > lo && nx < hi)) nx = 0.5 * (lo + hi);
    if (std::fabs(nx - x) <= 1e-16 * std::max(1.0, std::fabs(x)) || hi - lo <= 1e-16) return nx;
    x = nx;
  }
  return x;
}

// Inverse-CDF table of Beta(a, b) on [0,1] at p = i / kPertSteps, i = 0..kPertSteps. Built once per
// shape and shared (a PERT's shape has a + b = 6, so a single parameter identifies it).
constexpr int kPertSteps = 4096;

inline std::shared_ptr<const std::vector<double>> pert_table(double a, double b) {
  static std::mutex mu;
  static std::map<std::pair<double, double>, std::shared_ptr<const std::vector<double>>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find({a, b});
    if (it != cache.end()) return it->second;
  }
  auto t = std::make_shared<std::vector<double>>(kPertSteps + 1);
  std::vector<double>& v = *t;
  v[0] = 0.0;
  v[kPertSteps] = 1.0;
  // Start each inversion from the previous point extrapolated by the last increment; the previous
  // point is a lower bound because the quantile is increasing.
  double prev = 0.0, step = 0.0;
  for (int i = 1; i < kPertSteps; ++i) {
    const double p = static_cast<double>(i) / kPertSteps;
    const double guess = std::min(prev + step, 1.0 - 1e-12);
    const double x = beta_quantile(a, b, p, prev, 1.0, guess > prev ? guess : -1.0);
    step = x - prev;
    prev = x;
    v[static_cast<size_t>(i)] = x;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 64) cache.clear();
  cache[{a, b}] = t;
  return t;
}

// ---------------------------------------------------------------------------------------------
// Regularized lower incomplete gamma P(a, x): its series below x = a + 1, the continued fraction of
// Q = 1 - P (modified Lentz) above, where each converges fast.
inline double gamma_p(double a, double x) {
  if (!(x > 0.0)) return 0.0;
  if (std::isinf(x)) return 1.0;
  const double lfront = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1.0) {
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 1000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (std::fabs(term) < std::fabs(sum) * 1e-17) break;
    }
    return std::min(1.0, sum * std::exp(lfront));
  }
  const double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int i = 1; i < 1000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < 1e-16) break;
  }
  return std::max(0.0, 1.0 - std::exp(lfront) * h);
}

// Gamma(shape a, scale 1) quantile by bisection on a bracket grown until it holds p, refined by
// Newton steps that stay inside it. Only used for a handful of points per request (medians, deciles).
inline double gamma_quantile(double a, double p) {
  if (p <= 0.0) return 0.0;
  if (p >= 1.0) return HUGE_VAL;
  double lo = 0.0, hi = std::max(1.0, a);
  while (gamma_p(a, hi) < p && hi < 1e300) hi *= 2.0;
  double x = 0.5 * (lo + hi);
  for (int it = 0; it < 300; ++it) {
    const double f = gamma_p(a, x) - p;
    if (f == 0.0) return x;
    if (f < 0) lo = x;
    else hi = x;
    const double dens = std::exp((a - 1.0) * std::log(x) - x - std::lgamma(a));
    double nx = dens > 0 && std::isfinite(dens) ? x - f / dens : -1.0;
    if (!(nx > lo && nx < hi)) nx = 0.5 * (lo + hi);
    if (std::fabs(nx - x) <= 1e-15 * x || hi - lo <= 1e-300) return nx;
    x = nx;
  }
  return x;
}

// One Gamma(a, 1) variate by Marsaglia & Tsang (2000), "A simple method for generating gamma
// variables", from a SplitMix64 sub-stream whose state is derived from the run's uniform u: the same u
// gives the same value, so runs stay reproducible and an action's `set` of a gamma variable is
// coupled to the base variable's draw. Shape below 1 uses G(a) = G(a + 1) * V^(1/a).
inline double gamma_variate(double a, double u) {
  uint64_t state = rng::splitmix_mix(static_cast<uint64_t>(u * 0x1.0p53) ^ 0x6A09E667F3BCC909ULL);
  uint64_t k = 0;
  auto next_unit = [&]() { return rng::to_unit(rng::splitmix_at(state, k++)); };
  const bool boost = a < 1.0;
  const double d = (boost ? a + 1.0 : a) - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  double g = d;
  for (int it = 0; it < 1000; ++it) {
    const double z = normal_quantile(rng::open_unit(next_unit()));
    double v = 1.0 + c * z;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double w = next_unit();
    if (w < 1.0 - 0.0331 * (z * z) * (z * z) || std::log(w) < 0.5 * z * z + d * (1.0 - v + std::log(v))) {
      g = d * v;
      break;
    }
  }
  if (boost) g *= std::pow(rng::open_unit(next_unit()), 1.0 / a);
  return g;
}

// ---------------------------------------------------------------------------------------------
enum class Kind { Uniform, Triangular, Pert, Normal, Lognormal, Gamma, Weibull, Exponential, Empirical };

inline bool parse_kind(std::string_view s, Kind& out) {
  if (s == "uniform") out = Kind::Uniform;
  else if (s == "triangular") out = Kind::Triangular;
  else if (s == "pert") out = Kind::Pert;
  else if (s == "normal") out = Kind::Normal;
  else if (s == "lognormal") out = Kind::Lognormal;
  else return false;
  return true;
}

inline const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Uniform: return "uniform";
    case Kind::Triangular: return "triangular";
    case Kind::Pert: return "pert";
    case Kind::Normal: return "normal";
    case Kind::Lognormal: return "lognormal";
    case Kind::Gamma: return "gamma";
    case Kind::Weibull: return "weibull";
    case Kind::Exponential: return "exponential";
    case Kind::Empirical: return "empirical";
  }
  return "uniform";
}

// The families a variable may name with explicit parameters, `{distribution, params}`.
inline bool parse_param_family(std::string_view s, Kind& out) {
  if (parse_kind(s, out)) return true;
  if (s == "gamma") out = Kind::Gamma;
  else if (s == "weibull") out = Kind::Weibull;
  else if (s == "exponential") out = Kind::Exponential;
  else return false;
  return true;
}

// Parameter names of each family, in the order make_params() reads them.
inline std::vector<const char*> param_names(Kind k) {
  switch (k) {
    case Kind::Normal: return {"mean", "sd"};
    case Kind::Lognormal: return {"meanlog", "sdlog"};
    case Kind::Gamma:
    case Kind::Weibull: return {"shape", "scale"};
    case Kind::Exponential: return {"rate"};
    case Kind::Uniform: return {"min", "max"};
    case Kind::Triangular:
    case Kind::Pert: return {"min", "mode", "max"};
    case Kind::Empirical: return {};
  }
  return {};
}

struct Problem {
  std::string field;  // relative to the distribution spec: "low", "high", "mode"
  std::string problem;
};

// Checks a parameter set; `mode` is only read when has_mode. Returns the problems found.
// Keeps the sums of squares over kMaxRuns draws finite: (2 * 1e150)^2 * 1e7 = 4e307 < DBL_MAX.
constexpr double kMaxMagnitude = 1e150;
constexpr const char* kMagnitudeProblem = "must be between -1e150 and 1e150";

inline std::vector<Problem> validate(Kind kind, double low, double high, bool has_mode, double mode) {
  std::vector<Problem> out;
  if (!std::isfinite(low)) out.push_back({"low", "must be a finite number"});
  if (!std::isfinite(high)) out.push_back({"high", "must be a finite number"});
  if (!out.empty()) return out;
  if (std::fabs(low) > kMaxMagnitude) out.push_back({"low", kMagnitudeProblem});
  if (std::fabs(high) > kMaxMagnitude) out.push_back({"high", kMagnitudeProblem});
  if (!out.empty()) return out;
  if (low > high) {
    out.push_back({"high", "must be greater than or equal to low"});
    return out;
  }
  if (!std::isfinite(high - low)) out.push_back({"high", "the range high - low overflows a double"});
  if (has_mode && !std::isfinite(mode)) out.push_back({"mode", "must be a finite number"});
  else if (has_mode && (kind == Kind::Triangular || kind == Kind::Pert) && (mode < low || mode > high))
    out.push_back({"mode", "must lie within [low, high]"});
  if (kind == Kind::Lognormal && !(low > 0)) out.push_back({"low", "must be greater than 0 for a lognormal distribution"});
  return out;
}

// Checks explicit parameters, given in param_names(kind) order and already known to be numbers.
// Problems name the field relative to the spec ("params.sd").
inline std::vector<Problem> validate_params(Kind kind, const std::vector<double>& p) {
  std::vector<Problem> out;
  const auto names = param_names(kind);
  auto field = [&](size_t i) { return std::string("params.") + names[i]; };
  for (size_t i = 0; i < p.size(); ++i) {
    if (!std::isfinite(p[i])) out.push_back({field(i), "must be a finite number"});
    else if (std::fabs(p[i]) > kMaxMagnitude) out.push_back({field(i), kMagnitudeProblem});
  }
  if (!out.empty()) return out;
  switch (kind) {
    case Kind::Normal:
    case Kind::Lognormal:
      if (p[1] < 0) out.push_back({field(1), "must be greater than or equal to 0"});
      break;
    case Kind::Gamma:
    case Kind::Weibull:
      if (!(p[0] > 0)) out.push_back({field(0), "must be greater than 0"});
      if (!(p[1] > 0)) out.push_back({field(1), "must be greater than 0"});
      break;
    case Kind::Exponential:
      if (!(p[0] > 0)) out.push_back({field(0), "must be greater than 0"});
      break;
    case Kind::Uniform:
      if (p[0] > p[1]) out.push_back({"params.max", "must be greater than or equal to min"});
      else if (!std::isfinite(p[1] - p[0])) out.push_back({"params.max", "the range max - min overflows a double"});
      break;
    case Kind::Triangular:
    case Kind::Pert:
      if (p[0] > p[2]) out.push_back({"params.max", "must be greater than or equal to min"});
      else if (!std::isfinite(p[2] - p[0])) out.push_back({"params.max", "the range max - min overflows a double"});
      else if (p[1] < p[0] || p[1] > p[2]) out.push_back({"params.mode", "must lie within [min, max]"});
      break;
    case Kind::Empirical: break;
  }
  return out;
}

// An empirical sample may hold at most this many values.
constexpr size_t kMaxEmpiricalValues = 1'000'000;

class Dist {
 public:
  Dist() = default;

  // Parameters must have passed validate(). Without a mode, triangular and PERT use the midpoint.
  static Dist make(Kind kind, double low, double high, bool has_mode, double mode) {
    Dist d;
    d.kind_ = kind;
    d.low_ = low;
    d.high_ = high;
    d.mode_ = has_mode ? mode : low + 0.5 * (high - low);
    d.width_ = high - low;
    switch (kind) {
      case Kind::Uniform: break;
      case Kind::Triangular:
        d.p1_ = d.width_ > 0 ? (d.mode_ - low) / d.width_ : 0.0;
        d.p2_ = d.width_ * (d.mode_ - low);
        d.p3_ = d.width_ * (high - d.mode_);
        break;
      case Kind::Pert:
        if (d.width_ > 0) {
          d.p1_ = 1.0 + 4.0 * (d.mode_ - low) / d.width_;
          d.p2_ = 1.0 + 4.0 * (high - d.mode_) / d.width_;
          d.table_ = pert_table(d.p1_, d.p2_);
        }
        break;
      case Kind::Normal:
        d.p1_ = 0.5 * (low + high);
        d.p2_ = (high - low) / (2.0 * z95());
        break;
      case Kind::Lognormal: {
        const double ll = std::log(low), lh = std::log(high);
        d.p1_ = 0.5 * (ll + lh);
        d.p2_ = (lh - ll) / (2.0 * z95());
        break;
      }
      default: break;  // the other families have no range form (make_params, make_empirical)
    }
    return d;
  }

  // Explicit parameters (validate_params() passed), in param_names(kind) order. Uniform, triangular
  // and PERT are the range forms with low = min, high = max, so they draw the same numbers.
  static Dist make_params(Kind kind, const std::vector<double>& p) {
    switch (kind) {
      case Kind::Uniform: return make(kind, p[0], p[1], false, 0);
      case Kind::Triangular:
      case Kind::Pert: return make(kind, p[0], p[2], true, p[1]);
      default: break;
    }
    Dist d;
    d.kind_ = kind;
    d.p1_ = p[0];
    d.p2_ = p.size() > 1 ? p[1] : 0.0;
    d.width_ = 1.0;
    if (kind == Kind::Normal && d.p2_ == 0.0) {
      d.low_ = d.high_ = d.mode_ = d.p1_;
      d.width_ = 0.0;
    } else if (kind == Kind::Lognormal && d.p2_ == 0.0) {
      d.low_ = d.high_ = d.mode_ = std::exp(d.p1_);
      d.width_ = 0.0;
    }
    if (d.width_ != 0.0) {
      d.low_ = d.quantile(0.0);
      d.high_ = d.quantile(1.0);
    }
    return d;
  }

  // Bootstrap from `values` (at least one, all finite): a draw is the empirical quantile
  // sorted[floor(u * n)], each value equally likely whatever the order given.
  static Dist make_empirical(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    Dist d;
    d.kind_ = Kind::Empirical;
    d.low_ = values.front();
    d.high_ = values.back();
    d.width_ = d.high_ - d.low_;
    d.mode_ = d.low_;
    d.values_ = std::make_shared<const std::vector<double>>(std::move(values));
    return d;
  }

  Kind kind() const { return kind_; }
  double low() const { return low_; }
  double high() const { return high_; }
  double mode() const { return mode_; }
  bool is_constant() const { return width_ == 0.0; }
  // Normal/lognormal: mean and sd of the (log-)normal; PERT: Beta shape a, b; gamma/weibull: shape,
  // scale; exponential: rate.
  double param1() const { return p1_; }
  double param2() const { return p2_; }

  // Inverse CDF at probability p in [0, 1]. PERT uses the shared table with linear interpolation
  // (the same numbers the engine samples).
  double quantile(double p) const {
    switch (kind_) {
      case Kind::Uniform: return low_ + width_ * p;
      case Kind::Triangular:
        if (p < p1_) return low_ + std::sqrt(p * p2_);
        return high_ - std::sqrt((1.0 - p) * p3_);
      case Kind::Pert: {
        if (!table_) return low_;
        double pos = p * kPertSteps;
        int j = static_cast<int>(pos);
        if (j >= kPertSteps) j = kPertSteps - 1;
        if (j < 0) j = 0;
        const double f = pos - j;
        const double* t = table_->data();
        return low_ + width_ * (t[j] + f * (t[j + 1] - t[j]));
      }
      case Kind::Normal: return p2_ == 0.0 ? p1_ : p1_ + p2_ * normal_quantile(p);
      case Kind::Lognormal: return std::exp(p2_ == 0.0 ? p1_ : p1_ + p2_ * normal_quantile(p));
      case Kind::Gamma: return p2_ * gamma_quantile(p1_, p);
      case Kind::Weibull: return p2_ * std::pow(-std::log1p(-p), 1.0 / p1_);
      case Kind::Exponential: return -std::log1p(-p) / p1_;
      case Kind::Empirical: {
        const auto& v = *values_;
        const double pos = p * static_cast<double>(v.size());
        const size_t j = pos >= static_cast<double>(v.size()) ? v.size() - 1 : static_cast<size_t>(pos);
        return v[j];
      }
    }
    return low_;
  }

  // Value for an engine draw u in [0, 1). Normal and lognormal use the open-interval form of u.
  double from_uniform(double u) const {
    if (kind_ == Kind::Normal || kind_ == Kind::Lognormal) return quantile(rng::open_unit(u));
    if (kind_ == Kind::Gamma) return p2_ * gamma_variate(p1_, u);
    return quantile(u);
  }

  // Same as from_uniform over a block (the engine's hot path).
  void transform(const double* u, double* out, size_t n) const {
    switch (kind_) {
      case Kind::Uniform: {
        const double lo = low_, w = width_;
        for (size_t i = 0; i < n; ++i) out[i] = lo + w * u[i];
        return;
      }
      case Kind::Pert: {
        if (!table_) {
          for (size_t i = 0; i < n; ++i) out[i] = low_;
          return;
        }
        const double* t = table_->data();
        const double lo = low_, w = width_;
        for (size_t i = 0; i < n; ++i) {
          const double pos = u[i] * kPertSteps;
          const int j = static_cast<int>(pos);  // u < 1, so j <= kPertSteps - 1
          const double f = pos - j;
          out[i] = lo + w * (t[j] + f * (t[j + 1] - t[j]));
        }
        return;
      }
      default:
        for (size_t i = 0; i < n; ++i) out[i] = from_uniform(u[i]);
    }
  }

  double cdf(double x) const {
    if (std::isnan(x)) return NAN;
    switch (kind_) {
      case Kind::Uniform:
        if (x < low_) return 0.0;
        if (x >= high_) return 1.0;
        return (x - low_) / width_;
      case Kind::Triangular:
        if (x < low_) return 0.0;
        if (x >= high_) return 1.0;
        if (x <= mode_) return p2_ > 0 ? (x - low_) * (x - low_) / p2_ : 0.0;
        return p3_ > 0 ? 1.0 - (high_ - x) * (high_ - x) / p3_ : 1.0;
      case Kind::Pert:
        if (x < low_) return 0.0;
        if (x >= high_) return 1.0;
        return inc_beta(p1_, p2_, (x - low_) / width_);
      case Kind::Normal:
        if (p2_ == 0.0) return x < p1_ ? 0.0 : 1.0;
        return normal_cdf((x - p1_) / p2_);
      case Kind::Lognormal:
        if (x <= 0.0) return 0.0;
        if (p2_ == 0.0) return std::log(x) < p1_ ? 0.0 : 1.0;
        return normal_cdf((std::log(x) - p1_) / p2_);
      case Kind::Gamma: return gamma_p(p1_, x / p2_);
      case Kind::Weibull: return x <= 0.0 ? 0.0 : -std::expm1(-std::pow(x / p2_, p1_));
      case Kind::Exponential: return x <= 0.0 ? 0.0 : -std::expm1(-p1_ * x);
      case Kind::Empirical: {
        const auto& v = *values_;
        return static_cast<double>(std::upper_bound(v.begin(), v.end(), x) - v.begin()) / static_cast<double>(v.size());
      }
    }
    return NAN;
  }

 private:
  Kind kind_ = Kind::Uniform;
  double low_ = 0, high_ = 0, mode_ = 0, width_ = 0;
  double p1_ = 0, p2_ = 0, p3_ = 0;
  std::shared_ptr<const std::vector<double>> table_;
  std::shared_ptr<const std::vector<double>> values_;  // empirical: the sorted sample
};

}  // namespace ds::dist
