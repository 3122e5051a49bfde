#include "plugin/huge_pages.h"

#include <sys/auxv.h>
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
  // Set-id or with file capabilities (to read a raw device, say), glibc ignores or erases the tunable: no gain, and
  // an erased one would restart us for ever.
  if (getauxval(AT_SECURE)) return;
  // The file this program is, by its own path: exec'ing "/proc/self/exe" would rename the process "exe" in ps, and
  // under ld.so or valgrind it names them, not us (they are not restarted: the names differ).
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0 || !argv[0]) return;
  self[n] = '\0';
  const char* self_name = std::strrchr(self, '/');
  const char* arg_name = std::strrchr(argv[0], '/');
  if (std::strcmp(self_name ? self_name + 1 : self, arg_name ? arg_name + 1 : argv[0]) != 0) return;
  std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string mode{std::istreambuf_iterator<char>(mode_file), std::istreambuf_iterator<char>()};
  const std::optional<std::string> tunables = huge_page_tunables(std::getenv("GLIBC_TUNABLES"), mode);
  if (!tunables) return;
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string saved = before ? before : "";
  setenv("GLIBC_TUNABLES", tunables->c_str(), 1);
  execv(self, argv);
  // Could not start again (the file was replaced or deleted since, say): go on as we are, with the environment as
  // it was.
  if (before)
    setenv("GLIBC_TUNABLES", saved.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
#endif
}

}  // namespace roo
