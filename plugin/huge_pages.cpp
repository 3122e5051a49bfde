#include "plugin/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace roo {

namespace {

constexpr char kTunable[] = "glibc.malloc.hugetlb";

// Whether a GLIBC_TUNABLES value (name=value pairs joined by ':') sets the tunable.
bool names_tunable(const std::string& tunables) {
  size_t start = 0;
  while (start <= tunables.size()) {
    size_t end = tunables.find(':', start);
    if (end == std::string::npos) end = tunables.size();
    const std::string pair = tunables.substr(start, end - start);
    if (pair.compare(0, pair.find('='), kTunable) == 0) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

std::optional<std::string> huge_page_tunables(const char* current, const std::string& thp_enabled) {
  if (thp_enabled.find("[madvise]") == std::string::npos) return std::nullopt;
  const std::string tunables = current ? current : "";
  if (names_tunable(tunables)) return std::nullopt;
  const std::string ours = std::string(kTunable) + "=1";
  return tunables.empty() ? ours : tunables + ":" + ours;
}

void restart_with_huge_pages(char** argv) {
#ifdef ROO_SANITIZER_ALLOCATOR
  (void)argv;
#else
  std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string mode{std::istreambuf_iterator<char>(mode_file), std::istreambuf_iterator<char>()};
  const std::optional<std::string> tunables = huge_page_tunables(std::getenv("GLIBC_TUNABLES"), mode);
  if (!tunables) return;
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string saved = before ? before : "";
  setenv("GLIBC_TUNABLES", tunables->c_str(), 1);
  execv("/proc/self/exe", argv);
  // Could not start again (no /proc, say): go on as we are, with the environment as it was.
  if (before)
    setenv("GLIBC_TUNABLES", saved.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
#endif
}

}  // namespace roo
