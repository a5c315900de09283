#include <cmath>
#include <string>

#include "../common/distributions.hpp"
#include "../common/json.hpp"
#include "../runtime/modules.hpp"
#include "check.hpp"

using ds::json::Value;

namespace {

struct Call {
  bool ok;
  Value result;
  ds::runtime::ExecError error;
};

Call call(const std::string& module, const std::string& fn, const std::string& args_json) {
  Call c;
  c.ok = ds::runtime::execute(module, fn, ds::json::parse(args_json), c.result, c.error);
  return c;
}

double value(const std::string& module, const std::string& fn, const std::string& args_json) {
  Call c = call(module, fn, args_json);
  if (!c.ok) {
    std::fprintf(stderr, "      %s.%s(%s) failed: %s\n", module.c_str(), fn.c_str(), args_json.c_str(), c.error.message.c_str());
    return NAN;
  }
  return c.result.as_number();
}

bool fails_with(const std::string& module, const std::string& fn, const std::string& args_json, const std::string& code,
                const std::string& needle) {
  Call c = call(module, fn, args_json);
  const bool ok = !c.ok && c.error.code == code && c.error.message.find(needle) != std::string::npos;
  if (!ok) std::fprintf(stderr, "      got %s: %s\n", c.error.code.c_str(), c.error.message.c_str());
  return ok;
}

}  // namespace

TEST(finance_matches_spreadsheet_values) {
  CHECK_NEAR(value("finance", "npv", R"J({"rate":0.1,"cashflows":[-100,60,60]})J"), 4.1322314049586777, 1e-12);
  CHECK_NEAR(value("finance", "npv", R"J([0.1, [-100, 60, 60]])J"), 4.1322314049586777, 1e-12);
  // IRR of [-100, 60, 60]: 60x + 60x^2 = 100 with x = 1 / (1 + r).
  const double x = (-1 + std::sqrt(1 + 4 * 100.0 / 60.0)) / 2;
  CHECK_NEAR(value("finance", "irr", R"J({"cashflows":[-100,60,60]})J"), 1 / x - 1, 1e-12);
  CHECK_NEAR(value("finance", "irr", R"J([-100,60,60])J"), 0.130662386291807, 1e-12);
  CHECK_NEAR(value("finance", "irr", R"J({"cashflows":[-70000,12000,15000,18000,21000,26000]})J"), 0.086630948036531, 1e-9);
  CHECK_NEAR(value("finance", "irr", R"J({"cashflows":[-1000, 0, 0, 0, 10000000], "guess": 0.1})J"), std::pow(10000.0, 0.25) - 1, 1e-9);
  // Spreadsheet documentation examples.
  CHECK_NEAR(value("finance", "pmt", R"J({"rate":0.0066666666666666671,"nper":10,"pv":10000})J"), -1037.0320893591636, 1e-8);
  CHECK_NEAR(value("finance", "pmt", R"J([0.0066666666666666671, 10, 10000, 0, 1])J"), -1030.1643271779772, 1e-8);
  CHECK_NEAR(value("finance", "pmt", R"J({"rate":0.004166666666666667,"nper":360,"pv":200000})J"), -1073.6432460242795, 1e-7);
  CHECK_NEAR(value("finance", "pmt", R"J({"rate":0,"nper":10,"pv":1000})J"), -100, 0);
  CHECK_NEAR(value("finance", "fv", R"J({"rate":0.005,"nper":10,"pmt":-200,"pv":-500,"when":1})J"), 2581.4033740601, 1e-8);
  CHECK_NEAR(value("finance", "fv", R"J({"rate":0.01,"nper":12,"pmt":-1000})J"), 12682.503013196976, 1e-8);
  CHECK_NEAR(value("finance", "fv", R"J({"rate":0,"nper":12,"pmt":-100,"pv":-50})J"), 1250, 0);
  CHECK_NEAR(value("finance", "fv", R"J({"rate":0.005,"nper":10,"pmt":-200,"pv":-500,"when":"begin"})J"), 2581.4033740601, 1e-8);
  CHECK(fails_with("finance", "irr", R"J({"cashflows":[100,60,60]})J", "invalid_args", "'cashflows'"));
  CHECK(fails_with("finance", "npv", R"J({"rate":-1,"cashflows":[1]})J", "invalid_args", "'rate'"));
  CHECK(fails_with("finance", "npv", R"J({"cashflows":[1]})J", "invalid_args", "'rate'"));
  CHECK(fails_with("finance", "pmt", R"J({"rate":0.1,"nper":0,"pv":1})J", "invalid_args", "'nper'"));
  CHECK(fails_with("finance", "pmt", R"J({"rate":0.1,"nper":2,"pv":1,"when":2})J", "invalid_args", "'when'"));
  CHECK(fails_with("finance", "fv", R"J({"rate":0.1,"nper":2,"pmt":"x"})J", "invalid_args", "'pmt' of finance.fv must be a number"));
  CHECK(fails_with("finance", "npv", R"J({"rate":0.1,"cashflows":[1],"extra":1})J", "invalid_args", "Unknown argument 'extra'"));
  CHECK(fails_with("finance", "npv", R"J([0.1,[1],3])J", "invalid_args", "Too many positional arguments"));
}

TEST(stats_functions) {
  CHECK_NEAR(value("stats", "mean", R"J({"values":[1,2,3,4]})J"), 2.5, 0);
  CHECK_NEAR(value("stats", "mean", R"J([1,2,3,4])J"), 2.5, 0);
  CHECK_NEAR(value("stats", "mean", R"J([[1e16, 1, -1e16]])J"), 1.0 / 3.0, 1e-16);
  CHECK_NEAR(value("stats", "median", R"J({"values":[3,1,2]})J"), 2, 0);
  CHECK_NEAR(value("stats", "median", R"J({"values":[4,1,3,2]})J"), 2.5, 0);
  CHECK_NEAR(value("stats", "percentile", R"J({"values":[1,2,3,4,5],"p":40})J"), 2.6, 1e-15);
  CHECK_NEAR(value("stats", "percentile", R"J([[15,20,35,40,50], 5])J"), 16, 1e-12);
  CHECK_NEAR(value("stats", "percentile", R"J({"values":[1,2,3,4,5],"p":100})J"), 5, 0);
  CHECK_NEAR(value("stats", "std_dev", R"J({"values":[2,4,4,4,5,5,7,9]})J"), std::sqrt(32.0 / 7.0), 1e-15);
  CHECK_NEAR(value("stats", "std_dev", R"J({"values":[5]})J"), 0, 0);
  Call d = call("stats", "describe", R"J({"values":[9,1,8,2,7,3,6,4,5]})J");
  CHECK(d.ok);
  CHECK_EQ_STR(ds::json::serialize(d.result),
               R"J({"count":9,"mean":5,"std_dev":2.7386127875258306,"min":1,"p25":3,"median":5,"p75":7,"max":9})J");
  CHECK(fails_with("stats", "mean", R"J({"values":[]})J", "invalid_args", "'values' of stats.mean must not be empty"));
  CHECK(fails_with("stats", "mean", R"J({"values":[1,"2"]})J", "invalid_args", "element 1"));
  CHECK(fails_with("stats", "mean", R"J({})J", "invalid_args", "Missing required argument 'values'"));
  CHECK(fails_with("stats", "mean", R"J(null)J", "invalid_args", "'values'"));
  CHECK(fails_with("stats", "percentile", R"J({"values":[1],"p":101})J", "invalid_args", "'p'"));
  CHECK(fails_with("stats", "percentile", R"J([1,2,3])J", "invalid_args", "'p'"));
  CHECK(fails_with("stats", "nope", R"J({})J", "unknown_function", "'nope'"));
  CHECK(fails_with("nope", "mean", R"J({})J", "unknown_module", "'nope'"));
}

TEST(decision_textbook_example) {
  // Thompson Lumber (Render & Stair): large plant, small plant, nothing; favourable/unfavourable market.
  const std::string args = R"J({"payoffs":{"large":[200000,-180000],"small":[100000,-20000],"nothing":[0,0]},
                               "probabilities":[0.5,0.5]})J";
  Call ev = call("decision", "expected_value", args);
  CHECK(ev.ok);
  CHECK_EQ_STR(ds::json::serialize(ev.result),
               R"J({"values":{"large":10000,"small":40000,"nothing":0},"best_action":"small","best_value":40000})J");
  Call evpi = call("decision", "evpi", args);
  CHECK(evpi.ok);
  CHECK_EQ_STR(ds::json::serialize(evpi.result),
               R"J({"evpi":60000,"ev_with_perfect_information":100000,"best_expected_value":40000})J");
  CHECK(fails_with("decision", "evpi", R"J({"payoffs":{"a":[1,2]},"probabilities":[0.5,0.4]})J", "invalid_args", "sum to 1"));
  CHECK(fails_with("decision", "evpi", R"J({"payoffs":{"a":[1,2,3]},"probabilities":[0.5,0.5]})J", "invalid_args",
                   "one payoff per state"));
  CHECK(fails_with("decision", "expected_value", R"J({"payoffs":{},"probabilities":[1]})J", "invalid_args", "'payoffs'"));
  Call pos = call("decision", "expected_value", R"J([{"a":[1,3]}, [0.25, 0.75]])J");
  CHECK(pos.ok && pos.result.find("best_value")->as_number() == 2.5);
}

TEST(distributions_module_uses_engine_code) {
  CHECK_NEAR(value("distributions", "cdf", R"J({"distribution":"triangular","low":0,"high":10,"mode":2,"x":2})J"), 0.2, 1e-15);
  CHECK_NEAR(value("distributions", "quantile", R"J({"distribution":"triangular","low":0,"high":10,"mode":2,"p":0.5})J"),
             10 - std::sqrt(40.0), 1e-14);
  CHECK_NEAR(value("distributions", "quantile", R"J(["normal", -1, 1, 0.95])J"), 1, 1e-12);
  CHECK_NEAR(value("distributions", "quantile", R"J(["pert", 0, 10, 2, 0.3])J"),
             ds::dist::Dist::make(ds::dist::Kind::Pert, 0, 10, true, 2).quantile(0.3), 0);
  CHECK_NEAR(value("distributions", "cdf", R"J({"distribution":"lognormal","low":1,"high":100,"x":10})J"), 0.5, 1e-15);
  CHECK_NEAR(value("distributions", "cdf", R"J({"distribution":"uniform","low":0,"high":4,"x":1})J"), 0.25, 0);
  CHECK(fails_with("distributions", "quantile", R"J({"distribution":"normal","low":0,"high":1,"p":1})J", "invalid_args", "'p'"));
  CHECK(fails_with("distributions", "cdf", R"J({"distribution":"beta","low":0,"high":1,"x":1})J", "invalid_args", "'distribution'"));
  CHECK(fails_with("distributions", "cdf", R"J({"distribution":"triangular","low":0,"high":1,"mode":5,"x":1})J", "invalid_args",
                   "'mode'"));
  CHECK(fails_with("distributions", "cdf", R"J({"distribution":"lognormal","low":0,"high":1,"x":1})J", "invalid_args", "'low'"));
}

TEST(manifest_lists_modules) {
  Value m = ds::runtime::manifest();
  CHECK_EQ_STR(m.find("type")->as_string(), "manifest");
  const auto& mods = m.find("modules")->as_array();
  CHECK(mods.size() == 4);
  CHECK_EQ_STR(ds::json::serialize(mods[0]),
               R"J({"name":"stats","engine":"native","functions":["mean","median","percentile","std_dev","describe"]})J");
  CHECK_EQ_STR(mods[3].find("name")->as_string(), "distributions");
}
