// Model expressions: parsed once per request into an AST, then compiled per action into a small
// register program that runs over blocks of samples (each instruction is one tight loop).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ds::expr {

struct ExprError : std::runtime_error {
  size_t position;  // 0-based character position in the model text
  ExprError(const std::string& msg, size_t pos) : std::runtime_error(msg), position(pos) {}
};

enum class Op : uint8_t {
  Add, Sub, Mul, Div, Pow, Lt, Le, Gt, Ge, Eq, Ne, Min, Max,  // binary
  Neg, Abs, Sqrt, Exp, Log, Square,                          // unary
  If,                                                         // ternary
};

// Scalar semantics, shared by constant folding and the block loops so both give the same bits.
inline double apply_binary(Op op, double a, double b) {
  switch (op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::Div: return a / b;
    case Op::Pow: return std::pow(a, b);
    case Op::Lt: return a < b ? 1.0 : 0.0;
    case Op::Le: return a <= b ? 1.0 : 0.0;
    case Op::Gt: return a > b ? 1.0 : 0.0;
    case Op::Ge: return a >= b ? 1.0 : 0.0;
    case Op::Eq: return a == b ? 1.0 : 0.0;
    case Op::Ne: return a != b ? 1.0 : 0.0;
    case Op::Min: return b < a ? b : a;
    case Op::Max: return b > a ? b : a;
    default: return NAN;
  }
}

inline double apply_unary(Op op, double a) {
  switch (op) {
    case Op::Neg: return -a;
    case Op::Abs: return std::fabs(a);
    case Op::Sqrt: return std::sqrt(a);
    case Op::Exp: return std::exp(a);
    case Op::Log: return std::log(a);
    case Op::Square: return a * a;
    default: return NAN;
  }
}

struct Node {
  enum class Kind : uint8_t { Num, Var, Unary, Binary, If } kind;
  Op op = Op::Add;
  double num = 0;
  int var = -1;
  int kids[3] = {-1, -1, -1};
  size_t pos = 0;
};

struct Ast {
  std::vector<Node> nodes;
  int root = -1;
};

// Parses `text`. `lookup(name)` returns the variable index or -1. Throws ExprError.
Ast parse(const std::string& text, const std::function<int(const std::string&)>& lookup);

// Where an instruction reads an input from.
struct Operand {
  enum class Kind : uint8_t { Reg, Slot, Const } kind = Kind::Const;
  int index = 0;
  double value = 0;
};

struct Instr {
  Op op;
  int dst;  // register index, or -1 for the output buffer
  Operand a, b, c;
};

struct Program {
  std::vector<Instr> code;
  int nregs = 0;
  Operand result;  // Reg: written by the last instruction into the output; Slot/Const: copied/filled
  bool is_constant() const { return result.kind == Operand::Kind::Const; }
  double constant() const { return result.value; }
};

// Compiles the AST with each variable bound to an operand (a sample slot or a fixed number);
// constant subtrees are folded.
Program compile(const Ast& ast, const std::vector<Operand>& bindings);

// Runs the program over n samples. slots[i] points at slot i's values for this block; regs must
// hold nregs * stride doubles; out receives n values.
void eval(const Program& p, const double* const* slots, double* regs, size_t stride, size_t n, double* out);

}  // namespace ds::expr
