// Families with explicit parameters (gamma, weibull, exponential, ...), empirical resampling and
// correlated inputs (Iman–Conover).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../common/distributions.hpp"
#include "../common/json.hpp"
#include "../common/rng.hpp"
#include "../engine/correlate.hpp"
#include "../engine/engine.hpp"
#include "check.hpp"
#include "engine_run.hpp"

using ds::json::Value;
using namespace ds::test;
using namespace ds::dist;
namespace corr = ds::engine::corr;

namespace {

// One variable `x` with the given spec, one action whose model is x.
Outcome one(const std::string& spec, long runs, int seed) {
  return run(R"({"runs":)" + std::to_string(runs) + R"(,"seed":)" + std::to_string(seed) +
             R"(,"scenario":{"variables":{"x":)" + spec +
             R"(},"objective":"maximize_value","actions":[{"name":"x","model":"x"}]}})");
}

}  // namespace

TEST(gamma_weibull_exponential_means_within_three_standard_errors) {
  const long n = 400000;
  const double sq = std::sqrt(static_cast<double>(n));
  struct Case {
    std::string spec;
    double mean, sd;
  };
  const double g1 = std::tgamma(1 + 1 / 1.5), g2 = std::tgamma(1 + 2 / 1.5);
  const double h1 = std::tgamma(1 + 1 / 0.7), h2 = std::tgamma(1 + 2 / 0.7);
  const std::vector<Case> cases = {
      {R"({"distribution":"gamma","params":{"shape":2.5,"scale":3}})", 7.5, std::sqrt(2.5) * 3},
      {R"({"distribution":"gamma","params":{"shape":0.3,"scale":2}})", 0.6, std::sqrt(0.3) * 2},
      {R"({"distribution":"gamma","params":{"shape":1,"scale":1}})", 1.0, 1.0},
      {R"({"distribution":"gamma","params":{"shape":50,"scale":0.1}})", 5.0, std::sqrt(50.0) * 0.1},
      {R"({"distribution":"weibull","params":{"shape":1.5,"scale":2}})", 2 * g1, 2 * std::sqrt(g2 - g1 * g1)},
      {R"({"distribution":"weibull","params":{"shape":0.7,"scale":10}})", 10 * h1, 10 * std::sqrt(h2 - h1 * h1)},
      {R"({"distribution":"exponential","params":{"rate":0.25}})", 4.0, 4.0},
      {R"({"distribution":"normal","params":{"mean":-3,"sd":2}})", -3.0, 2.0},
      {R"({"distribution":"lognormal","params":{"meanlog":0.5,"sdlog":0.4}})", std::exp(0.5 + 0.08),
       std::exp(0.5 + 0.08) * std::sqrt(std::expm1(0.16))},
  };
  int seed = 11;
  for (const auto& c : cases) {
    auto o = one(c.spec, n, seed++);
    CHECK(o.ok);
    if (!o.ok) continue;
    const Value& a = action(o.result, 0);
    CHECK_NEAR(num(a, "mean"), c.mean, 3 * c.sd / sq);
    // The sample sd within a few of its own standard errors (kurtosis-dependent; 5% is ample here).
    CHECK_NEAR(num(a, "std_dev"), c.sd, 0.05 * c.sd);
    CHECK(num(a, "min") >= (c.spec.find("normal\"") != std::string::npos ? -1e9 : 0.0));
  }
}

TEST(gamma_quantile_and_cdf_round_trip) {
  for (double a : {0.2, 1.0, 2.5, 40.0}) {
    Dist d = Dist::make_params(Kind::Gamma, {a, 2.0});
    for (double p : {0.001, 0.1, 0.5, 0.9, 0.999}) CHECK_NEAR(d.cdf(d.quantile(p)), p, 1e-10);
  }
  // Gamma(1, scale) is exponential with rate 1/scale.
  Dist g = Dist::make_params(Kind::Gamma, {1.0, 4.0});
  Dist e = Dist::make_params(Kind::Exponential, {0.25});
  for (double p : {0.05, 0.5, 0.95}) CHECK_NEAR(g.quantile(p), e.quantile(p), 1e-9);
  Dist w = Dist::make_params(Kind::Weibull, {2.0, 3.0});
  CHECK_NEAR(w.quantile(0.5), 3.0 * std::sqrt(std::log(2.0)), 1e-14);
  CHECK_NEAR(w.cdf(w.quantile(0.3)), 0.3, 1e-14);
}

TEST(params_forms_of_range_families_draw_the_same_numbers) {
  const std::vector<std::pair<std::string, std::string>> same = {
      {R"({"low":2,"high":5})", R"({"distribution":"uniform","params":{"min":2,"max":5}})"},
      {R"({"low":0,"high":10,"distribution":"triangular","mode":2})",
       R"({"distribution":"triangular","params":{"min":0,"mode":2,"max":10}})"},
      {R"({"low":0,"high":10,"distribution":"pert","mode":7})",
       R"({"distribution":"pert","params":{"min":0,"mode":7,"max":10}})"},
  };
  for (const auto& [range, params] : same) {
    auto a = one(range, 5000, 3), b = one(params, 5000, 3);
    CHECK(a.ok && b.ok);
    CHECK_EQ_STR(without_compute_ms(a.result), without_compute_ms(b.result));
  }
}

TEST(empirical_resamples_the_values) {
  // Values 1, 2, 3, 10 in any order: every draw is one of them, each with probability 1/4.
  auto o = one(R"({"distribution":"empirical","values":[10,3,1,2]})", 200000, 5);
  CHECK(o.ok);
  const Value& a = action(o.result, 0);
  const double sd = std::sqrt((1 + 4 + 9 + 100) / 4.0 - 16.0);
  CHECK_NEAR(num(a, "mean"), 4.0, 3 * sd / std::sqrt(200000.0));
  CHECK_NEAR(num(a, "min"), 1.0, 0);
  CHECK_NEAR(num(a, "max"), 10.0, 0);
  CHECK_NEAR(num(a, "p50"), 2.5, 0.5 + 1e-12);  // type-7 median of a sample of {1,2,3,10}: 2, 2.5 or 3
  auto sorted = one(R"({"distribution":"empirical","values":[1,2,3,10]})", 2000, 5);
  CHECK_EQ_STR(without_compute_ms(sorted.result), without_compute_ms(one(R"({"distribution":"empirical","values":[10,3,1,2]})", 2000, 5).result));
  auto constant = one(R"({"distribution":"empirical","values":[7]})", 100, 1);
  CHECK(constant.ok);
  CHECK_NEAR(num(action(constant.result, 0), "std_dev"), 0.0, 0);
}

TEST(new_family_validation_names_fields) {
  auto o = one(R"({"distribution":"gamma","params":{"shape":0,"scale":-1,"rate":2}})", 10, 1);
  CHECK(!o.ok);
  CHECK(has_problem(o, "scenario.variables.x.params.rate", "unknown parameter"));
  o = one(R"({"distribution":"gamma","params":{"shape":0,"scale":-1}})", 10, 1);
  CHECK(has_problem(o, "scenario.variables.x.params.shape", "greater than 0"));
  CHECK(has_problem(o, "scenario.variables.x.params.scale", "greater than 0"));
  o = one(R"({"distribution":"weibull","params":{"shape":1}})", 10, 1);
  CHECK(has_problem(o, "scenario.variables.x.params.scale", "is required"));
  o = one(R"({"distribution":"gamma","low":1,"high":2})", 10, 1);
  CHECK(has_problem(o, "scenario.variables.x.distribution", "must be one of"));
  o = one(R"({"distribution":"triangular","params":{"min":0,"mode":5,"max":3}})", 10, 1);
  CHECK(has_problem(o, "scenario.variables.x.params.mode", "within [min, max]"));
  o = one(R"({"distribution":"uniform","params":{"min":4,"max":3}})", 10, 1);
  CHECK(has_problem(o, "scenario.variables.x.params.max", "greater than or equal to min"));
  o = one(R"({"distribution":"empirical","values":[]})", 10, 1);
  CHECK(has_problem(o, "scenario.variables.x.values", "1 to 1000000"));
  o = one(R"({"distribution":"empirical","values":[1,"a"]})", 10, 1);
  CHECK(has_problem(o, "scenario.variables.x.values[1]", "finite number"));
  o = one(R"({"distribution":"exponential","params":{"rate":1e200}})", 10, 1);
  CHECK(has_problem(o, "scenario.variables.x.params.rate", "1e150"));
  CHECK_EQ_STR(o.error.code, "validation_failed");
}

namespace {

// A random correlation matrix: B B^T for a random k x k B, scaled to a unit diagonal.
corr::Matrix random_correlation(size_t k, ds::rng::Xoshiro256ss& g) {
  corr::Matrix b(k * k), c(k * k, 0.0);
  for (auto& x : b) x = ds::dist::normal_quantile(ds::rng::open_unit(ds::rng::to_unit(g.next())));
  for (size_t i = 0; i < k; ++i)
    for (size_t j = 0; j < k; ++j)
      for (size_t m = 0; m < k; ++m) c[i * k + j] += b[i * k + m] * b[j * k + m];
  std::vector<double> d(k);
  for (size_t i = 0; i < k; ++i) d[i] = 1 / std::sqrt(c[i * k + i]);
  for (size_t i = 0; i < k; ++i)
    for (size_t j = 0; j < k; ++j) c[i * k + j] *= d[i] * d[j];
  return c;
}

}  // namespace

TEST(iman_conover_keeps_marginals_and_hits_rank_targets_property) {
  auto g = ds::rng::Xoshiro256ss::for_chunk(2024, 0);
  const size_t n = 4096;
  for (int trial = 0; trial < 40; ++trial) {
    const size_t k = 2 + static_cast<size_t>(trial % 5);
    corr::Matrix rank = random_correlation(k, g);
    corr::Matrix pearson(k * k);
    for (size_t i = 0; i < k * k; ++i) pearson[i] = corr::pearson_for_spearman(rank[i]);
    if (corr::min_eigenvalue(pearson, k) < 0) pearson = corr::nearest_correlation(pearson, k);
    corr::ImanConover ic(corr::cholesky_psd(pearson, k), k);
    // Columns of different families; keys are the draws, carry the uniforms they came from.
    std::vector<Dist> dists = {Dist::make_params(Kind::Gamma, {0.8, 2}), Dist::make(Kind::Uniform, 0, 1, false, 0),
                               Dist::make_params(Kind::Weibull, {1.5, 1}), Dist::make_empirical({1, 2, 2, 3, 5, 8}),
                               Dist::make(Kind::Normal, 0, 10, false, 0), Dist::make_params(Kind::Exponential, {3})};
    std::vector<std::vector<double>> u(k, std::vector<double>(n)), x(k, std::vector<double>(n)), before(k);
    std::vector<double*> keys(k), carry(k);
    for (size_t j = 0; j < k; ++j) {
      for (auto& v : u[j]) v = ds::rng::to_unit(g.next());
      dists[j].transform(u[j].data(), x[j].data(), n);
      before[j] = x[j];
      std::sort(before[j].begin(), before[j].end());
      keys[j] = x[j].data();
      carry[j] = u[j].data();
    }
    ic.apply(n, keys, carry);
    for (size_t j = 0; j < k; ++j) {
      std::vector<double> after = x[j];
      std::sort(after.begin(), after.end());
      CHECK(after == before[j]);  // the marginal is exactly unchanged
      bool paired = true;  // each draw still sits beside the uniform it came from
      for (size_t s = 0; s < n; ++s) paired = paired && dists[j].from_uniform(u[j][s]) == x[j][s];
      CHECK(paired);
    }
    // Spearman's standard error under independence is 1/sqrt(n - 1); Iman–Conover lands far closer,
    // but the issue's bound is 3 standard errors (ties in the empirical column lower its ceiling).
    for (size_t i = 0; i < k; ++i)
      for (size_t j = i + 1; j < k; ++j) {
        const double rho = corr::spearman(x[i].data(), x[j].data(), n);
        CHECK_NEAR(corr::spearman_of_ranks(ic.ranks(i), ic.ranks(j), n), rho, 0);
        const bool tied = i == 3 || j == 3;
        CHECK_NEAR(rho, rank[i * k + j], tied ? 0.1 : 3 / std::sqrt(n - 1.0));
      }
  }
}

TEST(nearest_correlation_is_valid_and_close) {
  // An impossible triple: a~b and b~c strongly positive, a~c strongly negative.
  corr::Matrix m = {1, 0.9, -0.9, 0.9, 1, 0.9, -0.9, 0.9, 1};
  CHECK(corr::min_eigenvalue(m, 3) < 0);
  corr::Matrix near = corr::nearest_correlation(m, 3);
  CHECK(corr::min_eigenvalue(near, 3) > -1e-10);
  for (size_t i = 0; i < 3; ++i) CHECK_NEAR(near[i * 3 + i], 1.0, 0);
  // Higham's reference for this symmetric case: the off-diagonals move equally toward feasibility.
  CHECK(near[1] < 0.9 && near[5] < 0.9 && near[2] > -0.9);
  CHECK_NEAR(near[1], near[5], 1e-9);
  // A valid matrix is its own nearest.
  corr::Matrix ok = {1, 0.5, 0.5, 1};
  corr::Matrix same = corr::nearest_correlation(ok, 2);
  CHECK_NEAR(same[1], 0.5, 1e-9);
}

namespace {

const char* kCorrelated = R"({"runs":30000,"seed":8,"scenario":{"variables":{
  "price":{"distribution":"gamma","params":{"shape":3,"scale":2}},
  "demand":{"distribution":"weibull","params":{"shape":2,"scale":100}},
  "cost":{"low":1,"high":4,"distribution":"triangular","mode":2},
  "other":{"low":0,"high":1}},
  "objective":"maximize_value",
  "actions":[{"name":"price","model":"price"},{"name":"demand","model":"demand"},{"name":"cost","model":"cost"},
             {"name":"other","model":"other"},{"name":"revenue","model":"price * demand - cost"}]
  CORR}})";

std::string correlated(const std::string& corr) {
  std::string s = kCorrelated;
  s.replace(s.find("CORR"), 4, corr);
  return s;
}

}  // namespace

TEST(engine_correlations_keep_marginals_and_report_achieved) {
  auto plain = run(correlated(""));
  auto withc = run(correlated(R"(,"correlations":[{"a":"price","b":"demand","rank":-0.6},{"a":"cost","b":"demand","rank":0.3}])"));
  CHECK(plain.ok && withc.ok);
  if (!plain.ok || !withc.ok) return;
  // Every variable's draws are the same multiset: order statistics agree exactly, means to rounding.
  for (size_t a = 0; a < 4; ++a) {
    const Value& p = action(plain.result, a);
    const Value& c = action(withc.result, a);
    for (const char* key : {"min", "max", "p5", "p50", "p95"}) CHECK_NEAR(num(c, key), num(p, key), 0);
    CHECK_NEAR(num(c, "mean"), num(p, "mean"), 1e-12 * std::fabs(num(p, "mean")));
    CHECK_NEAR(num(c, "std_dev"), num(p, "std_dev"), 1e-9 * num(p, "std_dev"));
  }
  // The uncorrelated variable keeps its very draws: the revenue differs, "other" does not.
  const auto& cs = withc.result.find("correlations")->as_array();
  CHECK(cs.size() == 2);
  const double se = 1 / std::sqrt(30000 - 1.0);
  CHECK_NEAR(num(cs[0], "target"), -0.6, 0);
  CHECK_NEAR(num(cs[0], "achieved"), -0.6, 3 * se);
  CHECK_NEAR(num(cs[1], "achieved"), 0.3, 3 * se);
  CHECK(!withc.result.find("correlations_adjusted")->as_bool());
  CHECK(!cs[0].find("adjusted"));
  // Negative price-demand correlation lowers E[price * demand] below the independent product.
  CHECK(num(action(withc.result, 4), "mean") < num(action(plain.result, 4), "mean"));
  // Reproducible from the seed.
  auto again = run(correlated(R"(,"correlations":[{"a":"price","b":"demand","rank":-0.6},{"a":"cost","b":"demand","rank":0.3}])"));
  CHECK_EQ_STR(without_compute_ms(again.result), without_compute_ms(withc.result));
}

TEST(engine_refuses_or_adjusts_an_invalid_correlation_matrix) {
  const std::string bad =
      R"(,"correlations":[{"a":"price","b":"demand","rank":0.9},{"a":"demand","b":"cost","rank":0.9},{"a":"price","b":"cost","rank":-0.9}])";
  auto o = run(correlated(bad));
  CHECK(!o.ok);
  CHECK_EQ_STR(o.error.code, "correlation_matrix_invalid");
  CHECK(has_problem(o, "scenario.correlations[2]", "not positive semi-definite"));
  CHECK(has_problem(o, "scenario.correlations[2]", "price and cost"));
  auto adj = run(correlated(bad.substr(0, bad.size() - 1) + R"(],"adjust_correlations":true)"));
  CHECK(adj.ok);
  if (!adj.ok) return;
  CHECK(adj.result.find("correlations_adjusted")->as_bool());
  const auto& cs = adj.result.find("correlations")->as_array();
  CHECK(cs.size() == 3);
  corr::Matrix m = {1, num(cs[0], "adjusted"), num(cs[2], "adjusted"), num(cs[0], "adjusted"), 1,
                    num(cs[1], "adjusted"), num(cs[2], "adjusted"), num(cs[1], "adjusted"), 1};
  CHECK(corr::min_eigenvalue(m, 3) > -1e-9);
  for (const auto& c : cs) CHECK_NEAR(num(c, "achieved"), num(c, "adjusted"), 3 / std::sqrt(30000 - 1.0));
}

TEST(correlation_validation_names_fields) {
  auto o = run(correlated(R"(,"correlations":[{"a":"price","b":"nope","rank":0.2},{"a":"price","b":"price","rank":0.1},
     {"a":"cost","b":"price","rank":1.5},{"a":"demand","b":"price","rank":0.1},{"a":"price","b":"demand","rank":0.2}],
     "adjust_correlations":"yes")"));
  CHECK(!o.ok);
  CHECK_EQ_STR(o.error.code, "validation_failed");
  CHECK(has_problem(o, "scenario.correlations[0].b", "unknown variable 'nope'"));
  CHECK(has_problem(o, "scenario.correlations[1].b", "different variable"));
  CHECK(has_problem(o, "scenario.correlations[2].rank", "between -1 and 1"));
  CHECK(has_problem(o, "scenario.correlations[4]", "duplicate pair"));
  CHECK(has_problem(o, "scenario.adjust_correlations", "true or false"));
  auto c = run(R"({"runs":10,"seed":1,"scenario":{"variables":{"a":{"low":1,"high":1},"b":{"low":0,"high":1}},
     "objective":"maximize_value","correlations":[{"a":"a","b":"b","rank":0.5}]}})");
  CHECK(has_problem(c, "scenario.correlations[0].a", "constant"));
}
