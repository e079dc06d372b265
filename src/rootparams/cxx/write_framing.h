// rootparams-write's leaf types and framing: how a column is stored as a leaf (a TTree leaf code, an RNTuple type)
// and how a branch is written as a framed record, the real file's framing around the recipe's values.
#pragma once

#include "write_column.h"

#include <cstdint>
#include <string>
#include <vector>

class TClass;

namespace rootparams::write {

// Leaf types (scalar lines, flat columns) -> (column kind, ROOT leaf type code, RNTuple type).
struct LeafType {
   Column::Kind kind;
   const char *code;
   const char *ntuple;
};
// The leaf type of a recipe's word (float, double, int8, ...); fails for any other word.
const LeafType &leaf_type(const std::string &type);
const LeafType &leaf_type_of(Column::Kind kind);

// RNTuple type names of the column kinds (ROOT's normalized spelling), for a column stored as a vector field.
const char *ntuple_type_of(Column::Kind kind);

// A branch written as a framed record (recipes calibrated on a real file; xAODlike::Record*_v1 in XaodClasses.h):
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

// One segment of a record line (h:<hex>, count, vector:..., body:..., raw:...); fails naming the token.
Segment parse_segment(const std::string &token);

// The payload of a record for the event just generated from its collection's `columns` (n: the container's
// element count).
void compose(Record &r, const std::vector<Column> &columns, uint32_t n);

}  // namespace rootparams::write
