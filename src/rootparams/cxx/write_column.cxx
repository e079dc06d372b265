// rootparams-write's columns (write_column.h): float precision, an event's values of a column (flat, nested, bools,
// element links, with reuse and order), leaf storage, and the column kinds of ROOT's type names and the recipe's.
#include "write_column.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace rootparams::write {

// --- Float precision ---------------------------------------------------------------------------------------------

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

void PrecisionLoss::add(float x, float y)
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

double PrecisionLoss::rms_rel() const
{
   return nonzero ? std::sqrt(sum_sq_rel / static_cast<double>(nonzero)) : 0.0;
}

void Column::round_floats(int n)
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

// --- An event's values -------------------------------------------------------------------------------------------

void Column::remember(std::vector<double> x)
{
   if (reuse <= 0)
      return;
   if (recent.size() < window)
      recent.push_back(std::move(x));
   else
      recent[recent_next] = std::move(x);
   recent_next = (recent_next + 1) % window;
}

template <typename It>
void Column::sort_values(It begin, It end) const
{
   if (order > 0)
      std::sort(begin, end);
   else
      std::sort(begin, end, [](const auto &a, const auto &b) { return b < a; });
}

template <typename T>
void Column::fill_scalar(size_t n, TRandom &rng, const Event &ev)
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

template <typename T>
void Column::fill_nested(size_t n, TRandom &rng, const Event &ev)
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

void Column::fill_bool(size_t n, TRandom &rng, const Event &ev)
{  // bytes holding 0 or 1, as a bool leaf reads them
   auto &v = *static_cast<std::vector<uint8_t> *>(address);
   v.resize(n);
   for (size_t i = 0; i < n; ++i)
      v[i] = draw(rng, ev, i, 0) != 0 ? 1 : 0;
}

xAODlike::ElementLink_v1 Column::make_link(TRandom &rng, const Event &ev, size_t index, size_t inner_index) const
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

void Column::fill_links(size_t n, TRandom &rng, const Event &ev)
{  // reuse: a link (key and index) of the recent ones
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
}

void Column::fill_nested_links(size_t n, TRandom &rng, const Event &ev)
{  // reuse: an inner vector of links of the recent ones
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
}

void Column::fill(size_t n, TRandom &rng, const Event &ev)
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
   case EL: fill_links(n, rng, ev); break;
   case VEL: fill_nested_links(n, rng, ev); break;
   }
}

// --- Leaf storage ------------------------------------------------------------------------------------------------

void Column::reserve(size_t n)
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

void *Column::data() const
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

// --- Column kinds ------------------------------------------------------------------------------------------------

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

}  // namespace rootparams::write
