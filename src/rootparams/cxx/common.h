// Small helpers shared by the writer and the reader executables: JSON output, clocks, process memory.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace rootparams {

// A flat JSON object built in insertion order; values are numbers, strings, booleans or raw JSON.
class JsonObject {
public:
   JsonObject &num(const std::string &k, double v)
   {
      if (!std::isfinite(v))
         return raw(k, "null");  // JSON has no NaN: a quantity that does not exist (e.g. a share of 0 bytes)
      std::ostringstream s;
      s.precision(17);
      s << v;
      return raw(k, s.str());
   }
   JsonObject &integer(const std::string &k, long long v) { return raw(k, std::to_string(v)); }
   JsonObject &boolean(const std::string &k, bool v) { return raw(k, v ? "true" : "false"); }
   JsonObject &str(const std::string &k, const std::string &v) { return raw(k, quote(v)); }
   JsonObject &raw(const std::string &k, const std::string &json)
   {
      fItems.emplace_back(k, json);
      return *this;
   }
   std::string dump() const
   {
      std::string out = "{";
      for (size_t i = 0; i < fItems.size(); ++i)
         out += (i ? ", " : "") + quote(fItems[i].first) + ": " + fItems[i].second;
      return out + "}";
   }
   static std::string quote(const std::string &v)
   {
      std::string out = "\"";
      for (char c : v) {
         switch (c) {
         case '"': out += "\\\""; break;
         case '\\': out += "\\\\"; break;
         case '\n': out += "\\n"; break;
         case '\t': out += "\\t"; break;
         default:
            if (static_cast<unsigned char>(c) < 0x20) {
               char buf[8];
               std::snprintf(buf, sizeof buf, "\\u%04x", c);
               out += buf;
            } else {
               out += c;
            }
         }
      }
      return out + "\"";
   }

private:
   std::vector<std::pair<std::string, std::string>> fItems;
};

inline std::string json_array(const std::vector<std::string> &items)
{
   std::string out = "[";
   for (size_t i = 0; i < items.size(); ++i)
      out += (i ? ", " : "") + items[i];
   return out + "]";
}

// A JSON array of strings (each quoted).
inline std::string json_string_array(const std::vector<std::string> &items)
{
   std::vector<std::string> quoted;
   for (const auto &item : items)
      quoted.push_back(JsonObject::quote(item));
   return json_array(quoted);
}

inline double epoch_now()
{
   return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

inline double steady_now()
{
   return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double process_cpu_seconds()
{
   timespec ts{};
   clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
   return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// The process's system CPU time (all threads): what the kernel did for it, page-cache fills included.
inline double process_system_cpu_seconds()
{
   rusage usage{};
   getrusage(RUSAGE_SELF, &usage);
   return usage.ru_stime.tv_sec + 1e-6 * usage.ru_stime.tv_usec;
}

// Resident set size now, from /proc/self/statm (pages -> bytes).
inline long long current_rss_bytes()
{
   std::ifstream statm("/proc/self/statm");
   long long size = 0, resident = 0;
   statm >> size >> resident;
   return resident * sysconf(_SC_PAGESIZE);
}

// A field of /proc/self/status in kB (VmPeak, VmHWM, ...), as bytes.
inline long long proc_status_bytes(const std::string &field)
{
   std::ifstream status("/proc/self/status");
   std::string line;
   while (std::getline(status, line)) {
      if (line.rfind(field + ":", 0) == 0) {
         std::istringstream s(line.substr(field.size() + 1));
         long long kb = 0;
         s >> kb;
         return kb * 1024;
      }
   }
   return -1;
}

inline long long peak_rss_bytes()
{
   rusage usage{};
   getrusage(RUSAGE_SELF, &usage);
   return static_cast<long long>(usage.ru_maxrss) * 1024;
}

// Parse "--key value" pairs; a lone "--flag" maps to "1".
inline std::map<std::string, std::string> parse_args(int argc, char **argv)
{
   std::map<std::string, std::string> args;
   for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a.rfind("--", 0) != 0)
         continue;
      std::string key = a.substr(2);
      if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0)
         args[key] = argv[++i];
      else
         args[key] = "1";
   }
   return args;
}

inline const std::string &required_arg(const std::map<std::string, std::string> &args, const char *key)
{
   auto it = args.find(key);
   if (it == args.end())
      throw std::runtime_error(std::string("missing required option --") + key);
   return it->second;
}

inline std::string tree_name_arg(const std::map<std::string, std::string> &args)
{
   auto it = args.find("tree");
   return it == args.end() ? "CollectionTree" : it->second;
}

}  // namespace rootparams
