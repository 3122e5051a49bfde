// roo-ingest's process exit codes, one table: the values the run returns (and libtsk glue gives for evidence that
// cannot be used), and the words --help prints for each. README.md "Exit codes" says the same at length.
#pragma once

#include <string>

namespace roo {

enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,
  kExitUsage = 2,          // bad arguments, or OUTDIR not usable (not empty without --force, inside the evidence)
  kExitEvidence = 3,       // the evidence cannot be opened (missing, unreadable, not a file, empty, not openable)
  kExitSegment = 4,        // a segment of a split image (E01 set, .001 set) is missing
  kExitPartial = 5,        // finished, but a file system's worker crashed, hung or failed: see report.json. (A file that
                           // cannot be read gives parser_error rows and report errors, not this code.)
  kExitNothingReadable = 6,  // finished, but no file system could be opened at all (not a disk image, encrypted,
                             // damaged): report.json says why for each partition
  kExitNotVerified = 7,  // finished, but --verify found the image's MD5/SHA-1 differ from the hashes the container
                         // stores, or the image could not be read to its end (report.json evidence.verification).
                         // Comes before 5 and 6: the evidence itself is in doubt.
};

struct ExitCodeHelp {
  ExitCode code;
  const char* help;
};

// Every exit code with its --help words, in the order --help lists them.
inline constexpr ExitCodeHelp kExitCodeHelp[] = {
    {kExitOk, "done"},
    {kExitUsage, "bad arguments or unusable OUTDIR"},
    {kExitEvidence, "evidence cannot be opened"},
    {kExitSegment, "a segment of a split image is missing"},
    {kExitPartial,
     "done, but a file system could not be processed: its worker crashed, hung (--stall-timeout) or failed (see "
     "report.json)"},
    {kExitNothingReadable,
     "done, but no file system could be opened at all (not a disk image, encrypted or damaged; see report.json)"},
    {kExitNotVerified,
     "done, but --verify found the image's hash differs from the one its container stores, or could not read it to "
     "the end (report.json evidence.verification; before 5 and 6)"},
    {kExitInternal, "internal error"},
};

// --help's paragraph on exit codes ("Exit codes: 0 done; 2 …; 1 internal error."), from kExitCodeHelp, its words
// wrapped at `width` columns.
inline std::string exit_codes_help(size_t width = 115) {
  std::string text = "Exit codes:";
  for (const ExitCodeHelp& e : kExitCodeHelp) {
    text += ' ';
    text += std::to_string(static_cast<int>(e.code));
    text += ' ';
    text += e.help;
    text += &e == &kExitCodeHelp[std::size(kExitCodeHelp) - 1] ? "." : ";";
  }
  std::string out;
  size_t line = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const size_t word = end - at;
    if (line > 0 && line + 1 + word > width) {
      out += '\n';
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out.append(text, at, word);
    line += word;
    at = end + 1;
  }
  return out;
}

}  // namespace roo
