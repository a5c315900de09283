// Rank correlation of input variables: the matrix checks (positive semi-definite, nearest valid
// correlation matrix) and Iman–Conover re-pairing of one chunk's draws.
#pragma once

#include <cstddef>
#include <vector>

namespace ds::engine::corr {

// A symmetric k x k matrix, row-major.
using Matrix = std::vector<double>;

// Eigenvalues (ascending order not guaranteed) and eigenvectors (columns of `vecs`) of a symmetric
// matrix by cyclic Jacobi rotations.
void symmetric_eigen(Matrix a, size_t k, std::vector<double>& values, Matrix& vecs);

// Smallest eigenvalue of a symmetric matrix.
double min_eigenvalue(const Matrix& a, size_t k);

// The nearest correlation matrix in the Frobenius norm (Higham 2002, alternating projections with
// Dykstra's correction), returned positive semi-definite with a unit diagonal. Deterministic.
Matrix nearest_correlation(const Matrix& a, size_t k);

// Lower-triangular L with L L^T = a for a positive semi-definite a; pivots that round to zero or
// below give a zero column (a perfectly correlated pair).
Matrix cholesky_psd(const Matrix& a, size_t k);

// Spearman's rank correlation rho_s of a bivariate normal with Pearson correlation r is
// (6 / pi) asin(r / 2); the inverse maps a rank target to the normal-score correlation to impose.
double pearson_for_spearman(double rho_s);
double spearman_for_pearson(double r);

// Re-pairs the k columns of one chunk (n runs each) so that their van der Waerden scores carry the
// Pearson correlation L L^T (Iman & Conover 1982). Each column is permuted, never changed: `keys[j]`
// are the values that decide column j's ranks (the variable's draws), and the same permutation is
// applied to `keys[j]` and `carry[j]` (the uniforms the draws came from). Ties are broken by run
// index, so the result is a function of the inputs alone.
class ImanConover {
 public:
  ImanConover(Matrix target_chol, size_t k);

  void apply(size_t n, const std::vector<double*>& keys, const std::vector<double*>& carry);

  // After apply(): the mid-rank (0-based, ties averaged) of each run's value in column j.
  const double* ranks(size_t j) const { return ranks_.data() + j * n_; }

 private:
  Matrix l_;
  size_t k_, n_ = 0;
  std::vector<double> scores_, r_, rs_, tmp_, ranks_;
  std::vector<size_t> order_, pos_;
};

// Spearman's rank correlation of two columns (mid-ranks for ties), 0 when either is constant.
double spearman(const double* x, const double* y, size_t n);

// The same from mid-ranks already computed (ImanConover::ranks).
double spearman_of_ranks(const double* rx, const double* ry, size_t n);

}  // namespace ds::engine::corr
