// rootparams-write's random numbers: the hashes that key them, the seed of each event's streams, the streams
// themselves (TRandom3's numbers, seeded lazily) and the private streams of perevent, perindex and copy.
//
// Content depends only on (recipe, seed, event number): every container of every event draws from its own random
// stream (stream_seed), so the same events are written under every compression, AutoFlush and split setting.
#pragma once

#include "write_common.h"

#include <TRandom.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace rootparams::write {

// FNV-1a: stable hashed container keys, as ATLAS hashes container names.
uint32_t hash32(const std::string &s);

// hash32 of a string that goes on from one whose hash32 is h.
uint32_t hash32_continue(uint32_t h, const char *s, size_t n);

// The seed of stream `stream` of event `event` under the run's seed: splitmix64 of the three inputs; never 0
// (TRandom3 treats 0 as "seed from the clock").
uint32_t stream_seed(uint64_t seed, uint64_t event, uint64_t stream);

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
   void SetSeed(ULong_t seed) override;
   Double_t Rndm() override;

private:
   static constexpr int kN = 624, kM = 397;
   static uint32_t mix(uint32_t upper, uint32_t lower, uint32_t far);
   // The seeding words up to word j (TRandom3::SetSeed's recurrence), each computed once.
   void seed_to(int j);
   // Word i of the first round's twist, in place as TRandom3 twists all of them: words below i are twisted already,
   // words above it still hold the seeding.
   void twist_one(int i);
   void twist_all();
   uint32_t mt_[kN];
   uint32_t last_seeded_ = 0;
   int seeded_ = 0, count_ = 0;
   bool lazy_ = false;
};

// Whether LazyMersenneTwister draws what TRandom3 draws: for a few seeds, every kind of draw the recipes make,
// across the first rounds of the state, compared bit for bit. If ROOT's TRandom3 ever differs, the writer uses
// TRandom3 itself (the events must not depend on the ROOT version's internals more than they did).
bool matches_trandom3();

// The private streams (perevent, perindex, copy): ROOT's TRandom with a seed of their own, one object per nesting
// depth, seeded again for every value instead of constructed (a TRandom is a TNamed, whose construction costs
// more than the few numbers drawn from it). SetSeed(s) leaves the state TRandom(s) starts with.
TRandom &private_stream(size_t depth, UInt_t seed);

}  // namespace rootparams::write
