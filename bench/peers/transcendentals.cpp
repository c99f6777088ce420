// glibc's cost per call of the transcendental functions a stage calls, over the arguments it called them with
// (bench/transcendentals.ts records them, in call order, one raw little-endian float64 file per function).
//   transcendentals DIR OUT.json PASSES NAME...   reads DIR/calls-NAME.f64, writes {"NAME": ns per call, ...}
// Each function is timed in its own loop, the least of PASSES passes kept; the sum keeps the calls live.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

static std::vector<double> readDoubles(const std::string& path) {
  std::vector<double> v;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return v;
  std::fseek(f, 0, SEEK_END);
  long n = std::ftell(f) / 8;
  std::fseek(f, 0, SEEK_SET);
  v.resize(n);
  if (std::fread(v.data(), 8, n, f) != static_cast<size_t>(n)) v.clear();
  std::fclose(f);
  return v;
}

template <double (*F)(double)>
static double leastNsPerCall(const std::vector<double>& a, int passes, double& sink) {
  double best = 1e300;
  for (int r = 0; r < passes; r++) {
    auto t = std::chrono::steady_clock::now();
    double s = 0;
    for (double x : a) s += F(x);
    auto e = std::chrono::steady_clock::now();
    sink += s;
    best = std::min(best, std::chrono::duration<double, std::nano>(e - t).count() / a.size());
  }
  return best;
}

static double cosOf(double x) { return std::cos(x); }
static double sinOf(double x) { return std::sin(x); }
static double expOf(double x) { return std::exp(x); }
static double logOf(double x) { return std::log(x); }
static double sqrtOf(double x) { return std::sqrt(x); }

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: transcendentals DIR OUT.json PASSES NAME...\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int passes = std::atoi(argv[3]);
  const std::map<std::string, std::function<double(const std::vector<double>&, double&)>> timers = {
      {"cos", [&](const std::vector<double>& a, double& s) { return leastNsPerCall<cosOf>(a, passes, s); }},
      {"sin", [&](const std::vector<double>& a, double& s) { return leastNsPerCall<sinOf>(a, passes, s); }},
      {"exp", [&](const std::vector<double>& a, double& s) { return leastNsPerCall<expOf>(a, passes, s); }},
      {"log", [&](const std::vector<double>& a, double& s) { return leastNsPerCall<logOf>(a, passes, s); }},
      {"sqrt", [&](const std::vector<double>& a, double& s) { return leastNsPerCall<sqrtOf>(a, passes, s); }},
  };
  double sink = 0;
  std::string json = "{";
  for (int k = 4; k < argc; k++) {
    const std::string name = argv[k];
    auto t = timers.find(name);
    const auto a = readDoubles(dir + "/calls-" + name + ".f64");
    if (t == timers.end() || a.empty()) continue;
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s\"%s\":%.4f", json.size() > 1 ? "," : "", name.c_str(), t->second(a, sink));
    json += buf;
  }
  json += "}";
  FILE* out = std::fopen(argv[2], "w");
  if (!out) return 1;
  std::fprintf(out, "%s\n", json.c_str());
  std::fclose(out);
  return sink == 12345.678 ? 3 : 0;  // sink read, so the sums stay live
}
