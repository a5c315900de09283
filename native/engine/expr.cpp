#include "expr.hpp"

#include <cstdlib>
#include <cstring>

namespace ds::expr {

namespace {

constexpr int kMaxNesting = 256;

// Byte offset -> 0-based character (code point) index, so positions match what a user counts.
size_t char_index(const std::string& s, size_t byte_pos) {
  size_t n = 0;
  for (size_t i = 0; i < byte_pos && i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++n;
  return n;
}

struct Token {
  enum class Kind { End, Num, Name, Op, LParen, RParen, Comma } kind;
  std::string text;
  double num = 0;
  size_t pos = 0;
};

struct FnInfo {
  const char* name;
  int min_args, max_args;  // max -1: unbounded
};

const FnInfo kFunctions[] = {
    {"min", 1, -1}, {"max", 1, -1}, {"abs", 1, 1}, {"sqrt", 1, 1},
    {"exp", 1, 1},  {"log", 1, 1},  {"if", 3, 3},
};

const FnInfo* find_function(const std::string& name) {
  for (const auto& f : kFunctions)
    if (name == f.name) return &f;
  return nullptr;
}

class ParserImpl {
 public:
  ParserImpl(const std::string& text, const std::function<int(const std::string&)>& lookup)
      : s_(text), lookup_(lookup) {}

  Ast run() {
    advance();
    if (tok_.kind == Token::Kind::End) fail("the expression is empty", tok_.pos);
    ast_.root = parse_comparison(0);
    if (tok_.kind != Token::Kind::End) fail("unexpected '" + tok_.text + "'", tok_.pos);
    return std::move(ast_);
  }

 private:
  [[noreturn]] void fail(const std::string& msg, size_t byte_pos) {
    size_t p = char_index(s_, byte_pos);
    throw ExprError(msg + " at position " + std::to_string(p), p);
  }

  static bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  void advance() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    tok_ = Token{Token::Kind::End, "", 0, i_};
    if (i_ >= s_.size()) {
      tok_.text = "end of expression";
      return;
    }
    const char c = s_[i_];
    if (is_digit(c) || (c == '.' && i_ + 1 < s_.size() && is_digit(s_[i_ + 1]))) {
      size_t j = i_;
      while (j < s_.size() && is_digit(s_[j])) ++j;
      if (j < s_.size() && s_[j] == '.') {
        ++j;
        while (j < s_.size() && is_digit(s_[j])) ++j;
      }
      if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
        size_t k = j + 1;
        if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
        if (k >= s_.size() || !is_digit(s_[k])) fail("malformed number exponent", j);
        while (k < s_.size() && is_digit(s_[k])) ++k;
        j = k;
      }
      if (j < s_.size() && (is_ident_start(s_[j]) || s_[j] == '.')) fail("malformed number", i_);
      tok_.kind = Token::Kind::Num;
      tok_.text = s_.substr(i_, j - i_);
      tok_.num = std::strtod(tok_.text.c_str(), nullptr);
      if (!std::isfinite(tok_.num)) fail("number '" + tok_.text + "' is out of range", i_);
      i_ = j;
      return;
    }
    if (is_ident_start(c)) {
      size_t j = i_;
      while (j < s_.size() && (is_ident_start(s_[j]) || is_digit(s_[j]))) ++j;
      tok_.kind = Token::Kind::Name;
      tok_.text = s_.substr(i_, j - i_);
      i_ = j;
      return;
    }
    auto two = [&](char a, char b) { return c == a && i_ + 1 < s_.size() && s_[i_ + 1] == b; };
    if (two('<', '=') || two('>', '=') || two('=', '=') || two('!', '=')) {
      tok_.kind = Token::Kind::Op;
      tok_.text = s_.substr(i_, 2);
      i_ += 2;
      return;
    }
    switch (c) {
      case '+': case '-': case '*': case '/': case '^': case '<': case '>':
        tok_.kind = Token::Kind::Op;
        tok_.text = std::string(1, c);
        ++i_;
        return;
      case '(': tok_.kind = Token::Kind::LParen; tok_.text = "("; ++i_; return;
      case ')': tok_.kind = Token::Kind::RParen; tok_.text = ")"; ++i_; return;
      case ',': tok_.kind = Token::Kind::Comma; tok_.text = ","; ++i_; return;
      case '=': fail("unexpected '=' (use '==' to compare)", i_);
      default: break;
    }
    unsigned char uc = static_cast<unsigned char>(c);
    if (uc < 0x20 || uc >= 0x7F) fail("unexpected character", i_);
    fail(std::string("unexpected character '") + c + "'", i_);
  }

  bool is_op(const char* o) const { return tok_.kind == Token::Kind::Op && tok_.text == o; }

  int add(Node n) {
    ast_.nodes.push_back(n);
    return static_cast<int>(ast_.nodes.size() - 1);
  }

  int binary(Op op, int a, int b, size_t pos) {
    Node n{Node::Kind::Binary};
    n.op = op;
    n.kids[0] = a;
    n.kids[1] = b;
    n.pos = pos;
    return add(n);
  }

  void check_depth(int depth) {
    if (depth > kMaxNesting) fail("expression nested too deeply", tok_.pos);
  }

  // comparison := additive (cmp additive)*
  int parse_comparison(int depth) {
    check_depth(depth);
    int lhs = parse_additive(depth);
    for (;;) {
      Op op;
      if (is_op("<")) op = Op::Lt;
      else if (is_op("<=")) op = Op::Le;
      else if (is_op(">")) op = Op::Gt;
      else if (is_op(">=")) op = Op::Ge;
      else if (is_op("==")) op = Op::Eq;
      else if (is_op("!=")) op = Op::Ne;
      else return lhs;
      size_t pos = tok_.pos;
      advance();
      lhs = binary(op, lhs, parse_additive(depth), pos);
    }
  }

  int parse_additive(int depth) {
    int lhs = parse_multiplicative(depth);
    for (;;) {
      Op op;
      if (is_op("+")) op = Op::Add;
      else if (is_op("-")) op = Op::Sub;
      else return lhs;
      size_t pos = tok_.pos;
      advance();
      lhs = binary(op, lhs, parse_multiplicative(depth), pos);
    }
  }

  int parse_multiplicative(int depth) {
    int lhs = parse_unary(depth);
    for (;;) {
      Op op;
      if (is_op("*")) op = Op::Mul;
      else if (is_op("/")) op = Op::Div;
      else return lhs;
      size_t pos = tok_.pos;
      advance();
      lhs = binary(op, lhs, parse_unary(depth), pos);
    }
  }

  // unary := ('-' | '+') unary | power. Power binds tighter: -2^2 = -(2^2).
  int parse_unary(int depth) {
    check_depth(depth);
    if (is_op("-") || is_op("+")) {
      bool neg = tok_.text == "-";
      size_t pos = tok_.pos;
      advance();
      int operand = parse_unary(depth + 1);
      if (!neg) return operand;
      Node n{Node::Kind::Unary};
      n.op = Op::Neg;
      n.kids[0] = operand;
      n.pos = pos;
      return add(n);
    }
    return parse_power(depth);
  }

  // power := primary ('^' unary)?   (right associative through unary)
  int parse_power(int depth) {
    int base = parse_primary(depth);
    if (is_op("^")) {
      size_t pos = tok_.pos;
      advance();
      int exponent = parse_unary(depth + 1);
      return binary(Op::Pow, base, exponent, pos);
    }
    return base;
  }

  int parse_primary(int depth) {
    check_depth(depth);
    const Token t = tok_;
    switch (t.kind) {
      case Token::Kind::Num: {
        advance();
        Node n{Node::Kind::Num};
        n.num = t.num;
        n.pos = t.pos;
        return add(n);
      }
      case Token::Kind::LParen: {
        advance();
        int inner = parse_comparison(depth + 1);
        if (tok_.kind != Token::Kind::RParen) fail("expected ')' but found '" + tok_.text + "'", tok_.pos);
        advance();
        return inner;
      }
      case Token::Kind::Name: {
        advance();
        if (tok_.kind == Token::Kind::LParen) return parse_call(t, depth);
        int idx = lookup_(t.text);
        if (idx < 0) {
          if (find_function(t.text))
            fail("'" + t.text + "' is a function and needs arguments, e.g. " + t.text + "(...)", t.pos);
          fail("unknown name '" + t.text + "'", t.pos);
        }
        Node n{Node::Kind::Var};
        n.var = idx;
        n.pos = t.pos;
        return add(n);
      }
      case Token::Kind::End: fail("unexpected end of expression", t.pos);
      default: fail("unexpected '" + t.text + "'", t.pos);
    }
  }

  int parse_call(const Token& name, int depth) {
    const FnInfo* fn = find_function(name.text);
    if (!fn) fail("unknown function '" + name.text + "'", name.pos);
    advance();  // '('
    std::vector<int> args;
    if (tok_.kind != Token::Kind::RParen) {
      for (;;) {
        args.push_back(parse_comparison(depth + 1));
        if (tok_.kind == Token::Kind::Comma) {
          advance();
          continue;
        }
        if (tok_.kind == Token::Kind::RParen) break;
        fail("expected ',' or ')' but found '" + tok_.text + "'", tok_.pos);
      }
    }
    advance();  // ')'
    const int n = static_cast<int>(args.size());
    if (n < fn->min_args || (fn->max_args >= 0 && n > fn->max_args)) {
      std::string want = fn->max_args < 0 ? "at least " + std::to_string(fn->min_args)
                                          : std::to_string(fn->min_args);
      fail("function '" + name.text + "' takes " + want + " argument" + (fn->min_args == 1 ? "" : "s") +
               ", got " + std::to_string(n),
           name.pos);
    }
    const std::string& f = name.text;
    if (f == "min" || f == "max") {
      Op op = f == "min" ? Op::Min : Op::Max;
      int acc = args[0];
      for (size_t k = 1; k < args.size(); ++k) acc = binary(op, acc, args[k], name.pos);
      return acc;
    }
    if (f == "if") {
      Node node{Node::Kind::If};
      node.op = Op::If;
      node.kids[0] = args[0];
      node.kids[1] = args[1];
      node.kids[2] = args[2];
      node.pos = name.pos;
      return add(node);
    }
    Node node{Node::Kind::Unary};
    node.op = f == "abs" ? Op::Abs : f == "sqrt" ? Op::Sqrt : f == "exp" ? Op::Exp : Op::Log;
    node.kids[0] = args[0];
    node.pos = name.pos;
    return add(node);
  }

  const std::string& s_;
  const std::function<int(const std::string&)>& lookup_;
  size_t i_ = 0;
  Token tok_{Token::Kind::End, "", 0, 0};
  Ast ast_;
};

class Compiler {
 public:
  Compiler(const Ast& ast, const std::vector<Operand>& bindings) : ast_(ast), bindings_(bindings) {}

  Program run() {
    Operand r = gen(ast_.root);
    if (r.kind == Operand::Kind::Reg) prog_.code.back().dst = -1;
    prog_.result = r;
    return std::move(prog_);
  }

 private:
  static Operand constant(double v) {
    Operand o;
    o.kind = Operand::Kind::Const;
    o.value = v;
    return o;
  }
  static bool is_const(const Operand& o) { return o.kind == Operand::Kind::Const; }

  int alloc() {
    for (size_t i = 0; i < used_.size(); ++i)
      if (!used_[i]) {
        used_[i] = true;
        return static_cast<int>(i);
      }
    used_.push_back(true);
    prog_.nregs = static_cast<int>(used_.size());
    return prog_.nregs - 1;
  }
  void release(const Operand& o) {
    if (o.kind == Operand::Kind::Reg) used_[static_cast<size_t>(o.index)] = false;
  }

  Operand emit(Op op, Operand a, Operand b, Operand c) {
    release(a);
    release(b);
    release(c);
    Operand d;
    d.kind = Operand::Kind::Reg;
    d.index = alloc();
    prog_.code.push_back(Instr{op, d.index, a, b, c});
    return d;
  }

  Operand gen(int id) {
    const Node& n = ast_.nodes[static_cast<size_t>(id)];
    switch (n.kind) {
      case Node::Kind::Num: return constant(n.num);
      case Node::Kind::Var: return bindings_[static_cast<size_t>(n.var)];
      case Node::Kind::Unary: {
        Operand a = gen(n.kids[0]);
        if (is_const(a)) return constant(apply_unary(n.op, a.value));
        return emit(n.op, a, Operand{}, Operand{});
      }
      case Node::Kind::Binary: {
        Operand a = gen(n.kids[0]);
        Operand b = gen(n.kids[1]);
        if (is_const(a) && is_const(b)) return constant(apply_binary(n.op, a.value, b.value));
        // x^2 is the common case of a power; a multiply is exact where pow() need not be.
        if (n.op == Op::Pow && is_const(b) && b.value == 2.0) return emit(Op::Square, a, Operand{}, Operand{});
        return emit(n.op, a, b, Operand{});
      }
      case Node::Kind::If: {
        Operand c = gen(n.kids[0]);
        if (is_const(c)) return gen(n.kids[c.value != 0.0 ? 1 : 2]);
        Operand a = gen(n.kids[1]);
        Operand b = gen(n.kids[2]);
        return emit(Op::If, c, a, b);
      }
    }
    return constant(NAN);
  }

  const Ast& ast_;
  const std::vector<Operand>& bindings_;
  Program prog_;
  std::vector<bool> used_;
};

template <class F>
inline void loop_binary(double* d, const double* a, double sa, const double* b, double sb, size_t n, F f) {
  if (a && b)
    for (size_t i = 0; i < n; ++i) d[i] = f(a[i], b[i]);
  else if (a)
    for (size_t i = 0; i < n; ++i) d[i] = f(a[i], sb);
  else
    for (size_t i = 0; i < n; ++i) d[i] = f(sa, b[i]);
}

template <class F>
inline void loop_unary(double* d, const double* a, size_t n, F f) {
  for (size_t i = 0; i < n; ++i) d[i] = f(a[i]);
}

}  // namespace

Ast parse(const std::string& text, const std::function<int(const std::string&)>& lookup) {
  return ParserImpl(text, lookup).run();
}

Program compile(const Ast& ast, const std::vector<Operand>& bindings) { return Compiler(ast, bindings).run(); }

void eval(const Program& p, const double* const* slots, double* regs, size_t stride, size_t n, double* out) {
  auto ptr = [&](const Operand& o) -> const double* {
    switch (o.kind) {
      case Operand::Kind::Reg: return regs + static_cast<size_t>(o.index) * stride;
      case Operand::Kind::Slot: return slots[o.index];
      case Operand::Kind::Const: return nullptr;
    }
    return nullptr;
  };
  if (p.result.kind == Operand::Kind::Const) {
    for (size_t i = 0; i < n; ++i) out[i] = p.result.value;
    return;
  }
  if (p.result.kind == Operand::Kind::Slot) {
    std::memcpy(out, slots[p.result.index], n * sizeof(double));
    return;
  }
  for (const Instr& in : p.code) {
    double* d = in.dst < 0 ? out : regs + static_cast<size_t>(in.dst) * stride;
    const double* a = ptr(in.a);
    const double* b = ptr(in.b);
    const double sa = in.a.value, sb = in.b.value;
    switch (in.op) {
      case Op::Add: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return x + y; }); break;
      case Op::Sub: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return x - y; }); break;
      case Op::Mul: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return x * y; }); break;
      case Op::Div: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return x / y; }); break;
      case Op::Pow: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return std::pow(x, y); }); break;
      case Op::Lt: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return x < y ? 1.0 : 0.0; }); break;
      case Op::Le: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return x <= y ? 1.0 : 0.0; }); break;
      case Op::Gt: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return x > y ? 1.0 : 0.0; }); break;
      case Op::Ge: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return x >= y ? 1.0 : 0.0; }); break;
      case Op::Eq: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return x == y ? 1.0 : 0.0; }); break;
      case Op::Ne: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return x != y ? 1.0 : 0.0; }); break;
      case Op::Min: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return y < x ? y : x; }); break;
      case Op::Max: loop_binary(d, a, sa, b, sb, n, [](double x, double y) { return y > x ? y : x; }); break;
      case Op::Neg: loop_unary(d, a, n, [](double x) { return -x; }); break;
      case Op::Abs: loop_unary(d, a, n, [](double x) { return std::fabs(x); }); break;
      case Op::Sqrt: loop_unary(d, a, n, [](double x) { return std::sqrt(x); }); break;
      case Op::Exp: loop_unary(d, a, n, [](double x) { return std::exp(x); }); break;
      case Op::Log: loop_unary(d, a, n, [](double x) { return std::log(x); }); break;
      case Op::Square: loop_unary(d, a, n, [](double x) { return x * x; }); break;
      case Op::If: {
        const double* c = a;
        const double* t = b;
        const double* e = ptr(in.c);
        const double st = in.b.value, se = in.c.value;
        for (size_t i = 0; i < n; ++i) d[i] = c[i] != 0.0 ? (t ? t[i] : st) : (e ? e[i] : se);
        break;
      }
    }
  }
}

}  // namespace ds::expr
