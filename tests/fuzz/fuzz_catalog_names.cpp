// libFuzzer target for the catalog's name rules (docs/roo-format.md §1.4, §2.2): names come from the evidence's
// directories, so any bytes. What comes back is checked against the promises: an ephemeral dir's ms has 13 digits,
// a temp file name's parts rebuild the name exactly. A broken promise traps, so the fuzzer reports it like a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/catalog.h"

namespace {
void check(bool ok) {
  if (!ok) __builtin_trap();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  if (auto ms = roo::ephemeral_dir_time(name)) {
    check(*ms >= 0 && *ms <= 9999999999999LL);
    check(name.substr(8, 13) == std::to_string(*ms).insert(0, 13 - std::to_string(*ms).size(), '0'));
  }
  if (auto t = roo::parse_temp_file_name(name)) {
    check(!t->base.empty() && (t->kind == "new" || t->kind == "bak") && t->ms >= 0);
    const std::string head = "." + t->base + "." + t->kind + "_";
    check(name.substr(0, head.size()) == head && name.size() > head.size() + 4);
  }
  return 0;
}
