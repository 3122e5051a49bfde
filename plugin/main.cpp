// roo-ingest: every trace the Roo Code agent left on a drive, as timeline rows.
#include <CLI/CLI.hpp>
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "plugin/formats/derive.h"
#include "plugin/progress.h"
#include "plugin/run.h"

int main(int argc, char** argv) {
  // FAT keeps local wall-clock times of an unknown zone and libtsk converts them with the process's zone: the run
  // pins UTC so the same image gives the same rows on every examiner's machine (as `fls -z UTC` would). Other file
  // systems store UTC and are not affected.
  setenv("TZ", "UTC", 1);
  tzset();
  // glibc grows a thread's heap by what each allocation needs and gives freed memory back at once: carving, whose
  // threads allocate the records of a unit and free them when the unit is emitted, changed the mapping thousands of
  // times a second (8,642 mprotect calls on the carving bench), and with two threads running each change stops the
  // other CPU to flush its TLB, which costs most under virtualisation. Keeping 32 MiB of slack per heap took --deep
  // carving with two threads from 0.38-0.49 s to 0.29 s (tests/bench/run-carve-bench.sh, ROO_EVERY=20: 50 mprotect
  // calls); 64 MiB took the dense bench's peak RSS past 128 MiB, 32 MiB leaves it at 112 MiB.
  mallopt(M_TOP_PAD, 32 << 20);
  roo::RunOptions opts;
  for (int i = 0; i < argc; ++i) opts.command_line.emplace_back(argv[i]);

  CLI::App app{
      "roo-ingest " ROO_INGEST_VERSION " — finds what the Roo Code AI coding agent left on a drive (VS Code-family\n"
      "extension storage and the roo CLI's ~/.vscode-mock, for every user: tasks, commands and exit codes, file\n"
      "edits, approvals, settings, credentials (reported present, never written), MCP, installed versions) and\n"
      "writes one row per fact with its provenance: image, partition offset, file system, inode, path, record\n"
      "position, sha256 and time source. Images are opened read-only through libtsk (raw, split raw, E01 and split\n"
      "E01; every partition); SQLite stores are read in memory, or with their -wal from private copies under\n"
      "OUTDIR.",
      "roo-ingest"};
  app.footer(std::string(R"(Outputs in OUTDIR (written under temporary names, moved into place when complete; docs/output-formats.md):
  rows.jsonl      one row per fact: the reference output, always written (docs/row-contract.md)
  roo.body        mactime body file; merge it with fls -m output (the summary prints each file system's fls line)
  timeline.jsonl  Timesketch JSONL, one event per timed row (import in Timesketch as a JSONL timeline)
  l2t.csv         log2timeline l2tcsv (17 fields), one line per timed row, sorted by time, in the --tz zone
  rows.csv        every row with every field, one column per field, times in the --tz zone and UTC
  roo.sqlite      SQLite database: rows (indexed by kind, time, session, project, user, surface, recovery),
                  sources, evidence, partitions, run; query with `sqlite3 roo.sqlite`
  report.html     one self-contained page: users, tasks, prompts, tool calls, commands, edits, approvals
  report.json     evidence (and --verify's hashes), partitions and file systems, roots searched and found,
                  files parsed, errors, per partition what was searched, found, skipped and failed and why, and
                  each output's row counts; always written
Rows without a time are left out of roo.body, timeline.jsonl and l2t.csv, which need one: a time is never made
up (report.json counts them). rows.jsonl, roo.body, timeline.jsonl and roo.sqlite keep UTC; --tz changes the
display formats l2t.csv, rows.csv and report.html (which shows UTC too, on hover).

Examples:
  roo-ingest suspect.E01 -o out/                 # E01 (other segments .E02… are found automatically)
  roo-ingest disk.001 -o out/                    # split raw, given the first segment
  roo-ingest disk.raw -o out/ --native           # keep each record's verbatim JSON in the rows
  roo-ingest --dir /mnt/triage/C -o out/         # a mounted image or a drive's copy
  roo-ingest --dir kape-tdest/ -o out/           # a KAPE or Velociraptor collection: every drive in it
  roo-ingest suspect.E01 -o out/ --progress=json # progress as JSON lines on stderr, for a wrapper
  roo-ingest suspect.E01 -o out/ --format timesketch,sqlite    # only these (plus rows.jsonl, report.json)
  roo-ingest suspect.E01 -o out/ --tz Europe/Berlin            # l2t.csv, rows.csv, report.html in Berlin time
  roo-ingest suspect.E01 -o out/ --verify        # hash the image first; exit 7 if the E01's MD5/SHA-1 differ
  roo-ingest suspect.E01 -o out/ --deep          # also $OrphanFiles and carving of unallocated space and slack
  roo-ingest suspect.E01 -o out/ --threads 4     # at most 4 worker threads (default: one per CPU core)
  (fls -o 2048 -r -m /p1/ suspect.E01; cat out/roo.body) | mactime -d -y   # with a file system (see the summary)
  sqlite3 out/roo.sqlite "SELECT time_utc, kind, json_extract(row_json, '$.text') FROM rows
                          WHERE kind = 'command' ORDER BY time_utc"

)") + roo::exit_codes_help());
  app.set_version_flag("--version", "roo-ingest " ROO_INGEST_VERSION);

  app.add_option("IMAGE", opts.image_paths, "Image file (raw, .001, .E01); more segments may follow when their "
                                             "names do not follow the usual pattern");
  app.add_option("--dir", opts.folder,
                 "Read a folder instead of an image: a mounted image, or a KAPE or Velociraptor collection (each "
                 "drive searched, the collector's recorded times used)");
  app.add_option("-o,--out", opts.out_dir, "Output directory (created when missing; must be empty unless --force)")
      ->required();
  app.add_flag("--force", opts.force,
               "Write into a non-empty OUTDIR: the outputs of an earlier run there are removed first (all of them, "
               "also formats this run does not write), so every output beside report.json is this run's");
  app.add_flag("--native", opts.native, "Add each record's verbatim JSON to its rows as `native`");
  app.add_flag("-q,--quiet", opts.quiet, "No progress on stderr and no summary on stdout");
  std::string progress = "auto";
  app.add_option("--progress", progress,
                 "How progress is shown on stderr (phase, files and bytes done, rate, ETA when the total is known): "
                 "auto (one line updated in place on a terminal, else plain), plain (a line every 5 s), json (one "
                 "JSON object per line, for wrappers such as the Autopsy module)")
      ->check(CLI::IsMember({"auto", "plain", "json"}))
      ->type_name("MODE");
  std::string format_list = "all";
  std::string format_help = "Outputs to write: a comma list of these names, or all (the default). rows.jsonl and "
                            "report.json are written whatever the list says: every other format is derived from "
                            "rows.jsonl.";
  for (const auto& f : roo::output_formats())
    format_help += std::string("\n  ") + f.name + " (" + f.file + "): " + f.what;
  app.add_option("--format", format_list, format_help)->type_name("LIST");
  app.add_option("--tz", opts.display_tz,
                 "Time zone of the display formats l2t.csv, rows.csv and report.html: an IANA name such as "
                 "Europe/Berlin or America/New_York (default UTC). rows.jsonl, roo.body, timeline.jsonl and "
                 "roo.sqlite stay UTC")
      ->type_name("ZONE");
  app.add_flag("--deep", opts.deep,
               "Deep mode: also look through $OrphanFiles for Roo files whose directory is gone, and carve Roo records "
               "(ui_messages, api history, HistoryItem, _index.json, cli-history, retry queue) out of unallocated "
               "blocks, the slack of Roo files and unpartitioned space (rows with recovery \"orphan\" or "
               "\"carved\"). Reads the whole image: minutes per 100 GB");
  app.add_flag("--verify", opts.verify,
               "Hash the whole image and compare with the MD5/SHA-1 the container stores (E01); the result goes "
               "into report.json (evidence.verification); exit code 7 when it does not verify");
  app.add_option("--threads", opts.threads, "Worker threads for parsing and carving (default: one per CPU core)")
      ->type_name("N");
  app.add_option("--stall-timeout", opts.stall_timeout_seconds,
                 "Seconds a file system's worker may go without progress (no byte read from the evidence, no row "
                 "written) before it is ended: its file system is reported as hung in report.json with the rows of "
                 "the files it finished, the other file systems are scanned, and the exit code is 5. Default 180; "
                 "0 waits for ever")
      ->check(CLI::NonNegativeNumber)
      ->type_name("SECONDS");
  bool no_isolate = false;
  app.add_flag("--no-isolate", no_isolate,
               "Scan file systems in this process instead of one child process each (debugging only: a libtsk "
               "crash then ends the whole run)");

  // Run with nothing, the tool says what it needs rather than which option CLI11 checked first.
  if (argc <= 1) {
    std::fprintf(stderr,
                 "roo-ingest: error: nothing to read: give an IMAGE (or --dir FOLDER) and -o OUTDIR, for example\n"
                 "  roo-ingest suspect.E01 -o out/\n"
                 "Run with --help for every option.\n");
    return roo::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // Every error line of the tool starts alike, so a wrapper (the Autopsy module) and a reader find it.
    std::fprintf(stderr, "roo-ingest: error: %s\nRun with --help for more information.\n", e.what());
    return roo::kExitUsage;
  }
  opts.isolate = !no_isolate;
  roo::progress_init(opts.quiet             ? roo::ProgressMode::off
                     : progress == "json"   ? roo::ProgressMode::json
                     : progress == "plain"  ? roo::ProgressMode::plain
                     : isatty(STDERR_FILENO) ? roo::ProgressMode::terminal
                                            : roo::ProgressMode::plain);
  std::string error;
  const auto formats = roo::parse_format_list(format_list, &error);
  if (!formats) {
    std::fprintf(stderr, "roo-ingest: error: %s\n", error.c_str());
    return roo::kExitUsage;
  }
  opts.formats = *formats;
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
