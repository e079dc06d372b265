// rootparams-write's distributions (write_distributions.h): the multiplicities, compiled or interpreted, and a
// column's values: the interpreter of the recipe's words (Sampler::Eval), their compiler into nodes (compile) and
// the program's run.
#include "write_distributions.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace rootparams::write {

bool reference_draws = false;

// --- Multiplicities ----------------------------------------------------------------------------------------------

namespace {

uint32_t interpret_multiplicity(const Distribution &d, TRandom &rng);

std::shared_ptr<const CompiledMultiplicity> compile_multiplicity(const Distribution &d)
{
   auto m = std::make_shared<CompiledMultiplicity>();
   m->words = d;
   m->words.compiled = nullptr;
   try {
      if (d.kind == "fixed") {
         m->a = d.p(0);
         m->op = CompiledMultiplicity::Fixed;
      } else if (d.kind == "poisson") {
         m->a = d.p(0);
         m->op = CompiledMultiplicity::Poisson;
      } else if (d.kind == "gaus") {
         m->a = d.p(0);
         m->b = d.p(1);
         m->op = CompiledMultiplicity::Gaus;
      } else if (d.kind == "choice" && !d.args.empty()) {
         for (size_t i = 0; i < d.args.size(); ++i)
            m->values.push_back(d.p(i));
         m->op = CompiledMultiplicity::Choice;
      } else if (d.kind == "empty" && d.args.size() >= 2) {
         m->a = d.p(0);
         m->inner = compile_multiplicity(Distribution{d.args[1], {d.args.begin() + 2, d.args.end()}});
         m->op = CompiledMultiplicity::Empty;
      }
   } catch (const std::exception &) {  // not a number: the words fail when drawn, as they always did
      m->op = CompiledMultiplicity::Words;
   }
   return m;
}

uint32_t draw_multiplicity(const CompiledMultiplicity &m, TRandom &rng)
{
   double n = 0;
   switch (m.op) {
   case CompiledMultiplicity::Fixed: n = m.a; break;
   case CompiledMultiplicity::Poisson: n = rng.Poisson(m.a); break;
   case CompiledMultiplicity::Gaus: n = std::round(rng.Gaus(m.a, m.b)); break;
   case CompiledMultiplicity::Choice: n = m.values[rng.Integer(m.values.size())]; break;
   case CompiledMultiplicity::Empty: {
      const bool empty = rng.Rndm() < m.a;
      const uint32_t drawn = draw_multiplicity(*m.inner, rng);  // drawn always: the stream stays aligned
      n = empty ? 0 : drawn;
      break;
   }
   case CompiledMultiplicity::Words: return interpret_multiplicity(m.words, rng);
   }
   return n < 0 ? 0u : static_cast<uint32_t>(n);
}

// The definition of the multiplicities, word by word (for the words compile_multiplicity leaves as words).
uint32_t interpret_multiplicity(const Distribution &d, TRandom &rng)
{
   double n = 0;
   if (d.kind == "fixed")
      n = d.p(0);
   else if (d.kind == "poisson")
      n = rng.Poisson(d.p(0));
   else if (d.kind == "gaus")
      n = std::round(rng.Gaus(d.p(0), d.p(1)));
   else if (d.kind == "choice" && !d.args.empty())  // an empirical distribution: one of the listed counts
      n = d.p(rng.Integer(d.args.size()));
   else if (d.kind == "empty" && d.args.size() >= 2) {
      // empty p <multiplicity...>: no element with probability p (a skimmed event), else the inner one.
      const bool empty = rng.Rndm() < d.p(0);
      const Distribution inner{d.args[1], {d.args.begin() + 2, d.args.end()}};
      const uint32_t drawn = multiplicity_of(inner, rng);  // drawn always: the stream stays aligned
      n = empty ? 0 : drawn;
   } else
      fail("unknown multiplicity '" + d.kind + "' (use fixed, poisson, gaus, choice or empty p <multiplicity>)");
   return n < 0 ? 0u : static_cast<uint32_t>(n);
}

}  // namespace

uint32_t multiplicity_of(const Distribution &d, TRandom &rng)
{
   if (reference_draws)
      return interpret_multiplicity(d, rng);
   if (!d.compiled)
      d.compiled = compile_multiplicity(d);
   return draw_multiplicity(*d.compiled, rng);
}

// --- The token list ----------------------------------------------------------------------------------------------

const std::string &Sampler::tok(size_t t) const
{
   if (t >= numbers.size())
      fail("distribution of column " + name + " is missing parameters");
   return t == 0 ? values.kind : values.args[t - 1];
}

double Sampler::p(size_t t) const
{
   tok(t);
   if (std::isnan(numbers[t]))
      fail("parameter '" + tok(t) + "' of column " + name + " is not a number");
   return numbers[t];
}

size_t Sampler::span(size_t t) const
{
   const std::string &k = tok(t);
   if (k == "gaus" || k == "uniform" || k == "int")
      return t + 3;
   if (k == "exp" || k == "const" || k == "bits" || k == "link")
      return t + 2;
   if (k == "seq")
      return t + 1;
   if (k == "choice")
      return numbers.size();
   if (k == "pick")
      return t + 2 + static_cast<size_t>(p(t + 1));
   if (k == "trunc" || k == "round" || k == "mod" || k == "walk" || k == "repeat")
      return span(t + 2);
   if (k == "sparse" || k == "linear" || k == "copy")
      return span(t + 3);
   if (k == "runs")
      return span(t + 4);
   if (k == "cycle") {
      size_t u = t + 2;
      for (int i = 0; i < static_cast<int>(p(t + 1)); ++i)
         u = span(u);
      return u;
   }
   if (k == "perevent" || k == "perindex")
      return span(t + 1);
   if (k == "either")
      return span(span(t + 2));
   fail("unknown distribution '" + k + "' for column " + name);
}

double Sampler::runs_chance(double a, double b, double v, bool first, double previous)
{
   if (first)
      return 1 - a + b > 0 ? b / (1 - a + b) : 1.0;
   return previous == v ? a : b;
}

// --- The interpreter ---------------------------------------------------------------------------------------------

double Sampler::Eval::keyed_uniform(double k, size_t depth) const
{
   uint64_t h = static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(ev.number);
   h += ev.multiplicity_hash;
   h = h * 0xBF58476D1CE4E5B9ull + index;
   h = h * 0x94D049BB133111EBull + inner_index;
   h ^= h >> 31;
   return private_stream(depth, static_cast<UInt_t>(h ^ (h >> 32)) | 1u).Rndm();
}

UInt_t Sampler::Eval::private_seed(uint64_t name_hash, bool per_index) const
{
   uint64_t h = name_hash * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(ev.number);
   h += ev.multiplicity_hash;
   if (per_index)
      h = h * 0xBF58476D1CE4E5B9ull + index;
   h ^= h >> 31;
   return static_cast<UInt_t>(h ^ (h >> 32)) | 1u;
}

double Sampler::Eval::operator()(TRandom &r, size_t t, size_t depth) const
{
   const std::string &k = col.tok(t);
   if (k == "gaus")
      return r.Gaus(p(t + 1), p(t + 2));
   if (k == "exp")
      return r.Exp(p(t + 1));
   if (k == "uniform")
      return r.Uniform(p(t + 1), p(t + 2));
   if (k == "int")
      return std::floor(r.Uniform(p(t + 1), p(t + 2) + 1));
   if (k == "const")
      return p(t + 1);
   if (k == "seq")
      return static_cast<double>(index);
   if (k == "choice") {
      if (t + 1 >= col.numbers.size())
         fail("distribution 'choice' needs at least one value");
      return p(t + 1 + r.Integer(col.numbers.size() - t - 1));
   }
   if (k == "pick") {  // choice among the n values that follow (may stand anywhere)
      const size_t n = static_cast<size_t>(p(t + 1));
      if (n < 1)
         fail("distribution 'pick' of column " + col.name + " needs n >= 1");
      return p(t + 2 + r.Integer(n));
   }
   if (k == "bits") {
      // Trigger-like words: a fixed pattern per (column, word), each bit flipped with probability p.
      uint32_t word = hash32(col.name + "/" + std::to_string(inner_index));
      const double flip = p(t + 1);
      for (int b = 0; b < 32; ++b)
         if (r.Rndm() < flip)
            word ^= (1u << b);
      return static_cast<double>(word);
   }
   if (k == "trunc") {
      // Mantissa truncation as ATLAS float compression does it: keep n mantissa bits, rounded.
      const double x = (*this)(r, t + 2, depth);
      int e = 0;
      const double m = std::frexp(x, &e);
      const double scale = std::ldexp(1.0, static_cast<int>(p(t + 1)) + 1);
      return std::ldexp(std::round(m * scale) / scale, e);
   }
   if (k == "round") {  // quantized to a step (detector granularity, integer-valued floats)
      const double step = p(t + 1);
      return std::round((*this)(r, t + 2, depth) / step) * step;
   }
   if (k == "mod") {  // wrapped into [0, m): counters stored in narrow types
      const double m = p(t + 1);
      const double x = (*this)(r, t + 2, depth);
      return x - std::floor(x / m) * m;
   }
   if (k == "sparse")  // mostly a default value (0, -999, ...), otherwise drawn
      return r.Rndm() < p(t + 1) ? p(t + 2) : (*this)(r, t + 3, depth);
   if (k == "runs")  // the value v in runs: its chance depends on whether the previous element was v
      return r.Rndm() < runs_chance(p(t + 1), p(t + 2), p(t + 3), first, col.last) ? p(t + 3)
                                                                                    : (*this)(r, t + 4, depth);
   if (k == "either") {  // one of two distributions with probability p / 1-p
      const size_t b = col.span(t + 2);
      return r.Rndm() < p(t + 1) ? (*this)(r, t + 2, depth) : (*this)(r, b, depth);
   }
   if (k == "linear")  // correlated with the element index: a + b * index + x
      return p(t + 1) + p(t + 2) * static_cast<double>(index) + (*this)(r, t + 3, depth);
   if (k == "walk") {  // running sum along the sequence, kept per walk token
      const double x = (first ? p(t + 1) : col.walked[t]) + (*this)(r, t + 2, depth);
      col.walked[t] = x;
      return x;
   }
   if (k == "repeat")  // runs: the previous element's value with probability q
      return !first && r.Rndm() < p(t + 1) ? col.last : (*this)(r, t + 2, depth);
   if (k == "copy")  // the previous element's value, decided per element by a shared key
      return !first && keyed_uniform(p(t + 2), depth) < p(t + 1) ? col.last : (*this)(r, t + 3, depth);
   if (k == "cycle") {  // D_(position mod n)
      const int n = static_cast<int>(p(t + 1));
      if (n < 1)
         fail("distribution 'cycle' of column " + col.name + " needs n >= 1");
      size_t u = t + 2;
      for (size_t i = 0; i < position % static_cast<size_t>(n); ++i)
         u = col.span(u);
      return (*this)(r, u, depth);
   }
   if (k == "perevent" || k == "perindex") {
      // perevent: one value per (column, event), shared by all elements (a beam spot, a primary
      // vertex); perindex: one value per (column, event, element), shared by its inner entries.
      // Drawn from a private stream so the container's own stream is untouched. The event's
      // multiplicities enter the seed, so it depends on the run seed as everything else does.
      TRandom &local = private_stream(depth, private_seed(hash32(col.name), k == "perindex"));
      return (*this)(local, t + 1, depth + 1);
   }
   fail("unknown distribution '" + k + "' for column " + col.name);
}

// --- The compiler and the program's run --------------------------------------------------------------------------

uint32_t Sampler::compile(size_t t) const
{
   if (t < node_of_token.size() && node_of_token[t] >= 0)
      return static_cast<uint32_t>(node_of_token[t]);
   const auto id = static_cast<uint32_t>(program.size());
   program.emplace_back();
   if (t < node_of_token.size())
      node_of_token[t] = id;
   Node n;
   n.token = t;
   try {
      n = compile_node(t);
   } catch (const std::runtime_error &) {
      n = Node{};  // a word the interpreter will reject when (and only when) the value is drawn
      n.token = t;
   }
   program[id] = n;
   return id;
}

Sampler::Node Sampler::compile_node(size_t t) const
{
   Node n;
   n.token = t;
   const size_t tokens = numbers.size();
   auto number = [&](size_t u) {  // a parameter that is a number, or no compiled node
      if (u >= tokens || std::isnan(numbers[u]))
         throw std::runtime_error("not a number");
      return numbers[u];
   };
   auto numbers_from = [&](size_t u, size_t count) {
      n.first = static_cast<uint32_t>(node_values.size());
      n.count = static_cast<uint32_t>(count);
      for (size_t i = 0; i < count; ++i)
         node_values.push_back(number(u + i));
   };
   if (t >= tokens)
      return n;
   const std::string &k = tok(t);
   if (k == "gaus" || k == "uniform") {
      n.op = k == "gaus" ? Node::Gaus : Node::Uniform;
      n.a = number(t + 1);
      n.b = number(t + 2);
   } else if (k == "int") {
      n.op = Node::Int;
      n.a = number(t + 1);
      n.b = number(t + 2) + 1;
   } else if (k == "exp" || k == "const") {
      n.op = k == "exp" ? Node::Exp : Node::Const;
      n.a = number(t + 1);
   } else if (k == "seq") {
      n.op = Node::Seq;
   } else if (k == "choice") {
      if (t + 1 >= tokens)
         return n;
      numbers_from(t + 1, tokens - t - 1);
      n.op = Node::Choice;
   } else if (k == "pick") {
      const size_t count = static_cast<size_t>(number(t + 1));
      if (count < 1 || t + 2 + count > tokens)
         return n;
      numbers_from(t + 2, count);
      n.op = Node::Pick;
   } else if (k == "bits") {
      n.op = Node::Bits;
      n.a = number(t + 1);
      n.key = hash32(name + "/");
   } else if (k == "trunc") {
      n.op = Node::Trunc;
      n.b = std::ldexp(1.0, static_cast<int>(number(t + 1)) + 1);
      n.c0 = compile(t + 2);
   } else if (k == "round" || k == "mod") {
      n.op = k == "round" ? Node::Round : Node::Mod;
      n.a = number(t + 1);
      n.c0 = compile(t + 2);
   } else if (k == "sparse") {
      n.op = Node::Sparse;
      n.a = number(t + 1);
      n.b = number(t + 2);
      n.c0 = compile(t + 3);
   } else if (k == "runs") {
      n.op = Node::Runs;
      n.a = number(t + 1);
      n.b = number(t + 2);
      numbers_from(t + 3, 1);  // v
      n.c0 = compile(t + 4);
   } else if (k == "either") {
      n.op = Node::Either;
      n.a = number(t + 1);
      const size_t second = span(t + 2);
      n.c0 = compile(t + 2);
      n.c1 = compile(second);
   } else if (k == "linear") {
      n.op = Node::Linear;
      n.a = number(t + 1);
      n.b = number(t + 2);
      n.c0 = compile(t + 3);
   } else if (k == "walk" || k == "repeat") {
      n.op = k == "walk" ? Node::Walk : Node::Repeat;
      n.a = number(t + 1);
      n.c0 = compile(t + 2);
   } else if (k == "copy") {
      n.op = Node::Copy;
      n.a = number(t + 1);  // q
      n.b = number(t + 2);  // the key
      n.c0 = compile(t + 3);
   } else if (k == "cycle") {
      const int count = static_cast<int>(number(t + 1));
      if (count < 1)
         return n;
      std::vector<uint32_t> children;
      size_t u = t + 2;
      for (int i = 0; i < count; ++i) {
         children.push_back(compile(u));
         if (i + 1 < count)
            u = span(u);
      }
      n.op = Node::Cycle;
      n.first = static_cast<uint32_t>(node_children.size());
      n.count = static_cast<uint32_t>(count);
      node_children.insert(node_children.end(), children.begin(), children.end());
   } else if (k == "perevent" || k == "perindex") {
      n.op = k == "perevent" ? Node::PerEvent : Node::PerIndex;
      n.key = hash32(name);
      n.c0 = compile(t + 1);
   }
   return n;
}

double Sampler::run(uint32_t id, TRandom &r, const Eval &e, size_t depth) const
{
   const Node &n = program[id];
   switch (n.op) {
   case Node::Gaus: return r.Gaus(n.a, n.b);
   case Node::Exp: return r.Exp(n.a);
   case Node::Uniform: return r.Uniform(n.a, n.b);
   case Node::Int: return std::floor(r.Uniform(n.a, n.b));
   case Node::Const: return n.a;
   case Node::Seq: return static_cast<double>(e.index);
   case Node::Choice:
   case Node::Pick: return node_values[n.first + r.Integer(n.count)];
   case Node::Bits: {
      char digits[24];
      const int length = std::snprintf(digits, sizeof digits, "%zu", e.inner_index);
      uint32_t word = hash32_continue(n.key, digits, static_cast<size_t>(length));
      for (int b = 0; b < 32; ++b)
         if (r.Rndm() < n.a)
            word ^= (1u << b);
      return static_cast<double>(word);
   }
   case Node::Trunc: {
      const double x = run(n.c0, r, e, depth);
      int exponent = 0;
      const double m = std::frexp(x, &exponent);
      return std::ldexp(std::round(m * n.b) / n.b, exponent);
   }
   case Node::Round: return std::round(run(n.c0, r, e, depth) / n.a) * n.a;
   case Node::Mod: {
      const double x = run(n.c0, r, e, depth);
      return x - std::floor(x / n.a) * n.a;
   }
   case Node::Sparse: return r.Rndm() < n.a ? n.b : run(n.c0, r, e, depth);
   case Node::Runs: {
      const double v = node_values[n.first];
      return r.Rndm() < runs_chance(n.a, n.b, v, e.first, last) ? v : run(n.c0, r, e, depth);
   }
   case Node::Either: return r.Rndm() < n.a ? run(n.c0, r, e, depth) : run(n.c1, r, e, depth);
   case Node::Linear: return n.a + n.b * static_cast<double>(e.index) + run(n.c0, r, e, depth);
   case Node::Walk: {
      const double start = e.first ? n.a : walked[n.token];
      const double x = start + run(n.c0, r, e, depth);
      walked[n.token] = x;
      return x;
   }
   case Node::Repeat: return !e.first && r.Rndm() < n.a ? last : run(n.c0, r, e, depth);
   case Node::Copy: return !e.first && e.keyed_uniform(n.b, depth) < n.a ? last : run(n.c0, r, e, depth);
   case Node::Cycle: return run(node_children[n.first + e.position % n.count], r, e, depth);
   case Node::PerEvent:
   case Node::PerIndex:
      return run(n.c0, private_stream(depth, e.private_seed(n.key, n.op == Node::PerIndex)), e, depth + 1);
   case Node::Interpret: break;
   }
   return e(r, n.token, depth);
}

double Sampler::sample(TRandom &rng, const Event &ev, size_t index, size_t inner_index, bool nested,
                       size_t start) const
{
   if (numbers.size() != values.args.size() + 1) {
      walked.assign(values.args.size() + 1, 0.0);
      numbers.assign(values.args.size() + 1, std::nan(""));  // NaN for tokens that are distribution names
      for (size_t t = 1; t < numbers.size(); ++t) {
         const std::string &a = values.args[t - 1];
         char *end = nullptr;
         const double x = std::strtod(a.c_str(), &end);
         if (end != a.c_str() && *end == '\0')
            numbers[t] = x;
      }
      program.clear();
      node_values.clear();
      node_children.clear();
      node_of_token.assign(numbers.size(), -1);
   }
   const bool first = across_events ? !drawn_once : nested ? inner_index == 0 : index == 0;
   drawn_once = true;
   const Eval eval{*this, ev, index, inner_index, first, nested ? inner_index : index};
   last = reference_draws ? eval(rng, start) : run(compile(start), rng, eval, 0);
   return last;
}

}  // namespace rootparams::write
