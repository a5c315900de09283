#include "correlate.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "../common/distributions.hpp"

namespace ds::engine::corr {

void symmetric_eigen(Matrix a, size_t k, std::vector<double>& values, Matrix& vecs) {
  vecs.assign(k * k, 0.0);
  for (size_t i = 0; i < k; ++i) vecs[i * k + i] = 1.0;
  double scale = 0;
  for (double x : a) scale += x * x;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (size_t p = 0; p < k; ++p)
      for (size_t q = p + 1; q < k; ++q) off += a[p * k + q] * a[p * k + q];
    if (off <= 1e-30 * scale || off == 0.0) break;
    for (size_t p = 0; p < k; ++p) {
      for (size_t q = p + 1; q < k; ++q) {
        const double apq = a[p * k + q];
        if (apq == 0.0) continue;
        const double theta = (a[q * k + q] - a[p * k + p]) / (2.0 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (size_t i = 0; i < k; ++i) {
          const double aip = a[i * k + p], aiq = a[i * k + q];
          a[i * k + p] = c * aip - s * aiq;
          a[i * k + q] = s * aip + c * aiq;
        }
        for (size_t i = 0; i < k; ++i) {
          const double api = a[p * k + i], aqi = a[q * k + i];
          a[p * k + i] = c * api - s * aqi;
          a[q * k + i] = s * api + c * aqi;
        }
        for (size_t i = 0; i < k; ++i) {
          const double vip = vecs[i * k + p], viq = vecs[i * k + q];
          vecs[i * k + p] = c * vip - s * viq;
          vecs[i * k + q] = s * vip + c * viq;
        }
      }
    }
  }
  values.resize(k);
  for (size_t i = 0; i < k; ++i) values[i] = a[i * k + i];
}

double min_eigenvalue(const Matrix& a, size_t k) {
  std::vector<double> w;
  Matrix v;
  symmetric_eigen(a, k, w, v);
  return *std::min_element(w.begin(), w.end());
}

namespace {

// V diag(max(w, 0)) V^T: the nearest positive semi-definite matrix.
Matrix psd_projection(const Matrix& a, size_t k) {
  std::vector<double> w;
  Matrix v;
  symmetric_eigen(a, k, w, v);
  Matrix out(k * k, 0.0);
  for (size_t e = 0; e < k; ++e) {
    const double lambda = std::max(w[e], 0.0);
    if (lambda == 0.0) continue;
    for (size_t i = 0; i < k; ++i) {
      const double vi = v[i * k + e] * lambda;
      for (size_t j = 0; j < k; ++j) out[i * k + j] += vi * v[j * k + e];
    }
  }
  return out;
}

}  // namespace

Matrix nearest_correlation(const Matrix& a, size_t k) {
  Matrix y = a, ds(k * k, 0.0), x(k * k, 0.0), r(k * k, 0.0);
  for (int it = 0; it < 200; ++it) {
    for (size_t i = 0; i < k * k; ++i) r[i] = y[i] - ds[i];
    x = psd_projection(r, k);
    for (size_t i = 0; i < k * k; ++i) ds[i] = x[i] - r[i];
    double change = 0, norm = 0;
    for (size_t i = 0; i < k; ++i)
      for (size_t j = 0; j < k; ++j) {
        const double next = i == j ? 1.0 : x[i * k + j];
        change += (next - y[i * k + j]) * (next - y[i * k + j]);
        norm += next * next;
        y[i * k + j] = next;
      }
    if (change <= 1e-24 * norm) break;
  }
  // The last PSD iterate scaled to a unit diagonal: exactly positive semi-definite, and within the
  // convergence tolerance of the alternating projections' limit.
  std::vector<double> d(k);
  for (size_t i = 0; i < k; ++i) d[i] = x[i * k + i] > 0 ? 1.0 / std::sqrt(x[i * k + i]) : 0.0;
  Matrix out(k * k);
  for (size_t i = 0; i < k; ++i)
    for (size_t j = 0; j < k; ++j) {
      double v = i == j ? 1.0 : x[i * k + j] * d[i] * d[j];
      out[i * k + j] = std::max(-1.0, std::min(1.0, v));
    }
  for (size_t i = 0; i < k; ++i)
    for (size_t j = i + 1; j < k; ++j) out[j * k + i] = out[i * k + j];
  return out;
}

Matrix cholesky_psd(const Matrix& a, size_t k) {
  Matrix l(k * k, 0.0);
  for (size_t j = 0; j < k; ++j) {
    double d = a[j * k + j];
    for (size_t m = 0; m < j; ++m) d -= l[j * k + m] * l[j * k + m];
    if (d <= 1e-12) continue;  // a zero column: this variable is a combination of earlier ones
    const double ljj = std::sqrt(d);
    l[j * k + j] = ljj;
    for (size_t i = j + 1; i < k; ++i) {
      double s = a[i * k + j];
      for (size_t m = 0; m < j; ++m) s -= l[i * k + m] * l[j * k + m];
      l[i * k + j] = s / ljj;
    }
  }
  return l;
}

double pearson_for_spearman(double rho_s) {
  return 2.0 * std::sin(3.14159265358979323846 * rho_s / 6.0);
}

double spearman_for_pearson(double r) { return 6.0 / 3.14159265358979323846 * std::asin(r / 2.0); }

ImanConover::ImanConover(Matrix target_chol, size_t k) : l_(std::move(target_chol)), k_(k) {}

namespace {

void stable_order(const double* x, size_t n, std::vector<size_t>& order) {
  // Sorting (value, index) pairs keeps the comparisons in cache; ties go by index (values are finite).
  thread_local std::vector<std::pair<double, size_t>> pairs;
  pairs.resize(n);
  for (size_t i = 0; i < n; ++i) pairs[i] = {x[i], i};
  std::sort(pairs.begin(), pairs.end());
  order.resize(n);
  for (size_t i = 0; i < n; ++i) order[i] = pairs[i].second;
}

}  // namespace

void ImanConover::apply(size_t n, const std::vector<double*>& keys, const std::vector<double*>& carry) {
  const size_t k = k_;
  n_ = n;
  ranks_.assign(n * k, 0.0);
  if (n < 2 || k < 2) return;
  // Van der Waerden scores, centred and scaled to unit variance (the same for every full chunk).
  if (scores_.size() != n) {
    scores_.resize(n);
    double mean = 0;
    for (size_t i = 0; i < n; ++i) {
      scores_[i] = dist::normal_quantile(static_cast<double>(i + 1) / static_cast<double>(n + 1));
      mean += scores_[i];
    }
    mean /= static_cast<double>(n);
    double var = 0;
    for (size_t i = 0; i < n; ++i) {
      scores_[i] -= mean;
      var += scores_[i] * scores_[i];
    }
    const double inv_sd = 1.0 / std::sqrt(var / static_cast<double>(n));
    for (double& s : scores_) s *= inv_sd;
  }

  // R: each column holds the scores in the order of its variable's draws (a random permutation).
  r_.assign(n * k, 0.0);
  pos_.resize(n * k);
  for (size_t j = 0; j < k; ++j) {
    stable_order(keys[j], n, order_);
    for (size_t r = 0; r < n; ++r) {
      r_[order_[r] * k + j] = scores_[r];
      pos_[j * n + r] = order_[r];  // run holding the r-th smallest draw of column j
    }
  }
  // T = corr(R) = Q Q^T; S = L Q^{-1} turns R's correlation into the target's.
  Matrix t(k * k, 0.0);
  for (size_t s = 0; s < n; ++s) {
    const double* row = r_.data() + s * k;
    for (size_t i = 0; i < k; ++i)
      for (size_t j = 0; j <= i; ++j) t[i * k + j] += row[i] * row[j];
  }
  for (size_t i = 0; i < k; ++i)
    for (size_t j = 0; j <= i; ++j) {
      t[i * k + j] /= static_cast<double>(n);
      t[j * k + i] = t[i * k + j];
    }
  Matrix q = cholesky_psd(t, k);
  bool invertible = true;
  for (size_t i = 0; i < k; ++i) invertible = invertible && q[i * k + i] > 0;
  Matrix s = l_;
  if (invertible) {
    // Q^{-1} by forward substitution, column by column (lower triangular).
    Matrix qi(k * k, 0.0);
    for (size_t c = 0; c < k; ++c) {
      for (size_t i = c; i < k; ++i) {
        double v = i == c ? 1.0 : 0.0;
        for (size_t m = c; m < i; ++m) v -= q[i * k + m] * qi[m * k + c];
        qi[i * k + c] = v / q[i * k + i];
      }
    }
    for (size_t i = 0; i < k; ++i)
      for (size_t j = 0; j <= i; ++j) {
        double v = 0;
        for (size_t m = j; m <= i; ++m) v += l_[i * k + m] * qi[m * k + j];
        s[i * k + j] = v;
      }
  }
  // R* = R S^T, column by column; then column j's draws are dealt out in R*_j's rank order.
  rs_.resize(n);
  tmp_.resize(2 * n);
  for (size_t j = 0; j < k; ++j) {
    for (size_t row = 0; row < n; ++row) {
      const double* rr = r_.data() + row * k;
      double v = 0;
      for (size_t m = 0; m <= j; ++m) v += s[j * k + m] * rr[m];
      rs_[row] = v;
    }
    stable_order(rs_.data(), n, order_);
    double* key = keys[j];
    double* car = carry[j];
    double* rank = ranks_.data() + j * n;
    for (size_t r = 0; r < n; ++r) {
      tmp_[order_[r]] = key[pos_[j * n + r]];
      tmp_[n + order_[r]] = car[pos_[j * n + r]];
    }
    // The run holding the r-th smallest value is order_[r]; equal values share their mean rank.
    for (size_t r = 0; r < n;) {
      size_t e = r;
      const double v = key[pos_[j * n + r]];
      while (e + 1 < n && key[pos_[j * n + e + 1]] == v) ++e;
      const double mid = 0.5 * static_cast<double>(r + e);
      for (size_t m = r; m <= e; ++m) rank[order_[m]] = mid;
      r = e + 1;
    }
    std::copy(tmp_.begin(), tmp_.begin() + static_cast<long>(n), key);
    std::copy(tmp_.begin() + static_cast<long>(n), tmp_.end(), car);
  }
}

namespace {

void mid_ranks(const double* x, size_t n, std::vector<double>& rank, std::vector<size_t>& order) {
  stable_order(x, n, order);
  rank.resize(n);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && x[order[j + 1]] == x[order[i]]) ++j;
    const double mid = 0.5 * static_cast<double>(i + j);
    for (size_t m = i; m <= j; ++m) rank[order[m]] = mid;
    i = j + 1;
  }
}

}  // namespace

double spearman(const double* x, const double* y, size_t n) {
  if (n < 2) return 0.0;
  std::vector<double> rx, ry;
  std::vector<size_t> order;
  mid_ranks(x, n, rx, order);
  mid_ranks(y, n, ry, order);
  return spearman_of_ranks(rx.data(), ry.data(), n);
}

double spearman_of_ranks(const double* rx, const double* ry, size_t n) {
  if (n < 2) return 0.0;
  const double m = 0.5 * static_cast<double>(n - 1);
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double a = rx[i] - m, b = ry[i] - m;
    sxy += a * b;
    sxx += a * a;
    syy += b * b;
  }
  if (sxx <= 0 || syy <= 0) return 0.0;
  return std::max(-1.0, std::min(1.0, sxy / std::sqrt(sxx * syy)));
}

}  // namespace ds::engine::corr
