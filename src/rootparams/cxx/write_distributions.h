// rootparams-write's distributions: the multiplicities (how many elements a container, an inner vector or an
// attribute has in an event) and the language of a column's values, with its two executions: an interpreter of the
// recipe's words (the definition) and a compiler of those words into a program of nodes (what is run), which draw the
// same random numbers in the same order.
//
// Multiplicities: fixed n | poisson mean | gaus mean sigma (rounded, clipped at 0) | choice n1 n2 ... (empirical)
//                | empty p M (no element with probability p, else multiplicity M: skimmed events).
// Distributions: exp mean | gaus mean sigma | uniform lo hi | int lo hi | const v | choice v1 v2 ...
//                | bits p (trigger-like words, mostly constant between events) | link Target [D] | seq
//                (link: the index is near the element's own, or drawn from D when given)
// Wrappers that give values the structure of real data (D is a nested distribution; choice must come last):
//   trunc n D       keep n mantissa bits (ATLAS float compression)   | round step D   quantize to a grid
//   mod m D         wrap into [0, m)                                  | sparse p v D   value v with probability p
//   either p D1 D2  D1 with probability p, else D2                    | linear a b D   a + b*index + D
//   perevent D      one value per (column, event) for all elements    | perindex D     one per element
//   walk a D        a running sum: a + D for the first element, then the previous value + D (increasing
//                   barcodes and indices with gaps)
//   repeat q D      the previous element's value with probability q, else D (runs, as in ordered records)
//   runs a b v D    value v in runs: after v, v again with probability a; after any other value, v with
//                   probability b; else D (a candidate absent from 30 entries in a row, then present in 8)
//   copy q k D      the previous element's value with probability q, decided per element by key k: every
//                   column with the same key copies the same elements (a particle and its copies)
//   cycle n D1..Dn  D_(i mod n) for element i (fixed-layout records in a flat vector)
//   pick n v1..vn   like choice, among the n values that follow (may stand inside other distributions)
// "Previous" and "first" run along the inner vector for nested columns and along the container otherwise; for a
// scalar (one value per event) along the events.
#pragma once

#include "write_random.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace rootparams::write {

struct CompiledMultiplicity;

struct Distribution {
   std::string kind = "gaus";
   std::vector<std::string> args{"0", "1"};
   // As a multiplicity, its words parsed once (multiplicity_of); assigning new words resets it.
   mutable std::shared_ptr<const CompiledMultiplicity> compiled = nullptr;
   double p(size_t i) const
   {
      if (i >= args.size())
         fail("distribution '" + kind + "' needs at least " + std::to_string(i + 1) + " parameter(s)");
      return std::stod(args[i]);
   }
};

// A multiplicity's words (fixed n, poisson m, gaus m s, choice n1 n2 ..., empty p M) turned into numbers once, so
// that an event's and an element's count is drawn without comparing and parsing words again. Words it cannot
// take (a parameter that is not a number, an unknown kind) stay words: the interpreter of multiplicities draws
// from them, and fails, exactly as before.
struct CompiledMultiplicity {
   enum Op { Fixed, Poisson, Gaus, Choice, Empty, Words } op = Words;
   double a = 0, b = 0;
   std::vector<double> values;                  // choice
   std::shared_ptr<const CompiledMultiplicity> inner;  // empty p M: M
   Distribution words;                          // Words
};

// --reference-draws: every value drawn by the word interpreter (Sampler::Eval, the multiplicities' interpreter)
// from TRandom3 itself: the definition that the compiled distributions and the lazily seeded streams are tested
// against (the same events, bit for bit; tests/test_cxx.py). Slow. Set by main before the first event.
extern bool reference_draws;

// A count drawn from the multiplicity d (compiled on first use, or word by word with --reference-draws).
uint32_t multiplicity_of(const Distribution &d, TRandom &rng);

struct Event {
   Long64_t number = 0;
   std::unordered_map<std::string, uint32_t> multiplicity;
   // The sum over the containers of (hash32(name) + 1) * (multiplicity + 0x51), the event's multiplicities as
   // they enter the private streams of perevent, perindex and copy; set once all multiplicities are drawn.
   uint64_t multiplicity_hash = 0;
   void hash_multiplicities()
   {
      multiplicity_hash = 0;
      for (const auto &[name, n] : multiplicity)
         multiplicity_hash += (static_cast<uint64_t>(hash32(name)) + 1) * (n + 0x51ull);
   }
};

// The values of one column, as they are drawn: its distribution's words (`values`), their numeric parameters parsed
// once, and the state a distribution keeps between elements (the previous value, each walk's running sum). A Column
// (write_column.h) is a Sampler with storage.
struct Sampler {
   std::string name;  // the column's (messages; bits, perevent and perindex hash it)
   Distribution values;
   // A scalar: its sequence ("previous", "first") runs along the events, not inside one.
   bool across_events = false;
   mutable bool drawn_once = false;
   mutable std::vector<double> numbers;  // values' numeric parameters, parsed once (see sample)
   mutable std::vector<double> walked;   // last value of each walk token (see sample)
   mutable double last = 0;              // the value drawn for the previous element (repeat, copy)

   // The distribution is a token list: kind, then its parameters; wrapper kinds (trunc, round, sparse, either,
   // linear, perevent, ...) take a nested distribution as their last parameter(s). Numeric parameters are parsed
   // on the first draw and kept with the column (the recipe does not change afterwards).
   const std::string &tok(size_t t) const;
   double p(size_t t) const;
   // Index of the token after the distribution that starts at token t.
   size_t span(size_t t) const;
   // runs a b v: the chance of v for this element: a after v, b after another value, and for the first element
   // the share of v in a long sequence, b / (1 - a + b).
   static double runs_chance(double a, double b, double v, bool first, double previous);

   // The interpreter of the token list: the definition of every distribution, word by word. sample runs the
   // compiled program below instead and comes here only for what it could not compile (parameters that are not
   // numbers, unknown kinds: the errors are raised here, where the value is drawn, as they always were).
   struct Eval {
      const Sampler &col;
      const Event &ev;
      size_t index, inner_index;
      bool first;       // no previous element in this sequence (the container, or the inner vector)
      size_t position;  // place in that sequence
      // A private stream for per-element decisions shared between columns (copy): keyed by (k, event,
      // element), independent of the column and of the container's own stream. The event's multiplicities
      // enter the seed (as for perevent), so the decisions depend on the run seed as everything else does.
      double keyed_uniform(double k, size_t depth) const;
      // The seed of the private stream of perevent (one value per column and event) or perindex (per element).
      UInt_t private_seed(uint64_t name_hash, bool per_index) const;
      double p(size_t t) const { return col.p(t); }
      // depth: private streams in use below this one (each perevent, perindex and copy takes the next).
      double operator()(TRandom &r, size_t t, size_t depth = 0) const;
   };

   // The token list compiled into a tree of nodes, once per column: each node knows its kind, its numbers and
   // the nodes nested in it, so a value is drawn without comparing words or walking the tokens again (a
   // 'cycle 256 ...' of trigger words walked up to 255 distributions for each of its elements). A node draws
   // the same random numbers in the same order as the interpreter; what cannot be compiled is an Interpret
   // node, which hands its token to the interpreter.
   struct Node {
      enum Op : uint8_t {
         Gaus, Exp, Uniform, Int, Const, Seq, Choice, Pick, Bits, Trunc, Round, Mod, Sparse, Either, Linear, Walk,
         Repeat, Copy, Cycle, PerEvent, PerIndex, Runs, Interpret
      };
      Op op = Interpret;
      size_t token = 0;               // where it starts in the token list
      double a = 0, b = 0;            // its numbers (see compile)
      uint32_t c0 = 0, c1 = 0;        // nested nodes
      uint32_t first = 0, count = 0;  // choice, pick: node_values[first, first + count); cycle: node_children
      uint32_t key = 0;               // bits: hash32 of "<column>/"; perevent, perindex: hash32 of the column
   };
   mutable std::vector<Node> program;
   mutable std::vector<double> node_values;
   mutable std::vector<uint32_t> node_children;
   mutable std::vector<int64_t> node_of_token;  // the node compiled for each token, -1: none yet

   // The node of the distribution that starts at token t (compiled on first use).
   uint32_t compile(size_t t) const;
   Node compile_node(size_t t) const;
   // The value of node id, drawn from r (the interpreter's definitions, in the same order of random numbers).
   double run(uint32_t id, TRandom &r, const Eval &e, size_t depth) const;

   // The value of element (index, inner_index) of the event; nested: the column holds inner vectors ("previous"
   // runs along them). start: the token the distribution begins at (0; 2 for the index distribution of a link).
   double sample(TRandom &rng, const Event &ev, size_t index, size_t inner_index, bool nested, size_t start) const;
};

}  // namespace rootparams::write
