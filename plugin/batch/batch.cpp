// Items of a batch: running one (--run-item), its marker, which are still to do, the local engine's pool of worker
// processes, the batch's progress and --status. The layout and the contract with the engines: batch.h.
#include "plugin/batch/batch.h"

#include <fcntl.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "core/exit_codes.h"
#include "core/sha256.h"
#include "plugin/formats/registry.h"
#include "plugin/formats/row_fields.h"
#include "plugin/run.h"
#include "plugin/batch/batch_internal.h"
#include "plugin/batch/slurm_engine.h"

namespace roo::batch {

namespace fs = std::filesystem;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

namespace detail {

// 2: a folder item's evidence file also holds the digest of the folder's whole tree (tree_digest below).
constexpr int kMarkerVersion = 2;

fs::path items_dir(const BatchOptions& o) { return fs::path(o.batch_dir) / "items"; }
fs::path markers_dir(const BatchOptions& o) { return fs::path(o.batch_dir) / "markers"; }
fs::path item_out(const BatchOptions& o, const ManifestItem& i) { return items_dir(o) / i.id; }
fs::path item_part(const BatchOptions& o, const ManifestItem& i) { return items_dir(o) / ("." + i.id + ".part"); }
fs::path item_log(const BatchOptions& o, const ManifestItem& i) { return items_dir(o) / (i.id + ".log"); }
fs::path marker_path(const BatchOptions& o, const ManifestItem& i) { return markers_dir(o) / (i.id + ".done.json"); }
fs::path failed_path(const BatchOptions& o, const ManifestItem& i) {
  return markers_dir(o) / (i.id + ".failed.json");
}
fs::path lock_path(const BatchOptions& o, const ManifestItem& i) { return markers_dir(o) / ("." + i.id + ".lock"); }

bool terminal_exit(int code) {
  return code == kExitOk || code == kExitPartial || code == kExitNothingReadable || code == kExitNotVerified;
}

std::string exit_meaning(int code) {
  for (const ExitCodeHelp& e : kExitCodeHelp)
    if (static_cast<int>(e.code) == code) return e.help;
  if (code >= 128) return "ended by signal " + std::to_string(code - 128);
  return "exit code " + std::to_string(code);
}

std::optional<std::string> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes tmp then renames it over `p`: a reader sees the old file or the whole new one, never a part.
bool write_atomically(const fs::path& p, const std::string& bytes) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << bytes;
    out.flush();
    if (!out) return false;
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  return !ec;
}

struct FileDigest {
  std::string sha256;
  uint64_t size = 0;
  int64_t lines = 0;
};

std::optional<rapidjson::Document> read_json(const fs::path& p) {
  auto text = read_file(p);
  if (!text) return std::nullopt;
  rapidjson::Document d;
  d.Parse(text->data(), text->size());
  if (d.HasParseError() || !d.IsObject()) return std::nullopt;
  return d;
}

int64_t int_member(const rapidjson::Value& v, const char* key, int64_t fallback) {
  const rapidjson::Value* m = member(v, key);
  return m && m->IsInt64() ? m->GetInt64() : fallback;
}

}  // namespace detail
using namespace detail;

namespace {

std::optional<FileDigest> digest_file(const fs::path& p) {
  std::FILE* f = std::fopen(p.c_str(), "rb");
  if (!f) return std::nullopt;
  Sha256 h;
  FileDigest d;
  std::vector<char> buf(1 << 20);
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), f)) > 0;) {
    h.update(buf.data(), n);
    d.size += n;
    for (size_t i = 0; i < n; ++i) d.lines += buf[i] == '\n';
  }
  const bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) return std::nullopt;
  d.sha256 = h.hex();
  return d;
}

int64_t mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// What a folder (--dir) item's marker records of the folder: a file changed deep inside changes only its own mtime
// and that of no folder above it, so the folder's own mtime cannot tell. Every entry under the folder goes in, by
// its path relative to the folder, in byte order of the names at each level: its type, size and mtime, as lstat
// gives them (the folder reader, core/folder_evidence.cpp, never follows a symbolic link, nor does this). A walk
// with one lstat per entry: cheap beside reading the files, and no file is opened.
struct TreeDigest {
  std::string sha256;
  uint64_t entries = 0;
};

void digest_tree(const std::string& dir, const std::string& relative, Sha256& h, uint64_t& entries) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name, rel = relative.empty() ? name : relative + "/" + name;
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) continue;  // gone since it was listed
    const char type = S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' : S_ISREG(st.st_mode) ? 'f' : 'o';
    // NUL ends each field: no path holds one, so no two trees give the same bytes.
    const std::string line = std::string(1, type) + '\0' + std::to_string(S_ISDIR(st.st_mode) ? 0 : st.st_size) +
                             '\0' + std::to_string(mtime_ns(st)) + '\0' + rel + '\0';
    h.update(line.data(), line.size());
    ++entries;
    if (S_ISDIR(st.st_mode)) digest_tree(path, rel, h, entries);
  }
}

TreeDigest tree_digest(const std::string& folder) {
  Sha256 h;
  TreeDigest d;
  digest_tree(folder, "", h, d.entries);
  d.sha256 = h.hex();
  return d;
}

struct FileStamp {
  std::string path;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  std::optional<TreeDigest> tree;  // a folder item's folder only
};

std::optional<FileStamp> stamp(const std::string& path, bool folder) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  FileStamp s{path, static_cast<uint64_t>(S_ISDIR(st.st_mode) ? 0 : st.st_size), mtime_ns(st), std::nullopt};
  if (folder && S_ISDIR(st.st_mode)) s.tree = tree_digest(path);
  return s;
}

void put(JsonWriter& w, const char* key, const std::string& v) {
  w.Key(key);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

void write_options(JsonWriter& w, const BatchOptions& o) {
  w.StartObject();
  w.Key("deep");
  w.Bool(o.deep);
  put(w, "format", o.formats);
  w.Key("native");
  w.Bool(o.native);
  put(w, "tz", o.tz);
  w.Key("verify");
  w.Bool(o.verify);
  w.EndObject();
}

// The evidence files an item's marker stamps: the manifest's paths and the segments the run found beside them
// (report.json evidence.segments: an E01's .E02 …), in that order, each once.
std::vector<std::string> evidence_files(const ManifestItem& item, const fs::path& report_json) {
  std::vector<std::string> files = item.paths;
  if (auto report = read_json(report_json)) {
    const rapidjson::Value* ev = member(*report, "evidence");
    const rapidjson::Value* segs = ev ? member(*ev, "segments") : nullptr;
    if (segs && segs->IsArray())
      for (const rapidjson::Value& s : segs->GetArray())
        if (s.IsString()) {
          std::error_code ec;
          const std::string p = fs::absolute(s.GetString(), ec).lexically_normal().string();
          if (std::find(files.begin(), files.end(), p) == files.end()) files.push_back(p);
        }
  }
  return files;
}

// The last line of the item's log that says what went wrong ("roo-ingest: error: …"), else its last line.
std::string why_from_log(const fs::path& log) {
  std::ifstream in(log);
  std::string line, last, last_error;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    last = line;
    if (line.find("error") != std::string::npos) last_error = line;
  }
  return last_error.empty() ? last : last_error;
}

bool item_running(const BatchOptions& o, const ManifestItem& item) {
  const int fd = ::open(lock_path(o, item).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  return held;
}

// The done marker: what the item's outputs are (sha256 and size of report.json and rows.jsonl, the row count), of
// which evidence (each file's size and mtime), by which version and with which output-changing options. No time of
// the run itself: the same evidence gives the same marker, so a redone item merges to the same bytes.
std::string marker_json(const ManifestItem& item, const BatchOptions& o, int exit_code,
                        const std::vector<FileStamp>& files, const FileDigest& report, const FileDigest& rows) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("marker_version");
  w.Int(kMarkerVersion);
  put(w, "evidence_id", item.id);
  put(w, "kind", item.folder ? "folder" : "image");
  w.Key("paths");
  w.StartArray();
  for (const std::string& p : item.paths) w.String(p.c_str());
  w.EndArray();
  w.Key("evidence_files");
  w.StartArray();
  for (const FileStamp& f : files) {
    w.StartObject();
    put(w, "path", f.path);
    w.Key("size_bytes");
    w.Uint64(f.size);
    w.Key("mtime_ns");
    w.Int64(f.mtime_ns);
    if (f.tree) {
      w.Key("tree_entries");
      w.Uint64(f.tree->entries);
      put(w, "tree_sha256", f.tree->sha256);
    }
    w.EndObject();
  }
  w.EndArray();
  put(w, "tool", "roo-ingest");
  put(w, "tool_version", ROO_INGEST_VERSION);
  w.Key("options");
  write_options(w, o);
  w.Key("exit_code");
  w.Int(exit_code);
  put(w, "exit_meaning", exit_meaning(exit_code));
  w.Key("outputs");
  w.StartObject();
  for (const auto& [name, d] : {std::pair<const char*, const FileDigest&>{"report.json", report}, {"rows.jsonl", rows}}) {
    w.Key(name);
    w.StartObject();
    put(w, "sha256", d.sha256);
    w.Key("size_bytes");
    w.Uint64(d.size);
    if (std::string(name) == "rows.jsonl") {
      w.Key("rows");
      w.Int64(d.lines);
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace

std::string output_options_json(const BatchOptions& o) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  write_options(w, o);
  return std::string(buf.GetString(), buf.GetSize());
}

namespace {

// The options that change an item's output, as arguments.
std::vector<std::string> output_args(const BatchOptions& o) {
  std::vector<std::string> a;
  if (o.deep) a.push_back("--deep");
  if (o.native) a.push_back("--native");
  if (o.verify) a.push_back("--verify");
  if (o.tz != "UTC") a.insert(a.end(), {"--tz", o.tz});
  if (o.formats != "all") a.insert(a.end(), {"--format", o.formats});
  return a;
}

}  // namespace

std::vector<std::string> item_scan_args(const BatchOptions& o) {
  std::vector<std::string> a = output_args(o);
  if (o.threads) a.insert(a.end(), {"--threads", std::to_string(o.threads)});
  if (o.stall_timeout_seconds != 180) a.insert(a.end(), {"--stall-timeout", std::to_string(o.stall_timeout_seconds)});
  return a;
}

bool marker_valid(const ManifestItem& item, const BatchOptions& o, std::string* why) {
  auto say = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  if (why) why->clear();
  auto marker = read_json(marker_path(o, item));
  if (!marker) return false;  // none: not stale, just not done
  if (int_member(*marker, "marker_version") != kMarkerVersion) return say("the marker is of another format");
  if (string_member(*marker, "tool_version").value_or("") != ROO_INGEST_VERSION)
    return say("the marker is of roo-ingest " + std::string(string_member(*marker, "tool_version").value_or("?")) +
               ", this is " ROO_INGEST_VERSION);
  const rapidjson::Value* opts = member(*marker, "options");
  if (!opts || json_text(*opts) != output_options_json(o))
    return say("the item was run with other options: " + (opts ? json_text(*opts) : std::string("none")));
  const rapidjson::Value* paths = member(*marker, "paths");
  std::vector<std::string> marked;
  if (paths && paths->IsArray())
    for (const rapidjson::Value& p : paths->GetArray())
      if (p.IsString()) marked.emplace_back(p.GetString());
  if (marked != item.paths) return say("the manifest gives other paths for this evidence id now");
  const rapidjson::Value* files = member(*marker, "evidence_files");
  if (!files || !files->IsArray()) return say("the marker lists no evidence files");
  for (const rapidjson::Value& f : files->GetArray()) {
    const std::string p(string_member(f, "path").value_or(""));
    const bool the_folder = item.folder && p == item.paths[0];
    auto now = stamp(p, the_folder);
    if (!now) return say(p + " is gone");
    if (static_cast<int64_t>(now->size) != int_member(f, "size_bytes") || now->mtime_ns != int_member(f, "mtime_ns"))
      return say(p + " changed (size or modification time) since the item ran");
    if (the_folder && (!now->tree || string_member(f, "tree_sha256").value_or("") != now->tree->sha256))
      return say("a file or folder inside " + p + " was changed, added or removed since the item ran");
  }
  if (!terminal_exit(static_cast<int>(int_member(*marker, "exit_code")))) return say("the marker's exit code");
  const rapidjson::Value* outputs = member(*marker, "outputs");
  const rapidjson::Value* rows = outputs ? member(*outputs, "rows.jsonl") : nullptr;
  std::error_code ec;
  const auto size = fs::file_size(item_out(o, item) / "rows.jsonl", ec);
  if (!rows || ec || static_cast<int64_t>(size) != int_member(*rows, "size_bytes") ||
      !fs::exists(item_out(o, item) / "report.json", ec))
    return say("its outputs in " + item_out(o, item).string() + " are missing or changed");
  return true;
}

std::vector<int> pending_items(const Manifest& m, const BatchOptions& o) {
  std::vector<int> pending;
  for (const ManifestItem& item : m.items)
    if (!marker_valid(item, o) && !item_running(o, item)) pending.push_back(item.index);
  return pending;
}

std::string format_index_list(const std::vector<int>& indexes) {
  std::string out;
  for (size_t i = 0; i < indexes.size();) {
    size_t j = i;
    while (j + 1 < indexes.size() && indexes[j + 1] == indexes[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(indexes[i]);
    if (j > i) out += "-" + std::to_string(indexes[j]);
    i = j + 1;
  }
  return out;
}

int run_item(const Manifest& m, const BatchOptions& o, int index) {
  const ManifestItem* item = m.item(index);
  if (!item) {
    std::fprintf(stderr, "roo-ingest: error: --run-item %d: the manifest %s has %zu items (numbered from 1)\n", index,
                 m.path.c_str(), m.items.size());
    return kExitUsage;
  }
  std::error_code ec;
  fs::create_directories(markers_dir(o), ec);  // first: a BATCHDIR with anything in it has markers/ (main.cpp)
  fs::create_directories(items_dir(o), ec);
  // Held while the item runs, by the forked file-system workers too: --status reads it as "running", and a second
  // process for the same item (a requeued Slurm task beside the old one) goes away instead of mixing outputs.
  const int lock_fd = ::open(lock_path(o, *item).c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    std::fprintf(stderr, "roo-ingest: error: item %d (%s) is being run by another process now\n", index,
                 item->id.c_str());
    if (lock_fd >= 0) close(lock_fd);
    return kExitUsage;
  }
  if (marker_valid(*item, o)) {
    std::fprintf(stderr, "roo-ingest: item %d (%s) is done already (%s)\n", index, item->id.c_str(),
                 marker_path(o, *item).c_str());
    auto marker = read_json(marker_path(o, *item));
    close(lock_fd);
    return static_cast<int>(int_member(*marker, "exit_code", 0));
  }
  // Whatever an earlier run of this item left is of other evidence, options or version, or unfinished: it goes
  // before the run, so items/<id>/ never holds outputs its marker does not describe.
  fs::remove(marker_path(o, *item), ec);
  fs::remove(failed_path(o, *item), ec);
  fs::remove_all(item_part(o, *item), ec);
  fs::remove_all(item_out(o, *item), ec);

  RunOptions run_opts;
  if (item->folder)
    run_opts.folder = item->paths[0];
  else
    run_opts.image_paths = item->paths;
  run_opts.out_dir = item_part(o, *item).string();
  run_opts.quiet = true;
  run_opts.deep = o.deep;
  run_opts.native = o.native;
  run_opts.verify = o.verify;
  run_opts.display_tz = o.tz;
  run_opts.threads = o.threads;
  run_opts.stall_timeout_seconds = o.stall_timeout_seconds;
  std::string error;
  const auto formats = parse_format_list(o.formats, &error);
  if (!formats) {
    std::fprintf(stderr, "roo-ingest: error: %s\n", error.c_str());
    close(lock_fd);
    return kExitUsage;
  }
  run_opts.formats = *formats;
  // report.json's command line: the direct run this item stands for, with the options that change its output only
  // (not --threads, which the local engine sets from --parallel), so that a redone item has the same report.
  run_opts.command_line = {"roo-ingest"};
  if (item->folder) run_opts.command_line.push_back("--dir");
  run_opts.command_line.insert(run_opts.command_line.end(), item->paths.begin(), item->paths.end());
  run_opts.command_line.insert(run_opts.command_line.end(), {"-o", item_out(o, *item).string()});
  for (const std::string& a : output_args(o)) run_opts.command_line.push_back(a);

  // The item's stderr goes to its log, where --status finds why it failed.
  std::fflush(stderr);
  const int saved_stderr = dup(STDERR_FILENO);
  const int log_fd = ::open(item_log(o, *item).c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
  if (log_fd >= 0) dup2(log_fd, STDERR_FILENO);
  int code;
  try {
    code = run(run_opts);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "roo-ingest: internal error: %s\n", e.what());
    code = kExitInternal;
  }
  std::fflush(stderr);
  if (log_fd >= 0) {
    dup2(saved_stderr, STDERR_FILENO);
    close(log_fd);
  }
  close(saved_stderr);

  const fs::path part = item_part(o, *item), out = item_out(o, *item);
  auto report = terminal_exit(code) ? digest_file(part / "report.json") : std::nullopt;
  auto rows = terminal_exit(code) ? digest_file(part / "rows.jsonl") : std::nullopt;
  std::string why;  // what went wrong after the run, else the run's own words in its log
  if (report && rows) {
    std::vector<FileStamp> files;
    for (const std::string& f : evidence_files(*item, part / "report.json"))
      if (auto s = stamp(f, item->folder && f == item->paths[0])) files.push_back(*s);
    fs::remove_all(out, ec);
    fs::rename(part, out, ec);
    if (!ec && write_atomically(marker_path(o, *item), marker_json(*item, o, code, files, *report, *rows))) {
      close(lock_fd);
      return code;
    }
    why = "roo-ingest: error: item " + item->id + ": cannot move its outputs into " + out.string() +
          " or write its marker";
    code = kExitInternal;
  } else if (terminal_exit(code)) {
    why = "roo-ingest: error: item " + item->id + " ended with " + std::to_string(code) +
          " but left no report.json and rows.jsonl";
    code = kExitInternal;
  }
  if (!why.empty()) std::fprintf(stderr, "%s\n", why.c_str());
  // Not terminal: no marker, the part folder goes, and why is kept for --status (the next run retries it).
  fs::remove_all(part, ec);
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  put(w, "evidence_id", item->id);
  w.Key("exit_code");
  w.Int(code);
  put(w, "exit_meaning", exit_meaning(code));
  put(w, "why", why.empty() ? why_from_log(item_log(o, *item)) : why);
  w.EndObject();
  write_atomically(failed_path(o, *item), std::string(buf.GetString(), buf.GetSize()) + "\n");
  close(lock_fd);
  return code;
}

// ---- status ----

namespace {

// "412_3 PENDING (JobHeldUser)": a Slurm job as --status names it.
std::string task_words(const QueuedTask& t) {
  return t.job_id + " " + t.state + (t.reason.empty() || t.reason == "None" ? "" : " (" + t.reason + ")");
}

}  // namespace

ItemStatus detail::item_status(const ManifestItem& item, const BatchOptions& o,
                               const std::map<int, QueuedTask>* queued) {
  ItemStatus s;
  s.item = &item;
  s.status = "missing";
  if (queued)
    if (auto it = queued->find(item.index); it != queued->end()) s.slurm = it->second;
  std::string stale;
  if (marker_valid(item, o, &stale)) {
    auto marker = read_json(marker_path(o, item));
    s.exit_code = static_cast<int>(int_member(*marker, "exit_code"));
    const rapidjson::Value* outputs = member(*marker, "outputs");
    const rapidjson::Value* rows = outputs ? member(*outputs, "rows.jsonl") : nullptr;
    s.rows = rows ? int_member(*rows, "rows") : -1;
    s.status = s.exit_code == kExitOk ? "done" : "partial";
    if (s.exit_code != kExitOk) s.why = exit_meaning(s.exit_code);
    return s;
  }
  // Slurm's word before the markers': a task that waits, or runs but has not taken the item's lock yet, leaves no
  // trace in BATCHDIR, and a failed item's new task makes its failure old news.
  if (s.slurm) {
    const QueuedTask& t = *s.slurm;
    const bool waits = t.state == "PENDING" || t.state.rfind("REQUEUE", 0) == 0;
    s.status = waits && !item_running(o, item) ? "queued" : "running";
    s.why = "Slurm job " + task_words(t);
    return s;
  }
  if (item_running(o, item)) {
    s.status = "running";
    return s;
  }
  if (auto failed = read_json(failed_path(o, item))) {
    s.status = "failed";
    s.exit_code = static_cast<int>(int_member(*failed, "exit_code"));
    s.why = std::string(string_member(*failed, "why").value_or(""));
    if (s.why.empty()) s.why = exit_meaning(s.exit_code);
    return s;
  }
  if (!stale.empty()) s.why = "its marker is no longer valid: " + stale;
  return s;
}

namespace {

void json_string(std::string& out, const std::string& s) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  out.append(buf.GetString(), buf.GetSize());
}

// An empty text as null.
void json_string_or_null(std::string& out, const std::string& s) {
  if (s.empty())
    out += "null";
  else
    json_string(out, s);
}

// What Slurm says of the batch: asked only when the batch was ever submitted to Slurm (it has BATCHDIR/slurm/), so
// a local batch's status needs no Slurm.
struct SlurmView {
  bool asked = false;
  std::string error;                   // squeue could not be asked: why
  std::map<int, QueuedTask> tasks;     // the array tasks listed, by manifest index
  std::vector<QueuedTask> merge_jobs;  // the merge jobs listed
  // When the batch was last submitted: submissions.tsv is appended once per submission, so its mtime is that moment.
  std::optional<fs::file_time_type> submitted;
};

SlurmView ask_slurm(const BatchOptions& o) {
  SlurmView v;
  std::error_code ec;
  const fs::path dir = fs::absolute(o.batch_dir, ec);
  if (ec || !fs::is_directory(slurm::slurm_dir(dir), ec)) return v;
  v.asked = true;
  if (const auto t = fs::last_write_time(slurm::submissions_path(dir), ec); !ec) v.submitted = t;
  const auto jobs = slurm::queued_jobs_of_batch(dir, "", std::chrono::seconds(30), &v.error);
  if (!jobs) return v;
  for (const slurm::QueuedJob& j : *jobs) {
    const QueuedTask t{j.job_id, j.state, j.reason};
    if (j.merge)
      v.merge_jobs.push_back(t);
    else if (j.array_task > 0)
      v.tasks[j.array_task] = t;
  }
  return v;
}

// The batch as a whole while Slurm runs it: the rows of the items marked so far, and the seconds left for the tasks
// Slurm still lists (queued or running) at the pace items have been marked since the latest submission. No estimate
// before the first item is marked after it (a pace from nothing would be invented), nor once Slurm lists none.
struct BatchEstimate {
  int64_t rows = 0;
  int marked_since_submission = 0;
  std::optional<double> eta_seconds;
};

BatchEstimate estimate(const BatchOptions& o, const std::vector<ItemStatus>& all, const SlurmView& slurm) {
  BatchEstimate e;
  int waiting = 0;
  for (const ItemStatus& s : all) {
    if (s.rows > 0) e.rows += s.rows;
    if (s.status == "queued" || s.status == "running") ++waiting;
    std::error_code ec;
    if (slurm.submitted && (s.status == "done" || s.status == "partial")) {
      const auto marked = fs::last_write_time(marker_path(o, *s.item), ec);
      if (!ec && marked >= *slurm.submitted) ++e.marked_since_submission;
    }
  }
  if (slurm.submitted && e.marked_since_submission > 0 && waiting > 0) {
    const double since = std::chrono::duration<double>(fs::file_time_type::clock::now() - *slurm.submitted).count();
    e.eta_seconds = since / e.marked_since_submission * waiting;
  }
  return e;
}

const char* const kStatuses[] = {"done", "partial", "failed", "queued", "running", "missing"};

void json_task(std::string& out, const QueuedTask& t) {
  out += "{\"job_id\":";
  json_string(out, t.job_id);
  out += ",\"state\":";
  json_string(out, t.state);
  out += ",\"reason\":";
  json_string(out, t.reason);
  out += '}';
}

std::string status_json(const Manifest& m, const BatchOptions& o, const std::vector<ItemStatus>& all,
                        const SlurmView& slurm) {
  std::map<std::string, int> counts;
  for (const ItemStatus& s : all) ++counts[s.status];
  std::string out = "{\"manifest\":";
  json_string(out, m.path);
  out += ",\"batch_dir\":";
  json_string(out, o.batch_dir);
  out += ",\"counts\":{";
  for (const char* k : kStatuses)
    out += std::string(k == kStatuses[0] ? "" : ",") + "\"" + k + "\":" + std::to_string(counts[k]);
  const BatchEstimate e = estimate(o, all, slurm);
  out += "},\"rows\":" + std::to_string(e.rows) + ",\"eta_seconds\":";
  if (e.eta_seconds) {
    char eta[32];
    std::snprintf(eta, sizeof eta, "%.0f", *e.eta_seconds);
    out += eta;
  } else {
    out += "null";
  }
  out += ",\"slurm\":";
  if (!slurm.asked) {
    out += "null";
  } else {
    out += "{\"error\":";
    json_string_or_null(out, slurm.error);
    out += ",\"merge_jobs\":[";
    for (const QueuedTask& t : slurm.merge_jobs) {
      if (&t != &slurm.merge_jobs[0]) out += ',';
      json_task(out, t);
    }
    out += "]}";
  }
  out += ",\"items\":[";
  for (const ItemStatus& s : all) {
    if (&s != &all[0]) out += ',';
    out += "{\"index\":" + std::to_string(s.item->index) + ",\"evidence_id\":";
    json_string(out, s.item->id);
    out += ",\"status\":\"" + s.status +
           "\",\"exit_code\":" + (s.exit_code < 0 ? "null" : std::to_string(s.exit_code));
    out += ",\"rows\":" + (s.rows < 0 ? std::string("null") : std::to_string(s.rows)) + ",\"why\":";
    json_string_or_null(out, s.why);
    out += ",\"slurm_task\":";
    if (s.slurm)
      json_task(out, *s.slurm);
    else
      out += "null";
    out += '}';
  }
  out += "]}\n";
  return out;
}

std::string status_table(const BatchOptions& o, const std::vector<ItemStatus>& all, const SlurmView& slurm) {
  std::map<std::string, int> counts;
  for (const ItemStatus& s : all) ++counts[s.status];
  std::string out = "batch " + o.batch_dir + ": " + std::to_string(all.size()) + " items";
  for (const char* k : kStatuses)
    out += std::string(k == kStatuses[0] ? ": " : ", ") + std::to_string(counts[k]) + " " + k;
  const BatchEstimate e = estimate(o, all, slurm);
  out += "; " + std::to_string(e.rows) + " rows so far";
  if (e.eta_seconds) {
    char eta[96];
    std::snprintf(eta, sizeof eta, "; ETA %.0f s (%d item(s) marked since the latest submission)", *e.eta_seconds,
                  e.marked_since_submission);
    out += eta;
  }
  out += '\n';
  if (!slurm.error.empty())
    out += "  Slurm could not say which of the batch's tasks are queued or running: " + slurm.error + "\n";
  for (const QueuedTask& t : slurm.merge_jobs) out += "  merge job " + task_words(t) + "\n";
  for (const ItemStatus& s : all) {
    char line[256];
    std::snprintf(line, sizeof line, "  %4d  %-24s %-8s", s.item->index, s.item->id.c_str(), s.status.c_str());
    out += line;
    if (s.exit_code >= 0) out += "  exit " + std::to_string(s.exit_code);
    if (s.rows >= 0) out += "  " + std::to_string(s.rows) + " rows";
    if (!s.why.empty()) out += "  " + s.why;
    if (s.status == "failed") out += " (run again to retry)";
    out += '\n';
  }
  return out;
}

}  // namespace

int print_status(const Manifest& m, const BatchOptions& o) {
  const SlurmView slurm = ask_slurm(o);
  std::vector<ItemStatus> all;
  for (const ManifestItem& item : m.items) all.push_back(item_status(item, o, slurm.asked ? &slurm.tasks : nullptr));
  std::fputs((o.json ? status_json(m, o, all, slurm) : status_table(o, all, slurm)).c_str(), stdout);
  return kExitOk;
}

// ---- the local engine ----

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

enum class Shown { off, plain, terminal, json };

struct BatchProgress {
  Shown shown = Shown::off;
  size_t items = 0;
  int done = 0, partial = 0, failed = 0, running = 0, skipped = 0;
  int64_t rows = 0;
  std::vector<double> item_seconds;  // of the items finished by this run
  int parallel = 1;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(), last_line{};

  // Seconds left: the items not yet finished, at the mean time of those finished, `parallel` at once.
  std::optional<double> eta() const {
    if (item_seconds.empty()) return std::nullopt;
    double sum = 0;
    for (double s : item_seconds) sum += s;
    const size_t left = items - skipped - item_seconds.size();
    return sum / item_seconds.size() * static_cast<double>(left) / parallel;
  }

  void show(bool last) {
    if (shown == Shown::off) return;
    const double every = shown == Shown::terminal ? 0.25 : shown == Shown::json ? 1.0 : 5.0;
    if (!last && seconds_since(last_line) < every) return;
    last_line = std::chrono::steady_clock::now();
    const double elapsed = seconds_since(start);
    const auto left = eta();
    const int pending = static_cast<int>(items) - done - partial - failed - running - skipped;
    char buf[512];
    if (shown == Shown::json) {
      char eta_text[32] = "null";
      if (left) std::snprintf(eta_text, sizeof eta_text, "%.1f", *left);
      std::snprintf(buf, sizeof buf,
                    "{\"progress\":\"batch\",\"items\":%zu,\"items_done\":%d,\"items_partial\":%d,"
                    "\"items_failed\":%d,\"items_running\":%d,\"items_pending\":%d,\"items_skipped\":%d,"
                    "\"rows\":%lld,\"elapsed_seconds\":%.3f,\"eta_seconds\":%s,\"done\":%s}\n",
                    items, done, partial, failed, running, pending, skipped, static_cast<long long>(rows), elapsed,
                    eta_text, last ? "true" : "false");
      std::fputs(buf, stderr);
    } else {
      int n = std::snprintf(buf, sizeof buf,
                            "batch: %d of %zu items done (%d partial), %d failed, %d running, %d pending, %lld rows",
                            done + partial + skipped, items, partial, failed, running, pending,
                            static_cast<long long>(rows));
      std::string line(buf, static_cast<size_t>(n));
      if (skipped) line += ", " + std::to_string(skipped) + " done before";
      std::snprintf(buf, sizeof buf, ", %.0f s", elapsed);
      line += buf;
      if (left && !last) {
        std::snprintf(buf, sizeof buf, ", ETA %.0f s", *left);
        line += buf;
      }
      if (shown == Shown::terminal)
        std::fprintf(stderr, "\rroo-ingest: %s\x1b[K%s", line.c_str(), last ? "\n" : "");
      else
        std::fprintf(stderr, "roo-ingest: %s\n", line.c_str());
    }
    std::fflush(stderr);
  }
};

int64_t marker_rows(const ManifestItem& item, const BatchOptions& o) {
  auto marker = read_json(marker_path(o, item));
  if (!marker) return 0;
  const rapidjson::Value* outputs = member(*marker, "outputs");
  const rapidjson::Value* rows = outputs ? member(*outputs, "rows.jsonl") : nullptr;
  return rows ? std::max<int64_t>(0, int_member(*rows, "rows", 0)) : 0;
}

// One worker process: this binary with --run-item, exactly the command a Slurm array task runs.
pid_t spawn_item(const Manifest& m, const BatchOptions& o, int index) {
  std::vector<std::string> args = {o.self_exe, "--manifest", m.path, "-o", o.batch_dir, "--run-item",
                                   std::to_string(index)};
  for (const std::string& a : item_scan_args(o)) args.push_back(a);
  // Without --threads each item would start a thread per core, `parallel` times over: the cores are shared out.
  if (o.threads == 0) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    args.insert(args.end(), {"--threads", std::to_string(std::max(1u, cores / static_cast<unsigned>(o.parallel)))});
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_RDWR);
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "roo-ingest: error: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(kExitInternal);
  }
  return pid;
}

}  // namespace

int run_local(const Manifest& m, const BatchOptions& o) {
  std::error_code ec;
  fs::create_directories(markers_dir(o), ec);
  // One engine at a time per batch: a second local run (or one started while the first still merges) waits for
  // nothing and says so.
  const int batch_lock = ::open((fs::path(o.batch_dir) / ".batch.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (batch_lock < 0 || flock(batch_lock, LOCK_EX | LOCK_NB) != 0) {
    std::fprintf(stderr, "roo-ingest: error: another batch run is using %s; wait for it (--status shows it)\n",
                 o.batch_dir.c_str());
    return kExitUsage;
  }
  // Not beside a Slurm array of the same batch that is still queued or running: the same rule as the Slurm engine's
  // (slurm::submit_batch), so no item is run by both.
  const SlurmView slurm = ask_slurm(o);
  if (!slurm.tasks.empty() || !slurm.merge_jobs.empty()) {
    const QueuedTask& first = slurm.tasks.empty() ? slurm.merge_jobs[0] : slurm.tasks.begin()->second;
    std::fprintf(stderr,
                 "roo-ingest: error: an earlier Slurm submission of this batch is still queued or running (%zu "
                 "job(s), %s %s first); wait for it to end or scancel it, then run the command again\n",
                 slurm.tasks.size() + slurm.merge_jobs.size(), first.job_id.c_str(), first.state.c_str());
    close(batch_lock);
    return kExitUsage;
  }
  BatchProgress progress;
  progress.shown = o.quiet                 ? Shown::off
                   : o.progress == "json"  ? Shown::json
                   : o.progress == "plain" ? Shown::plain
                   : isatty(STDERR_FILENO) ? Shown::terminal
                                           : Shown::plain;
  progress.items = m.items.size();
  progress.parallel = std::max(1, o.parallel);
  const std::vector<int> pending = pending_items(m, o);
  for (const ManifestItem& item : m.items)
    if (std::find(pending.begin(), pending.end(), item.index) == pending.end()) {
      ++progress.skipped;
      progress.rows += marker_rows(item, o);
    }
  std::map<pid_t, std::pair<int, std::chrono::steady_clock::time_point>> running;
  size_t next = 0;
  progress.show(false);
  while (next < pending.size() || !running.empty()) {
    while (next < pending.size() && static_cast<int>(running.size()) < progress.parallel) {
      const pid_t pid = spawn_item(m, o, pending[next]);
      if (pid < 0) {
        std::fprintf(stderr, "roo-ingest: error: cannot start a worker: %s\n", std::strerror(errno));
        return kExitInternal;
      }
      running[pid] = {pending[next++], std::chrono::steady_clock::now()};
    }
    progress.running = static_cast<int>(running.size());
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) {
      progress.show(false);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const ManifestItem& item = *m.item(it->second.first);
    progress.item_seconds.push_back(seconds_since(it->second.second));
    running.erase(it);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (marker_valid(item, o)) {
      ++(code == kExitOk ? progress.done : progress.partial);
      progress.rows += marker_rows(item, o);
    } else {
      ++progress.failed;
      if (!WIFEXITED(status)) {  // killed before it could say so itself
        std::string why = "{\"evidence_id\":\"" + item.id + "\",\"exit_code\":" + std::to_string(code) +
                          ",\"exit_meaning\":\"" + exit_meaning(code) + "\",\"why\":\"the worker was ended by signal " +
                          std::to_string(WTERMSIG(status)) + "\"}\n";
        write_atomically(failed_path(o, item), why);
      }
    }
    progress.running = static_cast<int>(running.size());
    progress.show(false);
  }
  progress.show(true);
  const int merged = merge(m, o);
  close(batch_lock);
  if (merged != kExitOk) return merged;
  if (!o.quiet) {
    BatchOptions table = o;
    table.json = false;
    print_status(m, table);
  }
  // 0 only when every item of the manifest is done with exit code 0; else 5, and --status says which are not.
  for (const ManifestItem& item : m.items)
    if (item_status(item, o).status != "done") return kExitPartial;
  return kExitOk;
}

}  // namespace roo::batch
