#include <cmath>

#include "../common/distributions.hpp"
#include "check.hpp"

using namespace ds::dist;

TEST(normal_quantile_reference_values) {
  CHECK_NEAR(normal_quantile(0.5), 0.0, 0);
  CHECK_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-14);
  CHECK_NEAR(normal_quantile(0.025), -1.959963984540054, 1e-14);
  CHECK_NEAR(normal_quantile(0.95), 1.6448536269514722, 1e-14);
  CHECK_NEAR(normal_quantile(0.8413447460685429), 1.0, 1e-13);
  CHECK_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-12);
  CHECK_NEAR(normal_quantile(1e-300), -37.0471, 1e-3);
  CHECK(std::isinf(normal_quantile(0.0)) && normal_quantile(0.0) < 0);
  // Round trip against the erfc-based CDF over the whole range.
  for (double p = 1e-12; p < 1; p = p < 0.01 ? p * 10 : p + 0.01)
    CHECK_NEAR(normal_cdf(normal_quantile(p)), p, 1e-14 + 1e-12 * p);
}

TEST(triangular_closed_form) {
  Dist d = Dist::make(Kind::Triangular, 0, 10, true, 2);
  CHECK_NEAR(d.quantile(0.1), std::sqrt(2.0), 1e-15);
  CHECK_NEAR(d.quantile(0.2), 2.0, 1e-15);
  CHECK_NEAR(d.quantile(0.5), 10 - std::sqrt(40.0), 1e-14);
  CHECK_NEAR(d.quantile(0.95), 10 - std::sqrt(0.05 * 80), 1e-14);
  CHECK_NEAR(d.quantile(0.0), 0.0, 0);
  CHECK_NEAR(d.quantile(1.0), 10.0, 0);
  CHECK_NEAR(d.cdf(2), 0.2, 1e-15);
  CHECK_NEAR(d.cdf(5), 1 - 25.0 / 80.0, 1e-15);
  CHECK_NEAR(d.cdf(-1), 0, 0);
  CHECK_NEAR(d.cdf(11), 1, 0);
  Dist left = Dist::make(Kind::Triangular, 0, 1, true, 0);  // mode at low
  CHECK_NEAR(left.quantile(0.75), 0.5, 1e-15);
  Dist mid = Dist::make(Kind::Triangular, -1, 1, false, 0);  // default mode: midpoint
  CHECK_NEAR(mid.mode(), 0, 0);
  CHECK_NEAR(mid.quantile(0.5), 0, 1e-15);
}

TEST(normal_and_lognormal_ranges_are_5th_95th_percentiles) {
  Dist n = Dist::make(Kind::Normal, -1, 3, false, 0);
  CHECK_NEAR(n.quantile(0.05), -1, 1e-12);
  CHECK_NEAR(n.quantile(0.95), 3, 1e-12);
  CHECK_NEAR(n.quantile(0.5), 1, 1e-15);
  CHECK_NEAR(n.param2(), 2 / 1.6448536269514722, 1e-14);
  CHECK_NEAR(n.cdf(3), 0.95, 1e-14);
  Dist ln = Dist::make(Kind::Lognormal, 1, 100, false, 0);
  CHECK_NEAR(ln.quantile(0.05), 1, 1e-12);
  CHECK_NEAR(ln.quantile(0.95), 100, 1e-10);
  CHECK_NEAR(ln.quantile(0.5), 10, 1e-12);
  CHECK_NEAR(ln.cdf(10), 0.5, 1e-15);
  CHECK_NEAR(ln.cdf(-5), 0, 0);
  // A zero-width range is a constant.
  Dist c = Dist::make(Kind::Normal, 4, 4, false, 0);
  CHECK(c.is_constant());
  CHECK_NEAR(c.from_uniform(0.3), 4, 0);
}

TEST(incomplete_beta_and_pert) {
  CHECK_NEAR(inc_beta(2, 3, 0.5), 0.6875, 1e-15);     // 11/16
  CHECK_NEAR(inc_beta(1, 1, 0.3), 0.3, 1e-15);
  CHECK_NEAR(inc_beta(3, 3, 0.5), 0.5, 1e-15);
  CHECK_NEAR(inc_beta(5, 1, 0.9), std::pow(0.9, 5), 1e-15);
  CHECK_NEAR(beta_quantile(2, 3, 0.6875), 0.5, 1e-14);
  // PERT(0, 10, mode 2): Beta(1.8, 4.2) scaled to [0, 10]; mean (low + 4 mode + high) / 6 = 3.
  Dist d = Dist::make(Kind::Pert, 0, 10, true, 2);
  CHECK_NEAR(d.param1(), 1.8, 1e-15);
  CHECK_NEAR(d.param2(), 4.2, 1e-15);
  double mean = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) mean += d.quantile((i + 0.5) / n);
  CHECK_NEAR(mean / n, 3.0, 2e-4);
  for (double p = 0.001; p < 1; p += 0.0371) CHECK_NEAR(d.cdf(d.quantile(p)), p, 2e-5);
  // At the table's own grid points the quantile is exact to the inversion tolerance.
  for (int i = 1; i < kPertSteps; i += 97) {
    const double p = static_cast<double>(i) / kPertSteps;
    CHECK_NEAR(d.cdf(d.quantile(p)), p, 1e-12);
  }
  Dist sym = Dist::make(Kind::Pert, -2, 2, false, 0);
  CHECK_NEAR(sym.quantile(0.5), 0, 1e-12);
  CHECK_NEAR(sym.cdf(0), 0.5, 1e-15);
  Dist edge = Dist::make(Kind::Pert, 0, 1, true, 1);  // mode at high: Beta(5, 1), F(x) = x^5
  CHECK_NEAR(edge.quantile(0.5), std::pow(0.5, 0.2), 1e-6);
}

TEST(uniform_transform_and_validation) {
  Dist u = Dist::make(Kind::Uniform, 2, 6, false, 0);
  double in[3] = {0, 0.25, 0.999}, out[3];
  u.transform(in, out, 3);
  CHECK(out[0] == 2 && out[1] == 3 && out[2] == 2 + 4 * 0.999);
  CHECK(validate(Kind::Uniform, 1, 0, false, 0).size() == 1);
  CHECK(validate(Kind::Uniform, 1, 0, false, 0)[0].field == "high");
  CHECK(validate(Kind::Lognormal, 0, 1, false, 0)[0].field == "low");
  CHECK(validate(Kind::Triangular, 0, 1, true, 2)[0].field == "mode");
  CHECK(validate(Kind::Pert, 0, 1, true, -0.1)[0].field == "mode");
  CHECK(validate(Kind::Normal, NAN, 1, false, 0)[0].field == "low");
  CHECK(validate(Kind::Uniform, -1e308, 1e308, false, 0).size() == 2);
  CHECK(validate(Kind::Uniform, -1e308, 1e308, false, 0)[0].field == "low");
  CHECK(validate(Kind::Uniform, -1e308, 1e308, false, 0)[1].problem == std::string("must be between -1e150 and 1e150"));
  CHECK(validate(Kind::Uniform, -1e150, 1e150, false, 0).empty());
  CHECK(validate(Kind::Pert, 0, 1, true, 0.5).empty());
}
