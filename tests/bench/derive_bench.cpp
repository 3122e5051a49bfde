// Times the derived formats alone, without a scan: each format named on the command line is derived from an
// existing rows.jsonl on its own (derive_outputs with that one format), and its CPU seconds (user+sys of the whole
// process, so the reader's parse is in every figure; "none" times the parse alone) and wall seconds are printed.
// CPU seconds are what a loaded machine disturbs least. "all" derives every format in one pass, as a default run.
//
//   derive_bench ROWS_JSONL REPORT_JSON OUTDIR [FORMAT|none|all ...] (default: every derived format, then none)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "plugin/formats/derive.h"

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: derive_bench ROWS_JSONL REPORT_JSON OUTDIR [FORMAT|none ...]\n";
    return 2;
  }
  std::vector<std::string> names(argv + 4, argv + argc);
  if (names.empty()) {
    for (const roo::OutputFormatInfo& f : roo::output_formats())
      if (f.derived) names.push_back(f.name);
    names.push_back("none");
  }
  roo::FormatContext ctx;
  std::ifstream in(argv[2], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  ctx.report_json = text.str();
  ctx.tool_version = "bench";
  std::filesystem::create_directories(argv[3]);
  for (const std::string& name : names) {
    std::set<std::string> formats;
    if (name == "all") {
      for (const roo::OutputFormatInfo& f : roo::output_formats())
        if (f.derived) formats.insert(f.name);
    } else if (name != "none") {
      formats.insert(name);
    }
    roo::DeriveResult result;
    std::string error;
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    if (!roo::derive_outputs(argv[1], argv[3], formats, ctx, &result, &error)) {
      std::cerr << name << ": " << error << "\n";
      return 1;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    std::printf("%-12s cpu %6.2f s  wall %6.2f s  rows %lld  context switches so far %ld\n", name.c_str(),
                cpu_seconds() - c0, wall, static_cast<long long>(result.rows_read), u.ru_nvcsw + u.ru_nivcsw);
    std::fflush(stdout);
  }
  return 0;
}
