// rootparams-write's columns: one per-element column of a container (a static aux member, a dynamic attribute, a
// scalar or a flat array), its storage and how an event fills it from its distribution (write_distributions.h):
// inner vectors, element links, copies of recent values (reuse), order, and float precision (--float-mantissa).
#pragma once

#include "XaodClasses.h"
#include "write_distributions.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rootparams::write {

// Float precision (--float-mantissa N): x rounded to N explicit mantissa bits, to nearest with ties to even on the
// dropped bits (as IEEE rounding does), a carry moving into the exponent. A value the recipe already truncated
// to fewer bits (trunc n D, n <= N) is unchanged. The relative error is at most 2^-(N+1). Infinities and NaN stay;
// a value that would round up to infinity is rounded towards zero instead.
float round_mantissa(float x, int n);

// The precision a float column lost to the rounding, over all the values written: max |x - x'| / |x| and the
// RMS of that relative error over x != 0, and max |x - x'|.
struct PrecisionLoss {
   long long values = 0, nonzero = 0;
   double max_rel = 0, sum_sq_rel = 0, max_abs = 0;
   void add(float x, float y);
   double rms_rel() const;
};

// One per-element column: a std::vector<...> somewhere in memory (a static aux member or a dynamic
// attribute) that is cleared and refilled for every event. Its values' distribution and their drawing are the
// Sampler's (name, values, across_events, last, ...).
struct Column : Sampler {
   // D, I8, I16, I64, VD and B (bool, stored as bytes) were added for recipes calibrated on real files
   // (rootparams.calibrate); the built-in formats use the first eleven only.
   enum Kind { F, I, U8, U16, U32, U64, VF, VI, VU32, EL, VEL, D, I8, I16, I64, VD, B };
   Kind kind;
   void *address;
   Distribution inner{"fixed", {"4"}};
   // A leaf column (scalar leaf "<branch>/F", or flat array "<branch>[n<C>]/F") rather than a vector branch.
   bool leaf = false;
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
   PrecisionLoss loss;  // what --float-mantissa took from this column (float kinds only)
   // make_link's target: its hashed key, and where the event keeps its multiplicity (an unordered_map's entries
   // stay where they are, and every container has its entry before the first column of an event is filled, so
   // the place found for the first link holds the target's count in every event; nullptr: not a container).
   mutable const Event *link_event = nullptr;
   mutable uint32_t link_key = 0;
   mutable const uint32_t *link_size = nullptr;

   bool reusing(TRandom &rng) const { return reuse > 0 && !recent.empty() && rng.Rndm() < reuse; }
   const std::vector<double> &reused(TRandom &rng) const { return recent[rng.Integer(recent.size())]; }
   void remember(std::vector<double> x);

   bool is_float() const { return kind == F || kind == VF; }
   // Rounds this event's values of a float column to n mantissa bits in place, counting what was lost.
   void round_floats(int n);

   // Holds inner vectors: "previous" and "first" run along each of them.
   bool nested() const { return kind == VF || kind == VI || kind == VU32 || kind == VEL || kind == VD; }
   // start: the token the distribution begins at (0; 2 for the index distribution of a link, see make_link).
   double draw(TRandom &rng, const Event &ev, size_t index, size_t inner_index, size_t start = 0) const
   {
      return sample(rng, ev, index, inner_index, nested(), start);
   }
   uint32_t inner_length(TRandom &rng) const { return multiplicity_of(inner, rng); }

   // Room for n elements in a leaf column's storage (so that its branch's address stays put).
   void reserve(size_t n);
   // First element of a leaf column's storage (leaf columns are flat vectors of one of the scalar kinds).
   void *data() const;
   xAODlike::ElementLink_v1 make_link(TRandom &rng, const Event &ev, size_t index, size_t inner_index) const;
   // This event's n elements (inner vectors for a nested column).
   void fill(size_t n, TRandom &rng, const Event &ev);

private:
   template <typename T>
   void fill_scalar(size_t n, TRandom &rng, const Event &ev);
   template <typename It>
   void sort_values(It begin, It end) const;
   template <typename T>
   void fill_nested(size_t n, TRandom &rng, const Event &ev);
   void fill_bool(size_t n, TRandom &rng, const Event &ev);
   void fill_links(size_t n, TRandom &rng, const Event &ev);
   void fill_nested_links(size_t n, TRandom &rng, const Event &ev);
};

// Type names as ROOT normalizes them (a static aux member's), mapped to column kinds.
bool kind_of(std::string type, Column::Kind &kind);

// Dynamic attribute types of the recipe -> (column kind, ROOT class name of the branch).
extern const std::unordered_map<std::string, std::pair<Column::Kind, std::string>> kDynamicTypes;

// The storage of a column of this kind (a new std::vector<...>, owned by the column for the whole run).
void *new_dynamic_vector(Column::Kind kind);

}  // namespace rootparams::write
