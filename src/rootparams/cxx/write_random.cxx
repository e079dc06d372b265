// rootparams-write's random numbers (write_random.h): the hashes, the streams' seeds, TRandom3's Mersenne Twister
// seeded lazily and its check against TRandom3, and the private streams.
#include "write_random.h"

#include <TRandom3.h>

#include <cstring>
#include <memory>
#include <vector>

namespace rootparams::write {

uint32_t hash32(const std::string &s)
{
   uint32_t h = 2166136261u;
   for (unsigned char c : s) {
      h ^= c;
      h *= 16777619u;
   }
   return h;
}

uint32_t hash32_continue(uint32_t h, const char *s, size_t n)
{
   for (size_t i = 0; i < n; ++i) {
      h ^= static_cast<unsigned char>(s[i]);
      h *= 16777619u;
   }
   return h;
}

uint32_t stream_seed(uint64_t seed, uint64_t event, uint64_t stream)
{
   uint64_t z = seed * 0x9E3779B97F4A7C15ull + event * 0xBF58476D1CE4E5B9ull + stream * 0x94D049BB133111EBull;
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
   z ^= z >> 31;
   return static_cast<uint32_t>(z) | 1u;
}

// --- LazyMersenneTwister -----------------------------------------------------------------------------------------

void LazyMersenneTwister::SetSeed(ULong_t seed)
{
   if (seed == 0 || seed > 0xffffffffUL)
      fail("the event streams are seeded with 32-bit values other than 0 (TRandom3 seeds 0 from the clock)");
   fSeed = static_cast<UInt_t>(seed);
   mt_[0] = last_seeded_ = static_cast<uint32_t>(seed);
   seeded_ = 1;
   count_ = 0;
   lazy_ = true;
}

Double_t LazyMersenneTwister::Rndm()
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

uint32_t LazyMersenneTwister::mix(uint32_t upper, uint32_t lower, uint32_t far)
{
   const uint32_t y = (upper & 0x80000000u) | (lower & 0x7fffffffu);
   return far ^ (y >> 1) ^ ((y & 0x1u) ? 0x9908b0dfu : 0x0u);
}

void LazyMersenneTwister::seed_to(int j)
{
   while (seeded_ <= j) {
      last_seeded_ = 1812433253u * (last_seeded_ ^ (last_seeded_ >> 30)) + static_cast<uint32_t>(seeded_);
      mt_[seeded_++] = last_seeded_;
   }
}

void LazyMersenneTwister::twist_one(int i)
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

void LazyMersenneTwister::twist_all()
{
   int i = 0;
   for (; i < kN - kM; ++i)
      mt_[i] = mix(mt_[i], mt_[i + 1], mt_[i + kM]);
   for (; i < kN - 1; ++i)
      mt_[i] = mix(mt_[i], mt_[i + 1], mt_[i + kM - kN]);
   mt_[kN - 1] = mix(mt_[kN - 1], mt_[0], mt_[kM - 1]);
}

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

TRandom &private_stream(size_t depth, UInt_t seed)
{
   static std::vector<std::unique_ptr<TRandom>> streams;
   while (streams.size() <= depth)
      streams.push_back(std::make_unique<TRandom>(1u));
   streams[depth]->SetSeed(seed);
   return *streams[depth];
}

}  // namespace rootparams::write
