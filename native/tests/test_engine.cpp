#include <cmath>
#include <string>

#include "../common/distributions.hpp"
#include "../common/json.hpp"
#include "../common/rng.hpp"
#include "../engine/engine.hpp"
#include "check.hpp"
#include "engine_run.hpp"

using ds::json::Value;
using namespace ds::test;

namespace {

void dump_problems(const Outcome& o) {
  for (const auto& d : o.error.details) std::fprintf(stderr, "      problem: %s: %s\n", d.field.c_str(), d.problem.c_str());
}

}  // namespace

TEST(sum_of_two_uniforms_matches_closed_form) {
  // a + b with a, b ~ U(0,1) is triangular on [0, 2]: mean 1, sd sqrt(1/6), p5 = sqrt(0.1), p95 = 2 - sqrt(0.1).
  auto o = run(R"J({"runs":1000000,"seed":12345,"scenario":{"variables":{"a":{"low":0,"high":1},"b":{"low":0,"high":1}},
                 "objective":"maximize_net_value"}})J");
  CHECK(o.ok);
  const Value& p = action(o.result, 0);
  CHECK_EQ_STR(str(p, "name"), "proceed");
  CHECK_EQ_STR(str(action(o.result, 1), "name"), "do_nothing");
  const double sd = std::sqrt(1.0 / 6.0), se = sd / 1000.0;
  CHECK_NEAR(num(p, "mean"), 1.0, 4 * se);
  CHECK_NEAR(num(p, "std_dev"), sd, 0.002);
  CHECK_NEAR(num(p, "std_error"), num(p, "std_dev") / 1000.0, 1e-15);
  CHECK_NEAR(num(p, "p5"), std::sqrt(0.1), 0.003);
  CHECK_NEAR(num(p, "p50"), 1.0, 0.003);
  CHECK_NEAR(num(p, "p95"), 2 - std::sqrt(0.1), 0.003);
  CHECK(num(p, "min") >= 0 && num(p, "min") < 0.01);
  CHECK(num(p, "max") <= 2 && num(p, "max") > 1.99);
  CHECK_NEAR(num(p, "prob_positive"), 1.0, 0);
  CHECK_NEAR(num(p, "prob_best"), 1.0, 0);
  CHECK_EQ_STR(str(o.result, "recommended_action"), "proceed");
  CHECK_NEAR(num(o.result, "confidence"), 1.0, 0);
  CHECK_NEAR(num(o.result, "evpi"), 0.0, 0);
  CHECK_NEAR(num(o.result, "expected_value"), num(p, "mean"), 0);
  const Value& n = action(o.result, 1);
  CHECK(num(n, "mean") == 0 && num(n, "std_dev") == 0 && num(n, "p95") == 0 && num(n, "prob_best") == 0);
  CHECK_NEAR(num(n, "expected_loss"), num(p, "mean"), 1e-12);
  CHECK(num(o.result, "runs") == 1000000);
  CHECK(o.result.find("seed")->as_u64() == 12345);
  CHECK(o.result.find("compute_ms")->as_number() > 0);
}

TEST(sum_of_ten_uniforms_moments) {
  std::string vars;
  for (int i = 0; i < 10; ++i) vars += std::string(i ? "," : "") + "\"v" + std::to_string(i) + "\":{\"low\":0,\"high\":1}";
  auto o = run(R"J({"runs":1000000,"seed":99,"scenario":{"variables":{)J" + vars + R"J(},"objective":"maximize_value"}})J");
  CHECK(o.ok);
  const Value& p = action(o.result, 0);
  const double sd = std::sqrt(10.0 / 12.0);
  CHECK_NEAR(num(p, "mean"), 5.0, 4 * sd / 1000.0);
  CHECK_NEAR(num(p, "std_dev"), sd, 0.003);
  CHECK_NEAR(num(p, "p50"), 5.0, 0.006);
  // Irwin-Hall(10) is close to normal; its exact 5th/95th percentiles are 5 -+ 1.50389 (from its CDF).
  CHECK_NEAR(num(p, "p5"), 5 - 1.50389, 0.006);
  CHECK_NEAR(num(p, "p95"), 5 + 1.50389, 0.006);
  // Every variable contributes equally: correlation 1/sqrt(10).
  for (const auto& s : o.result.find("sensitivity")->as_array()) CHECK_NEAR(num(s, "correlation"), 1 / std::sqrt(10.0), 0.005);
}

TEST(triangular_normal_and_pert_sampling) {
  auto o = run(R"J({"runs":1000000,"seed":5,"scenario":{"variables":{"t":{"low":0,"high":10,"distribution":"triangular","mode":2}},
                 "objective":"maximize_net_value"}})J");
  CHECK(o.ok);
  const Value& t = action(o.result, 0);
  CHECK_NEAR(num(t, "p5"), std::sqrt(0.05 * 20), 0.01);
  CHECK_NEAR(num(t, "p50"), 10 - std::sqrt(40.0), 0.01);
  CHECK_NEAR(num(t, "p95"), 10 - std::sqrt(0.05 * 80), 0.01);
  CHECK_NEAR(num(t, "mean"), 4.0, 0.01);

  o = run(R"J({"runs":1000000,"seed":6,"scenario":{"variables":{"z":{"low":-1.6448536269514722,"high":1.6448536269514722,
            "distribution":"normal"}},"objective":"maximize_net_value"}})J");
  CHECK(o.ok);
  const Value& z = action(o.result, 0);
  CHECK_NEAR(num(z, "mean"), 0.0, 0.004);
  CHECK_NEAR(num(z, "std_dev"), 1.0, 0.003);
  CHECK_NEAR(num(z, "p5"), -1.6448536269514722, 0.01);
  CHECK_NEAR(num(z, "p95"), 1.6448536269514722, 0.01);
  CHECK_NEAR(num(z, "prob_positive"), 0.5, 0.002);

  o = run(R"J({"runs":1000000,"seed":7,"scenario":{"variables":{"p":{"low":0,"high":10,"distribution":"pert","mode":2},
            "l":{"low":1,"high":100,"distribution":"lognormal"}},"objective":"maximize_net_value",
            "actions":[{"name":"pert","model":"p"},{"name":"loglog","model":"log(l)"}]}})J");
  CHECK(o.ok);
  // PERT mean (0 + 4*2 + 10)/6 = 3, sd sqrt(a b / ((a+b)^2 (a+b+1))) * 10 with a = 1.8, b = 4.2.
  CHECK_NEAR(num(action(o.result, 0), "mean"), 3.0, 0.005);
  CHECK_NEAR(num(action(o.result, 0), "std_dev"), 10 * std::sqrt(1.8 * 4.2 / (36.0 * 7.0)), 0.005);
  // log of the lognormal is normal with 5th/95th percentiles ln 1 and ln 100.
  CHECK_NEAR(num(action(o.result, 1), "mean"), std::log(10.0), 0.004);
  CHECK_NEAR(num(action(o.result, 1), "p95"), std::log(100.0), 0.01);
}

TEST(decision_with_known_best_action_and_evpi) {
  // A = x ~ U(0,1) (mean 0.5) against B = 0.6: B is best on average, A wins when x > 0.6.
  // EVPI = E[max(x, 0.6)] - 0.6 = 0.08; A's expected loss = E[max(0.6 - x, 0)] = 0.18.
  auto o = run(R"J({"runs":1000000,"seed":1,"scenario":{"variables":{"x":{"low":0,"high":1}},"objective":"maximize_value",
                 "target":0.9,"actions":[{"name":"A","model":"x"},{"name":"B","model":"0.6"}]}})J");
  CHECK(o.ok);
  CHECK_EQ_STR(str(o.result, "recommended_action"), "B");
  CHECK_NEAR(num(o.result, "expected_value"), 0.6, 0);
  CHECK_NEAR(num(o.result, "confidence"), 0.6, 0.002);
  CHECK_NEAR(num(o.result, "evpi"), 0.08, 0.001);
  CHECK_NEAR(num(action(o.result, 0), "prob_best"), 0.4, 0.002);
  CHECK_NEAR(num(action(o.result, 0), "expected_loss"), 0.18, 0.001);
  CHECK_NEAR(num(action(o.result, 1), "expected_loss"), 0.08, 0.001);
  CHECK_NEAR(num(action(o.result, 0), "prob_target"), 0.1, 0.002);
  CHECK_NEAR(num(action(o.result, 1), "prob_target"), 0.0, 0);
  CHECK_NEAR(num(action(o.result, 0), "prob_best") + num(action(o.result, 1), "prob_best"), 1.0, 1e-12);

  // Same numbers as costs: the cheaper on average (A, 0.5) wins; EVPI = 0.5 - E[min(x, 0.6)] = 0.08.
  o = run(R"J({"runs":1000000,"seed":1,"scenario":{"variables":{"x":{"low":0,"high":1}},"objective":"minimize_cost",
            "target":0.3,"actions":[{"name":"A","model":"x"},{"name":"B","model":"0.6"}]}})J");
  CHECK(o.ok);
  CHECK_EQ_STR(str(o.result, "recommended_action"), "A");
  CHECK_NEAR(num(o.result, "evpi"), 0.08, 0.001);
  CHECK_NEAR(num(o.result, "confidence"), 0.6, 0.002);
  CHECK_NEAR(num(action(o.result, 0), "prob_target"), 0.3, 0.002);  // P(cost <= 0.3)
  CHECK(num(o.result, "evpi") >= 0);

  // Identical actions tie: the first one is recommended and is best in every sample.
  o = run(R"J({"runs":1000,"seed":1,"scenario":{"variables":{"x":{"low":0,"high":1}},"objective":"maximize_value",
            "actions":[{"name":"first","model":"x"},{"name":"second","model":"x"}]}})J");
  CHECK(o.ok);
  CHECK_EQ_STR(str(o.result, "recommended_action"), "first");
  CHECK_NEAR(num(o.result, "confidence"), 1.0, 0);
  CHECK_NEAR(num(o.result, "evpi"), 0.0, 0);
}

TEST(common_random_numbers_across_actions) {
  // `set` with a range re-distributes x from the same uniform: B's value is exactly twice A's.
  auto o = run(R"J({"runs":20000,"seed":3,"scenario":{"variables":{"x":{"low":0,"high":1},"y":{"low":5,"high":6}},
                 "objective":"maximize_value","model":"x",
                 "actions":[{"name":"A"},{"name":"B","set":{"x":{"low":0,"high":2}}},{"name":"C","set":{"x":0.25}},
                 {"name":"D","model":"x + y","set":{"y":{"low":0,"high":0}}}]}})J");
  CHECK(o.ok);
  for (const char* k : {"mean", "p5", "p50", "p95", "min", "max"})
    CHECK(num(action(o.result, 1), k) == 2 * num(action(o.result, 0), k));
  CHECK(num(action(o.result, 2), "mean") == 0.25 && num(action(o.result, 2), "std_dev") == 0);
  for (const char* k : {"p5", "p50", "p95", "min", "max"}) CHECK(num(action(o.result, 3), k) == num(action(o.result, 0), k));
  CHECK_EQ_STR(str(o.result, "recommended_action"), "B");
  // B beats A and D except at x = 0, and C (0.25) only when 2x < 0.25.
  CHECK_NEAR(num(action(o.result, 1), "prob_best"), 0.875, 0.01);
}

TEST(sensitivity_and_swing) {
  auto o = run(R"J({"runs":200000,"seed":11,"detail":"full","scenario":{"variables":{"b":{"low":0,"high":1},
                 "a":{"low":0,"high":1},"k":{"low":3,"high":3}},"objective":"maximize_net_value","model":"10*a + b + k"}})J");
  CHECK(o.ok);
  const auto& s = o.result.find("sensitivity")->as_array();
  CHECK(s.size() == 3);
  CHECK_EQ_STR(str(s[0], "variable"), "a");
  CHECK_EQ_STR(str(s[1], "variable"), "b");
  CHECK_EQ_STR(str(s[2], "variable"), "k");
  CHECK_NEAR(num(s[0], "correlation"), 10 / std::sqrt(101.0), 0.002);
  CHECK_NEAR(num(s[1], "correlation"), 1 / std::sqrt(101.0), 0.01);
  CHECK(num(s[2], "correlation") == 0);
  // Top decile of a averages 0.95, bottom 0.05: swing 10 * 0.9 = 9.
  CHECK_NEAR(num(s[0], "swing"), 9.0, 0.05);
  CHECK_NEAR(num(s[1], "swing"), 0.9, 0.05);
  CHECK(num(s[2], "swing") == 0);
  // Summary detail has no swing.
  o = run(R"J({"runs":1000,"seed":11,"scenario":{"variables":{"a":{"low":0,"high":1}},"objective":"maximize_net_value"}})J");
  CHECK(o.result.find("sensitivity")->as_array()[0].find("swing") == nullptr);
  // A constant recommended value gives correlation 0.
  o = run(R"J({"runs":1000,"seed":11,"scenario":{"variables":{"a":{"low":0,"high":1}},"objective":"maximize_net_value",
            "actions":[{"name":"fixed","model":"5"},{"name":"var","model":"a"}]}})J");
  CHECK_EQ_STR(str(o.result, "recommended_action"), "fixed");
  CHECK(num(o.result.find("sensitivity")->as_array()[0], "correlation") == 0);
  // A model that is constant in practice (the branch never fires) is exact and uncorrelated too.
  o = run(R"J({"runs":10000,"seed":11,"scenario":{"variables":{"a":{"low":0,"high":1}},"objective":"maximize_net_value",
            "actions":[{"name":"flat","model":"if(a > 5, a, 0.1)"},{"name":"low","model":"a - 1"}]}})J");
  CHECK_EQ_STR(str(o.result, "recommended_action"), "flat");
  CHECK(num(action(o.result, 0), "mean") == 0.1 && num(action(o.result, 0), "std_dev") == 0);
  CHECK(num(o.result.find("sensitivity")->as_array()[0], "correlation") == 0);
}

TEST(moments_are_stable_far_from_zero) {
  // U(1e9, 1e9 + 1): a naive sum of squares would lose every digit of the variance.
  auto o = run(R"J({"runs":300000,"seed":8,"scenario":{"variables":{"a":{"low":1000000000,"high":1000000001},
                 "b":{"low":0,"high":1}},"objective":"maximize_value","model":"a + 0.001 * b"}})J");
  CHECK(o.ok);
  CHECK_NEAR(num(action(o.result, 0), "std_dev"), std::sqrt((1 + 1e-6) / 12.0), 0.002);
  CHECK_NEAR(num(action(o.result, 0), "mean"), 1e9 + 0.5005, 0.005);
  CHECK_NEAR(num(o.result.find("sensitivity")->as_array()[0], "correlation"), 1.0, 1e-5);
}

TEST(model_language) {
  auto value_of = [](const std::string& model) -> double {
    auto o = run(R"J({"runs":3,"seed":1,"scenario":{"variables":{"x":{"low":2,"high":2},"y":{"low":3,"high":3}},
                   "objective":"maximize_value","model":")J" + model + R"J("}})J");
    if (!o.ok) {
      dump_problems(o);
      return NAN;
    }
    return num(action(o.result, 0), "mean");
  };
  CHECK_NEAR(value_of("x + y * 2"), 8, 0);
  CHECK_NEAR(value_of("(x + y) * 2"), 10, 0);
  CHECK_NEAR(value_of("-x ^ 2"), -4, 0);
  CHECK_NEAR(value_of("2 ^ 3 ^ 2"), 512, 0);
  CHECK_NEAR(value_of("x ^ -1"), 0.5, 0);
  CHECK_NEAR(value_of("1e3 / x - .5"), 499.5, 0);
  CHECK_NEAR(value_of("min(x, y, 1) + max(x, y)"), 4, 0);
  CHECK_NEAR(value_of("abs(x - y) + sqrt(4) + exp(0) + log(1)"), 4, 0);
  CHECK_NEAR(value_of("(x < y) + (x <= 2) + (x > y) + (y >= 3) + (x == 2) + (x != 2)"), 4, 0);
  CHECK_NEAR(value_of("if(x > y, 100, -100)"), -100, 0);
  CHECK_NEAR(value_of("if(x, y, 0) + 1 - - 1"), 5, 0);
  CHECK_NEAR(value_of("x - y - 1"), -2, 0);
  CHECK_NEAR(value_of("x / y / 2"), 2.0 / 3.0 / 2.0, 0);
  CHECK_NEAR(value_of("x * y ^ 2"), 18, 0);
  CHECK_NEAR(value_of("if(x > 1, sqrt(x - 1), sqrt(1 - x))"), 1, 0);  // untaken branch's NaN is ignored
  // With random variables too (not just constant folding).
  auto o = run(R"J({"runs":5000,"seed":2,"scenario":{"variables":{"u":{"low":0,"high":1}},"objective":"maximize_value",
                 "actions":[{"name":"sq","model":"u^2"},{"name":"mul","model":"u*u"},{"name":"cmp","model":"if(u < 0.5, 1, 0)"},
                 {"name":"mm","model":"max(u, 1 - u) - min(u, 1 - u) - abs(2*u - 1)"}]}})J");
  CHECK(o.ok);
  CHECK(num(action(o.result, 0), "mean") == num(action(o.result, 1), "mean"));
  CHECK_NEAR(num(action(o.result, 2), "mean"), 0.5, 0.03);
  CHECK_NEAR(num(action(o.result, 3), "max"), 0, 1e-15);
  CHECK_NEAR(num(action(o.result, 3), "min"), 0, 1e-15);
}

TEST(determinism_same_bytes) {
  const std::string req = R"J({"runs":50000,"seed":18446744073709551615,"detail":"full","scenario":{"variables":{
      "a":{"low":-1,"high":4,"distribution":"pert","mode":0},"b":{"low":1,"high":9,"distribution":"lognormal"},
      "c":{"low":0,"high":1,"distribution":"normal"},"d":{"low":0,"high":3,"distribution":"triangular","mode":1}},
      "objective":"maximize_net_value","model":"a*b - c + d^2","actions":[{"name":"go"},{"name":"hedge","set":{"b":2}},
      {"name":"wait","model":"0"}]}})J";
  auto o1 = run(req), o2 = run(req);
  CHECK(o1.ok && o2.ok);
  CHECK(without_compute_ms(o1.result) == without_compute_ms(o2.result));
  CHECK_EQ_STR(ds::json::serialize(*o1.result.find("seed")), "18446744073709551615");
  auto o3 = run(std::string(req).replace(req.find("18446744073709551615"), 20, "18446744073709551614"));
  CHECK(without_compute_ms(o1.result) != without_compute_ms(o3.result));
  // Without a seed one is chosen, echoed, and reproduces the run (and fits in 53 bits).
  auto r1 = run(R"J({"runs":1000,"scenario":{"variables":{"a":{"low":0,"high":1}},"objective":"maximize_value"}})J");
  CHECK(r1.ok);
  const uint64_t seed = r1.result.find("seed")->as_u64();
  CHECK(seed < (uint64_t{1} << 53));
  auto r2 = run(R"J({"runs":1000,"seed":)J" + std::to_string(seed) +
                R"J(,"scenario":{"variables":{"a":{"low":0,"high":1}},"objective":"maximize_value"}})J");
  CHECK(without_compute_ms(r1.result) == without_compute_ms(r2.result));
}

TEST(chunk_streams_follow_the_documented_recipe) {
  // Sample i of the run is sample i % 4096 of chunk i / 4096; its draws come in declaration order.
  auto o = run(R"J({"runs":4097,"seed":77,"scenario":{"variables":{"z":{"low":0,"high":1},"a":{"low":0,"high":1}},
                 "objective":"maximize_value","actions":[{"name":"a","model":"a"}]}})J");
  CHECK(o.ok);
  double mx = -1, mn = 2;
  for (uint64_t c = 0; c < 2; ++c) {
    auto g = ds::rng::Xoshiro256ss::for_chunk(77, c);
    const int n = c == 0 ? 4096 : 1;
    for (int s = 0; s < n; ++s) {
      g.next();  // z
      const double a = ds::rng::to_unit(g.next());
      mx = std::max(mx, a);
      mn = std::min(mn, a);
    }
  }
  CHECK(num(action(o.result, 0), "max") == mx);
  CHECK(num(action(o.result, 0), "min") == mn);
}

TEST(single_run_edge_case) {
  auto o = run(R"J({"runs":1,"seed":0,"detail":"full","scenario":{"variables":{"a":{"low":0,"high":1}},
                 "objective":"maximize_value"}})J");
  CHECK(o.ok);
  const Value& p = action(o.result, 0);
  CHECK(num(p, "std_dev") == 0 && num(p, "std_error") == 0);
  CHECK(num(p, "p5") == num(p, "p95") && num(p, "min") == num(p, "max"));
  CHECK(num(o.result.find("sensitivity")->as_array()[0], "correlation") == 0);
}

TEST(validation_errors_name_fields_and_positions) {
  auto o = run(R"J({"scenario":{"variables":{"price":{"low":1,"high":2}},"objective":"maximize_net_value","model":"price * foo"}})J");
  CHECK(!o.ok);
  CHECK_EQ_STR(o.error.code, "validation_failed");
  CHECK(has_problem(o, "scenario.model", "unknown name 'foo' at position 8"));

  o = run(R"J({"scenario":{"variables":{"x":{"low":1,"high":2}},"objective":"maximize_net_value","model":"(x + 2"}})J");
  CHECK(has_problem(o, "scenario.model", "expected ')'") && has_problem(o, "scenario.model", "at position 6"));
  o = run(R"J({"scenario":{"variables":{"x":{"low":1,"high":2}},"objective":"maximize_net_value","model":"x + * 2"}})J");
  CHECK(has_problem(o, "scenario.model", "unexpected '*' at position 4"));
  o = run(R"J({"scenario":{"variables":{"x":{"low":1,"high":2}},"objective":"maximize_net_value","model":"sqrt(x, 2)"}})J");
  CHECK(has_problem(o, "scenario.model", "function 'sqrt' takes 1 argument, got 2 at position 0"));
  o = run(R"J({"scenario":{"variables":{"x":{"low":1,"high":2}},"objective":"maximize_net_value","model":"x = 2"}})J");
  CHECK(has_problem(o, "scenario.model", "at position 2"));
  o = run(R"J({"scenario":{"variables":{"x":{"low":1,"high":2}},"objective":"maximize_net_value","model":"bar(x)"}})J");
  CHECK(has_problem(o, "scenario.model", "unknown function 'bar' at position 0"));
  o = run(R"J({"scenario":{"variables":{"x":{"low":1,"high":2}},"objective":"maximize_net_value","model":"x $ 2"}})J");
  CHECK(has_problem(o, "scenario.model", "unexpected character '$' at position 2"));
  o = run(R"J({"scenario":{"variables":{"x":{"low":1,"high":2}},"objective":"maximize_net_value","model":"  "}})J");
  CHECK(has_problem(o, "scenario.model", "empty"));

  o = run(R"J({"runs":0,"seed":-1,"detail":"all","mode":"fast","extra":1,"scenario":{"variables":{
      "a":{"low":2,"high":1},"b":{"low":0,"high":1,"distribution":"lognormal"},"c":{"low":0,"high":1,"distribution":"triangular","mode":3},
      "d":{"low":0,"high":1,"distribution":"weibull"},"1bad":{"low":0,"high":1},"e":{"low":"0","high":1},"f":{"high":1},
      "g":{"low":0,"high":1,"sigma":2}},
      "objective":"maximize_profit","target":"high",
      "actions":[{"name":"go","set":{"zzz":1}},{"name":"go"},{"name":"x","model":"a +"},{"name":"y","set":{"a":"3"}},{"name":""}]}})J");
  CHECK(!o.ok);
  CHECK(has_problem(o, "runs", "between 1 and 10000000"));
  CHECK(has_problem(o, "seed", "unsigned 64-bit"));
  CHECK(has_problem(o, "detail", "summary"));
  CHECK(has_problem(o, "mode", "auto"));
  CHECK(has_problem(o, "extra", "unknown field"));
  CHECK(has_problem(o, "scenario.variables.a.high", "greater than or equal to low"));
  CHECK(has_problem(o, "scenario.variables.b.low", "greater than 0"));
  CHECK(has_problem(o, "scenario.variables.c.mode", "within [low, high]"));
  CHECK(has_problem(o, "scenario.variables.d.distribution", "uniform, triangular, pert, normal, lognormal"));
  CHECK(has_problem(o, "scenario.variables.1bad", "[A-Za-z_]"));
  CHECK(has_problem(o, "scenario.variables.e.low", "must be a number"));
  CHECK(has_problem(o, "scenario.variables.f.low", "is required"));
  CHECK(has_problem(o, "scenario.variables.g.sigma", "unknown field"));
  CHECK(has_problem(o, "scenario.objective", "maximize_net_value"));
  CHECK(has_problem(o, "scenario.target", "must be a number"));
  CHECK(has_problem(o, "scenario.actions[0].set.zzz", "unknown variable 'zzz'"));
  CHECK(has_problem(o, "scenario.actions[1].name", "duplicate action name 'go'"));
  CHECK(has_problem(o, "scenario.actions[2].model", "unexpected end of expression at position 3"));
  CHECK(has_problem(o, "scenario.actions[3].set.a", "number or an object"));
  CHECK(has_problem(o, "scenario.actions[4].name", "non-empty"));
  CHECK(o.error.message.find("problems") != std::string::npos);

  o = run(R"J({"runs":2.5,"scenario":{"variables":{},"objective":"minimize_cost"}})J");
  CHECK(has_problem(o, "runs", "integer"));
  CHECK(has_problem(o, "scenario.variables", "at least one"));
  o = run(R"J({"runs":10000001,"scenario":{"objective":"minimize_cost","variables":{"x":{"low":0,"high":1}},"actions":[]}})J");
  CHECK(has_problem(o, "runs", "between"));
  CHECK(has_problem(o, "scenario.actions", "at least one"));
  o = run(R"J([1,2])J");
  CHECK(!o.ok && o.error.details.size() == 1);
  o = run(R"J({"runs":10})J");
  CHECK(has_problem(o, "scenario", "required"));

  std::string many = R"J({"scenario":{"objective":"maximize_value","variables":{)J";
  for (int i = 0; i < 257; ++i) many += std::string(i ? "," : "") + "\"v" + std::to_string(i) + "\":{\"low\":0,\"high\":1}";
  o = run(many + "}}}");
  CHECK(has_problem(o, "scenario.variables", "at most 256"));
  std::string acts = R"J({"scenario":{"objective":"maximize_value","variables":{"x":{"low":0,"high":1}},"actions":[)J";
  for (int i = 0; i < 65; ++i) acts += std::string(i ? "," : "") + "{\"name\":\"a" + std::to_string(i) + "\"}";
  o = run(acts + "]}}");
  CHECK(has_problem(o, "scenario.actions", "at most 64"));
  o = run(R"J({"scenario":{"objective":"maximize_value","variables":{"x":{"low":0,"high":1}},"model":")J" +
          std::string(300, '(') + "x" + std::string(300, ')') + "\"}}");
  CHECK(has_problem(o, "scenario.model", "nested too deeply"));

  // Positions count characters, not bytes.
  o = run(R"J({"scenario":{"variables":{"x":{"low":1,"high":2}},"objective":"maximize_net_value","model":"\u00e9\u00e9 + x"}})J");
  CHECK(has_problem(o, "scenario.model", "at position 0"));
  o = run(R"J({"scenario":{"variables":{"x":{"low":1,"high":2}},"objective":"maximize_net_value","model":"x + \u00e9"}})J");
  CHECK(has_problem(o, "scenario.model", "unexpected character at position 4"));
}

TEST(non_finite_model_values_are_reported) {
  auto o = run(R"J({"runs":100,"seed":1,"scenario":{"variables":{"x":{"low":-1,"high":1}},"objective":"maximize_value",
                 "model":"sqrt(x)"}})J");
  CHECK(!o.ok);
  CHECK_EQ_STR(o.error.code, "validation_failed");
  CHECK(has_problem(o, "scenario.model", "non-finite"));
  o = run(R"J({"runs":100,"seed":1,"scenario":{"variables":{"x":{"low":-1,"high":1}},"objective":"maximize_value",
            "actions":[{"name":"ok","model":"x"},{"name":"bad","model":"1/(x-x)"}]}})J");
  CHECK(has_problem(o, "scenario.actions[1].model", "action 'bad' at run 0"));
}

TEST(deadline_gives_engine_timeout) {
  ds::engine::Options opt;
  opt.has_deadline = true;
  opt.deadline = std::chrono::steady_clock::now();
  Value result;
  ds::engine::Error err;
  bool ok = ds::engine::simulate(ds::json::parse(R"J({"runs":10000000,"seed":1,"scenario":{"variables":{"x":{"low":0,"high":1}},
      "objective":"maximize_value"}})J"), opt, result, err);
  CHECK(!ok);
  CHECK_EQ_STR(err.code, "engine_timeout");
}

TEST(fuzz_garbage_and_mutations_never_crash) {
  ds::rng::Xoshiro256ss g = ds::rng::Xoshiro256ss::for_chunk(2024, 0);
  const std::string base = R"J({"runs":50,"seed":3,"detail":"full","scenario":{"variables":{"a":{"low":0,"high":2,"distribution":"pert","mode":1},
      "b":{"low":1,"high":5,"distribution":"lognormal"},"c":{"low":-1,"high":1,"distribution":"normal"}},"objective":"maximize_net_value",
      "model":"if(a > 1, a*b - c^2, min(a, b) / (1 + abs(c)))","target":1,"actions":[{"name":"x"},{"name":"y","set":{"a":0.5,
      "b":{"low":2,"high":3,"distribution":"triangular","mode":2.5}}},{"name":"z","model":"exp(c) - log(b)"}]}})J";
  const char alphabet[] = "{}[]\":,0123456789.-+eE abcxyz\\u/nulltruefalse()*^<>=!";
  int parsed = 0, ran = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string s = base;
    const int edits = 1 + static_cast<int>(g.next() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = g.next() % s.size();
      switch (g.next() % 3) {
        case 0: s.erase(pos, 1 + g.next() % 3); break;
        case 1: s.insert(pos, 1, alphabet[g.next() % (sizeof alphabet - 1)]); break;
        default: s[pos] = static_cast<char>(g.next() % 256);
      }
    }
    if (iter % 10 == 0) {  // pure garbage
      s.clear();
      for (int k = static_cast<int>(g.next() % 64); k > 0; --k) s.push_back(static_cast<char>(g.next() % 256));
    }
    Value req;
    try {
      req = ds::json::parse(s);
    } catch (const ds::json::ParseError&) {
      continue;
    }
    ++parsed;
    Value result;
    ds::engine::Error err;
    if (ds::engine::simulate(req, {}, result, err)) ++ran;
    else CHECK(!err.code.empty() && !err.message.empty());
  }
  CHECK(parsed > 100);
  CHECK(ran > 10);
}

TEST(two_action_fast_path_matches_general_path) {
  // A third action that is never best leaves the first two's numbers unchanged, bit for bit, though
  // it switches the engine from its two-action pass to the general one.
  const std::string two = R"J({"runs":20000,"seed":21,"scenario":{"variables":{"x":{"low":-1,"high":1},"y":{"low":0,"high":2}},
      "objective":"maximize_value","actions":[{"name":"a","model":"x*y"},{"name":"b","model":"y - 1"}]}})J";
  std::string three = two;
  three.insert(three.rfind(']'), R"J(,{"name":"c","model":"-1000"})J");
  auto o2 = run(two), o3 = run(three);
  CHECK(o2.ok && o3.ok);
  for (size_t a = 0; a < 2; ++a)
    for (const char* k : {"prob_best", "expected_loss", "mean", "p50"})
      CHECK(num(action(o2.result, a), k) == num(action(o3.result, a), k));
  CHECK(num(action(o3.result, 2), "prob_best") == 0);
  CHECK(num(o2.result, "evpi") == num(o3.result, "evpi"));
  // Same for minimize_cost, with the never-best action far above.
  std::string two_min = two, three_min;
  two_min.replace(two_min.find("maximize_value"), 14, "minimize_cost");
  three_min = two_min;
  three_min.insert(three_min.rfind(']'), R"J(,{"name":"c","model":"1000"})J");
  o2 = run(two_min);
  o3 = run(three_min);
  for (size_t a = 0; a < 2; ++a)
    for (const char* k : {"prob_best", "expected_loss"}) CHECK(num(action(o2.result, a), k) == num(action(o3.result, a), k));
}

TEST(constant_non_finite_models_are_refused) {
  for (const char* model : {"0/0", "exp(1000)"}) {
    auto o = run(std::string(R"J({"runs":10,"seed":1,"scenario":{"variables":{"x":{"low":1,"high":2}},)J") +
                 R"J("objective":"maximize_net_value","model":")J" + model + R"J("}})J");
    CHECK(!o.ok);
    CHECK_EQ_STR(o.error.code, "validation_failed");
    CHECK(has_problem(o, "scenario.model", "non-finite number for action 'proceed' at run 0"));
  }
}

TEST(range_bounds_beyond_1e150_are_refused) {
  auto o = run(R"J({"runs":10,"seed":1,"scenario":{"variables":{"x":{"low":1e308,"high":1.7e308}},
                 "objective":"maximize_net_value"}})J");
  CHECK(!o.ok);
  CHECK_EQ_STR(o.error.code, "validation_failed");
  CHECK(has_problem(o, "scenario.variables.x.low", "between -1e150 and 1e150"));
  CHECK(has_problem(o, "scenario.variables.x.high", "between -1e150 and 1e150"));
  o = run(R"J({"runs":10,"seed":1,"scenario":{"variables":{"x":{"low":1,"high":2}},"objective":"maximize_net_value",
            "actions":[{"name":"a","set":{"x":-2e150}}]}})J");
  CHECK(has_problem(o, "scenario.actions[0].set.x", "between -1e150 and 1e150"));
  o = run(R"J({"runs":10,"seed":1,"scenario":{"variables":{"x":{"low":-1e150,"high":1e150}},
            "objective":"maximize_net_value"}})J");
  CHECK(o.ok);
}

TEST(non_finite_statistics_are_refused) {
  // Every value is finite (at most 1e300) but their spread squared overflows.
  for (const char* runs : {"10", "10000"}) {
    auto o = run(std::string(R"J({"runs":)J") + runs +
                 R"J(,"seed":1,"scenario":{"variables":{"x":{"low":5e149,"high":1e150}},"objective":"maximize_net_value","model":"x*x"}})J");
    CHECK(!o.ok);
    CHECK_EQ_STR(o.error.code, "validation_failed");
    CHECK(has_problem(o, "scenario.model", "are too large"));
  }
}

TEST(non_finite_statistics_after_the_run_are_refused) {
  // Each run's values and spread are finite; the sum of the losses over the runs is not.
  auto o = run(R"J({"runs":10,"seed":1,"scenario":{"variables":{"x":{"low":1e150,"high":1e150}},"objective":"maximize_value",
                 "actions":[{"name":"a","model":"x*x*1e7"},{"name":"b","model":"-x*x*1e7"}]}})J");
  CHECK(!o.ok);
  CHECK_EQ_STR(o.error.code, "validation_failed");
  CHECK(has_problem(o, "scenario.actions[1].model", "actions[1].expected_loss overflows a double"));
}
