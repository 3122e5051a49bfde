// roo-collectors: prints the triage-collector definitions that gather what roo-ingest reads (docs/collectors.md), made
// from roo-ingest's own catalog so that they never drift from it. packaging/collectors/ holds its output.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "plugin/collectors/collection_plan.h"

namespace {

struct Definition {
  const char* format;
  const char* file_name;
  std::string (*text)();
};
const Definition kDefinitions[] = {
    {"kape", "RooCode.tkape", roo::collectors::kape_target},
    {"velociraptor", "Generic.Forensic.RooCode.yaml", roo::collectors::velociraptor_artifact},
    {"forensic-artifacts", "roo_code.yaml", roo::collectors::forensic_artifacts},
};

int usage(FILE* to) {
  std::fputs(
      "usage: roo-collectors FORMAT        print one definition (FORMAT: kape, velociraptor, forensic-artifacts)\n"
      "       roo-collectors --write DIR   write all three into DIR (RooCode.tkape, Generic.Forensic.RooCode.yaml,\n"
      "                                    roo_code.yaml), as packaging/collectors/ holds them\n"
      "Each gathers what roo-ingest reads of Roo Code; run `roo-ingest --dir COLLECTION -o OUTDIR` on what it "
      "collected.\n",
      to);
  return to == stdout ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))) return usage(stdout);
  if (argc == 3 && !std::strcmp(argv[1], "--write")) {
    for (const Definition& d : kDefinitions) {
      const std::string path = std::string(argv[2]) + "/" + d.file_name;
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << d.text();
      if (!out.flush()) {
        std::fprintf(stderr, "roo-collectors: error: cannot write %s\n", path.c_str());
        return 1;
      }
    }
    return 0;
  }
  if (argc == 2)
    for (const Definition& d : kDefinitions)
      if (!std::strcmp(argv[1], d.format)) {
        std::fputs(d.text().c_str(), stdout);
        return 0;
      }
  if (argc >= 2) std::fprintf(stderr, "roo-collectors: error: unknown arguments (see --help)\n");
  return usage(stderr);
}
