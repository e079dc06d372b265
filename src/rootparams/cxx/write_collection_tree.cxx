// rootparams-write: write a synthetic xAOD-like CollectionTree at one grid point, as a TTree or an RNTuple.
//
//   rootparams-write --recipe R --output F --events N --compression S --autoflush A --split L
//                    --basket B --seed X [--threads T]
//   rootparams-write --container rntuple --recipe R --output F --events N --compression S --autoflush A
//                    --page-size P --seed X [--threads T]
//
// The RNTuple holds the same events in ATLAS's RNTuple layout (docs/formats.md, "RNTuple"): the interface
// object <Name> as a class field, and every aux variable, static or dynamic, as a top-level field
// <Name>AuxDyn:<var>. AutoFlush keeps its meaning as the cluster size: A > 0 commits a cluster every A events,
// A < 0 asks for clusters of about -A compressed bytes (SetApproxZippedClusterSize, as TTree's negative
// AutoFlush), 0 leaves RNTuple's own default. P is the largest uncompressed page (SetMaxUnzippedPageSize),
// the counterpart of the basket size; split levels have no RNTuple meaning.
//
//   rootparams-write ... --content C      read the events from C (written earlier from the same recipe)
//   rootparams-write ... --float-mantissa N   every float value rounded to N explicit mantissa bits (1..22;
//                        round to nearest, ties to even, on the float's bits) before it is written; an RNTuple's
//                        float fields are also stored truncated to 1 + 8 + N bits (SetTruncated), which keeps
//                        the rounded values exactly. The JSON then lists the precision lost per variable.
//   rootparams-write ... --hot-branches B1,B2,... --hot-compression S   (TTree only) the named top-level branches
//                        and all their sub-branches compressed with setting S, the others with --compression
//                        (rootparams.generate picks them: the N largest, or those a regex finds)
//   rootparams-write ... --reference-draws   every value drawn by the recipe's word interpreter from TRandom3
//                        itself, the definition of the events: slow, the same events (what the tests compare with)
//   rootparams-write --clone-from F --output G --compression S   ROOT's CloneTree rewrite (benchmarks)
//
// The recipe (text, one directive per line, written by rootparams.formats) says which containers the
// events hold and how their values are distributed:
//   container <Name> <InterfaceClass> <AuxClass> <multiplicity> <params...>
//   attr      <Name> <member> <dist> <params...>          distribution of a static aux member
//   dyn       <Name> <attr> <type> <dist> <params...>     a dynamic aux attribute (<Name>AuxDyn.<attr>)
//   dyn       <Name> <attr> link|vlink <TargetContainer>   an element-link attribute
//   inner     <Name> <member-or-attr> <multiplicity> <params...>   length of inner vectors
//   size      <Name> <attr> <multiplicity> <params...>    the attribute's own element count (not the container's)
//   scalar    <branch> <leaftype> <dist> <params...>       one value per event in a leaf <branch>/F (both layouts)
//   container <Name> - - ...                               "-": no interface (or no aux) branch
//   layout flat                                            first line of a NanoAOD-like recipe, which then has
//   collection <Name> <counter> <multiplicity> <params...>  a counter leaf <counter>/i per collection and
//   column    <Name> <branch> <leaftype> <dist> <params...>  leaf-list arrays <branch>[<counter>] (an RNTuple is
//                                                          imported from that TTree: ImportedNTupleSink)
//                                                          Collections may also stand beside containers (xaod
//                                                          layout: a TClonesArray's members); an RNTuple then holds
//                                                          the counter and one std::vector field per column.
// Every branch (and RNTuple field, '.' written as ':') a recipe makes must have a name of its own.
//   member    <Name> <attr> <type> <dist> <params...>     an attribute stored inside the container's aux record
//                                                          (TTree; an RNTuple has it as a field, as a dyn)
//   record    <Name> <interface|aux|attr> <segments...>   (TTree) that branch written as a framed record: the
//                                                          real file's framing around the values (see Segment)
//   basket    <branch> <bytes>                             the branch's basket size when --basket is 0
//   keys      <Name> <attr> <null-index> <dist...>         a link attribute's keys (key 0: a null link, whose
//                                                          index is <null-index>); else the target's hash
//   reuse     <Name> <attr> <q> <window> [<runs...>]       copies: of an inner vector (nested) or a link with
//                                                          probability q, one of the last <window>; of runs of
//                                                          elements (flat) of lengths <runs> (a multiplicity)
//   order     <Name> <attr> ascending|descending [unique]  each event's vector (flat) or inner vector sorted
// Leaf types: float double int8 uint8 int16 uint16 int uint32 int64 uint64 bool. dyn types also double, int8,
// int16, int64, vdouble; 'dyn ... link <Target> D' draws the index from D. (rootparams.calibrate writes these.)
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
//
// Content depends only on (recipe, seed, event number): every container of every event draws from its own
// random stream, so the same events are written under every compression, AutoFlush and split setting.
// On success it prints one line "ROOTPARAMS_JSON {...}" with timings; on any error it exits non-zero
// with a message naming the file and the problem.
#include "EventModel.h"
#include "common.h"

#include <TClass.h>
#include <TDataMember.h>
#include <TFile.h>
#include <TList.h>
#include <TRandom3.h>
#include <TROOT.h>
#include <TTree.h>

#include <ROOT/RField.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <ROOT/RNTupleImporter.hxx>
#include <ROOT/RNTupleReader.hxx>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

using namespace rootparams;

namespace {

[[noreturn]] void fail(const std::string &msg)
{
   throw std::runtime_error(msg);
}

uint32_t hash32(const std::string &s)
{  // FNV-1a: stable hashed container keys, as ATLAS hashes container names
   uint32_t h = 2166136261u;
   for (unsigned char c : s) {
      h ^= c;
      h *= 16777619u;
   }
   return h;
}

uint32_t stream_seed(uint64_t seed, uint64_t event, uint64_t stream)
{  // splitmix64 of the three inputs; never 0 (TRandom3 treats 0 as "seed from the clock")
   uint64_t z = seed * 0x9E3779B97F4A7C15ull + event * 0xBF58476D1CE4E5B9ull + stream * 0x94D049BB133111EBull;
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
   z ^= z >> 31;
   return static_cast<uint32_t>(z) | 1u;
}

// The events' random streams: TRandom3's Mersenne Twister (MT19937 with TRandom3's seeding, tempering and Rndm),
// seeded lazily. TRandom3::SetSeed fills all 624 words of the state and its first Rndm twists all of them; here
// a seed costs nothing until a number is drawn, and the first round of 624 numbers twists one word per number,
// computing the seeding words as far as that word needs (397 ahead). Every container of every event seeds two
// streams and most draw a few numbers or none (a container empty in every event draws none), so seeding was
// most of the generation time. The numbers are TRandom3's, bit for bit: Gaus, Exp, Poisson, Integer and Uniform
// are TRandom's own, drawing through Rndm. matches_trandom3 checks it when the writer starts.
class LazyMersenneTwister final : public TRandom {
public:
   using TRandom::Rndm;
   using TRandom::SetSeed;
   LazyMersenneTwister() : TRandom(1u) { SetSeed(4357); }
   void SetSeed(ULong_t seed) override
   {
      if (seed == 0 || seed > 0xffffffffUL)
         fail("the event streams are seeded with 32-bit values other than 0 (TRandom3 seeds 0 from the clock)");
      fSeed = static_cast<UInt_t>(seed);
      mt_[0] = last_seeded_ = static_cast<uint32_t>(seed);
      seeded_ = 1;
      count_ = 0;
      lazy_ = true;
   }
   Double_t Rndm() override
   {
      if (count_ >= kN) {  // a full round of the state (after the first one, which is twisted word by word)
         twist_all();
         count_ = 0;
      } else if (lazy_) {
         twist_one(count_);
      }
      uint32_t y = mt_[count_++];
      if (count_ == kN)
         lazy_ = false;
      y ^= (y >> 11);
      y ^= ((y << 7) & 0x9d2c5680u);
      y ^= ((y << 15) & 0xefc60000u);
      y ^= (y >> 18);
      if (y)
         return static_cast<Double_t>(y) * (1.0 / 4294967296.0);  // 2^-32, exactly as TRandom3: never 1.0
      return Rndm();
   }

private:
   static constexpr int kN = 624, kM = 397;
   static uint32_t mix(uint32_t upper, uint32_t lower, uint32_t far)
   {
      const uint32_t y = (upper & 0x80000000u) | (lower & 0x7fffffffu);
      return far ^ (y >> 1) ^ ((y & 0x1u) ? 0x9908b0dfu : 0x0u);
   }
   // The seeding words up to word j (TRandom3::SetSeed's recurrence), each computed once.
   void seed_to(int j)
   {
      while (seeded_ <= j) {
         last_seeded_ = 1812433253u * (last_seeded_ ^ (last_seeded_ >> 30)) + static_cast<uint32_t>(seeded_);
         mt_[seeded_++] = last_seeded_;
      }
   }
   // Word i of the first round's twist, in place as TRandom3 twists all of them: words below i are twisted already,
   // words above it still hold the seeding.
   void twist_one(int i)
   {
      if (i < kN - kM) {
         seed_to(i + kM);
         mt_[i] = mix(mt_[i], mt_[i + 1], mt_[i + kM]);
      } else if (i < kN - 1) {
         seed_to(i + 1);
         mt_[i] = mix(mt_[i], mt_[i + 1], mt_[i + kM - kN]);
      } else {
         mt_[i] = mix(mt_[i], mt_[0], mt_[kM - 1]);
      }
   }
   void twist_all()
   {
      int i = 0;
      for (; i < kN - kM; ++i)
         mt_[i] = mix(mt_[i], mt_[i + 1], mt_[i + kM]);
      for (; i < kN - 1; ++i)
         mt_[i] = mix(mt_[i], mt_[i + 1], mt_[i + kM - kN]);
      mt_[kN - 1] = mix(mt_[kN - 1], mt_[0], mt_[kM - 1]);
   }
   uint32_t mt_[kN];
   uint32_t last_seeded_ = 0;
   int seeded_ = 0, count_ = 0;
   bool lazy_ = false;
};

// Whether LazyMersenneTwister draws what TRandom3 draws: for a few seeds, every kind of draw the recipes make,
// across the first rounds of the state, compared bit for bit. If ROOT's TRandom3 ever differs, the writer uses
// TRandom3 itself (the events must not depend on the ROOT version's internals more than they did).
bool matches_trandom3()
{
   LazyMersenneTwister lazy;
   TRandom3 root;
   for (uint32_t seed : {1u, 4357u, 0x9e3779b9u, 0xffffffffu, stream_seed(20200326, 17, 3)}) {
      for (int draws : {0, 1, 5, 300, 700, 1500}) {
         lazy.SetSeed(seed);
         root.SetSeed(seed);
         for (int i = 0; i < draws; ++i) {
            double a = 0, b = 0;
            switch (i % 7) {
            case 0: a = lazy.Rndm(), b = root.Rndm(); break;
            case 1: a = lazy.Gaus(1.5, 2.0), b = root.Gaus(1.5, 2.0); break;
            case 2: a = lazy.Exp(3.0), b = root.Exp(3.0); break;
            case 3: a = lazy.Poisson(i % 3 ? 2.5 : 120.0), b = root.Poisson(i % 3 ? 2.5 : 120.0); break;
            case 4: a = lazy.Integer(7), b = root.Integer(7); break;
            case 5: a = lazy.Uniform(-1, 4), b = root.Uniform(-1, 4); break;
            default: a = lazy.Rndm(), b = root.Rndm(); break;
            }
            if (std::memcmp(&a, &b, sizeof a) != 0)
               return false;
         }
      }
   }
   return true;
}

struct CompiledMultiplicity;

struct Distribution {
   std::string kind = "gaus";
   std::vector<std::string> args{"0", "1"};
   // As a multiplicity, its words parsed once (Column::multiplicity_of); assigning new words resets it.
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
// take (a parameter that is not a number, an unknown kind) stay words: Column::interpret_multiplicity draws
// from them, and fails, exactly as before.
struct CompiledMultiplicity {
   enum Op { Fixed, Poisson, Gaus, Choice, Empty, Words } op = Words;
   double a = 0, b = 0;
   std::vector<double> values;                  // choice
   std::shared_ptr<const CompiledMultiplicity> inner;  // empty p M: M
   Distribution words;                          // Words
};

// Float precision (--float-mantissa N): x rounded to N explicit mantissa bits, to nearest with ties to even on the
// dropped bits (as IEEE rounding does), a carry moving into the exponent. A value the recipe already truncated
// to fewer bits (trunc n D, n <= N) is unchanged. The relative error is at most 2^-(N+1). Infinities and NaN stay;
// a value that would round up to infinity is rounded towards zero instead.
float round_mantissa(float x, int n)
{
   if (!std::isfinite(x) || n >= 23)
      return x;
   uint32_t bits;
   std::memcpy(&bits, &x, sizeof bits);
   const int drop = 23 - n;
   const uint32_t mask = (1u << drop) - 1;
   uint32_t rounded = (bits + (mask >> 1) + ((bits >> drop) & 1u)) & ~mask;
   float y;
   std::memcpy(&y, &rounded, sizeof y);
   if (std::isinf(y)) {
      rounded = bits & ~mask;
      std::memcpy(&y, &rounded, sizeof y);
   }
   return y;
}

// The precision a float column lost to the rounding, over all the values written: max |x - x'| / |x| and the
// RMS of that relative error over x != 0, and max |x - x'|.
struct PrecisionLoss {
   long long values = 0, nonzero = 0;
   double max_rel = 0, sum_sq_rel = 0, max_abs = 0;
   void add(float x, float y)
   {
      ++values;
      const double err = std::fabs(static_cast<double>(x) - static_cast<double>(y));
      if (std::isfinite(err) && err > max_abs)
         max_abs = err;
      if (x != 0 && std::isfinite(x)) {
         ++nonzero;
         const double rel = err / std::fabs(static_cast<double>(x));
         max_rel = rel > max_rel ? rel : max_rel;
         sum_sq_rel += rel * rel;
      }
   }
   double rms_rel() const { return nonzero ? std::sqrt(sum_sq_rel / static_cast<double>(nonzero)) : 0.0; }
};

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

uint32_t hash32_continue(uint32_t h, const char *s, size_t n)
{  // hash32 of a string that goes on from one whose hash32 is h
   for (size_t i = 0; i < n; ++i) {
      h ^= static_cast<unsigned char>(s[i]);
      h *= 16777619u;
   }
   return h;
}

// The private streams (perevent, perindex, copy): ROOT's TRandom with a seed of their own, one object per nesting
// depth, seeded again for every value instead of constructed (a TRandom is a TNamed, whose construction costs
// more than the few numbers drawn from it). SetSeed(s) leaves the state TRandom(s) starts with.
// --reference-draws: every value drawn by the word interpreter (Column::Eval, Column::interpret_multiplicity)
// from TRandom3 itself: the definition that the compiled distributions and the lazily seeded streams are tested
// against (the same events, bit for bit; tests/test_cxx.py). Slow.
bool reference_draws = false;

TRandom &private_stream(size_t depth, UInt_t seed)
{
   static std::vector<std::unique_ptr<TRandom>> streams;
   while (streams.size() <= depth)
      streams.push_back(std::make_unique<TRandom>(1u));
   streams[depth]->SetSeed(seed);
   return *streams[depth];
}

// One per-element column: a std::vector<...> somewhere in memory (a static aux member or a dynamic
// attribute) that is cleared and refilled for every event.
struct Column {
   // D, I8, I16, I64, VD and B (bool, stored as bytes) were added for recipes calibrated on real files
   // (rootparams.calibrate); the built-in formats use the first eleven only.
   enum Kind { F, I, U8, U16, U32, U64, VF, VI, VU32, EL, VEL, D, I8, I16, I64, VD, B };
   std::string name;
   Kind kind;
   void *address;
   Distribution values;
   Distribution inner{"fixed", {"4"}};
   // A leaf column (scalar leaf "<branch>/F", or flat array "<branch>[n<C>]/F") rather than a vector branch.
   bool leaf = false;
   // A scalar: its sequence ("previous", "first") runs along the events, not inside one.
   bool across_events = false;
   mutable bool drawn_once = false;
   std::string branch;
   // A column whose element count is its own (size directive), not its container's multiplicity.
   bool has_size = false;
   Distribution size;
   // Element links with a key distribution (keys line): the key drawn from it, a null link (key 0) taking the
   // null index; without one, the key is the hash of the target's name.
   std::shared_ptr<Column> keys;
   uint32_t null_index = 0xFFFFFFFFu;
   // Reuse (reuse line): with probability `reuse` an element (a flat column, a link) or an inner vector (a nested
   // column) is a copy of one of the last `window` ones this column produced, in this event or earlier ones (the
   // decision lists of trigger navigation, repeated within and between events); otherwise it is drawn.
   // A flat column copies runs: a copy starts with probability `reuse` (at an element not already in one) and takes
   // the next `runs` elements from a distance back in the column's history, uniform over it (an LZ77-like
   // source: serialized records, lists that repeat in part).
   double reuse = 0;
   size_t window = 1024;
   Distribution runs{"fixed", {"1"}};
   std::vector<std::vector<double>> recent;  // a ring of the last `window` inner vectors (links: key, index)
   std::vector<double> recent_values;        // a ring of the last `window` elements of a flat column
   size_t recent_next = 0;
   size_t copy_left = 0, copy_distance = 0;
   // Order (order line): each event's vector (flat) or each inner vector drawn (nested) sorted, +1 ascending,
   // -1 descending; unique: without repeated values (sets of identifiers).
   int order = 0;
   bool unique = false;

   bool reusing(TRandom &rng) const { return reuse > 0 && !recent.empty() && rng.Rndm() < reuse; }
   const std::vector<double> &reused(TRandom &rng) const { return recent[rng.Integer(recent.size())]; }
   void remember(std::vector<double> x)
   {
      if (reuse <= 0)
         return;
      if (recent.size() < window)
         recent.push_back(std::move(x));
      else
         recent[recent_next] = std::move(x);
      recent_next = (recent_next + 1) % window;
   }
   mutable std::vector<double> numbers;  // values' numeric parameters, parsed once (see draw)
   mutable std::vector<double> walked;   // last value of each walk token (see draw)
   mutable double last = 0;              // the value drawn for the previous element (repeat, copy)
   PrecisionLoss loss;                   // what --float-mantissa took from this column (float kinds only)
   // make_link's target: its hashed key, and where the event keeps its multiplicity (an unordered_map's entries
   // stay where they are, and every container has its entry before the first column of an event is filled, so
   // the place found for the first link holds the target's count in every event; nullptr: not a container).
   mutable const Event *link_event = nullptr;
   mutable uint32_t link_key = 0;
   mutable const uint32_t *link_size = nullptr;

   bool is_float() const { return kind == F || kind == VF; }
   // Rounds this event's values of a float column to n mantissa bits in place, counting what was lost.
   void round_floats(int n)
   {
      auto round_all = [&](std::vector<float> &v) {
         for (auto &x : v) {
            const float y = round_mantissa(x, n);
            loss.add(x, y);
            x = y;
         }
      };
      if (kind == F)
         round_all(*static_cast<std::vector<float> *>(address));
      else if (kind == VF)
         for (auto &inner_values : *static_cast<std::vector<std::vector<float>> *>(address))
            round_all(inner_values);
   }

   // The distribution is a token list: kind, then its parameters; wrapper kinds (trunc, round, sparse, either,
   // linear, perevent, ...) take a nested distribution as their last parameter(s). Numeric parameters are parsed
   // on the first draw and kept with the column (the recipe does not change afterwards).
   const std::string &tok(size_t t) const
   {
      if (t >= numbers.size())
         fail("distribution of column " + name + " is missing parameters");
      return t == 0 ? values.kind : values.args[t - 1];
   }
   double p(size_t t) const
   {
      tok(t);
      if (std::isnan(numbers[t]))
         fail("parameter '" + tok(t) + "' of column " + name + " is not a number");
      return numbers[t];
   }
   // Index of the token after the distribution that starts at token t.
   size_t span(size_t t) const
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

   // runs a b v: the chance of v for this element: a after v, b after another value, and for the first element
   // the share of v in a long sequence, b / (1 - a + b).
   static double runs_chance(double a, double b, double v, bool first, double previous)
   {
      if (first)
         return 1 - a + b > 0 ? b / (1 - a + b) : 1.0;
      return previous == v ? a : b;
   }

   // The interpreter of the token list: the definition of every distribution, word by word. draw runs the
   // compiled program below instead and comes here only for what it could not compile (parameters that are not
   // numbers, unknown kinds: the errors are raised here, where the value is drawn, as they always were).
   struct Eval {
      const Column &col;
      const Event &ev;
      size_t index, inner_index;
      bool first;       // no previous element in this sequence (the container, or the inner vector)
      size_t position;  // place in that sequence
      // A private stream for per-element decisions shared between columns (copy): keyed by (k, event,
      // element), independent of the column and of the container's own stream. The event's multiplicities
      // enter the seed (as for perevent), so the decisions depend on the run seed as everything else does.
      double keyed_uniform(double k, size_t depth) const
      {
         uint64_t h = static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(ev.number);
         h += ev.multiplicity_hash;
         h = h * 0xBF58476D1CE4E5B9ull + index;
         h = h * 0x94D049BB133111EBull + inner_index;
         h ^= h >> 31;
         return private_stream(depth, static_cast<UInt_t>(h ^ (h >> 32)) | 1u).Rndm();
      }
      // The seed of the private stream of perevent (one value per column and event) or perindex (per element).
      UInt_t private_seed(uint64_t name_hash, bool per_index) const
      {
         uint64_t h = name_hash * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(ev.number);
         h += ev.multiplicity_hash;
         if (per_index)
            h = h * 0xBF58476D1CE4E5B9ull + index;
         h ^= h >> 31;
         return static_cast<UInt_t>(h ^ (h >> 32)) | 1u;
      }
      double p(size_t t) const { return col.p(t); }
      // depth: private streams in use below this one (each perevent, perindex and copy takes the next).
      double operator()(TRandom &r, size_t t, size_t depth = 0) const
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
   uint32_t compile(size_t t) const
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
   Node compile_node(size_t t) const
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

   // The value of node id, drawn from r (the interpreter's definitions, in the same order of random numbers).
   double run(uint32_t id, TRandom &r, const Eval &e, size_t depth) const
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

   // start: the token the distribution begins at (0; 2 for the index distribution of a link, see make_link).
   double draw(TRandom &rng, const Event &ev, size_t index, size_t inner_index, size_t start = 0) const
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
      const bool nested = kind == VF || kind == VI || kind == VU32 || kind == VEL || kind == VD;
      const bool first = across_events ? !drawn_once : nested ? inner_index == 0 : index == 0;
      drawn_once = true;
      const Eval eval{*this, ev, index, inner_index, first, nested ? inner_index : index};
      last = reference_draws ? eval(rng, start) : run(compile(start), rng, eval, 0);
      return last;
   }

   uint32_t inner_length(TRandom &rng) const { return multiplicity_of(inner, rng); }

   static uint32_t multiplicity_of(const Distribution &d, TRandom &rng)
   {
      if (reference_draws)
         return interpret_multiplicity(d, rng);
      if (!d.compiled)
         d.compiled = compile_multiplicity(d);
      return draw_multiplicity(*d.compiled, rng);
   }
   static std::shared_ptr<const CompiledMultiplicity> compile_multiplicity(const Distribution &d)
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
   static uint32_t draw_multiplicity(const CompiledMultiplicity &m, TRandom &rng)
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
   static uint32_t interpret_multiplicity(const Distribution &d, TRandom &rng)
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

   template <typename T>
   void fill_scalar(size_t n, TRandom &rng, const Event &ev)
   {
      auto &v = *static_cast<std::vector<T> *>(address);
      v.resize(n);
      for (size_t i = 0; i < n; ++i) {
         if (reuse > 0) {
            const size_t have = recent_values.size();
            if (copy_left == 0 && have > 0 && rng.Rndm() < reuse) {
               copy_left = std::max<uint32_t>(1, multiplicity_of(runs, rng));
               copy_distance = 1 + rng.Integer(have);
            }
            if (copy_left > 0) {
               last = have < window ? recent_values[have - copy_distance]
                                    : recent_values[(recent_next + window - copy_distance) % window];
               --copy_left;
            } else {
               draw(rng, ev, i, 0);
            }
            if (have < window)
               recent_values.push_back(last);
            else
               recent_values[recent_next] = last;
            recent_next = (recent_next + 1) % window;
         } else {
            draw(rng, ev, i, 0);
         }
         v[i] = static_cast<T>(last);
         if (unique)
            for (int tries = 0; tries < 20 && std::find(v.begin(), v.begin() + i, v[i]) != v.begin() + i; ++tries)
               v[i] = static_cast<T>(draw(rng, ev, i, 0));
      }
      if (order)
         sort_values(v.begin(), v.end());
   }
   template <typename It>
   void sort_values(It begin, It end) const
   {
      if (order > 0)
         std::sort(begin, end);
      else
         std::sort(begin, end, [](const auto &a, const auto &b) { return b < a; });
   }
   template <typename T>
   void fill_nested(size_t n, TRandom &rng, const Event &ev)
   {
      auto &v = *static_cast<std::vector<std::vector<T>> *>(address);
      v.resize(n);
      for (size_t i = 0; i < n; ++i) {
         if (reusing(rng)) {
            const auto &src = reused(rng);
            v[i].resize(src.size());
            for (size_t j = 0; j < src.size(); ++j)
               v[i][j] = static_cast<T>(src[j]);
         } else {
            v[i].resize(inner_length(rng));
            for (size_t j = 0; j < v[i].size(); ++j) {
               v[i][j] = static_cast<T>(draw(rng, ev, i, j));
               if (unique)
                  for (int tries = 0; tries < 20 && std::find(v[i].begin(), v[i].begin() + j, v[i][j]) != v[i].begin() + j;
                       ++tries)
                     v[i][j] = static_cast<T>(draw(rng, ev, i, j));
            }
            if (order)
               sort_values(v[i].begin(), v[i].end());
         }
         if (reuse > 0)
            remember(std::vector<double>(v[i].begin(), v[i].end()));
      }
   }
   void fill_bool(size_t n, TRandom &rng, const Event &ev)
   {  // bytes holding 0 or 1, as a bool leaf reads them
      auto &v = *static_cast<std::vector<uint8_t> *>(address);
      v.resize(n);
      for (size_t i = 0; i < n; ++i)
         v[i] = draw(rng, ev, i, 0) != 0 ? 1 : 0;
   }
   void reserve(size_t n)
   {
      switch (kind) {
      case F: static_cast<std::vector<float> *>(address)->reserve(n); break;
      case I: static_cast<std::vector<int> *>(address)->reserve(n); break;
      case U8: case B: static_cast<std::vector<uint8_t> *>(address)->reserve(n); break;
      case U16: static_cast<std::vector<uint16_t> *>(address)->reserve(n); break;
      case U32: static_cast<std::vector<uint32_t> *>(address)->reserve(n); break;
      case U64: static_cast<std::vector<ULong64_t> *>(address)->reserve(n); break;
      case D: static_cast<std::vector<double> *>(address)->reserve(n); break;
      case I8: static_cast<std::vector<char> *>(address)->reserve(n); break;
      case I16: static_cast<std::vector<short> *>(address)->reserve(n); break;
      case I64: static_cast<std::vector<Long64_t> *>(address)->reserve(n); break;
      default: fail("column " + name + " is not a leaf column");
      }
   }
   // First element of a leaf column's storage (leaf columns are flat vectors of one of the scalar kinds).
   void *data() const
   {
      switch (kind) {
      case F: return static_cast<std::vector<float> *>(address)->data();
      case I: return static_cast<std::vector<int> *>(address)->data();
      case U8: case B: return static_cast<std::vector<uint8_t> *>(address)->data();
      case U16: return static_cast<std::vector<uint16_t> *>(address)->data();
      case U32: return static_cast<std::vector<uint32_t> *>(address)->data();
      case U64: return static_cast<std::vector<ULong64_t> *>(address)->data();
      case D: return static_cast<std::vector<double> *>(address)->data();
      case I8: return static_cast<std::vector<char> *>(address)->data();
      case I16: return static_cast<std::vector<short> *>(address)->data();
      case I64: return static_cast<std::vector<Long64_t> *>(address)->data();
      default: fail("column " + name + " is not a leaf column");
      }
   }

   xAODlike::ElementLink_v1 make_link(TRandom &rng, const Event &ev, size_t index, size_t inner_index) const
   {
      xAODlike::ElementLink_v1 link;
      if (link_event != &ev) {  // the target, looked up once per event object (see link_size)
         if (values.kind != "link" || values.args.empty())
            fail("column " + name + " holds element links: give it 'link <TargetContainer>'");
         const std::string &target = values.args[0];
         link_key = hash32(target);
         auto it = ev.multiplicity.find(target);
         link_size = it == ev.multiplicity.end() ? nullptr : &it->second;
         link_event = &ev;
      }
      if (keys) {  // keys drawn from the real file's distribution; key 0 is a null link
         link.m_persKey = static_cast<uint32_t>(keys->draw(rng, ev, index, inner_index));
         if (link.m_persKey == 0) {
            link.m_persIndex = null_index;
            return link;
         }
      } else {
         link.m_persKey = link_key;
      }
      if (values.args.size() > 1) {
         // 'link <Target> D': the index drawn from D (a target that is not written, as a thinned truth record).
         const double x = draw(rng, ev, index, inner_index, 2);
         link.m_persIndex = x > 0 ? static_cast<uint32_t>(x) : 0u;
         return link;
      }
      const uint32_t size = link_size ? *link_size : 0;
      // Links mostly point at nearby, increasing indices, as in real containers.
      link.m_persIndex = size ? static_cast<uint32_t>((index + inner_index + rng.Integer(3)) % size) : 0;
      return link;
   }

   void fill(size_t n, TRandom &rng, const Event &ev)
   {
      switch (kind) {
      case F: fill_scalar<float>(n, rng, ev); break;
      case I: fill_scalar<int>(n, rng, ev); break;
      case U8: fill_scalar<uint8_t>(n, rng, ev); break;
      case U16: fill_scalar<uint16_t>(n, rng, ev); break;
      case U32: fill_scalar<uint32_t>(n, rng, ev); break;
      case U64: fill_scalar<uint64_t>(n, rng, ev); break;
      case VF: fill_nested<float>(n, rng, ev); break;
      case VI: fill_nested<int>(n, rng, ev); break;
      case VU32: fill_nested<uint32_t>(n, rng, ev); break;
      case D: fill_scalar<double>(n, rng, ev); break;
      case I8: fill_scalar<char>(n, rng, ev); break;
      case I16: fill_scalar<short>(n, rng, ev); break;
      case I64: fill_scalar<Long64_t>(n, rng, ev); break;
      case B: fill_bool(n, rng, ev); break;
      case VD: fill_nested<double>(n, rng, ev); break;
      case EL: {  // reuse: a link (key and index) of the recent ones
         auto &v = *static_cast<std::vector<xAODlike::ElementLink_v1> *>(address);
         v.resize(n);
         for (size_t i = 0; i < n; ++i) {
            if (reusing(rng)) {
               const auto &src = reused(rng);
               v[i].m_persKey = static_cast<uint32_t>(src[0]);
               v[i].m_persIndex = static_cast<uint32_t>(src[1]);
            } else {
               v[i] = make_link(rng, ev, i, 0);
            }
            if (reuse > 0)
               remember({static_cast<double>(v[i].m_persKey), static_cast<double>(v[i].m_persIndex)});
         }
         break;
      }
      case VEL: {  // reuse: an inner vector of links of the recent ones
         auto &v = *static_cast<std::vector<std::vector<xAODlike::ElementLink_v1>> *>(address);
         v.resize(n);
         for (size_t i = 0; i < n; ++i) {
            if (reusing(rng)) {
               const auto &src = reused(rng);
               v[i].resize(src.size() / 2);
               for (size_t j = 0; j < v[i].size(); ++j) {
                  v[i][j].m_persKey = static_cast<uint32_t>(src[2 * j]);
                  v[i][j].m_persIndex = static_cast<uint32_t>(src[2 * j + 1]);
               }
            } else {
               v[i].resize(inner_length(rng));
               for (size_t j = 0; j < v[i].size(); ++j)
                  v[i][j] = make_link(rng, ev, i, j);
            }
            if (reuse > 0) {
               std::vector<double> flat;
               for (const auto &l : v[i]) {
                  flat.push_back(l.m_persKey);
                  flat.push_back(l.m_persIndex);
               }
               remember(std::move(flat));
            }
         }
         break;
      }
      }
   }
};

// Type names as ROOT normalizes them, mapped to column kinds.
bool kind_of(std::string type, Column::Kind &kind)
{
   std::string t;
   for (char c : type)
      if (c != ' ')
         t += c;
   static const std::unordered_map<std::string, Column::Kind> kinds = {
      {"vector<float>", Column::F},
      {"vector<int>", Column::I},
      {"vector<unsignedchar>", Column::U8},
      {"vector<unsignedshort>", Column::U16},
      {"vector<unsignedint>", Column::U32},
      {"vector<unsignedlong>", Column::U64},
      {"vector<ULong64_t>", Column::U64},
      {"vector<unsignedlonglong>", Column::U64},
      {"vector<vector<float>>", Column::VF},
      {"vector<vector<int>>", Column::VI},
      {"vector<vector<unsignedint>>", Column::VU32},
      {"vector<xAODlike::ElementLink_v1>", Column::EL},
      {"vector<vector<xAODlike::ElementLink_v1>>", Column::VEL},
   };
   auto it = kinds.find(t);
   if (it == kinds.end())
      return false;
   kind = it->second;
   return true;
}

// Dynamic attribute types of the recipe -> (column kind, ROOT class name of the branch).
const std::unordered_map<std::string, std::pair<Column::Kind, std::string>> kDynamicTypes = {
   {"float", {Column::F, "vector<float>"}},
   {"int", {Column::I, "vector<int>"}},
   {"uint8", {Column::U8, "vector<unsigned char>"}},
   {"uint16", {Column::U16, "vector<unsigned short>"}},
   {"uint32", {Column::U32, "vector<unsigned int>"}},
   {"uint64", {Column::U64, "vector<ULong64_t>"}},
   {"vfloat", {Column::VF, "vector<vector<float> >"}},
   {"vint", {Column::VI, "vector<vector<int> >"}},
   {"vuint32", {Column::VU32, "vector<vector<unsigned int> >"}},
   {"link", {Column::EL, "vector<xAODlike::ElementLink_v1>"}},
   {"vlink", {Column::VEL, "vector<vector<xAODlike::ElementLink_v1> >"}},
   {"double", {Column::D, "vector<double>"}},
   {"int8", {Column::I8, "vector<char>"}},
   {"int16", {Column::I16, "vector<short>"}},
   {"int64", {Column::I64, "vector<Long64_t>"}},
   {"vdouble", {Column::VD, "vector<vector<double> >"}},
};

// Leaf types (scalar lines, flat columns) -> (column kind, ROOT leaf type code, RNTuple type).
struct LeafType {
   Column::Kind kind;
   const char *code;
   const char *ntuple;
};
const std::unordered_map<std::string, LeafType> kLeafTypes = {
   {"float", {Column::F, "F", "float"}},        {"double", {Column::D, "D", "double"}},
   {"int8", {Column::I8, "B", "std::int8_t"}},  {"uint8", {Column::U8, "b", "std::uint8_t"}},
   {"int16", {Column::I16, "S", "std::int16_t"}}, {"uint16", {Column::U16, "s", "std::uint16_t"}},
   {"int", {Column::I, "I", "std::int32_t"}},   {"uint32", {Column::U32, "i", "std::uint32_t"}},
   {"int64", {Column::I64, "L", "std::int64_t"}}, {"uint64", {Column::U64, "l", "std::uint64_t"}},
   {"bool", {Column::B, "O", "bool"}},
};
const LeafType &leaf_type(const std::string &type)
{
   auto it = kLeafTypes.find(type);
   if (it == kLeafTypes.end())
      fail("unknown leaf type '" + type + "' (use float, double, int8, uint8, int16, uint16, int, uint32, int64, "
           "uint64, bool)");
   return it->second;
}
const LeafType &leaf_type_of(Column::Kind kind)
{
   for (auto &[name, t] : kLeafTypes)
      if (t.kind == kind)
         return t;
   fail("no leaf type for a column kind");
}

void *new_dynamic_vector(Column::Kind kind)
{
   switch (kind) {
   case Column::F: return new std::vector<float>;
   case Column::I: return new std::vector<int>;
   case Column::U8: return new std::vector<uint8_t>;
   case Column::U16: return new std::vector<uint16_t>;
   case Column::U32: return new std::vector<uint32_t>;
   case Column::U64: return new std::vector<ULong64_t>;
   case Column::VF: return new std::vector<std::vector<float>>;
   case Column::VI: return new std::vector<std::vector<int>>;
   case Column::VU32: return new std::vector<std::vector<uint32_t>>;
   case Column::EL: return new std::vector<xAODlike::ElementLink_v1>;
   case Column::VEL: return new std::vector<std::vector<xAODlike::ElementLink_v1>>;
   case Column::D: return new std::vector<double>;
   case Column::I8: return new std::vector<char>;
   case Column::I16: return new std::vector<short>;
   case Column::I64: return new std::vector<Long64_t>;
   case Column::VD: return new std::vector<std::vector<double>>;
   case Column::B: return new std::vector<uint8_t>;
   }
   return nullptr;
}

// A leaf column of a recipe line "<word> ... <branch> <leaf-type> <dist...>" whose branch is word w[at]: a
// scalar (one value per event) or a flat collection's array, both plain leaves.
Column leaf_column(const std::vector<std::string> &w, size_t at)
{
   Column col;
   col.name = col.branch = w[at];
   col.kind = leaf_type(w[at + 1]).kind;
   col.leaf = true;
   col.address = new_dynamic_vector(col.kind);
   col.values = {w[at + 2], {w.begin() + static_cast<long>(at) + 3, w.end()}};
   return col;
}

// A branch written as a framed record (recipes calibrated on a real file; xAODlike::Record*_v1 in EventModel.h):
// its payload, composed per event from segments, has the real objects' framing and the recipe's values.
//   h:<hex>                    constant bytes (a class checksum, the headers of empty base classes)
//   count                      the container's element count of the event (uint32)
//   vector:<attr>:<ver>[:<el>] a member as ROOT streams a std::vector member object-wise: byte count, the
//                              2-byte version <ver>, then its body (below)
//   body:<attr>[:<el>]         the body alone (the record's own byte count and version stand for the vector's)
//   raw:<attr>                 the values alone, big-endian, without count or framing (a basic member, the
//                              per-element word of a member-wise DataVector, opaque bytes)
// A body is the element count and the elements (big-endian); a nested vector's inner vectors are each a count and
// their elements. Element links: <el> is the framing before them, for a vector<ElementLink> stored member-wise
// the class's version and checksum (then the count, every key, every index), for a nested one the class and
// base-class headers repeated before each link's key and index.
struct Segment {
   enum Type { Bytes, Count, Vector, Body, Raw } type = Bytes;
   std::string bytes;    // Bytes: the constant bytes; Vector: the version
   std::string element;  // the framing of element links
   std::string attr;
   size_t column = 0;    // the attribute's column in its collection (resolved after the recipe is read)
};
struct Record {
   std::string part;  // "interface" (branch <C>), "aux" (<C>Aux.) or an attribute's name (<C>AuxDyn.<attr>)
   std::vector<Segment> segments;
   TClass *cl = nullptr;
   void *object = nullptr;
   std::vector<unsigned char> *payload = nullptr;
};

std::string unhex(const std::string &hex, const std::string &what)
{
   if (hex.size() % 2)
      fail(what + ": '" + hex + "' is not a whole number of hex bytes");
   std::string out;
   for (size_t i = 0; i < hex.size(); i += 2) {
      const std::string byte = hex.substr(i, 2);
      char *end = nullptr;
      const long v = std::strtol(byte.c_str(), &end, 16);
      if (*end != '\0')
         fail(what + ": '" + hex + "' is not hex");
      out += static_cast<char>(v);
   }
   return out;
}

Segment parse_segment(const std::string &token)
{
   std::vector<std::string> f;
   std::stringstream s(token);
   for (std::string part; std::getline(s, part, ':');)
      f.push_back(part);
   Segment seg;
   if (f.size() == 2 && f[0] == "h") {
      seg.type = Segment::Bytes;
      seg.bytes = unhex(f[1], "record segment " + token);
   } else if (f.size() == 1 && f[0] == "count") {
      seg.type = Segment::Count;
   } else if ((f.size() == 3 || f.size() == 4) && f[0] == "vector") {
      seg.type = Segment::Vector;
      seg.attr = f[1];
      seg.bytes = unhex(f[2], "record segment " + token);
      if (seg.bytes.size() != 2)
         fail("record segment " + token + ": the version is 2 bytes (4 hex digits)");
      if (f.size() == 4)
         seg.element = unhex(f[3], "record segment " + token);
   } else if ((f.size() == 2 || f.size() == 3) && f[0] == "body") {
      seg.type = Segment::Body;
      seg.attr = f[1];
      if (f.size() == 3)
         seg.element = unhex(f[2], "record segment " + token);
   } else if (f.size() == 2 && f[0] == "raw") {
      seg.type = Segment::Raw;
      seg.attr = f[1];
   } else {
      fail("unknown record segment '" + token + "' (use h:<hex>, count, vector:<attr>:<version>[:<link framing>], "
           "body:<attr>[:<link framing>] or raw:<attr>)");
   }
   return seg;
}

// Big-endian bytes of a value, as ROOT's buffers hold them.
template <typename T>
void put(std::vector<unsigned char> &out, T v)
{
   unsigned char b[sizeof(T)];
   std::memcpy(b, &v, sizeof(T));
   for (size_t i = sizeof(T); i-- > 0;)
      out.push_back(b[i]);
}
void put_bytes(std::vector<unsigned char> &out, const std::string &bytes)
{
   out.insert(out.end(), bytes.begin(), bytes.end());
}

template <typename T>
void put_elements(std::vector<unsigned char> &out, const std::vector<T> &v)
{
   for (const auto &x : v)
      put(out, x);
}
template <typename T>
void put_nested(std::vector<unsigned char> &out, const std::vector<std::vector<T>> &v)
{
   put(out, static_cast<uint32_t>(v.size()));
   for (const auto &inner : v) {
      put(out, static_cast<uint32_t>(inner.size()));
      put_elements(out, inner);
   }
}

// The values of a column, big-endian; with the element count first (count) for a body.
void put_column(std::vector<unsigned char> &out, const Column &col, bool count, const std::string &element)
{
   const void *a = col.address;
   auto flat = [&](const auto *v) {
      if (count)
         put(out, static_cast<uint32_t>(v->size()));
      put_elements(out, *v);
   };
   switch (col.kind) {
   case Column::F: flat(static_cast<const std::vector<float> *>(a)); break;
   case Column::I: flat(static_cast<const std::vector<int> *>(a)); break;
   case Column::U8: case Column::B: flat(static_cast<const std::vector<uint8_t> *>(a)); break;
   case Column::U16: flat(static_cast<const std::vector<uint16_t> *>(a)); break;
   case Column::U32: flat(static_cast<const std::vector<uint32_t> *>(a)); break;
   case Column::U64: flat(static_cast<const std::vector<ULong64_t> *>(a)); break;
   case Column::D: flat(static_cast<const std::vector<double> *>(a)); break;
   case Column::I8: flat(static_cast<const std::vector<char> *>(a)); break;
   case Column::I16: flat(static_cast<const std::vector<short> *>(a)); break;
   case Column::I64: flat(static_cast<const std::vector<Long64_t> *>(a)); break;
   case Column::VF: put_nested(out, *static_cast<const std::vector<std::vector<float>> *>(a)); break;
   case Column::VI: put_nested(out, *static_cast<const std::vector<std::vector<int>> *>(a)); break;
   case Column::VU32: put_nested(out, *static_cast<const std::vector<std::vector<uint32_t>> *>(a)); break;
   case Column::VD: put_nested(out, *static_cast<const std::vector<std::vector<double>> *>(a)); break;
   case Column::EL: {  // member-wise: the class's framing, the count, the keys, the indices
      const auto &v = *static_cast<const std::vector<xAODlike::ElementLink_v1> *>(a);
      put_bytes(out, element);
      if (count)
         put(out, static_cast<uint32_t>(v.size()));
      for (const auto &l : v)
         put(out, l.m_persKey);
      for (const auto &l : v)
         put(out, l.m_persIndex);
      break;
   }
   case Column::VEL: {  // each link streamed object-wise: its class headers, then key and index
      const auto &v = *static_cast<const std::vector<std::vector<xAODlike::ElementLink_v1>> *>(a);
      put(out, static_cast<uint32_t>(v.size()));
      for (const auto &inner : v) {
         put(out, static_cast<uint32_t>(inner.size()));
         for (const auto &l : inner) {
            put_bytes(out, element);
            put(out, l.m_persKey);
            put(out, l.m_persIndex);
         }
      }
      break;
   }
   }
}

// One xAOD collection of the recipe ("container" is the study's TTree or RNTuple).
struct Collection {
   std::string name;
   TClass *interface_class = nullptr;
   TClass *aux_class = nullptr;
   void *interface_object = nullptr;  // ROOT owns the layout; we own the memory
   void *aux_object = nullptr;
   Distribution multiplicity;
   std::vector<Column> columns;  // static members first, then dynamic attributes
   // Layouts beyond the xAOD-like one (recipes calibrated on real files): the standalone scalar leaves of a
   // recipe (one pseudo-container, one element per event), or a flat collection (counter branch <counter>
   // and leaf-list arrays <branch>[<counter>], as NanoAOD). Neither has interface or aux objects.
   bool scalars = false, flat = false;
   std::string counter;
   UInt_t count = 0;
   std::vector<std::pair<std::string, std::pair<std::string, void *>>> dynamic_branches;  // name, class, address
   std::vector<Record> records;  // branches written as framed records (TTree only; see Record)

   const Record *record_of(const std::string &part) const
   {
      for (auto &r : records)
         if (r.part == part)
            return &r;
      return nullptr;
   }

   Column &column(const std::string &member)
   {
      for (auto &c : columns)
         if (c.name == member)
            return c;
      std::string known;
      for (auto &c : columns)
         known += " " + c.name;
      fail("container " + name + " has no member or attribute '" + member + "'; it has:" + known);
   }
};

// The payload of a record for the event just generated (n: the container's element count).
void compose(Record &r, const Collection &c, uint32_t n)
{
   auto &out = *r.payload;
   out.clear();
   for (const auto &seg : r.segments) {
      switch (seg.type) {
      case Segment::Bytes: put_bytes(out, seg.bytes); break;
      case Segment::Count: put(out, n); break;
      case Segment::Vector: {
         const size_t at = out.size();
         put(out, uint32_t{0});  // the byte count, set below
         put_bytes(out, seg.bytes);
         put_column(out, c.columns[seg.column], true, seg.element);
         const uint32_t bytecount = 0x40000000u | static_cast<uint32_t>(out.size() - at - 4);
         for (int k = 0; k < 4; ++k)
            out[at + k] = static_cast<unsigned char>(bytecount >> (8 * (3 - k)));
         break;
      }
      case Segment::Body: put_column(out, c.columns[seg.column], true, seg.element); break;
      case Segment::Raw: put_column(out, c.columns[seg.column], false, seg.element); break;
      }
   }
}

std::vector<std::string> split_words(const std::string &line)
{
   std::istringstream s(line);
   std::vector<std::string> words;
   std::string w;
   while (s >> w)
      words.push_back(w);
   return words;
}

// The RNTuple field of a branch: field names cannot hold '.', written as ':'.
std::string rntuple_field_name(std::string name)
{
   for (auto &ch : name)
      ch = ch == '.' ? ':' : ch;
   return name;
}

// The branches a recipe's containers make (and their RNTuple fields, rntuple_field_name): each must be unique. A
// TTree would take two branches of one name and hide the second from every reader; an RNTuple model refuses the
// second field. A real file may hold two top-level branches of one name (Delphes' "Particle"): the recipe must
// name them apart.
void check_unique_names(const std::vector<Collection> &containers, const std::string &path)
{
   std::map<std::string, std::string> seen;  // field name -> what made it
   auto add = [&](const std::string &branch, const std::string &what) {
      const std::string name = rntuple_field_name(branch);
      auto [it, fresh] = seen.emplace(name, what);
      if (!fresh)
         fail("recipe " + path + ": " + what + " and " + it->second + " make the same branch (RNTuple field) " +
              name + "; give each a name of its own");
   };
   for (const auto &c : containers) {
      if (c.scalars) {
         for (const auto &col : c.columns)
            add(col.branch, "scalar " + col.branch);
         continue;
      }
      if (c.flat) {
         add(c.counter, "the counter of collection " + c.name);
         for (const auto &col : c.columns)
            add(col.branch, "column " + c.name + " " + col.branch);
         continue;
      }
      if (c.interface_class)
         add(c.name, "the interface of container " + c.name);
      if (c.aux_class)
         add(c.name + "Aux.", "the aux store of container " + c.name);
      for (const auto &branch : c.dynamic_branches)
         add(branch.first, "attribute " + c.name + " " + branch.first.substr(c.name.size() + 7));
   }
}

std::vector<Collection> read_recipe(const std::string &path, bool &flat_layout, std::map<std::string, int> &baskets)
{
   flat_layout = false;
   std::ifstream in(path);
   if (!in)
      fail("cannot read recipe " + path);
   std::vector<Collection> containers;
   auto find = [&](const std::string &name) -> Collection & {
      for (auto &c : containers)
         if (c.name == name)
            return c;
      fail("recipe " + path + " refers to container '" + name + "' before declaring it");
   };
   std::string line;
   int lineno = 0;
   while (std::getline(in, line)) {
      ++lineno;
      auto hash = line.find('#');
      if (hash != std::string::npos)
         line.erase(hash);
      auto w = split_words(line);
      if (w.empty())
         continue;
      const std::string where = path + ":" + std::to_string(lineno) + ": ";
      try {
         if (w[0] == "layout" && w.size() == 2) {
            if (!containers.empty())
               fail("'layout' must come before any container, collection or scalar");
            if (w[1] != "flat" && w[1] != "xaod")
               fail("unknown layout '" + w[1] + "' (use xaod or flat)");
            flat_layout = w[1] == "flat";
         } else if (w[0] == "scalar" && w.size() >= 4) {
            // scalar <branch> <leaf-type> <dist...>: one value per event in a leaf of its own.
            if (containers.empty() || !containers.front().scalars) {
               Collection s;
               s.name = "(scalars)";
               s.scalars = true;
               s.multiplicity = {"fixed", {"1"}};
               containers.insert(containers.begin(), std::move(s));
            }
            containers.front().columns.push_back(leaf_column(w, 1));
            containers.front().columns.back().across_events = true;
         } else if (w[0] == "collection" && w.size() >= 4) {
            // collection <Name> <counter-branch> <multiplicity...> (both layouts)
            Collection c;
            c.name = w[1];
            c.flat = true;
            c.counter = w[2];
            c.multiplicity = {w[3], {w.begin() + 4, w.end()}};
            containers.push_back(std::move(c));
         } else if (w[0] == "column" && w.size() >= 5) {
            // column <Name> <branch> <leaf-type> <dist...>: the array <branch>[<counter>] of collection <Name>
            auto &c = find(w[1]);
            if (!c.flat)
               fail("'column' belongs to a flat collection; " + w[1] + " is not one");
            c.columns.push_back(leaf_column(w, 2));
         } else if (w[0] == "size" && w.size() >= 4) {
            // size <Name> <attr> <multiplicity...>: the attribute's own element count per event
            auto &col = find(w[1]).column(w[2]);
            col.has_size = true;
            col.size = {w[3], {w.begin() + 4, w.end()}};
         } else if (w[0] == "container" && w.size() >= 6) {
            if (flat_layout)
               fail("'container' belongs to the xaod layout; a flat recipe uses 'collection' and 'column'");
            // "-" for the interface or the aux class: no such branch (a real file's branch without one)
            Collection c;
            c.name = w[1];
            c.interface_class = w[2] == "-" ? nullptr : TClass::GetClass(w[2].c_str());
            c.aux_class = w[3] == "-" ? nullptr : TClass::GetClass(w[3].c_str());
            if (w[2] != "-" && (!c.interface_class || !c.interface_class->IsLoaded()))
               fail("no compiled dictionary for interface class " + w[2]);
            if (w[3] != "-" && (!c.aux_class || !c.aux_class->IsLoaded()))
               fail("no compiled dictionary for aux class " + w[3]);
            if (c.interface_class && !c.interface_class->InheritsFrom("xAODlike::AuxVectorBase"))
               fail("interface class " + w[2] + " does not derive from xAODlike::AuxVectorBase");
            c.multiplicity = {w[4], {w.begin() + 5, w.end()}};
            c.interface_object = c.interface_class ? c.interface_class->New() : nullptr;
            c.aux_object = c.aux_class ? c.aux_class->New() : nullptr;
            TList no_members;
            for (auto *obj : c.aux_class ? *c.aux_class->GetListOfDataMembers() : no_members) {
               auto *dm = static_cast<TDataMember *>(obj);
               if (!dm->IsPersistent() || dm->Property() & kIsStatic)
                  continue;
               Column col;
               if (!kind_of(dm->GetTrueTypeName(), col.kind))
                  fail(std::string("member ") + dm->GetName() + " of " + w[3] + " has unsupported type " +
                       dm->GetTrueTypeName());
               col.name = dm->GetName();
               col.address = static_cast<char *>(c.aux_object) + dm->GetOffset();
               if (col.kind == Column::EL || col.kind == Column::VEL)
                  col.values = {"link", {c.name}};  // until the recipe says where it points
               c.columns.push_back(col);
            }
            containers.push_back(std::move(c));
         } else if (w[0] == "attr" && w.size() >= 4) {
            find(w[1]).column(w[2]).values = {w[3], {w.begin() + 4, w.end()}};
         } else if (w[0] == "keys" && w.size() >= 5) {
            // keys <Name> <attr> <null-index> <dist...>: the keys of a link attribute, and a null link's index
            auto &col = find(w[1]).column(w[2]);
            if (col.kind != Column::EL && col.kind != Column::VEL)
               fail("'keys' is for element-link attributes; " + w[1] + " " + w[2] + " holds none");
            col.null_index = static_cast<uint32_t>(std::stoul(w[3]));
            col.keys = std::make_shared<Column>();
            col.keys->name = col.name + "/keys";
            col.keys->kind = Column::U32;
            col.keys->values = {w[4], {w.begin() + 5, w.end()}};
         } else if (w[0] == "reuse" && w.size() >= 5) {
            // reuse <Name> <attr> <q> <window> [<run multiplicity...>]: copies from the last <window> (see Column)
            auto &col = find(w[1]).column(w[2]);
            col.reuse = std::stod(w[3]);
            col.window = static_cast<size_t>(std::stoul(w[4]));
            if (col.reuse < 0 || col.reuse > 1 || col.window < 1)
               fail("reuse " + w[1] + " " + w[2] + ": the share must be in [0, 1] and the window at least 1");
            if (w.size() > 5)
               col.runs = {w[5], {w.begin() + 6, w.end()}};
         } else if (w[0] == "order" && (w.size() == 4 || w.size() == 5)) {
            // order <Name> <attr> ascending|descending [unique]
            auto &col = find(w[1]).column(w[2]);
            if (w[3] != "ascending" && w[3] != "descending")
               fail("order " + w[1] + " " + w[2] + ": use ascending or descending");
            if (w.size() == 5 && w[4] != "unique")
               fail("order " + w[1] + " " + w[2] + ": the optional last word is unique");
            col.order = w[3] == "ascending" ? 1 : -1;
            col.unique = w.size() == 5;
         } else if (w[0] == "inner" && w.size() >= 5) {
            find(w[1]).column(w[2]).inner = {w[3], {w.begin() + 4, w.end()}};
         } else if ((w[0] == "dyn" || w[0] == "member") && w.size() >= 5) {
            auto type = kDynamicTypes.find(w[3]);
            if (type == kDynamicTypes.end())
               fail("unknown attribute type '" + w[3] +
                    "' (use float, double, int8, int16, int, int64, uint8, uint16, uint32, uint64, vfloat, vdouble, "
                    "vint, vuint32, link, vlink)");
            auto &c = find(w[1]);
            Column col;
            col.name = w[2];
            col.kind = type->second.first;
            col.address = new_dynamic_vector(col.kind);
            const bool is_link = col.kind == Column::EL || col.kind == Column::VEL;
            // Links need only their target: "dyn Electrons truthParticleLink link TruthParticles".
            // "link <Target> D" draws the index from D, as for static members.
            col.values = is_link ? Distribution{"link", {w.begin() + 4, w.end()}}
                                 : Distribution{w[4], {w.begin() + 5, w.end()}};
            c.columns.push_back(col);
            // member: an attribute stored inside the container's aux record only (no branch of its own)
            if (w[0] == "dyn")
               c.dynamic_branches.push_back({c.name + "AuxDyn." + w[2], {type->second.second, col.address}});
         } else if (w[0] == "record" && w.size() >= 4) {
            // record <Name> <interface|aux|attribute> <segments...>: that branch written as a framed record
            auto &c = find(w[1]);
            if (c.record_of(w[2]))
               fail("container " + w[1] + " has two records for " + w[2]);
            Record r;
            r.part = w[2];
            for (size_t k = 3; k < w.size(); ++k)
               r.segments.push_back(parse_segment(w[k]));
            c.records.push_back(std::move(r));
         } else if (w[0] == "basket" && w.size() == 3) {
            // basket <branch> <bytes>: the branch's own basket size, used when --basket is 0 (the real file's)
            const int bytes = std::stoi(w[2]);
            if (bytes < 16)
               fail("basket " + w[1] + " " + w[2] + ": a basket size is at least 16 bytes");
            baskets[w[1]] = bytes;
         } else {
            fail("cannot parse '" + line +
                 "' (expected layout, container, attr, dyn, member, inner, size, keys, reuse, order, record, basket, "
                 "scalar, collection or column with their parameters)");
         }
      } catch (const std::invalid_argument &) {
         fail(where + "a parameter is not a number in '" + line + "'");
      } catch (const std::runtime_error &e) {
         const std::string msg = e.what();
         fail(msg.rfind(path, 0) == 0 ? msg : where + msg);
      }
   }
   if (containers.empty())
      fail("recipe " + path + " declares no container");
   check_unique_names(containers, path);
   // Records: their attributes' columns, their classes and objects.
   for (auto &c : containers)
      for (auto &r : c.records) {
         const std::string where = path + ": record " + c.name + " " + r.part + ": ";
         for (auto &seg : r.segments)
            if (!seg.attr.empty()) {
               size_t k = 0;
               while (k < c.columns.size() && c.columns[k].name != seg.attr)
                  ++k;
               if (k == c.columns.size())
                  fail(where + "no attribute or member '" + seg.attr + "'");
               seg.column = k;
            }
         std::string cls;
         if (r.part == "interface") {
            if (!c.interface_class)
               fail(where + "the container has no interface branch ('-')");
            cls = c.interface_class->InheritsFrom("xAODlike::IParticleContainer") ? "xAODlike::RecordParticleContainer_v1"
                                                                                  : "xAODlike::RecordContainer_v1";
         } else if (r.part == "aux") {
            if (!c.aux_class)
               fail(where + "the container has no aux branch ('-')");
            cls = "xAODlike::RecordAuxStore_v1";
         } else {
            const auto &col = c.column(r.part);
            cls = col.kind == Column::EL || col.kind == Column::VEL ? "xAODlike::ElementLinkRecord_v1" : "xAODlike::Record_v1";
            bool has_branch = false;
            for (auto &d : c.dynamic_branches)
               has_branch |= d.first == c.name + "AuxDyn." + r.part;
            if (!has_branch)
               fail(where + "a record of an attribute is of a dyn attribute (a member lives in the aux record)");
         }
         r.cl = TClass::GetClass(cls.c_str());
         if (!r.cl || !r.cl->IsLoaded())
            fail("no compiled dictionary for " + cls);
         r.object = r.cl->New();
         r.payload = reinterpret_cast<std::vector<unsigned char> *>(static_cast<char *>(r.object) +
                                                                    r.cl->GetDataMemberOffset("m_payload"));
      }
   return containers;
}

// ROOT's own rewrite of a file, for comparison with this writer: TTree::CloneTree(-1, "") re-streams every
// object (no fast cloning) into a new file; branch settings (split, baskets, AutoFlush) come with the tree.
int clone_tree(const std::map<std::string, std::string> &args)
{
   const std::string source = required_arg(args, "clone-from"), output = required_arg(args, "output");
   const int compression = std::stoi(required_arg(args, "compression"));
   std::unique_ptr<TFile> in(TFile::Open(source.c_str(), "READ"));
   if (!in || in->IsZombie())
      fail("cannot open " + source);
   auto *tree = in->Get<TTree>(tree_name_arg(args).c_str());
   if (!tree)
      fail(source + " has no tree " + tree_name_arg(args));
   const double wall0 = steady_now(), cpu0 = process_cpu_seconds();
   std::unique_ptr<TFile> out(TFile::Open(output.c_str(), "RECREATE", "", compression));
   if (!out || out->IsZombie())
      fail("cannot create " + output);
   TTree *copy = tree->CloneTree(-1, "");
   if (!copy)
      fail("CloneTree failed for " + source);
   copy->Write();
   const Long64_t tot_bytes = copy->GetTotBytes(), zip_bytes = copy->GetZipBytes();
   out->Close();
   JsonObject j;
   j.str("file", output)
      .str("source", source)
      .num("clone_wall_seconds", steady_now() - wall0)
      .num("clone_cpu_seconds", process_cpu_seconds() - cpu0)
      .integer("tree_tot_bytes", tot_bytes)
      .integer("tree_zip_bytes", zip_bytes);
   std::cout << "ROOTPARAMS_JSON " << j.dump() << std::endl;
   return 0;
}

// RNTuple type names of the column kinds (ROOT's normalized spelling).
const char *ntuple_type_of(Column::Kind kind)
{
   switch (kind) {
   case Column::F: return "std::vector<float>";
   case Column::I: return "std::vector<std::int32_t>";
   case Column::U8: return "std::vector<std::uint8_t>";
   case Column::U16: return "std::vector<std::uint16_t>";
   case Column::U32: return "std::vector<std::uint32_t>";
   case Column::U64: return "std::vector<std::uint64_t>";
   case Column::VF: return "std::vector<std::vector<float>>";
   case Column::VI: return "std::vector<std::vector<std::int32_t>>";
   case Column::VU32: return "std::vector<std::vector<std::uint32_t>>";
   case Column::EL: return "std::vector<xAODlike::ElementLink_v1>";
   case Column::VEL: return "std::vector<std::vector<xAODlike::ElementLink_v1>>";
   case Column::D: return "std::vector<double>";
   case Column::I8: return "std::vector<std::int8_t>";
   case Column::I16: return "std::vector<std::int16_t>";
   case Column::I64: return "std::vector<std::int64_t>";
   case Column::VD: return "std::vector<std::vector<double>>";
   case Column::B: return "std::vector<std::uint8_t>";
   }
   return "";
}

// Where the events go: a TTree in a TFile, or an RNTuple. Both take the containers' memory as it is after
// each event is generated (or read from the content file), so the two hold the same values.
class Sink {
public:
   virtual ~Sink() = default;
   virtual void fill(Long64_t i) = 0;
   // Writes what is left and closes the file; returns (uncompressed, compressed) bytes of the data, or -1 where
   // the container does not keep them (RNTuple: rootparams-read --inspect has them).
   virtual std::pair<Long64_t, Long64_t> close() = 0;
};

class TreeSink : public Sink {
public:
   // basket 0: each branch's basket size from the recipe's basket lines (the real file's), 32000 for the others.
   TreeSink(const std::string &output, const std::string &name, int compression, Long64_t autoflush, int split,
            int basket, std::vector<Collection> &containers, const std::map<std::string, int> &baskets)
      : output_(output)
   {
      const int recipe_baskets = basket == 0;
      if (recipe_baskets)
         basket = 32000;
      file_.reset(TFile::Open(output.c_str(), "RECREATE", "", compression));
      if (!file_ || file_->IsZombie())
         fail("cannot create " + output);
      tree_ = new TTree(name.c_str(), "xAOD-like synthetic events (rootparams)");  // owned by the file
      tree_->SetAutoFlush(autoflush);
      for (auto &c : containers) {
         if (c.scalars || c.flat) {
            // Leaf branches: split levels do not apply to leaf lists (a real NanoAOD's branches are the same at
            // every split level); the basket size does.
            if (c.flat)
               tree_->Branch(c.counter.c_str(), &c.count, (c.counter + "/i").c_str(), basket);
            for (auto &col : c.columns) {
               const std::string shape = c.flat ? "[" + c.counter + "]" : "";
               static_cast<void>(col.data());  // checks that it is a leaf kind
               leaf_columns_.push_back(
                  {tree_->Branch(col.branch.c_str(), col.data(),
                                 (col.branch + shape + "/" + leaf_type_of(col.kind).code).c_str(), basket),
                   &col});
            }
            continue;
         }
         // A record (a class with its own streamer) is never split, whatever the split level.
         auto branch = [&](const std::string &bname, const std::string &part, const char *cls, void *&address) {
            if (auto *r = const_cast<Record *>(c.record_of(part)))
               tree_->Branch(bname.c_str(), r->cl->GetName(), &r->object, basket, 0);
            else
               tree_->Branch(bname.c_str(), cls, &address, basket, split);
         };
         if (c.interface_class)
            branch(c.name, "interface", c.interface_class->GetName(), c.interface_object);
         if (c.aux_class)
            branch(c.name + "Aux.", "aux", c.aux_class->GetName(), c.aux_object);
         for (auto &[bname, cls_addr] : c.dynamic_branches)
            branch(bname, bname.substr(c.name.size() + 7), cls_addr.first.c_str(), cls_addr.second);
      }
      if (recipe_baskets)
         for (auto *obj : *tree_->GetListOfBranches()) {
            auto *b = static_cast<TBranch *>(obj);
            auto it = baskets.find(b->GetName());
            if (it != baskets.end())
               b->SetBasketSize(it->second);
         }
   }
   // The branches' own compression (--hot-branches): the setting of each named top-level branch and of every
   // branch below it, before the first fill, so that every basket of theirs is compressed with it. (TBranch::
   // SetCompressionSettings recurses in ROOT 6.40 too; setting each one here does not depend on it.)
   void set_branch_compression(const std::vector<std::string> &names, int setting)
   {
      for (const auto &name : names) {
         TBranch *b = tree_->GetBranch(name.c_str());
         if (!b || b->GetMother() != b)
            fail("--hot-branches: " + name + " is not a top-level branch of the tree");
         std::vector<TBranch *> todo{b};
         while (!todo.empty()) {
            TBranch *x = todo.back();
            todo.pop_back();
            x->SetCompressionSettings(setting);
            for (auto *sub : *x->GetListOfBranches())
               todo.push_back(static_cast<TBranch *>(sub));
         }
      }
   }
   void fill(Long64_t i) override
   {
      // A leaf column's storage may move when it grows: point its branch at where the values are now.
      for (auto &[branch, col] : leaf_columns_)
         if (branch->GetAddress() != static_cast<char *>(col->data()))
            branch->SetAddress(col->data());
      if (tree_->Fill() < 0 || file_->TestBit(TFile::kWriteError))
         fail("writing event " + std::to_string(i) + " to " + output_ + " failed (disk full or I/O error?)");
   }
   std::pair<Long64_t, Long64_t> close() override
   {
      file_->cd();
      tree_->Write();
      const std::pair<Long64_t, Long64_t> bytes{tree_->GetTotBytes(), tree_->GetZipBytes()};
      const bool write_error = file_->TestBit(TFile::kWriteError);
      file_->Close();
      if (write_error)
         fail("writing " + output_ + " failed (disk full or I/O error?)");
      return bytes;
   }

private:
   std::string output_;
   std::unique_ptr<TFile> file_;
   TTree *tree_ = nullptr;
   std::vector<std::pair<TBranch *, Column *>> leaf_columns_;
};

class NTupleSink : public Sink {
public:
   NTupleSink(const std::string &output, const std::string &name, int compression, Long64_t autoflush,
              long long page_size, bool parallel_zip, int float_mantissa, std::vector<Collection> &containers)
      : output_(output), name_(name), cluster_entries_(autoflush > 0 ? autoflush : 0)
   {
      auto model = ROOT::RNTupleModel::Create();
      std::vector<std::pair<std::string, void *>> bindings;
      auto add = [&](const std::string &field, const std::string &type, void *address) {
         auto created = ROOT::RFieldBase::Create(field, type);
         if (!created)
            fail("RNTuple field " + field + " of type " + type + ": " + created.GetError()->GetReport());
         model->AddField(created.Unwrap());
         bindings.emplace_back(field, address);
      };
      for (auto &c : containers) {
         if (c.scalars) {  // one value per event
            for (auto &col : c.columns)
               add(rntuple_field_name(col.branch), leaf_type_of(col.kind).ntuple, col.data());
            continue;
         }
         if (c.flat) {
            // A collection beside containers (a TClonesArray's members): its counter, and each column a vector
            // of its own, as RDataFrame writes RVec columns. (A flat-layout recipe goes through a TTree and
            // RNTupleImporter instead: ImportedNTupleSink.)
            add(rntuple_field_name(c.counter), "std::uint32_t", &c.count);
            for (auto &col : c.columns)
               add(rntuple_field_name(col.branch), ntuple_type_of(col.kind), col.address);
            continue;
         }
         if (c.interface_class)
            add(c.name, c.interface_class->GetName(), c.interface_object);
         for (auto &col : c.columns)
            add(c.name + "AuxDyn:" + col.name, ntuple_type_of(col.kind), col.address);
      }
      if (float_mantissa > 0) {
         // Every float field, at any depth (the items of vector<float> and vector<vector<float>> fields too), stored
         // truncated to sign + exponent + N mantissa bits. ROOT truncates (rounds towards zero); the values were
         // rounded to N bits already, so nothing more is lost and the stored values are the rounded ones exactly.
         for (auto &field : model->GetMutableFieldZero())
            if (auto *f = dynamic_cast<ROOT::RField<float> *>(&field)) {
               f->SetTruncated(static_cast<std::size_t>(1 + 8 + float_mantissa));
               ++truncated_fields_;
            }
      }
      ROOT::RNTupleWriteOptions options;
      options.SetCompression(compression);
      if (autoflush > 0) {
         // Clusters of exactly N events, committed by hand: the automatic flush must never come first.
         options.SetMaxUnzippedClusterSize(std::size_t(64) << 30);
         options.SetApproxZippedClusterSize(std::size_t(16) << 30);
      } else if (autoflush < 0) {
         options.SetApproxZippedClusterSize(static_cast<std::size_t>(-autoflush));
      }
      if (page_size > 0)
         options.SetMaxUnzippedPageSize(static_cast<std::size_t>(page_size));
      // As the TTree writer: ROOT compresses pages in parallel only when the writer was given threads.
      options.SetUseImplicitMT(parallel_zip ? ROOT::RNTupleWriteOptions::EImplicitMT::kDefault
                                            : ROOT::RNTupleWriteOptions::EImplicitMT::kOff);
      try {
         writer_ = ROOT::RNTupleWriter::Recreate(std::move(model), name, output, options);
      } catch (const std::exception &e) {
         fail("cannot create the RNTuple " + name + " in " + output + ": " + e.what());
      }
      entry_ = writer_->CreateEntry();
      for (auto &[field, address] : bindings)
         entry_->BindRawPtr(field, address);
   }
   void fill(Long64_t i) override
   {
      try {
         writer_->Fill(*entry_);
         if (cluster_entries_ && (i + 1) % cluster_entries_ == 0)
            writer_->CommitCluster();
      } catch (const std::exception &e) {
         fail("writing event " + std::to_string(i) + " to " + output_ + " failed: " + e.what());
      }
   }
   std::pair<Long64_t, Long64_t> close() override
   {
      entry_.reset();
      try {
         writer_.reset();  // commits the last cluster, the header and the footer, and closes the file
      } catch (const std::exception &e) {
         fail("closing " + output_ + " failed: " + e.what());
      }
      // The sizes are the reader's --inspect business (it counts merged pages once); the clusters are checked here.
      auto reader = ROOT::RNTupleReader::Open(name_, output_);
      const auto &desc = reader->GetDescriptor();
      clusters_ = desc.GetNClusters();
      return {-1, -1};
   }
   long long clusters() const { return clusters_; }
   long long truncated_fields() const { return truncated_fields_; }

private:
   std::string output_, name_;
   Long64_t cluster_entries_;
   std::unique_ptr<ROOT::RNTupleWriter> writer_;
   std::unique_ptr<ROOT::REntry> entry_;
   long long clusters_ = 0;
   long long truncated_fields_ = 0;
};

// A flat-layout recipe (NanoAOD-like leaf-list arrays) as an RNTuple: the events are written to a TTree next to
// the output, which ROOT's RNTupleImporter then converts, as CMS's NanoAOD RNTuples are made: one untyped
// collection of records per counter (`_collection<N>`), its arrays projected as `<branch>` and its count as the
// cardinality `<counter>`, scalars as fields. The TTree is removed afterwards.
class ImportedNTupleSink : public Sink {
public:
   ImportedNTupleSink(const std::string &output, const std::string &name, int compression, Long64_t autoflush,
                      long long page_size, std::vector<Collection> &containers)
      : output_(output), name_(name), tree_file_(output + ".flat-tree.root"), compression_(compression),
        autoflush_(autoflush), page_size_(page_size)
   {
      tree_ = std::make_unique<TreeSink>(tree_file_, name, compression, 0, 99, 32000, containers,
                                         std::map<std::string, int>{});
   }
   void fill(Long64_t i) override { tree_->fill(i); }
   std::pair<Long64_t, Long64_t> close() override
   {
      tree_->close();
      std::remove(output_.c_str());
      try {
         std::unique_ptr<TFile> in(TFile::Open(tree_file_.c_str(), "READ"));
         auto *tree = in ? in->Get<TTree>(name_.c_str()) : nullptr;
         if (!tree)
            fail("the flat TTree for the RNTuple import is missing from " + tree_file_);
         auto importer = ROOT::Experimental::RNTupleImporter::Create(tree, output_);
         importer->SetNTupleName(name_);
         importer->SetIsQuiet(true);
         auto options = importer->GetWriteOptions();
         options.SetCompression(compression_);
         if (autoflush_ < 0)
            options.SetApproxZippedClusterSize(static_cast<std::size_t>(-autoflush_));
         if (page_size_ > 0)
            options.SetMaxUnzippedPageSize(static_cast<std::size_t>(page_size_));
         importer->SetWriteOptions(options);
         importer->Import();
      } catch (const std::exception &e) {
         std::remove(tree_file_.c_str());
         fail("importing the flat events into the RNTuple " + name_ + " in " + output_ + " failed: " + e.what());
      }
      std::remove(tree_file_.c_str());
      auto reader = ROOT::RNTupleReader::Open(name_, output_);
      clusters_ = reader->GetDescriptor().GetNClusters();
      return {-1, -1};
   }
   long long clusters() const { return clusters_; }

private:
   std::string output_, name_, tree_file_;
   int compression_;
   Long64_t autoflush_;
   long long page_size_;
   std::unique_ptr<TreeSink> tree_;
   long long clusters_ = 0;
};

int run(const std::map<std::string, std::string> &args)
{
   if (args.count("clone-from"))
      return clone_tree(args);
   auto need = [&](const char *key) { return required_arg(args, key); };
   const std::string output = need("output");
   const Long64_t events = std::stoll(need("events"));
   const int compression = std::stoi(need("compression"));
   const Long64_t autoflush = std::stoll(need("autoflush"));
   const uint64_t seed = std::stoull(need("seed"));
   const std::string tree_name = tree_name_arg(args);
   const std::string container = args.count("container") ? args.at("container") : "ttree";
   if (container != "ttree" && container != "rntuple")
      fail("--container " + container + ": must be ttree or rntuple");
   const bool ntuple = container == "rntuple";
   const int split = ntuple ? -1 : std::stoi(need("split"));
   const int basket = ntuple ? 0 : std::stoi(need("basket"));
   const long long page_size = ntuple ? std::stoll(need("page-size")) : 0;
   const int float_mantissa = args.count("float-mantissa") ? std::stoi(args.at("float-mantissa")) : 0;
   if (float_mantissa < 0 || float_mantissa > 22)
      fail("--float-mantissa " + std::to_string(float_mantissa) +
           ": must be from 1 to 22 (explicit mantissa bits kept), or 0 for full precision");

   std::vector<std::string> hot_branches;
   int hot_compression = -1;
   if (args.count("hot-branches")) {
      if (ntuple)
         fail("--hot-branches: an RNTuple has one compression setting per file in ROOT 6.40 (RNTupleWriteOptions::"
              "SetCompression); per-branch settings are for a TTree");
      std::stringstream names(args.at("hot-branches"));
      for (std::string name; std::getline(names, name, ',');)
         if (!name.empty())
            hot_branches.push_back(name);
      hot_compression = std::stoi(required_arg(args, "hot-compression"));
   }

   // ROOT's implicit MT compresses the baskets of a cluster (the pages, for RNTuple) in parallel when they are
   // flushed; the content, and so every read measurement, does not depend on it (the order in the file may).
   const int threads = args.count("threads") ? std::stoi(args.at("threads")) : 1;
   if (threads > 1)
      ROOT::EnableImplicitMT(threads);

   bool flat_layout = false;
   std::map<std::string, int> baskets;
   auto containers = read_recipe(need("recipe"), flat_layout, baskets);
   // Leaf columns keep their storage where the branches point: room for the usual element counts up front.
   for (auto &c : containers)
      for (auto &col : c.columns)
         if (col.leaf)
            col.reserve(c.scalars ? 1 : 64);

   // Content written once per format can be read back instead of generated again: the same recipe gives
   // the same objects, so reading fills exactly what generation would have filled.
   std::unique_ptr<TFile> content_file;
   TTree *content = nullptr;
   if (args.count("content")) {
      const std::string &path = args.at("content");
      content_file.reset(TFile::Open(path.c_str(), "READ"));
      if (!content_file || content_file->IsZombie())
         fail("cannot open the content file " + path);
      content = content_file->Get<TTree>(tree_name.c_str());
      if (!content || content->GetEntries() < events)
         fail("content file " + path + " has " + std::to_string(content ? content->GetEntries() : 0) +
              " events, " + std::to_string(events) + " are needed");
      for (auto &c : containers)
         if (c.scalars || c.flat || !c.records.empty())
            fail("--content is not supported for recipes with scalar, flat-layout or record columns; generate the "
                 "events");
      auto attach = [&](const std::string &bname, void *address, TClass *cl) {
         if (!content->GetBranch(bname.c_str()))
            fail("content file " + path + " has no branch " + bname + " (written from another recipe?)");
         content->SetBranchAddress(bname.c_str(), address, nullptr, cl, kOther_t, true);
      };
      for (auto &c : containers) {
         if (c.interface_class)
            attach(c.name, &c.interface_object, c.interface_class);
         if (c.aux_class)
            attach(c.name + "Aux.", &c.aux_object, c.aux_class);
         for (auto &[bname, cls_addr] : c.dynamic_branches)
            attach(bname, &cls_addr.second, TClass::GetClass(cls_addr.first.c_str()));
      }
   }

   const double wall0 = steady_now(), cpu0 = process_cpu_seconds(), epoch0 = epoch_now();
   std::unique_ptr<Sink> sink;
   NTupleSink *ntuple_sink = nullptr;
   ImportedNTupleSink *imported_sink = nullptr;
   if (ntuple && flat_layout) {
      if (float_mantissa > 0)
         fail("--float-mantissa with a flat-layout recipe and --container rntuple is not supported (the RNTuple is "
              "imported from a TTree)");
      auto s = std::make_unique<ImportedNTupleSink>(output, tree_name, compression, autoflush, page_size, containers);
      imported_sink = s.get();
      sink = std::move(s);
   } else if (ntuple) {
      auto s = std::make_unique<NTupleSink>(output, tree_name, compression, autoflush, page_size, threads > 1,
                                            float_mantissa, containers);
      ntuple_sink = s.get();
      sink = std::move(s);
   } else {
      auto s = std::make_unique<TreeSink>(output, tree_name, compression, autoflush, split, basket, containers, baskets);
      if (!hot_branches.empty())
         s->set_branch_compression(hot_branches, hot_compression);
      sink = std::move(s);
   }

   TClass *base_class = TClass::GetClass("xAODlike::AuxVectorBase");
   // Each container's count in the event (its entry in ev.multiplicity, which stays where it is) and the base
   // of its interface object, found once instead of for every event.
   Event ev;
   std::vector<uint32_t *> multiplicity_of_container;
   std::vector<xAODlike::AuxVectorBase *> interface_base;
   for (auto &c : containers) {
      multiplicity_of_container.push_back(&ev.multiplicity[c.name]);
      interface_base.push_back(
         c.interface_class
            ? static_cast<xAODlike::AuxVectorBase *>(c.interface_class->DynamicCast(base_class, c.interface_object))
            : nullptr);
   }
   // The events' streams: TRandom3's numbers, seeded lazily (LazyMersenneTwister), or TRandom3 itself should it
   // ever draw otherwise.
   reference_draws = args.count("reference-draws") > 0;
   const bool lazy_streams = !reference_draws && matches_trandom3();
   std::unique_ptr<TRandom> streams;
   if (lazy_streams)
      streams = std::make_unique<LazyMersenneTwister>();
   else
      streams = std::make_unique<TRandom3>();
   TRandom &rng = *streams;
   // ROOT's part of the writing, in wall time and in CPU time of all the process's threads (implicit MT
   // compresses baskets and pages on worker threads during the fills): the CPU time is the write cost that
   // does not grow when another job shares the cores.
   double generate_seconds = 0, fill_seconds = 0, fill_cpu_seconds = 0;
   for (Long64_t i = 0; i < events; ++i) {
      const double g0 = steady_now();
      if (content) {
         if (content->GetEntry(i) <= 0)
            fail("reading event " + std::to_string(i) + " of the content file failed");
      } else {
         ev.number = i;
         for (size_t k = 0; k < containers.size(); ++k) {
            rng.SetSeed(stream_seed(seed, i, 2 * k));
            *multiplicity_of_container[k] = Column::multiplicity_of(containers[k].multiplicity, rng);
         }
         ev.hash_multiplicities();
         for (size_t k = 0; k < containers.size(); ++k) {
            auto &c = containers[k];
            rng.SetSeed(stream_seed(seed, i, 2 * k + 1));
            const uint32_t n = *multiplicity_of_container[k];
            if (interface_base[k])
               interface_base[k]->m_size = n;
            c.count = n;
            for (auto &col : c.columns)
               col.fill(col.has_size ? Column::multiplicity_of(col.size, rng) : n, rng, ev);
            if (!ntuple)
               for (auto &r : c.records)
                  compose(r, c, n);
         }
      }
      if (float_mantissa > 0)
         for (auto &c : containers)
            for (auto &col : c.columns)
               if (col.is_float())
                  col.round_floats(float_mantissa);
      const double f0 = steady_now(), fc0 = process_cpu_seconds();
      generate_seconds += f0 - g0;
      sink->fill(i);
      fill_seconds += steady_now() - f0;
      fill_cpu_seconds += process_cpu_seconds() - fc0;
   }
   const double c0 = steady_now(), cc0 = process_cpu_seconds();
   const auto [tot_bytes, zip_bytes] = sink->close();
   fill_seconds += steady_now() - c0;
   fill_cpu_seconds += process_cpu_seconds() - cc0;

   // The precision lost per float variable (none listed at full precision).
   std::vector<std::string> losses;
   long long float_values_rounded = 0;
   if (float_mantissa > 0)
      for (const auto &c : containers)
         for (const auto &col : c.columns)
            if (col.is_float()) {
               float_values_rounded += col.loss.values;
               JsonObject l;
               l.str("collection", c.name)  // the particle container (not the file's TTree/RNTuple "container")
                  .str("variable", col.name)
                  .integer("mantissa_bits", float_mantissa)
                  .integer("values", col.loss.values)
                  .num("max_rel_error", col.loss.max_rel)
                  .num("rms_rel_error", col.loss.rms_rel())
                  .num("max_abs_error", col.loss.max_abs);
               losses.push_back(l.dump());
            }

   JsonObject out;
   out.str("file", output)
      .str("container", container)
      .integer("events", events)
      .integer("compression_setting_requested", compression)
      .integer("split_level_requested", split)
      .integer("basket_size_requested", basket)
      .integer("page_size_requested", page_size)
      .integer("seed", static_cast<long long>(seed))
      .integer("write_threads", threads)
      .str("content_source", args.count("content") ? args.at("content") : "generated")
      .num("write_start_time", epoch0)
      .num("write_end_time", epoch_now())
      .num("write_wall_seconds", steady_now() - wall0)
      .num("write_cpu_seconds", process_cpu_seconds() - cpu0)
      .num("generate_seconds", generate_seconds)
      .num("root_write_seconds", fill_seconds)
      .num("root_write_cpu_seconds", fill_cpu_seconds)
      // TTree: GetTotBytes/GetZipBytes; RNTuple: -1 (see Sink::close).
      .integer("tree_tot_bytes", tot_bytes)
      .integer("tree_zip_bytes", zip_bytes)
      .integer("ntuple_clusters", ntuple_sink ? ntuple_sink->clusters() : imported_sink ? imported_sink->clusters() : -1)
      .integer("float_mantissa_bits", float_mantissa > 0 ? float_mantissa : 23)
      .integer("float_values_truncated", float_values_rounded)
      .integer("ntuple_truncated_float_fields", ntuple_sink ? ntuple_sink->truncated_fields() : 0)
      .raw("float_precision_loss", json_array(losses))
      .raw("hot_branches", json_string_array(hot_branches))
      .integer("hot_compression_setting", hot_compression)
      .str("random_streams", lazy_streams ? "TRandom3 (lazily seeded)" : "TRandom3")
      .boolean("reference_draws", reference_draws)
      .integer("peak_rss_bytes", peak_rss_bytes());
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
   return 0;
}

}  // namespace

int main(int argc, char **argv)
{
   try {
      return run(parse_args(argc, argv));
   } catch (const std::exception &e) {
      std::cerr << "rootparams-write: error: " << e.what() << std::endl;
      return 2;
   }
}
