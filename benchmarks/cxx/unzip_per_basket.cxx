// ROOT's R__unzip timed per basket: every compressed basket of a tree, decompressed in memory (no I/O), best of five
// passes. Built and run by benchmarks/unzip_per_basket.py. Why: on small baskets the cost per call, not per byte, can
// decide (ROOT 6.40's R__unzipZSTD makes a ZSTD context for every basket).
#include <functional>
#include <RZip.h>
#include <TBasket.h>
#include <TBranch.h>
#include <TFile.h>
#include <TTree.h>
#include <chrono>
#include <iostream>
#include <memory>
#include <vector>
int main(int argc, char **argv) {
  std::unique_ptr<TFile> f(TFile::Open(argv[1]));
  auto *t = f->Get<TTree>(argv[2]);
  std::vector<std::vector<unsigned char>> payloads; std::vector<int> objlens;
  std::vector<TBranch*> all;
  std::function<void(TObjArray*)> walk = [&](TObjArray *l){ for (auto *o : *l) { auto *b = (TBranch*)o; all.push_back(b); walk(b->GetListOfBranches()); } };
  walk(t->GetListOfBranches());
  long long tot = 0;
  for (auto *b : all) for (int i = 0; i < b->GetWriteBasket(); ++i) {
    int n = b->GetBasketBytes()[i]; std::vector<unsigned char> raw(n);
    f->ReadBuffer((char*)raw.data(), b->GetBasketSeek(i), n);
    int keylen = (raw[14] << 8) | raw[15];
    int objlen = (raw[6] << 24) | (raw[7] << 16) | (raw[8] << 8) | raw[9];
    if (n - keylen == objlen) continue;  // stored uncompressed
    payloads.emplace_back(raw.begin() + keylen, raw.end()); objlens.push_back(objlen); tot += objlen;
  }
  std::vector<unsigned char> out(1 << 26);
  double best = 1e9;
  for (int pass = 0; pass < 5; ++pass) {
    auto t0 = std::chrono::steady_clock::now();
    for (size_t k = 0; k < payloads.size(); ++k) {
      int done = 0; unsigned char *src = payloads[k].data();
      while (done < objlens[k]) { int nin, nbuf; R__unzip_header(&nin, src, &nbuf); int nout = 0; R__unzip(&nin, src, &nbuf, out.data() + done, &nout); done += nout; src += nin; if (!nout) break; }
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::cout << argv[1] << ": " << payloads.size() << " compressed baskets, " << tot / 1e6 << " MB out, mean " << tot / payloads.size() << " B; best of 5: "
            << best << " s = " << 1e6 * best / payloads.size() << " us per basket, " << tot / 1e6 / best << " MB/s" << std::endl;
}
