#include <cstddef>
#include <cstdint>

#include "core/parsers/transcript_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }  // filled in with the module
