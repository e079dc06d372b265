// rootparams-write's leaf types and framing (write_framing.h): the leaf codes and RNTuple types of the column kinds,
// and the framed records' segments, parsed from the recipe and composed per event in ROOT's big-endian byte order.
#include "write_framing.h"

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <unordered_map>

namespace rootparams::write {

// --- Leaf types --------------------------------------------------------------------------------------------------

namespace {

const std::unordered_map<std::string, LeafType> kLeafTypes = {
   {"float", {Column::F, "F", "float"}},        {"double", {Column::D, "D", "double"}},
   {"int8", {Column::I8, "B", "std::int8_t"}},  {"uint8", {Column::U8, "b", "std::uint8_t"}},
   {"int16", {Column::I16, "S", "std::int16_t"}}, {"uint16", {Column::U16, "s", "std::uint16_t"}},
   {"int", {Column::I, "I", "std::int32_t"}},   {"uint32", {Column::U32, "i", "std::uint32_t"}},
   {"int64", {Column::I64, "L", "std::int64_t"}}, {"uint64", {Column::U64, "l", "std::uint64_t"}},
   {"bool", {Column::B, "O", "bool"}},
};

}  // namespace

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

// --- Framed records ----------------------------------------------------------------------------------------------

namespace {

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

}  // namespace

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

void compose(Record &r, const std::vector<Column> &columns, uint32_t n)
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
         put_column(out, columns[seg.column], true, seg.element);
         const uint32_t bytecount = 0x40000000u | static_cast<uint32_t>(out.size() - at - 4);
         for (int k = 0; k < 4; ++k)
            out[at + k] = static_cast<unsigned char>(bytecount >> (8 * (3 - k)));
         break;
      }
      case Segment::Body: put_column(out, columns[seg.column], true, seg.element); break;
      case Segment::Raw: put_column(out, columns[seg.column], false, seg.element); break;
      }
   }
}

}  // namespace rootparams::write
