#include "plugin/batch/slurm_engine.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "core/sha256.h"

extern char** environ;

namespace roo::slurm {

namespace fs = std::filesystem;

// ---- Pure part -------------------------------------------------------------------------------------------------

std::optional<std::string> compress_array_indices(const std::vector<int>& sorted_indices) {
  std::string spec;
  size_t i = 0;
  while (i < sorted_indices.size()) {
    const int first = sorted_indices[i];
    if (first < 0 || (i > 0 && first <= sorted_indices[i - 1])) return std::nullopt;
    size_t j = i;
    while (j + 1 < sorted_indices.size() && sorted_indices[j + 1] == sorted_indices[j] + 1) ++j;
    if (!spec.empty()) spec += ',';
    spec += std::to_string(first);
    if (j > i) spec += '-' + std::to_string(sorted_indices[j]);
    i = j + 1;
  }
  return spec;
}

namespace {

// A non-negative decimal number that fills `text` exactly, below 2^31.
std::optional<int> parse_index(const std::string& text) {
  if (text.empty() || text.size() > 10) return std::nullopt;
  long long value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value > 0x7fffffff) return std::nullopt;
  return static_cast<int>(value);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

// Slurm's array size limit (MaxArraySize) is at most 4,000,001; an expansion past it is no spec Slurm printed, and
// stopping there keeps a hostile line from costing unbounded memory.
constexpr size_t kMaxExpandedIndices = 4000001;

}  // namespace

std::optional<std::vector<int>> expand_array_spec(const std::string& spec) {
  std::string list = spec;
  const size_t percent = list.find('%');
  if (percent != std::string::npos) {
    if (!parse_index(list.substr(percent + 1))) return std::nullopt;
    list.resize(percent);
  }
  if (list.empty()) return std::nullopt;
  std::vector<int> indices;
  for (const std::string& element : split(list, ',')) {
    std::string range = element;
    int step = 1;
    const size_t colon = range.find(':');
    if (colon != std::string::npos) {
      const auto parsed_step = parse_index(range.substr(colon + 1));
      if (!parsed_step || *parsed_step == 0) return std::nullopt;
      step = *parsed_step;
      range.resize(colon);
    }
    const size_t dash = range.find('-');
    const auto first = parse_index(range.substr(0, dash));
    const auto last = dash == std::string::npos ? first : parse_index(range.substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    for (long long index = *first; index <= *last; index += step) {
      if (indices.size() >= kMaxExpandedIndices) return std::nullopt;
      indices.push_back(static_cast<int>(index));
    }
  }
  return indices;
}

namespace {

// The folder's absolute, lexically normal path without a trailing '/': "/cases/batch1/" is "/cases/batch1".
fs::path normal_folder(const fs::path& batch_dir) {
  fs::path normal = fs::absolute(batch_dir).lexically_normal();
  if (!normal.has_filename() && normal.has_relative_path()) normal = normal.parent_path();
  return normal;
}

}  // namespace

std::string batch_key(const fs::path& batch_dir) {
  return sha256_hex(normal_folder(batch_dir).string()).substr(0, 16);
}

std::string batch_job_name(const fs::path& batch_dir) {
  const fs::path normal = normal_folder(batch_dir);
  std::string name;
  for (char c : normal.filename().string()) {
    const bool kept =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    name += kept ? c : '_';
    if (name.size() == 64) break;
  }
  if (name.find_first_not_of('_') == std::string::npos) return "roo-batch";
  return name;
}

std::string batch_comment(const std::string& key, bool merge) {
  return "roo-ingest:" + key + (merge ? ":merge" : ":items");
}

std::vector<std::string> split_sbatch_options(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  std::string word;
  while (in >> word) words.push_back(word);
  return words;
}

std::string check_sbatch_options(const std::vector<std::string>& options) {
  // Each option this engine sets, by its long name and its short letter ("" where it has none).
  static const std::pair<const char*, const char*> kOwn[] = {
      {"--array", "-a"},  {"--dependency", "-d"}, {"--job-name", "-J"}, {"--comment", ""},
      {"--output", "-o"}, {"--error", "-e"},      {"--chdir", "-D"},    {"--parsable", ""},
      {"--wrap", ""},     {"--wait", "-W"},       {"--test-only", ""}};
  for (const std::string& option : options) {
    if (option.empty()) return "an empty sbatch option";
    if (option[0] != '-') continue;  // the value of the option before it ("-p short")
    const std::string name = option.substr(0, option.find('='));
    for (const auto& [long_name, short_name] : kOwn) {
      const bool is_long = name == long_name;
      // A short option with its value attached ("-Jname") counts as well; "--x" never matches a short one.
      const bool is_short = *short_name != '\0' && option.compare(0, 2, short_name) == 0;
      if (is_long || is_short) {
        return "the sbatch option " + option + " is set by roo-ingest's Slurm engine itself (" + long_name +
               ") and cannot be passed through";
      }
    }
  }
  return "";
}

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

namespace {

std::string script(const SlurmRequest& request, const std::string& what, const std::string& action_words,
                   const std::vector<std::string>& extra) {
  std::string text = "#!/bin/sh\n# Written by roo-ingest's Slurm engine (docs/batch-slurm.md): " + what + "\nexec";
  for (const std::string& word : {request.binary.string(), std::string("--manifest"), request.manifest.string(),
                                  std::string("-o"), request.batch_dir.string()}) {
    text += ' ' + shell_quote(word);
  }
  text += action_words;
  for (const std::string& word : request.scan_options) text += ' ' + shell_quote(word);
  for (const std::string& word : extra) text += ' ' + shell_quote(word);
  return text + "\n";
}

// Slurm expands %A, %a, %j ... in --output's file name; a literal '%' in the folder's path is written %%.
std::string slurm_filename_pattern(const std::string& path) {
  std::string escaped;
  for (char c : path) {
    escaped += c;
    if (c == '%') escaped += '%';
  }
  return escaped;
}

const std::string& name_of(const SlurmRequest& request, std::string& storage) {
  storage = request.job_name.empty() ? batch_job_name(request.batch_dir) : request.job_name;
  return storage;
}

}  // namespace

std::string array_script(const SlurmRequest& request) {
  return script(request, "one array task runs one manifest item.", " --run-item \"$SLURM_ARRAY_TASK_ID\"", {});
}

std::string merge_script(const SlurmRequest& request) {
  return script(request, "the merge job, after every array task has ended.", " --merge", request.merge_options);
}

fs::path slurm_dir(const fs::path& batch_dir) {
  return batch_dir / "slurm";
}
fs::path array_script_path(const fs::path& batch_dir) {
  return slurm_dir(batch_dir) / "items.sh";
}
fs::path merge_script_path(const fs::path& batch_dir) {
  return slurm_dir(batch_dir) / "merge.sh";
}
fs::path submissions_path(const fs::path& batch_dir) {
  return slurm_dir(batch_dir) / "submissions.tsv";
}

std::optional<std::vector<std::string>> array_sbatch_argv(const SlurmRequest& request, const fs::path& script) {
  const auto spec = compress_array_indices(request.items);
  if (!spec || spec->empty() || request.throttle < 0) return std::nullopt;
  std::string array = "--array=" + *spec;
  if (request.throttle > 0) array += '%' + std::to_string(request.throttle);
  std::vector<std::string> argv = {"sbatch", "--parsable", array};
  argv.insert(argv.end(), request.sbatch_options.begin(), request.sbatch_options.end());
  std::string name;
  argv.push_back("--job-name=" + name_of(request, name));
  argv.push_back("--comment=" + batch_comment(batch_key(request.batch_dir), false));
  argv.push_back("--chdir=" + request.batch_dir.string());
  argv.push_back("--output=" + slurm_filename_pattern((slurm_dir(request.batch_dir) / "logs").string()) + "/%A_%a.out");
  argv.push_back(script.string());
  return argv;
}

std::vector<std::string> merge_sbatch_argv(const SlurmRequest& request, const std::string& array_job_id,
                                           const fs::path& script) {
  std::vector<std::string> argv = {"sbatch", "--parsable", "--dependency=afterany:" + array_job_id};
  argv.insert(argv.end(), request.sbatch_options.begin(), request.sbatch_options.end());
  std::string name;
  argv.push_back("--job-name=" + name_of(request, name) + ".merge");
  argv.push_back("--comment=" + batch_comment(batch_key(request.batch_dir), true));
  argv.push_back("--chdir=" + request.batch_dir.string());
  argv.push_back("--output=" + slurm_filename_pattern((slurm_dir(request.batch_dir) / "logs").string()) +
                 "/merge-%j.out");
  argv.push_back(script.string());
  return argv;
}

std::optional<std::string> parse_parsable_job_id(const std::string& sbatch_stdout) {
  // sbatch prints nothing else on stdout with --parsable; its warnings go to stderr. The last non-empty line is
  // taken all the same, in case a site's job_submit plugin or a wrapper script printed before it.
  std::string last;
  for (const std::string& line : split(sbatch_stdout, '\n')) {
    std::string trimmed = line;
    while (!trimmed.empty() && (trimmed.back() == '\r' || trimmed.back() == ' ')) trimmed.pop_back();
    if (!trimmed.empty()) last = trimmed;
  }
  const std::string id = last.substr(0, last.find(';'));
  if (!parse_index(id) || *parse_index(id) == 0) return std::nullopt;
  return id;
}

const char* const kSqueueFormat = "%F|%K|%i|%T|%r|%k";

std::vector<QueuedJob> parse_squeue(const std::string& squeue_stdout, const std::string& key) {
  const std::string items_comment = batch_comment(key, false);
  const std::string merge_comment = batch_comment(key, true);
  std::vector<QueuedJob> jobs;
  for (const std::string& line : split(squeue_stdout, '\n')) {
    // Five separators, then the comment, which may itself hold '|' (another batch's, another user's).
    std::vector<std::string> fields;
    size_t start = 0;
    for (int i = 0; i < 5; ++i) {
      const size_t bar = line.find('|', start);
      if (bar == std::string::npos) break;
      fields.push_back(line.substr(start, bar - start));
      start = bar + 1;
    }
    if (fields.size() != 5) continue;
    std::string comment = line.substr(start);
    while (!comment.empty() && (comment.back() == ' ' || comment.back() == '\r')) comment.pop_back();
    const bool merge = comment == merge_comment;
    if (!merge && comment != items_comment) continue;
    if (!parse_index(fields[0])) continue;
    QueuedJob job;
    job.array_job_id = fields[0];
    job.state = fields[3];
    job.reason = fields[4];
    job.merge = merge;
    if (fields[1] == "N/A" || fields[1].empty()) {
      job.job_id = fields[2];
      jobs.push_back(job);
      continue;
    }
    const auto indices = expand_array_spec(fields[1]);
    if (!indices) continue;
    for (int index : *indices) {
      job.array_task = index;
      job.job_id = job.array_job_id + "_" + std::to_string(index);
      jobs.push_back(job);
    }
  }
  return jobs;
}

// ---- The part that runs Slurm's commands ----------------------------------------------------------------------

namespace {

constexpr size_t kMaxCapturedBytes = 16u << 20;

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  CommandResult result;
  if (argv.empty()) {
    result.why = "no command";
    return result;
  }
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.why = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  Fd out_read(out_pipe[0]), out_write(out_pipe[1]);
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.why = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  Fd err_read(err_pipe[0]), err_write(err_pipe[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group, so a timeout ends whatever it started too; default signal handling and an empty mask,
  // whatever this process ignores or blocks.
  sigset_t no_signals, default_signals;
  sigemptyset(&no_signals);
  sigemptyset(&default_signals);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&default_signals, sig);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  posix_spawnattr_setsigdefault(&attributes, &default_signals);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawn_error = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  out_write.reset();
  err_write.reset();
  if (spawn_error != 0) {
    result.why = argv[0] + ": " + std::strerror(spawn_error);
    return result;
  }
  result.started = true;

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto remaining_ms = [&] {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::max<int64_t>(0, left.count()));
  };
  bool out_open = true, err_open = true;
  char buffer[65536];
  while ((out_open || err_open) && !result.timed_out) {
    pollfd fds[2] = {{out_open ? out_read.get() : -1, POLLIN, 0}, {err_open ? err_read.get() : -1, POLLIN, 0}};
    const int ready = poll(fds, 2, remaining_ms());
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      result.timed_out = remaining_ms() == 0 || ready < 0;
      if (ready < 0) result.why = std::string("poll: ") + std::strerror(errno);
      continue;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        (i == 0 ? out_open : err_open) = false;
        continue;
      }
      std::string& sink = i == 0 ? result.out : result.err;
      const size_t room = kMaxCapturedBytes - std::min(kMaxCapturedBytes, sink.size());
      sink.append(buffer, std::min(static_cast<size_t>(got), room));
    }
  }
  // Both pipes closed: the program has ended or closed them; wait for its end within the same deadline.
  int status = 0;
  while (!result.timed_out) {
    const pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) {
      result.exit_code = exit_code_of(status);
      return result;
    }
    if (got < 0 && errno != EINTR) {
      result.why = std::string("waitpid: ") + std::strerror(errno);
      return result;
    }
    if (remaining_ms() == 0) {
      result.timed_out = true;
    } else {
      usleep(10000);
    }
  }
  kill(-pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = -1;
  if (result.why.empty()) {
    result.why = argv[0] + " did not finish within " + std::to_string(timeout.count()) + " ms and was killed";
  }
  return result;
}

namespace {

// What a failed command said, for a message: its stderr's last line, or how it ended.
std::string failure_of(const std::string& what, const CommandResult& result) {
  if (!result.started || result.timed_out) return what + ": " + result.why;
  std::string said = result.err;
  while (!said.empty() && (said.back() == '\n' || said.back() == '\r')) said.pop_back();
  const size_t newline = said.rfind('\n');
  if (newline != std::string::npos) said = said.substr(newline + 1);
  return what + " exited " + std::to_string(result.exit_code) + (said.empty() ? "" : ": " + said);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// Writes the file beside its final name and renames it over, so a reader never sees half a script.
bool write_atomically(const fs::path& path, const std::string& text, mode_t mode, std::string* why) {
  const fs::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      *why = "cannot write " + temporary.string();
      return false;
    }
  }
  if (chmod(temporary.c_str(), mode) != 0 || rename(temporary.c_str(), path.c_str()) != 0) {
    *why = "cannot put " + path.string() + " in place: " + std::strerror(errno);
    return false;
  }
  return true;
}

std::string job_list(const std::vector<QueuedJob>& jobs) {
  std::string list;
  for (size_t i = 0; i < jobs.size() && i < 10; ++i) {
    list += (i ? ", " : "") + jobs[i].job_id + " " + jobs[i].state;
  }
  if (jobs.size() > 10) list += ", and " + std::to_string(jobs.size() - 10) + " more";
  return list;
}

}  // namespace

bool slurm_available(std::chrono::seconds timeout) {
  const CommandResult version = run_command({"sbatch", "--version"}, timeout);
  if (!version.started || version.timed_out || version.exit_code != 0) return false;
  const CommandResult queue = run_command({"squeue", "-h", "-o", "%i", "-u", std::to_string(getuid())}, timeout);
  return queue.started && !queue.timed_out && queue.exit_code == 0;
}

std::optional<std::vector<QueuedJob>> queued_jobs_of_batch(const fs::path& batch_dir, const std::string& job_name,
                                                           std::chrono::seconds timeout, std::string* why) {
  const std::string name = job_name.empty() ? batch_job_name(batch_dir) : job_name;
  // Both of the batch's names (the array's and the merge job's); the comment then picks this batch's jobs.
  const CommandResult result =
      run_command({"squeue", "-h", "-r", "--name=" + name + "," + name + ".merge", "-o", kSqueueFormat}, timeout);
  if (!result.started || result.timed_out || result.exit_code != 0) {
    if (why) *why = failure_of("squeue", result);
    return std::nullopt;
  }
  return parse_squeue(result.out, batch_key(batch_dir));
}

SlurmSubmission submit_batch(const SlurmRequest& request) {
  SlurmSubmission submission;
  if (!request.binary.is_absolute() || !request.manifest.is_absolute() || !request.batch_dir.is_absolute()) {
    submission.why = "the binary, the manifest and the batch folder must be given as absolute paths";
    return submission;
  }
  const auto spec = compress_array_indices(request.items);
  if (!spec || spec->empty()) {
    submission.why = "no items to submit, or item numbers not sorted and unique";
    return submission;
  }
  if (request.throttle < 0) {
    submission.why = "a negative throttle";
    return submission;
  }
  if (std::string refused = check_sbatch_options(request.sbatch_options); !refused.empty()) {
    submission.why = refused;
    return submission;
  }
  const fs::path dir = slurm_dir(request.batch_dir);
  std::error_code error;
  fs::create_directories(dir / "logs", error);
  if (error) {
    submission.why = "cannot create " + (dir / "logs").string() + ": " + error.message();
    return submission;
  }
  // One submission of a batch at a time: the check for queued jobs and the sbatch calls after it are one step.
  const fs::path lock_path = dir / "submit.lock";
  Fd lock(open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (lock.get() < 0 || flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    submission.why = "another submission of this batch is under way (" + lock_path.string() + " is locked)";
    return submission;
  }

  std::string why;
  const auto queued = queued_jobs_of_batch(request.batch_dir, request.job_name, request.command_timeout, &why);
  if (!queued) {
    submission.why = "cannot ask Slurm which jobs of this batch are queued: " + why;
    return submission;
  }
  if (!queued->empty()) {
    submission.blocking = *queued;
    submission.why = "an earlier submission of this batch is still queued or running (" + job_list(*queued) +
                     "); wait for it to end or scancel it, then run the command again";
    return submission;
  }

  if (!write_atomically(array_script_path(request.batch_dir), array_script(request), 0755, &submission.why) ||
      !write_atomically(merge_script_path(request.batch_dir), merge_script(request), 0755, &submission.why)) {
    return submission;
  }
  const auto array_argv = array_sbatch_argv(request, array_script_path(request.batch_dir));
  submission.array_spec = array_argv->at(2).substr(std::strlen("--array="));
  const CommandResult array_result = run_command(*array_argv, request.command_timeout);
  const auto array_id = parse_parsable_job_id(array_result.out);
  if (array_result.exit_code != 0 || !array_id) {
    submission.why = failure_of("sbatch (the array)", array_result);
    // A timed-out sbatch may still have submitted: look for it, so the caller is not told nothing runs.
    if (const auto after = queued_jobs_of_batch(request.batch_dir, request.job_name, request.command_timeout)) {
      submission.blocking = *after;
    }
    return submission;
  }
  submission.array_job_id = *array_id;

  const CommandResult merge_result =
      run_command(merge_sbatch_argv(request, *array_id, merge_script_path(request.batch_dir)), request.command_timeout);
  const auto merge_id = parse_parsable_job_id(merge_result.out);
  if (merge_result.exit_code != 0 || !merge_id) {
    const CommandResult cancel = run_command({"scancel", *array_id}, request.command_timeout);
    submission.why = failure_of("sbatch (the merge job)", merge_result) +
                     (cancel.exit_code == 0 ? "; the array " + *array_id + " was cancelled again"
                                            : "; " + failure_of("scancel of the array " + *array_id, cancel));
    return submission;
  }
  submission.merge_job_id = *merge_id;

  std::ofstream record(submissions_path(request.batch_dir), std::ios::app | std::ios::binary);
  record << utc_now() << '\t' << submission.array_job_id << '\t' << submission.merge_job_id << '\t'
         << submission.array_spec << '\n';
  record.flush();
  if (!record) {
    submission.why = "submitted (array " + submission.array_job_id + ", merge " + submission.merge_job_id +
                     "), but cannot append to " + submissions_path(request.batch_dir).string();
    submission.ok = true;  // the jobs run; only the record is missing, and status finds them by their comment
    return submission;
  }
  submission.ok = true;
  return submission;
}

std::vector<RecordedSubmission> recorded_submissions(const fs::path& batch_dir) {
  std::vector<RecordedSubmission> submissions;
  std::ifstream in(submissions_path(batch_dir), std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = split(line, '\t');
    if (fields.size() != 4) continue;
    submissions.push_back({fields[0], fields[1], fields[2], fields[3]});
  }
  return submissions;
}

}  // namespace roo::slurm
