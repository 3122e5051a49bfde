// The CLI's debug log (core/parsers/cli_debug_log.cpp): entries framed by their leading ISO time, continuation lines,
// the data JSON, and the redaction of each line.
#include "core/parsers/store_parsers.h"
#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static roo::fuzz::Harness harness("cli-debug.log");
  harness.run(data, size, [](roo::HashingStream& in, const roo::ParseContext& ctx) { roo::parse_cli_debug_log(in, ctx); });
  return 0;
}
