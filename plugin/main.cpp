// roo-ingest: every trace the Roo Code agent left on a drive, as timeline rows.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "plugin/run.h"

int main(int argc, char** argv) {
  // FAT keeps local wall-clock times of an unknown zone and libtsk converts them with the process's zone: the run
  // pins UTC so the same image gives the same rows on every examiner's machine (as `fls -z UTC` would). Other file
  // systems store UTC and are not affected.
  setenv("TZ", "UTC", 1);
  tzset();
  roo::RunOptions opts;
  for (int i = 0; i < argc; ++i) opts.command_line.emplace_back(argv[i]);

  CLI::App app{
      "roo-ingest " ROO_INGEST_VERSION " — finds what the Roo Code AI coding agent left on a drive (VS Code-family\n"
      "extension storage and the roo CLI's ~/.vscode-mock, for every user: tasks, commands and exit codes, file\n"
      "edits, approvals, settings, credentials (reported present, never written), MCP, installed versions) and\n"
      "writes one row per fact with its provenance: image, partition offset, file system, inode, path, record\n"
      "position, sha256 and time source. Images are opened read-only through libtsk (raw, split raw, E01 and split\n"
      "E01; every partition); SQLite stores are read from private copies under OUTDIR.",
      "roo-ingest"};
  app.footer(R"(Outputs in OUTDIR (written under temporary names, moved into place when complete):
  rows.jsonl    one row per fact (the reference output; see docs/row-contract.md)
  roo.body      mactime body file; merge with `fls -r -m /` output and run `mactime -b`
  report.json   evidence, partitions and file systems, roots searched and found, files parsed, errors

Examples:
  roo-ingest suspect.E01 -o out/                 # E01 (other segments .E02… are found automatically)
  roo-ingest disk.001 -o out/                    # split raw, given the first segment
  roo-ingest disk.raw -o out/ --native           # keep each record's verbatim JSON in the rows
  roo-ingest --dir /mnt/triage/C -o out/         # a triage collection or a mounted image
  cat <(fls -r -m / suspect.E01) out/roo.body | mactime -d -y    # one timeline with the file system

Exit codes: 0 done; 2 bad arguments or unusable OUTDIR; 3 evidence cannot be opened; 4 a segment of a split
image is missing; 5 done, but a file system could not be processed (see report.json); 6 done, but no file system
could be opened at all (not a disk image, encrypted or damaged; see report.json); 1 internal error.)");
  app.set_version_flag("--version", "roo-ingest " ROO_INGEST_VERSION);

  app.add_option("IMAGE", opts.image_paths, "Image file (raw, .001, .E01); more segments may follow when their "
                                             "names do not follow the usual pattern");
  app.add_option("--dir", opts.folder, "Read a plain folder instead of an image (triage collection, mounted image)");
  app.add_option("-o,--out", opts.out_dir, "Output directory (created when missing; must be empty unless --force)")
      ->required();
  app.add_flag("--force", opts.force, "Write into a non-empty OUTDIR (files of the same names are replaced)");
  app.add_flag("--native", opts.native, "Add each record's verbatim JSON to its rows as `native`");
  app.add_flag("-q,--quiet", opts.quiet, "No progress on stderr and no summary on stdout");
  bool no_isolate = false;
  app.add_flag("--no-isolate", no_isolate,
               "Scan file systems in this process instead of one child process each (debugging only: a libtsk "
               "crash then ends the whole run)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : roo::kExitUsage;
  }
  opts.isolate = !no_isolate;
  if (opts.image_paths.empty() == opts.folder.empty()) {
    std::fprintf(stderr,
                 "roo-ingest: error: give either an IMAGE or --dir FOLDER (not both, not neither); see --help\n");
    return roo::kExitUsage;
  }
  try {
    return roo::run(opts);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "roo-ingest: internal error: %s\n", e.what());
    return roo::kExitInternal;
  }
}
