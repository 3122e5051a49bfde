// libFuzzer target for how --deep decides what an orphan file is: its name (from the evidence's metadata,
// any bytes) and its opening bytes (any content). The promises are checked: a kind by name keeps a name it came from,
// a kind by content is a known kind decided by "content", and a made-up orphan name is OrphanFile-<digits>.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/discovery.h"

namespace {
void check(bool ok) {
  if (!ok) __builtin_trap();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (auto k = roo::orphan_kind_by_name(bytes)) {
    check(std::string_view(k->decided_by) == "file_name");
    check(k->is_index != (k->kind != roo::TaskFileKind::unknown));
  }
  if (auto k = roo::orphan_kind_by_content(bytes)) {
    check(std::string_view(k->decided_by) == "content" && !k->temp);
    check(k->is_index != (k->kind != roo::TaskFileKind::unknown));
    check(size > 0 && (bytes[0] == '[' || bytes[0] == '{'));
  }
  if (roo::is_made_up_orphan_name(bytes)) check(size > 11 && bytes.substr(0, 11) == "OrphanFile-");
  return 0;
}
