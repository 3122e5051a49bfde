// The Slurm engine of a batch (docs/batch-slurm.md): the pending items of a manifest submitted as one job array, each
// array task running `roo-ingest --manifest M -o BATCHDIR --run-item $SLURM_ARRAY_TASK_ID`, and a merge job that
// depends on the array with afterany (an afterok dependency never starts once any task failed, so the merge, which
// reads the per-item markers itself, would never run). The plugin works out which items are pending; this file only
// talks to Slurm.
//
// Two parts: pure functions (the array spec, the sbatch command lines, the batch scripts, parsing what sbatch and
// squeue print), unit-tested without Slurm; and the functions that run Slurm's commands, each with a timeout, as argv
// (never through a shell). What it writes goes under BATCHDIR/slurm/ only: the two batch scripts, the task logs and
// submissions.tsv (one line per submission with its job ids, for the status command).
//
// A batch is known to Slurm by its job name and by its comment, "roo-ingest:<batch key>:items" or ":merge", where the
// batch key is the start of the sha256 of the batch folder's absolute path: jobs of the same batch are found from any
// working directory, and no two batch folders share a key in practice.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roo::slurm {

// ---- Pure part -------------------------------------------------------------------------------------------------

// "3,7-9" from {3, 7, 8, 9}: the indices sorted ascending, each once (runs of two or more consecutive ones as a range).
// Returns "" for an empty list. Indices must be sorted, unique and >= 0; otherwise returns std::nullopt.
std::optional<std::string> compress_array_indices(const std::vector<int>& sorted_indices);

// The inverse, for Slurm's array specs as squeue and sbatch print them ("3,7-9", "5-9%2", "1-7:2"): the indices in
// order, without the throttle. std::nullopt when the text is no array spec.
std::optional<std::vector<int>> expand_array_spec(const std::string& spec);

// The batch key of a batch folder (16 hex digits of the sha256 of its absolute, lexically normal path).
std::string batch_key(const std::filesystem::path& batch_dir);

// A job name for the batch: the folder's name with every byte other than [A-Za-z0-9._-] as '_' (squeue's --name
// takes a comma-separated list, and a job name is shown in fixed-width columns), at most 64 bytes, "roo-batch" if
// nothing is left.
std::string batch_job_name(const std::filesystem::path& batch_dir);

// The comment that marks the batch's jobs: "roo-ingest:<key>:items" for the array, ":merge" for the merge job.
std::string batch_comment(const std::string& key, bool merge);

// The lab's own sbatch options from one string as the user typed it after --sbatch-options (split on blanks, no shell
// quoting: an option value with a blank in it is given as its own element of SlurmRequest::sbatch_options).
std::vector<std::string> split_sbatch_options(const std::string& text);

// Why the lab's sbatch options cannot be passed through, or "" when they can: the options this engine sets itself
// (the array, the dependency, the job name, the comment, the output files, the working directory, --parsable,
// --wrap, --wait, --test-only) are refused rather than silently overridden.
std::string check_sbatch_options(const std::vector<std::string>& options);

// Single-quotes one word for a POSIX shell script ('it'\''s').
std::string shell_quote(const std::string& word);

struct SlurmRequest {
  std::filesystem::path binary;              // roo-ingest, absolute (the array tasks run it on the compute nodes)
  std::filesystem::path manifest;            // absolute
  std::filesystem::path batch_dir;           // absolute; the scripts, logs and job ids go under batch_dir/slurm/
  std::vector<int> items;                    // 1-based manifest data lines still to run, sorted ascending, each once
  int throttle = 0;                          // at most this many tasks at once (--array=...%N); 0: Slurm's own limit
  std::vector<std::string> sbatch_options;   // the lab's own: partition, account, time, memory; one argv word each
  std::vector<std::string> scan_options;     // appended to every `roo-ingest --run-item` and `--merge` command line
  std::vector<std::string> merge_options;    // appended to the `--merge` command line only
  std::string job_name;                      // "" = batch_job_name(batch_dir)
  std::chrono::seconds command_timeout{60};  // for each sbatch/squeue call
};

// The batch scripts: `exec BINARY --manifest M -o B --run-item "$SLURM_ARRAY_TASK_ID" SCAN_OPTIONS...`, and
// `exec BINARY --manifest M -o B --merge SCAN_OPTIONS... MERGE_OPTIONS...`, every word single-quoted. The sbatch
// options are given on sbatch's command line, not as #SBATCH lines, so no path needs quoting for Slurm's parser.
std::string array_script(const SlurmRequest& request);
std::string merge_script(const SlurmRequest& request);

// Where a submission's files go.
std::filesystem::path slurm_dir(const std::filesystem::path& batch_dir);  // batch_dir/slurm
std::filesystem::path array_script_path(const std::filesystem::path& batch_dir);
std::filesystem::path merge_script_path(const std::filesystem::path& batch_dir);
std::filesystem::path submissions_path(const std::filesystem::path& batch_dir);  // submissions.tsv

// The sbatch argv for the array: sbatch --parsable --array=<spec>[%throttle] <lab's options> --job-name=<name>
// --comment=<comment> --chdir=<batch dir> --output=<batch dir>/slurm/logs/%A_%a.out <script>. std::nullopt when the
// items cannot be compressed (unsorted, repeated, negative) or are empty.
std::optional<std::vector<std::string>> array_sbatch_argv(const SlurmRequest& request,
                                                          const std::filesystem::path& script);
// The sbatch argv for the merge job: sbatch --parsable --dependency=afterany:<array job id> <lab's options>
// --job-name=<name>.merge --comment=<comment> --chdir=... --output=<batch dir>/slurm/logs/merge-%j.out <script>.
std::vector<std::string> merge_sbatch_argv(const SlurmRequest& request, const std::string& array_job_id,
                                           const std::filesystem::path& script);

// The job id in what `sbatch --parsable` printed ("1234" or "1234;cluster", then a newline); std::nullopt if none.
std::optional<std::string> parse_parsable_job_id(const std::string& sbatch_stdout);

// One job, or one task of an array, that squeue lists.
struct QueuedJob {
  std::string job_id;        // as squeue names it: "1234_7" for an array task, "1234" for another job
  std::string array_job_id;  // "1234"
  int array_task = -1;       // 7; -1 for a job that is no array task (the merge job)
  std::string state;         // PENDING, RUNNING, COMPLETING, ...
  std::string reason;        // why it waits, as squeue's %r says: JobHeldUser, Dependency, JobArrayTaskLimit; None
  bool merge = false;        // the batch's merge job (its comment says so)
};

// The squeue format queued_jobs_of_batch asks for: array job id, task id, job id, state, reason, comment.
extern const char* const kSqueueFormat;
// The jobs of the batch with this key in squeue's output for kSqueueFormat with -h -r (one line per array task);
// lines of other batches and lines that do not parse are left out. A pending task range that squeue did not expand
// ("5-9%2") becomes one QueuedJob per index.
std::vector<QueuedJob> parse_squeue(const std::string& squeue_stdout, const std::string& key);

// ---- The part that runs Slurm's commands ----------------------------------------------------------------------

struct CommandResult {
  bool started = false;  // false: the program could not be run (not found, not executable); see why
  bool timed_out = false;
  int exit_code = -1;  // the exit status; 128 + N when ended by signal N; -1 when not started or timed out
  std::string out, err;
  std::string why;
};
// Runs argv[0] (looked up in PATH when it has no '/') with these arguments, no shell, stdin from /dev/null, stdout
// and stderr captured (each cut at 16 MiB). After `timeout` the program's process group is killed.
CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// Whether Slurm is there and answers: `sbatch --version` and `squeue -h` each exit 0 within their timeouts.
bool slurm_available(std::chrono::seconds timeout = std::chrono::seconds(10));

// The jobs of this batch that squeue lists as queued or running (its default states: pending, running, suspended,
// completing, configuring). std::nullopt, with *why set, when squeue cannot be asked.
std::optional<std::vector<QueuedJob>> queued_jobs_of_batch(const std::filesystem::path& batch_dir,
                                                           const std::string& job_name = "",
                                                           std::chrono::seconds timeout = std::chrono::seconds(60),
                                                           std::string* why = nullptr);

struct SlurmSubmission {
  bool ok = false;
  std::string why;                  // when not ok: what failed, with sbatch's or squeue's own words
  std::vector<QueuedJob> blocking;  // jobs of the same batch still queued or running (why says so)
  std::string array_spec;           // as given to --array, with the throttle
  std::string array_job_id, merge_job_id;
};

// Submits the array and its merge job, after checking the request, that squeue answers and that no job of the same
// batch is still queued or running (then nothing is submitted and `blocking` lists them). Writes the two scripts
// (atomically, mode 0755) under batch_dir/slurm/ and appends the job ids to submissions.tsv. When the array was
// submitted but the merge job was not, the array is cancelled again (scancel) so no array runs without its merge.
SlurmSubmission submit_batch(const SlurmRequest& request);

// One line of submissions.tsv: when, the array job id, the merge job id, the array spec.
struct RecordedSubmission {
  std::string utc_time, array_job_id, merge_job_id, array_spec;
};
std::vector<RecordedSubmission> recorded_submissions(const std::filesystem::path& batch_dir);

}  // namespace roo::slurm
