// For huge_pages_test.cpp: starts as roo-ingest's main does (restart_with_huge_pages), then allocates 32 MiB and
// prints the GLIBC_TUNABLES it runs with and whether glibc asked the kernel for huge pages for that block (the "hg"
// flag of its mapping in /proc/self/smaps: asked for, whether or not the kernel had a free huge page to give).
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "plugin/huge_pages.h"

int main(int, char** argv) {
  roo::restart_with_huge_pages(argv);
  const size_t size = 32u << 20;
  char* block = static_cast<char*>(std::malloc(size));
  std::memset(block, 1, size);
  const auto at = reinterpret_cast<uintptr_t>(block);
  std::ifstream smaps("/proc/self/smaps");
  bool in_block = false, huge_advised = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " ", &begin, &end) == 2 && line.find('-') < 16) {
      in_block = begin <= at && at < end;
    } else if (in_block && line.rfind("VmFlags:", 0) == 0) {
      std::istringstream flags(line.substr(8));
      for (std::string flag; flags >> flag;) huge_advised = huge_advised || flag == "hg";
    }
  }
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::printf("tunables=%s\nhuge_advised=%d\ntouched=%d\n", tunables ? tunables : "(unset)", huge_advised ? 1 : 0,
              block[size - 1]);
  std::free(block);
  return 0;
}
