// The parse baseline for tests/bench/run-bench.sh: a raw RapidJSON DOM parse of whole files.
//
//   rapidjson_baseline [FILE…] [@LISTFILE…]
//
// For each file (given directly, or one path per line in a list file named with a leading '@'): read it whole
// into memory, then (unless it is a .txt command output, which is only read) rapidjson::Document::Parse it twice — once with the default flags, once with
// kParseFullPrecisionFlag|kParseIterativeFlag (a second reference: roo-ingest parses iteratively and converts numbers itself,
// core/json_records.h parse_json). Reading and each parse are timed apart; destroying the DOM is not
// timed. Prints one line of key=value pairs:
//
//   files=N bytes=B read_s=… parse_default_s=… parse_fullprec_iter_s=… errors=E
//
// Built by run-bench.sh with `g++ -O2 -std=c++17` (Debian's rapidjson-dev headers).
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

bool read_whole(const std::string& path, std::string& out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  out.clear();
  if (std::fseek(f, 0, SEEK_END) == 0) {
    long n = std::ftell(f);
    if (n > 0) out.reserve(static_cast<size_t>(n));
    std::fseek(f, 0, SEEK_SET);
  }
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  bool ok = !std::ferror(f);
  std::fclose(f);
  return ok;
}

template <unsigned Flags>
double timed_parse(const std::string& data, const std::string& path, int& errors) {
  auto t0 = Clock::now();
  double s;
  {
    rapidjson::Document doc;
    doc.Parse<Flags>(data.data(), data.size());
    s = seconds_since(t0);
    if (doc.HasParseError()) {
      ++errors;
      std::fprintf(stderr, "rapidjson_baseline: %s: parse error at %zu: %s\n", path.c_str(), doc.GetErrorOffset(),
                   rapidjson::GetParseError_En(doc.GetParseError()));
    }
  }  // the DOM is freed here, outside the timed region
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!a.empty() && a[0] == '@') {
      std::ifstream list(a.substr(1));
      if (!list) {
        std::fprintf(stderr, "rapidjson_baseline: cannot read list %s\n", a.c_str() + 1);
        return 2;
      }
      for (std::string line; std::getline(list, line);)
        if (!line.empty()) paths.push_back(line);
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) {
    std::fprintf(stderr, "usage: rapidjson_baseline FILE… | @LISTFILE\n");
    return 2;
  }

  uint64_t bytes = 0;
  double read_s = 0, parse_default_s = 0, parse_fullprec_iter_s = 0;
  int errors = 0;
  std::string data;
  for (const std::string& p : paths) {
    auto t0 = Clock::now();
    if (!read_whole(p, data)) {
      std::fprintf(stderr, "rapidjson_baseline: cannot read %s\n", p.c_str());
      return 1;
    }
    read_s += seconds_since(t0);
    bytes += data.size();
    // command-output/cmd-*.txt files are raw text, not JSON: roo-ingest reads them whole, and so does this.
    if (p.size() > 4 && p.compare(p.size() - 4, 4, ".txt") == 0) continue;
    parse_default_s += timed_parse<rapidjson::kParseDefaultFlags>(data, p, errors);
    parse_fullprec_iter_s +=
        timed_parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseIterativeFlag>(data, p, errors);
  }
  std::printf("files=%zu bytes=%llu read_s=%.6f parse_default_s=%.6f parse_fullprec_iter_s=%.6f errors=%d\n",
              paths.size(), static_cast<unsigned long long>(bytes), read_s, parse_default_s, parse_fullprec_iter_s,
              errors);
  return errors ? 1 : 0;
}
