// roo-ingest: every trace the Roo Code agent left on a drive, as timeline rows.
#include <CLI/CLI.hpp>
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "plugin/batch/batch.h"
#include "plugin/batch/slurm_engine.h"
#include "plugin/formats/derive.h"
#include "plugin/formats/display_time.h"
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
  report.html     the report page, offline (open it from the folder; its rows are in report/ beside it): users,
                  tasks, prompts, tool calls, commands, edits, approvals, rows of one kind across tasks, denials
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
  roo-ingest --manifest drives.tsv -o case/ --parallel 4   # many drives, 4 at a time, merged into one case
  roo-ingest --manifest drives.tsv -o case/ --status       # which items are done, failed, running, missing
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
                 "Europe/Berlin or America/New_York (default UTC); report.html is given the name and the browser "
                 "shows times in it, UTC on hover. rows.jsonl, roo.body, timeline.jsonl and roo.sqlite stay UTC")
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
  std::string password_file;
  app.add_option("--password-file", password_file,
                 "Passwords for encrypted APFS volumes (FileVault), one a line (the whole line, spaces kept; empty "
                 "lines left out): each encrypted volume is opened with the first that unlocks it. Without one an "
                 "encrypted volume is skipped, with its password hint in report.json; when none unlocks it, it is "
                 "reported failed (exit code 5) and the other volumes are scanned. Passwords are read from the file "
                 "only (never from the command line, where ps would show them) and written to no output")
      ->type_name("FILE");
  bool password_stdin = false;
  app.add_flag("--password-stdin", password_stdin,
               "Read those passwords from standard input (a pipe or a redirected file, not a terminal), one a "
               "line as for --password-file; with both, the file's are tried first");
  bool no_isolate = false;
  app.add_flag("--no-isolate", no_isolate,
               "Scan file systems in this process instead of one child process each (debugging only: a libtsk "
               "crash then ends the whole run)");

  // Many drives (README.md "Many drives", plugin/batch/batch.h).
  roo::batch::BatchOptions batch;
  int run_item = 0;
  bool merge_only = false, status_only = false;
  app.add_option("--manifest", batch.manifest,
                 "Batch: a TSV manifest of evidence (header evidence_id<TAB>path, then one line per drive: its id, "
                 "the image and any extra segments, or a folder written with a trailing /). Every item runs into "
                 "OUTDIR/items/<id>/ with a done marker, and the done items are merged into OUTDIR/case.sqlite, "
                 "case.rows.jsonl and case.html. Run again to resume: items with a valid marker are skipped")
      ->type_name("FILE");
  app.add_option("--engine", batch.engine,
                 "Batch: where the items run: local (a pool of --parallel worker processes), slurm (a job array "
                 "and a merge job), or auto (slurm when sbatch answers, else local; the default)")
      ->check(CLI::IsMember({"local", "slurm", "auto"}))
      ->type_name("ENGINE");
  std::string sbatch_options;
  app.add_option("--sbatch-options", sbatch_options,
                 "Batch on Slurm: the lab's own sbatch options for the array and the merge job, in one word split on "
                 "blanks (e.g. \"--partition=forensics --account=case42 --time=04:00:00 --mem=8G\")")
      ->type_name("OPTIONS");
  app.add_option("--parallel", batch.parallel, "Batch: items run at once (default 2)")
      ->check(CLI::PositiveNumber)
      ->type_name("N");
  app.add_option("--run-item", run_item,
                 "Batch: run only the manifest's data line N (from 1; what a Slurm array task gets in "
                 "SLURM_ARRAY_TASK_ID) and write its marker; no merge")
      ->check(CLI::PositiveNumber)
      ->type_name("N");
  app.add_flag("--merge", merge_only, "Batch: only merge the done items into the case files");
  app.add_flag("--status", status_only,
               "Batch: list each item as done, partial (exit 5, 6, 7), failed (with why), running or missing");
  app.add_flag("--json", batch.json, "Batch: --status as one JSON object on stdout");

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
    // CLI11 checks required options before it looks at arguments it does not know, so `--bogus` alone would be
    // answered "--out is required": an argument not understood is named first, as it is usually the cause.
    std::string message = e.what();
    if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && !app.remaining().empty())
      message = CLI::ExtrasError(app.remaining()).what();
    // Every error line of the tool starts alike, so a wrapper (the Autopsy module) and a reader find it.
    std::fprintf(stderr, "roo-ingest: error: %s\nRun with --help for more information.\n", message.c_str());
    return roo::kExitUsage;
  }
  opts.isolate = !no_isolate;
  if (!password_file.empty()) {
    std::ifstream in(password_file, std::ios::binary);
    std::stringstream text;
    if (in) text << in.rdbuf();
    if (!in || in.bad()) {
      std::fprintf(stderr, "roo-ingest: error: --password-file %s: cannot read it: %s\n", password_file.c_str(),
                   std::strerror(errno));
      return roo::kExitUsage;
    }
    opts.passwords = roo::password_lines(text.str());
    if (opts.passwords.empty()) {
      std::fprintf(stderr, "roo-ingest: error: --password-file %s holds no password (one a line)\n",
                   password_file.c_str());
      return roo::kExitUsage;
    }
  }
  if (password_stdin) {
    // A password typed at a terminal would be echoed, and could end in a terminal log.
    if (isatty(STDIN_FILENO)) {
      std::fprintf(stderr, "roo-ingest: error: --password-stdin reads a pipe or a redirected file, not a terminal\n");
      return roo::kExitUsage;
    }
    std::stringstream text;
    text << std::cin.rdbuf();
    std::vector<std::string> more = roo::password_lines(text.str());
    if (more.empty()) {
      std::fprintf(stderr, "roo-ingest: error: --password-stdin: standard input holds no password (one a line)\n");
      return roo::kExitUsage;
    }
    opts.passwords.insert(opts.passwords.end(), more.begin(), more.end());
  }
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
  if (!batch.manifest.empty()) {
    if (!opts.image_paths.empty() || !opts.folder.empty()) {
      std::fprintf(stderr, "roo-ingest: error: --manifest takes its evidence from the manifest: give no IMAGE or "
                           "--dir beside it\n");
      return roo::kExitUsage;
    }
    if ((run_item > 0) + merge_only + status_only > 1) {
      std::fprintf(stderr, "roo-ingest: error: give at most one of --run-item, --merge and --status\n");
      return roo::kExitUsage;
    }
    if (!roo::time_zone_exists(opts.display_tz, &error)) {
      std::fprintf(stderr, "roo-ingest: error: %s\n", error.c_str());
      return roo::kExitUsage;
    }
    batch.batch_dir = opts.out_dir;
    batch.progress = progress;
    batch.quiet = opts.quiet;
    batch.deep = opts.deep;
    batch.native = opts.native;
    batch.verify = opts.verify;
    batch.tz = opts.display_tz;
    batch.formats = format_list;
    batch.threads = opts.threads;
    batch.stall_timeout_seconds = opts.stall_timeout_seconds;
    if (char* self = realpath("/proc/self/exe", nullptr)) {
      batch.self_exe = self;
      std::free(self);
    }
    const auto manifest = roo::batch::load_manifest(batch.manifest, &error);
    if (!manifest) {
      std::fprintf(stderr, "roo-ingest: error: %s\n", error.c_str());
      return roo::kExitUsage;
    }
    if (auto why = roo::batch::batch_dir_refused(*manifest, batch.batch_dir)) {
      std::fprintf(stderr, "roo-ingest: error: %s\n", why->c_str());
      return roo::kExitUsage;
    }
    try {
      if (status_only) return roo::batch::print_status(*manifest, batch);
      if (merge_only) return roo::batch::merge(*manifest, batch);
      // A folder that holds other things is not taken for a batch (its items/ and markers/ would go among them).
      std::error_code ec;
      if (!opts.force && std::filesystem::is_directory(batch.batch_dir, ec) &&
          !std::filesystem::is_empty(batch.batch_dir, ec) &&
          !std::filesystem::is_directory(std::filesystem::path(batch.batch_dir) / "markers", ec)) {
        std::fprintf(stderr,
                     "roo-ingest: error: %s is not empty and not a batch folder (it has no markers/); choose "
                     "another, or use --force to make it one\n",
                     batch.batch_dir.c_str());
        return roo::kExitUsage;
      }
      if (run_item > 0) return roo::batch::run_item(*manifest, batch, run_item);
      std::string engine = batch.engine;
      if (engine == "auto") engine = roo::slurm::slurm_available() ? "slurm" : "local";
      if (engine == "slurm") {
        // One job array over the items without a valid marker (resuming submits only those) and a merge job
        // after it with afterany (plugin/batch/slurm_engine.h, docs/batch-slurm.md).
        roo::slurm::SlurmRequest request;
        request.binary = batch.self_exe;
        request.manifest = std::filesystem::absolute(batch.manifest);
        request.batch_dir = std::filesystem::absolute(batch.batch_dir);
        request.items = roo::batch::pending_items(*manifest, batch);
        if (request.items.empty()) {
          std::printf("every item has a valid done marker: merging only\n");
          return roo::batch::merge(*manifest, batch);
        }
        // The array tasks' --run-item takes the folder for a batch folder by its markers/.
        std::filesystem::create_directories(request.batch_dir / "markers", ec);
        request.throttle = batch.parallel;
        request.sbatch_options = roo::slurm::split_sbatch_options(sbatch_options);
        request.scan_options = roo::batch::item_scan_args(batch);
        const roo::slurm::SlurmSubmission sent = roo::slurm::submit_batch(request);
        if (!sent.ok) {
          std::fprintf(stderr, "roo-ingest: error: %s\n", sent.why.c_str());
          return roo::kExitUsage;
        }
        std::printf("submitted array job %s (--array=%s, %zu item(s)) and merge job %s (afterany); follow it with "
                    "roo-ingest --manifest %s -o %s --status\n",
                    sent.array_job_id.c_str(), sent.array_spec.c_str(), request.items.size(),
                    sent.merge_job_id.c_str(), batch.manifest.c_str(), batch.batch_dir.c_str());
        return roo::kExitOk;
      }
      return roo::batch::run_local(*manifest, batch);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "roo-ingest: internal error: %s\n", e.what());
      return roo::kExitInternal;
    }
  }
  if (run_item > 0 || merge_only || status_only || batch.json || app.count("--engine") || app.count("--parallel") ||
      app.count("--sbatch-options")) {
    std::fprintf(stderr,
                 "roo-ingest: error: --engine, --parallel, --sbatch-options, --run-item, --merge, --status and --json "
                 "need "
                 "--manifest\n");
    return roo::kExitUsage;
  }
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
