#include "plugin/report.h"

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstring>

#include "core/row.h"
#include "core/text_util.h"
#include "plugin/formats/body_file.h"

namespace roo {

namespace {

using Pretty = rapidjson::PrettyWriter<rapidjson::StringBuffer>;
using Compact = rapidjson::Writer<rapidjson::StringBuffer>;

// A string as it is when it is valid UTF-8 (almost always): no copy.
template <typename W>
void put_string(W& w, const std::string& v) {
  if (utf8_valid(v)) {
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
    return;
  }
  const std::string clean = utf8_sanitize(v);
  w.String(clean.data(), static_cast<rapidjson::SizeType>(clean.size()));
}
template <typename W>
void put(W& w, const char* key, const std::string& v) {
  w.Key(key);
  put_string(w, v);
}
template <typename W>
void put(W& w, const char* key, int64_t v) {
  w.Key(key);
  w.Int64(v);
}
template <typename W>
void put_opt(W& w, const char* key, const std::optional<std::string>& v) {
  w.Key(key);
  if (v)
    put_string(w, *v);
  else
    w.Null();
}
template <typename W>
void put_strings(W& w, const char* key, const std::vector<std::string>& v) {
  w.Key(key);
  w.StartArray();
  for (const auto& s : v) put_string(w, s);
  w.EndArray();
}

// Written straight into the part report: a scan section of its own, copied in after, cost two more growing buffers of
// its size (1.6 MB on the benchmark image), and fresh pages are what costs most on the run's serial tail.
void put_scan(Compact& w, const ScanReport& s) {
  w.StartObject();
  put_strings(w, "homes_searched", s.homes_searched);
  put_strings(w, "temp_dirs_searched", s.temp_dirs_searched);
  if (s.orphans) {  // --deep: $OrphanFiles looked through
    w.Key("orphans");
    w.StartObject();
    put(w, "files_seen", s.orphans->files_seen);
    put(w, "roo_files_parsed", s.orphans->roo_files_parsed);
    w.EndObject();
  }
  w.Key("custom_storage_paths");
  w.StartArray();
  for (const CustomStoragePath& c : s.custom_storage_paths) {
    w.StartObject();
    put(w, "surface", c.surface);
    put_opt(w, "user", c.user);
    put(w, "settings_file", c.settings_file);
    put(w, "recorded_path", c.recorded_path);
    w.Key("found_here");
    w.Bool(c.found_here);
    if (c.found_here) put(w, "found_at", c.found_at);
    w.EndObject();
  }
  w.EndArray();
  put(w, "root_patterns_per_home", s.root_patterns);
  w.Key("roots_found");
  w.StartArray();
  for (const RootRecord& r : s.roots) {
    w.StartObject();
    put(w, "surface", r.surface);
    put_opt(w, "user", r.user);
    put(w, "path", r.path);
    put(w, "task_dirs", r.tasks);
    put(w, "checkpoint_only_dirs", r.checkpoint_only_dirs);  // not tasks: checkpoints/ left in the default root
    put(w, "deleted_names_seen", r.deleted_names);
    put(w, "found_by", r.found_by);
    w.EndObject();
  }
  w.EndArray();
  w.Key("files_parsed");
  w.StartArray();
  for (const FileParseRecord& f : s.files) {
    w.StartObject();
    put(w, "path", f.path);
    put(w, "kind", f.kind);
    put_opt(w, "sha256", f.sha256.empty() ? std::nullopt : std::optional<std::string>(f.sha256));
    put(w, "bytes", static_cast<int64_t>(f.bytes));
    put(w, "records", f.records);
    put(w, "good_records", f.good_records);
    put(w, "errors", f.errors);
    put(w, "folded_into_api_rows", f.folded);
    // A CLI history line that a task's user row also holds is that row's fact: it gives no row of its own.
    if (f.kind == "cli_history") put(w, "entries_matching_a_task_user_row", f.folded);
    if (f.version_folded) put(w, "records_folded_into_task_file", f.version_folded);
    // APFS snapshots (docs/row-contract.md "APFS snapshots"): the one this copy was read from, and the ones whose
    // copy has this file's extents (not read again). Only on such files, so every other line stays as it was.
    if (f.meta.snapshot) put(w, "snapshot", f.meta.snapshot->name);
    if (!f.meta.same_in_snapshots.empty()) {
      w.Key("same_extents_in_snapshots");
      w.StartArray();
      for (const SnapshotRef& snap : f.meta.same_in_snapshots) w.String(snap.name.c_str());
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  if (!s.carving_json.empty()) w.Key("carving") && w.RawValue(s.carving_json.data(), s.carving_json.size(), rapidjson::kObjectType);
  put_strings(w, "errors", s.errors);
  w.EndObject();
}

const char* partition_kind_name(tsk::Partition::Kind k) {
  switch (k) {
    case tsk::Partition::allocated: return "allocated";
    case tsk::Partition::unallocated: return "unallocated";
    case tsk::Partition::meta: return "meta";
  }
  return "unknown";
}

// A part's scan.carving (--deep, plugin/image_carving.cpp's CarveStats), when its job carved.
const rapidjson::Value* carving_section(const PartReport& part) {
  const rapidjson::Value* scan = scan_section(part);
  if (!scan) return nullptr;
  const auto it = scan->FindMember("carving");
  return it != scan->MemberEnd() && it->value.IsObject() ? &it->value : nullptr;
}

int64_t int_of(const rapidjson::Value& o, const char* key) {
  const auto it = o.FindMember(key);
  return it != o.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : 0;
}

// A volume system gap --deep carved: the area of scan.carving.unpartitioned_areas that starts where it does, and the
// partition whose job carved it (unpartitioned space is carved once per image, by the first partition's job).
struct CarvedGap {
  int64_t bytes = 0, rows = 0;
  int carved_with = 0;  // that partition's index
};

std::optional<CarvedGap> carved_gap(const RunReport& r, const tsk::Partition& gap) {
  if (gap.kind != tsk::Partition::unallocated) return std::nullopt;
  for (const auto& [p, part] : r.partitions) {
    const rapidjson::Value* carving = carving_section(part);
    if (!p || !carving || !carving->HasMember("unpartitioned_areas")) continue;
    for (const auto& area : (*carving)["unpartitioned_areas"].GetArray())
      if (static_cast<uint64_t>(int_of(area, "offset")) == gap.offset_bytes)
        return CarvedGap{int_of(area, "length"), int_of(area, "rows"), p->index};
  }
  return std::nullopt;
}

// Where a gap lies among the partitions that hold data: "between partitions 4 and 6", "after the last partition".
std::string gap_place(const RunReport& r, const tsk::Partition& gap) {
  std::optional<size_t> before, after;
  for (const auto& [p, part] : r.partitions) {
    if (!p || p->kind != tsk::Partition::allocated) continue;  // an APFS container's volumes share its index
    if (p->offset_bytes + p->length_bytes <= gap.offset_bytes) before = p->index;
    if (p->offset_bytes >= gap.offset_bytes + gap.length_bytes && !after) after = p->index;
  }
  if (before && after) return " between partitions " + std::to_string(*before) + " and " + std::to_string(*after);
  if (before) return " after the last partition";
  if (after) return " before the first partition";
  return "";
}

// Why a volume system entry was given to no worker (it holds no file system to search).
std::string not_searched_reason(const RunReport& r, const std::optional<tsk::Partition>& p) {
  if (p && p->kind == tsk::Partition::meta) return "volume system table";
  if (!r.deep) return "unallocated space (carved only with --deep)";
  if (!p) return "unallocated space";
  return "unpartitioned space" + gap_place(r, *p) + " (" + std::to_string(p->length_bytes) +
         " bytes), not carved: the partition job that carves it did not finish, or there was none";
}

// The status of an entry given to no worker (report.json partitions[].status, the summary): a gap --deep carved says
// so, where it lies and what it gave; anything else is "not searched" and why.
std::string unsearched_status(const RunReport& r, const std::optional<tsk::Partition>& p) {
  if (r.deep && p)
    if (const auto carved = carved_gap(r, *p))
      return "carved: unpartitioned space" + gap_place(r, *p) + ", " + std::to_string(carved->bytes) +
             " bytes, with partition " + std::to_string(carved->carved_with) + "'s job: " +
             std::to_string(carved->rows) + " row(s)";
  return "not searched: " + not_searched_reason(r, p);
}

// One line of a completeness statement's skipped or failed list.
struct Omission {
  std::string what;
  std::optional<int64_t> count;
  std::string why;
};

// What an encrypted volume's statement skips with --deep when it was not carved decrypted (no password unlocked it).
const char* const kEncryptedNotCarved = "the encrypted volume's freed blocks and its Roo files' slack";

// What one partition's search covered (partitions[].completeness, docs/output-formats.md: every root and temp location
// searched, what was found, skipped or failed and why), derived from what the part report already holds: the lists
// stay in "scan"; this gives their sizes and the reasons in one place.
struct Completeness {
  bool searched = false;  // a file system was walked (the scan section exists)
  int64_t homes = 0, temp_locations = 0, root_patterns = 0, custom_paths_named = 0, custom_paths_not_here = 0;
  int64_t roots = 0, task_dirs = 0, deleted_names = 0, files_parsed = 0, records = 0, rows = 0;
  uint64_t bytes_parsed = 0;
  std::vector<Omission> skipped, failed;
};

Completeness completeness_of(const RunReport& r, const std::optional<tsk::Partition>& p, const PartReport& part) {
  const bool deep = r.deep;
  Completeness c;
  const std::string whole =
      p ? "the whole partition (" + std::to_string(p->length_bytes) + " bytes)" : std::string("the folder");
  if (part.status == PartStatus::not_searched) {  // never given to a worker: a volume system entry with no file system to search
    if (!(deep && p && carved_gap(r, *p))) c.skipped.push_back({whole, std::nullopt, not_searched_reason(r, p)});
    return c;
  }
  if (part.status == PartStatus::no_file_system) {  // nothing was searched: the summary must not count it as a file system
    c.skipped.push_back({whole, std::nullopt, "no file system libtsk can open: " + part.reason});
    return c;
  }
  if (part.status == PartStatus::failed) c.failed.push_back({whole, std::nullopt, part.reason});
  if (part.status == PartStatus::crashed || part.status == PartStatus::hung)
    c.failed.push_back(
        {"the source files after the last one the worker finished (what it searched is unknown: it "
         "wrote no scan report)",
         std::nullopt, part.reason});
  const rapidjson::Value* section = scan_section(part);
  if (!section) return c;
  const rapidjson::Value& scan = *section;
  c.searched = true;
  auto size = [&](const char* key) {
    return scan.HasMember(key) && scan[key].IsArray() ? static_cast<int64_t>(scan[key].Size()) : 0;
  };
  c.homes = size("homes_searched");
  c.temp_locations = size("temp_dirs_searched");
  c.custom_paths_named = size("custom_storage_paths");
  if (c.custom_paths_named)
    for (const auto& cp : scan["custom_storage_paths"].GetArray())
      if (!cp["found_here"].GetBool()) ++c.custom_paths_not_here;
  if (scan.HasMember("root_patterns_per_home")) c.root_patterns = scan["root_patterns_per_home"].GetInt64();
  c.roots = size("roots_found");
  if (c.roots)
    for (const auto& r : scan["roots_found"].GetArray()) {
      c.task_dirs += r["task_dirs"].GetInt64();
      c.deleted_names += r["deleted_names_seen"].GetInt64();
    }
  int64_t record_errors = 0;
  c.files_parsed = size("files_parsed");
  if (c.files_parsed)
    for (const auto& f : scan["files_parsed"].GetArray()) {
      c.bytes_parsed += static_cast<uint64_t>(f["bytes"].GetInt64());
      c.records += f["records"].GetInt64();
      record_errors += f["errors"].GetInt64();
    }
  c.rows = part.counts.rows;

  if (p && p->pool_volume) {
    const auto& snaps = p->pool_volume->snapshots;
    const int64_t dataless = std::count_if(snaps.begin(), snaps.end(), [](const auto& s) { return s.dataless; });
    if (dataless)
      c.skipped.push_back({"the volume's dataless local snapshots", dataless,
                           "they keep no file data (apfs_volume.snapshots); the others are read"});
  }
  if (p && p->pool_volume && p->pool_volume->encrypted && deep) {
    // Carved decrypted when a password unlocked the volume for its carving too (plugin/image_carving.cpp).
    const rapidjson::Value* carving = carving_section(part);
    const auto of = carving ? carving->FindMember("unallocated_of") : rapidjson::Value::ConstMemberIterator();
    const bool decrypted = carving && of != carving->MemberEnd() && of->value.IsString() &&
                           std::string(of->value.GetString()) == "apfs container, decrypted";
    if (!decrypted)
      c.skipped.push_back({kEncryptedNotCarved, std::nullopt,
                           "not carved: they are stored as AES-XTS ciphertext, and no password given unlocks the "
                           "volume; the container's free blocks are carved as stored by the job of its first volume "
                           "that is not encrypted, if any"});
  }
  if (!deep)
    c.skipped.push_back({"unallocated blocks, file slack and $OrphanFiles", std::nullopt,
                         "searched only with --deep; this run read allocated and deleted names under the catalog "
                         "directories"});
  c.skipped.push_back({"directories outside the catalog", std::nullopt,
                       "discovery walks only the Roo roots the catalog names under each home (root_patterns_per_home) "
                       "and the temp locations, never the whole tree"});
  if (auto it = part.counts.by_kind.find("deleted_entry"); it != part.counts.by_kind.end())
    c.skipped.push_back({"deleted names whose content was not read", it->second,
                         "each has a deleted_entry row whose entry_outcome says why (its metadata now belongs to "
                         "another file, or it is not a task file)"});
  if (record_errors > 0)
    c.failed.push_back({"records that could not be parsed", record_errors,
                        "each has a parser_error row; scan.files_parsed gives the count per file"});
  if (const int64_t n = size("errors"); n > 0)
    c.failed.push_back({"problems reported while reading", n,
                        "listed in scan.errors: directories or files the file system could not read, and notes of "
                        "the stores (such as values found only in a SQLite -wal file)"});
  return c;
}

template <typename W>
void omissions_json(W& w, const char* key, const std::vector<Omission>& list) {
  w.Key(key);
  w.StartArray();
  for (const Omission& o : list) {
    w.StartObject();
    put(w, "what", o.what);
    if (o.count) put(w, "count", *o.count);
    put(w, "why", o.why);
    w.EndObject();
  }
  w.EndArray();
}

void completeness_json(Pretty& w, const Completeness& c) {
  w.Key("completeness");
  w.StartObject();
  w.Key("searched");
  if (!c.searched) {
    w.Null();
  } else {
    w.StartObject();
    put(w, "homes", c.homes);
    put(w, "root_patterns_per_home", c.root_patterns);
    put(w, "temp_locations", c.temp_locations);
    put(w, "custom_storage_paths_named", c.custom_paths_named);
    put(w, "custom_storage_paths_not_on_this_file_system", c.custom_paths_not_here);
    w.EndObject();
  }
  w.Key("found");
  if (!c.searched) {
    w.Null();
  } else {
    w.StartObject();
    put(w, "roo_roots", c.roots);
    put(w, "task_dirs", c.task_dirs);
    put(w, "deleted_names_in_task_dirs", c.deleted_names);
    put(w, "files_parsed", c.files_parsed);
    put(w, "bytes_parsed", static_cast<int64_t>(c.bytes_parsed));
    put(w, "records", c.records);
    put(w, "rows", c.rows);
    w.EndObject();
  }
  omissions_json(w, "skipped", c.skipped);
  omissions_json(w, "failed", c.failed);
  w.EndObject();
}

// partitions[].apfs_container and .apfs_volume (docs/output-formats.md "report.json"): the container a partition holds,
// and on a volume's entry that volume, as libtsk lists them.
void pool_json(Pretty& w, const tsk::Partition& p) {
  const tsk::PoolContainer& c = *p.container;
  w.Key("apfs_container");
  w.StartObject();
  put(w, "uuid", c.uuid);
  put(w, "block_size", static_cast<int64_t>(c.block_size));
  put(w, "blocks", static_cast<int64_t>(c.blocks));
  put(w, "volumes", static_cast<int64_t>(c.volumes.size()));
  w.EndObject();
  if (!p.pool_volume) return;
  const tsk::PoolVolume& v = *p.pool_volume;
  w.Key("apfs_volume");
  w.StartObject();
  put(w, "index", static_cast<int64_t>(v.index));
  put(w, "name", v.name);
  put(w, "role", v.role);
  put(w, "uuid", v.uuid);
  put(w, "block", static_cast<int64_t>(v.block));
  put(w, "blocks", static_cast<int64_t>(v.blocks));
  w.Key("case_sensitive");
  w.Bool(v.case_sensitive);
  w.Key("encrypted");
  w.Bool(v.encrypted);
  if (!v.password_hint.empty()) put(w, "password_hint", v.password_hint);
  // Older states of the volume: their files are read where their extents differ from the live volume's
  // (docs/row-contract.md "APFS snapshots").
  w.Key("snapshots");
  w.StartArray();
  for (const tsk::PoolVolume::Snapshot& snap : v.snapshots) {
    w.StartObject();
    put(w, "name", snap.name);
    put(w, "xid", static_cast<int64_t>(snap.xid));
    put(w, "created", iso_from_fs_time(FsTime{static_cast<int64_t>(snap.created_ns / 1000000000),
                                              static_cast<uint32_t>(snap.created_ns % 1000000000)}));
    w.Key("dataless");
    w.Bool(snap.dataless);
    put(w, "read", std::string(snap.dataless ? "no: a dataless snapshot keeps no file data"
                                             : "yes: the files whose extents differ from the live volume's"));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// evidence.verification (docs/output-formats.md "report.json"): --verify's outcome, or why there is none.
void verification_json(Pretty& w, const RunReport& r) {
  w.Key("verification");
  w.StartObject();
  if (!r.verify_requested) {
    put(w, "result", std::string("not requested"));
  } else if (!r.verification) {
    put(w, "result", std::string("not applicable: a folder has no image to hash"));
  } else {
    const tsk::Verification& v = *r.verification;
    auto hash = [&](const char* key, const std::string& value) {
      put_opt(w, key, value.empty() ? std::nullopt : std::optional<std::string>(value));
    };
    auto match = [&](const char* key, const std::string& computed, const std::string& stored) {
      w.Key(key);
      if (computed.empty() || stored.empty())
        w.Null();  // nothing to compare
      else
        w.Bool(computed == stored);
    };
    put(w, "result", v.result);
    put(w, "read_with", v.read_with);
    put(w, "media_size_bytes", static_cast<int64_t>(v.media_size));
    put(w, "bytes_hashed", static_cast<int64_t>(v.bytes_hashed));
    hash("md5", v.md5);
    hash("md5_stored", v.md5_stored);
    match("md5_match", v.md5, v.md5_stored);
    hash("sha1", v.sha1);
    hash("sha1_stored", v.sha1_stored);
    match("sha1_match", v.sha1, v.sha1_stored);
    if (v.read_with == "libewf") put(w, "ewf_chunk_checksum_errors", static_cast<int64_t>(v.checksum_errors));
  }
  w.EndObject();
}

// The run's completeness in one paragraph for the summary: the per-partition statements added up.
std::string completeness_paragraph(const RunReport& r) {
  Completeness all;
  int64_t file_systems = 0, partitions_skipped = 0, partitions_failed = 0, skipped_deleted = 0, record_errors = 0,
          problems = 0, encrypted_not_carved = 0;
  int64_t unallocated_bytes = 0, unallocated_rows = 0, slack_bytes = 0, slack_rows = 0, gaps_carved = 0, gap_bytes = 0,
          gap_rows = 0;
  for (const auto& [p, part] : r.partitions) {
    const Completeness c = completeness_of(r, p, part);
    if (c.searched) ++file_systems;
    if (!c.searched && !c.skipped.empty() &&
        (part.status == PartStatus::not_searched || part.status == PartStatus::no_file_system))
      ++partitions_skipped;
    if (const rapidjson::Value* carving = carving_section(part)) {
      unallocated_bytes += int_of(*carving, "unallocated_bytes");
      unallocated_rows += int_of(*carving, "unallocated_rows");
      slack_bytes += int_of(*carving, "slack_bytes");
      slack_rows += int_of(*carving, "slack_rows");
      if (carving->HasMember("unpartitioned_areas"))
        for (const auto& area : (*carving)["unpartitioned_areas"].GetArray()) {
          ++gaps_carved;
          gap_bytes += int_of(area, "length");
          gap_rows += int_of(area, "rows");
        }
    }
    if (part_did_not_finish(part.status)) ++partitions_failed;
    all.homes += c.homes;
    all.temp_locations += c.temp_locations;
    all.roots += c.roots;
    all.task_dirs += c.task_dirs;
    all.files_parsed += c.files_parsed;
    for (const Omission& o : c.skipped) {
      if (o.what == "deleted names whose content was not read") skipped_deleted += o.count.value_or(0);
      encrypted_not_carved += o.what == kEncryptedNotCarved;
    }
    for (const Omission& o : c.failed) {
      if (o.what == "records that could not be parsed") record_errors += o.count.value_or(0);
      if (o.what == "problems reported while reading") problems += o.count.value_or(0);
    }
  }
  auto n = [](int64_t v, const char* what) { return std::to_string(v) + " " + what; };
  std::string out = "  completeness: searched " + n(file_systems, "file system(s)") + " (" + n(all.homes, "home(s)") +
                    ", " + n(all.temp_locations, "temp location(s)") + "); found " + n(all.roots, "Roo root(s)") +
                    " with " + n(all.task_dirs, "task dir(s)") + ", " + n(all.files_parsed, "file(s) parsed") + ". ";
  if (r.deep)
    out += "Carved (--deep): unallocated blocks " + n(unallocated_bytes, "bytes") + " (" + n(unallocated_rows, "row(s)") +
           "), slack of the Roo files read " + n(slack_bytes, "bytes") + " (" + n(slack_rows, "row(s)") +
           "), unpartitioned space " + n(gap_bytes, "bytes") + " in " + n(gaps_carved, "area(s)") + " (" +
           n(gap_rows, "row(s)") + "). ";
  out += "Skipped: ";
  std::string skipped;
  if (partitions_skipped) skipped += n(partitions_skipped, "partition(s) with no file system to search") + ", ";
  if (!r.deep) skipped += "unallocated blocks, file slack and $OrphanFiles (no --deep), ";
  if (skipped_deleted) skipped += n(skipped_deleted, "deleted name(s) whose content was not read") + ", ";
  if (encrypted_not_carved)
    skipped += n(encrypted_not_carved, "encrypted volume(s)' freed blocks and file slack (not carved)") + ", ";
  skipped += "directories outside the catalog";
  std::string failed;
  if (partitions_failed) failed += n(partitions_failed, "partition(s) not (fully) processed") + ", ";
  if (record_errors) failed += n(record_errors, "record(s) unparsable (parser_error rows)") + ", ";
  if (problems) failed += n(problems, "problem(s) reported while reading (scan.errors)") + ", ";
  if (failed.empty())
    failed = "nothing";
  else
    failed.resize(failed.size() - 2);
  return out + skipped + ". Failed: " + failed + ". Per partition: report.json partitions[].completeness\n";
}

}  // namespace

bool verification_failed(const tsk::Verification& v) {
  return v.result != "verified" && v.result != "no stored hash";
}

std::string verification_line(const tsk::Verification& v) {
  std::string line = v.result;
  auto compare = [&](const char* name, const std::string& computed, const std::string& stored) {
    if (computed.empty()) return;
    line += std::string("; ") + name + " " + computed;
    if (!stored.empty()) line += computed == stored ? " (matches the stored hash)" : " but the image stores " + stored;
  };
  compare("MD5", v.md5, v.md5_stored);
  compare("SHA-1", v.sha1, v.sha1_stored);
  if (v.checksum_errors > 0) line += "; " + std::to_string(v.checksum_errors) + " EWF chunk checksum error(s)";
  return line;
}

std::string part_report_json(const PartReport& part) {
  rapidjson::StringBuffer buf;
  // Room for it all at once (about 400 bytes a parsed file on the benchmark image): no regrowing and recopying.
  buf.Reserve(64 * 1024 + 512 * (part.scan.files.size() + part.counts.tasks.size()));
  Compact w(buf);
  w.StartObject();
  put(w, "status", std::string(part_status_name(part.status)));
  put(w, "reason", part.reason);
  put(w, "fs_type", part.fs_type);
  w.Key("scan");
  put_scan(w, part.scan);
  w.Key("counts");
  w.StartObject();
  put(w, "rows", part.counts.rows);
  put(w, "body_lines", part.counts.body_lines);
  w.Key("by_kind");
  w.StartObject();
  for (const auto& [k, n] : part.counts.by_kind) put(w, k.c_str(), n);
  w.EndObject();
  for (const auto& [key, counts] : {std::pair{"decisions", &part.counts.decisions},
                                    std::pair{"recovered", &part.counts.recovered}}) {
    w.Key(key);
    w.StartObject();
    for (const auto& [k, n] : *counts) put(w, k.c_str(), n);
    w.EndObject();
  }
  w.Key("tasks");
  w.StartArray();
  for (const auto& [id, t] : part.counts.tasks) {
    w.StartObject();
    put(w, "session_id", id);
    put(w, "surface", t.surface);
    put(w, "title", t.title);
    put(w, "rows", t.rows);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  if (!part.warnings.empty()) put_strings(w, "warnings", part.warnings);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

const rapidjson::Value* scan_section(const PartReport& part) {
  if (!part.read_back || !part.read_back->IsObject()) return nullptr;
  const auto it = part.read_back->FindMember("scan");
  return it != part.read_back->MemberEnd() && it->value.IsObject() ? &it->value : nullptr;
}

const char* part_status_name(PartStatus status) {
  switch (status) {
    case PartStatus::not_searched: return "";
    case PartStatus::parsed: return "parsed";
    case PartStatus::no_file_system: return "no_file_system";
    case PartStatus::crashed: return "crashed";
    case PartStatus::hung: return "hung";
    case PartStatus::failed: return "failed";
  }
  return "failed";
}

PartStatus part_status_from_name(const std::string& name) {
  for (PartStatus s : {PartStatus::not_searched, PartStatus::parsed, PartStatus::no_file_system, PartStatus::crashed,
                       PartStatus::hung, PartStatus::failed})
    if (name == part_status_name(s)) return s;
  return PartStatus::failed;
}

PartReport parse_part_report(const std::string& json) {
  PartReport part;
  auto read_back = std::make_shared<rapidjson::Document>();
  rapidjson::Document& d = *read_back;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject()) {
    part.status = PartStatus::failed;
    part.reason = "worker report unreadable";
    return part;
  }
  auto s = [&](const char* k) { return d.HasMember(k) && d[k].IsString() ? std::string(d[k].GetString()) : ""; };
  part.status = part_status_from_name(s("status"));
  part.reason = s("reason");
  part.fs_type = s("fs_type");
  if (d.HasMember("scan") && d["scan"].IsObject()) {
    rapidjson::StringBuffer buf;
    Compact w(buf);
    d["scan"].Accept(w);
    part.scan_json.assign(buf.GetString(), buf.GetSize());
  }
  if (d.HasMember("counts") && d["counts"].IsObject()) {
    const rapidjson::Value& c = d["counts"];
    part.counts.rows = c["rows"].GetInt64();
    part.counts.body_lines = c["body_lines"].GetInt64();
    for (const auto& k : c["by_kind"].GetObject()) part.counts.by_kind[k.name.GetString()] = k.value.GetInt64();
    for (const auto& [key, counts] : {std::pair{"decisions", &part.counts.decisions},
                                      std::pair{"recovered", &part.counts.recovered}})
      if (c.HasMember(key) && c[key].IsObject())
        for (const auto& k : c[key].GetObject()) (*counts)[k.name.GetString()] = k.value.GetInt64();
    for (const auto& t : c["tasks"].GetArray())
      part.counts.tasks[t["session_id"].GetString()] = {t["surface"].GetString(), t["title"].GetString(),
                                                         t["rows"].GetInt64()};
  }
  if (d.HasMember("warnings") && d["warnings"].IsArray())
    for (const auto& w : d["warnings"].GetArray())
      if (w.IsString()) part.warnings.emplace_back(w.GetString(), w.GetStringLength());
  part.read_back = std::move(read_back);
  return part;
}

void RowCounts::emit(const Row& row) {
  ++rows;
  ++by_kind[row.kind];
  if (body_time(row)) ++body_lines;  // the same test the body file uses
  if (row.kind == "permission_decision")
    if (const std::string* decision = row.string_field("decision")) ++decisions[*decision];
  if (row.source && row.source->file.recovery != Recovery::allocated) ++recovered[recovery_name(row.source->file.recovery)];
  if (!row.identity || !row.identity->session_id) return;
  Task& t = tasks[*row.identity->session_id];
  ++t.rows;
  t.surface = row.identity->surface;
  if (row.kind == "task" && row.text) t.title = *row.text;
}

void RowCounts::merge(const RowCounts& o) {
  rows += o.rows;
  body_lines += o.body_lines;
  for (const auto& [k, n] : o.by_kind) by_kind[k] += n;
  for (const auto& [k, n] : o.decisions) decisions[k] += n;
  for (const auto& [k, n] : o.recovered) recovered[k] += n;
  for (const auto& [id, t] : o.tasks) {
    Task& mine = tasks[id];
    mine.rows += t.rows;
    mine.surface = t.surface;
    if (!t.title.empty()) mine.title = t.title;
  }
}

std::string run_report_json(const RunReport& r) {
  rapidjson::StringBuffer buf;
  Pretty w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  put(w, "tool", std::string("roo-ingest"));
  put(w, "version", std::string(ROO_INGEST_VERSION));
  put(w, "row_schema", std::string(kRowSchema));
  put_strings(w, "command_line", r.command_line);
  w.Key("evidence");
  w.StartObject();
  put(w, "kind", r.evidence_kind);
  put_strings(w, "paths", r.evidence_paths);
  if (r.image) {
    put(w, "image_type", r.image->type);
    put(w, "size_bytes", static_cast<int64_t>(r.image->size));
    put(w, "sector_size", static_cast<int64_t>(r.image->sector_size));
    put_strings(w, "segments", r.image->segments);
    w.Key("stored_hashes");
    w.StartObject();
    if (!r.image->stored_md5.empty()) put(w, "md5", r.image->stored_md5);
    if (!r.image->stored_sha1.empty()) put(w, "sha1", r.image->stored_sha1);
    w.EndObject();
  }
  if (!r.collection.collector.empty()) {  // a triage collection: its drives and the records of original times
    w.Key("collection");
    w.StartObject();
    put(w, "collector", r.collection.collector);
    w.Key("drives");
    w.StartArray();
    for (const CollectedDrive& d : r.collection.drives) {
      w.StartObject();
      put(w, "drive", d.drive);
      put(w, "folder", d.host_dir);
      put(w, "files_with_recorded_times", static_cast<int64_t>(d.times ? d.times->size() : 0));
      w.EndObject();
    }
    w.EndArray();
    put_strings(w, "time_records", r.collection.time_records);
    w.EndObject();
  }
  verification_json(w, r);
  w.EndObject();
  w.Key("partitions");
  w.StartArray();
  for (const auto& [p, part] : r.partitions) {
    w.StartObject();
    if (p) {
      put(w, "index", static_cast<int64_t>(p->index));
      put(w, "offset_bytes", static_cast<int64_t>(p->offset_bytes));
      put(w, "length_bytes", static_cast<int64_t>(p->length_bytes));
      put(w, "description", p->description);
      put(w, "volume_system", p->vs_type);
      put(w, "kind", std::string(partition_kind_name(p->kind)));
      if (p->table_read_by_roo_ingest) put(w, "table_read_by", std::string("roo-ingest"));
      if (p->container) pool_json(w, *p);
      if (r.image && p->cut(r.image->size)) {
        const uint64_t end = p->offset_bytes + p->length_bytes, size = r.image->size;
        w.Key("cut");
        w.StartObject();
        put(w, "image_ends_at_byte", static_cast<int64_t>(size));
        put(w, "partition_ends_at_byte", static_cast<int64_t>(end));
        put(w, "bytes_in_image", static_cast<int64_t>(p->offset_bytes < size ? size - p->offset_bytes : 0));
        w.EndObject();
      }
    }
    if (!part.collection_drive.empty()) {
      put(w, "drive", part.collection_drive);
      put(w, "folder", part.collection_folder);
    }
    if (part.status == PartStatus::not_searched) {
      put(w, "status", unsearched_status(r, p));
    } else {
      put(w, "status", std::string(part_status_name(part.status)));
      if (!part.reason.empty()) put(w, "reason", part.reason);
      if (!part.fs_type.empty()) put(w, "fs_type", part.fs_type);
      if (!part.scan_json.empty()) {
        w.Key("scan");
        w.RawValue(part.scan_json.data(), part.scan_json.size(), rapidjson::kObjectType);
      }
    }
    completeness_json(w, completeness_of(r, p, part));
    w.EndObject();
  }
  w.EndArray();
  // Every custom storage path named, and how it was resolved or that it could not be.
  w.Key("custom_storage_path_resolution");
  w.StartArray();
  for (const RunReport::CustomPathResolution& c : r.custom_path_resolutions) {
    w.StartObject();
    put(w, "surface", c.named.surface);
    put_opt(w, "user", c.named.user);
    put(w, "settings_file", c.named.settings_file);
    if (c.named_on_partition) put(w, "settings_partition_index", static_cast<int64_t>(*c.named_on_partition));
    put(w, "recorded_path", c.named.recorded_path);
    w.Key("partitions_searched");
    w.StartArray();
    for (int i : c.partitions_searched) w.Int(i);
    w.EndArray();
    w.Key("resolved");
    w.Bool(c.resolved);
    if (c.found_on_partition) put(w, "found_on_partition_index", static_cast<int64_t>(*c.found_on_partition));
    if (!c.found_on_drive.empty()) put(w, "found_on_drive", c.found_on_drive);
    if (!c.found_at.empty()) put(w, "found_at", c.found_at);
    put(w, "resolution", c.resolution);
    if (!c.same_as.empty()) put(w, "same_path_as", c.same_as);
    w.EndObject();
  }
  w.EndArray();
  // Each other partition searched for a custom storage path the partition's own file system did not hold.
  w.Key("custom_storage_path_scans");
  w.StartArray();
  for (const auto& [p, part] : r.custom_scans) {
    w.StartObject();
    if (p) put(w, "partition_index", static_cast<int64_t>(p->index));
    put(w, "status", std::string(part_status_name(part.status)));
    if (!part.reason.empty()) put(w, "reason", part.reason);
    if (!part.scan_json.empty()) {
      w.Key("scan");
      w.RawValue(part.scan_json.data(), part.scan_json.size(), rapidjson::kObjectType);
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("rows");
  w.StartObject();
  put(w, "total", r.totals.rows);
  w.Key("by_kind");
  w.StartObject();
  for (const auto& [k, n] : r.totals.by_kind) put(w, k.c_str(), n);
  w.EndObject();
  put(w, "body_file_lines", r.totals.body_lines);
  put(w, "rows_without_time_not_in_body_file", r.totals.rows - r.totals.body_lines);
  w.EndObject();
  if (!r.warnings.empty()) put_strings(w, "warnings", r.warnings);
  if (r.outputs) {
    w.Key("outputs");
    w.StartObject();
    put(w, "display_time_zone", r.outputs->display_time_zone);
    if (r.outputs->rows_jsonl_lines_unreadable > 0)
      put(w, "rows_jsonl_lines_unreadable", r.outputs->rows_jsonl_lines_unreadable);
    w.Key("files");
    w.StartArray();
    for (const DerivedOutput& f : r.outputs->files) {
      w.StartObject();
      put(w, "format", f.format);
      put(w, "file", f.file);
      if (f.rows_written) put(w, "rows_written", *f.rows_written);
      if (f.rows_left_out) put(w, "rows_left_out", *f.rows_left_out);
      if (!f.left_out_reason.empty()) put(w, "left_out_reason", f.left_out_reason);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

// What an examiner asks first, and where to look: tasks, commands, decisions (denials apart from approvals), edits,
// rows recovered from deleted or carved data; then which output to open first.
std::string headline(const RunReport& r) {
  auto count = [&](const char* kind) {
    auto it = r.totals.by_kind.find(kind);
    return it == r.totals.by_kind.end() ? int64_t{0} : it->second;
  };
  std::string out = "  headline: " + std::to_string(count("task")) + " task(s), " + std::to_string(count("command")) +
                    " command(s), " + std::to_string(count("permission_decision")) + " permission decision(s)";
  std::string parts;
  for (const auto& [decision, n] : r.totals.decisions) parts += (parts.empty() ? "" : ", ") + std::to_string(n) + " " + decision;
  if (!parts.empty()) out += " (" + parts + ")";
  out += ", " + std::to_string(count("file_edit")) + " file edit(s)";
  int64_t recovered = 0;
  parts.clear();
  for (const auto& [how, n] : r.totals.recovered) {
    recovered += n;
    parts += (parts.empty() ? "" : ", ") + std::to_string(n) + " " + how;
  }
  out += "; " + std::to_string(recovered) + " row(s) from files that are not allocated" +
         (parts.empty() ? std::string() : " (" + parts + ")") + "\n";
  if (r.outputs) {
    const std::string dir = r.out_dir.empty() ? std::string(".") : r.out_dir;
    out += "  outputs in " + dir + ": open report.html first; timelines: timeline.jsonl (Timesketch), l2t.csv "
           "(log2timeline), roo.body (mactime); every row: rows.jsonl, rows.csv, roo.sqlite (those written: "
           "report.json outputs)\n";
  }
  return out;
}

// A word for a POSIX shell: as it is when it holds only safe bytes, else in single quotes.
std::string shell_word(const std::string& s) {
  const bool safe = !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                      "@%+=:,./_-") == std::string::npos;
  if (safe) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The fls line of each file system searched, and one command that merges them with roo.body into a mactime timeline.
// fls needs the partition's sector offset (and for an APFS volume the pool type and the volume's block) on a
// partitioned image, where a bare `fls -r -m /` finds no file system; each gets a name prefix of its own (/p<index>/,
// /p<index>v<volume>/) so the merged timeline tells the file systems apart.
std::string file_system_timeline_commands(const RunReport& r) {
  if (!r.image || r.evidence_paths.empty()) return {};
  std::vector<std::string> lines;
  std::string images;
  for (const std::string& p : r.evidence_paths) images += " " + shell_word(p);
  for (const auto& [p, part] : r.partitions) {
    if (!p || part.status != PartStatus::parsed) continue;
    std::string line = "fls -o " + std::to_string(p->offset_bytes / r.image->sector_size);
    std::string prefix = "/p" + std::to_string(p->index);
    if (p->pool_volume) {
      line += " -P apfs -B " + std::to_string(p->pool_volume->block);
      prefix += "v" + std::to_string(p->pool_volume->index);
    }
    lines.push_back(line + " -r -m " + prefix + "/" + images);
  }
  if (lines.empty()) return {};
  std::string out = "  file-system timeline (mactime body lines of each file system searched):\n";
  std::string merged;
  for (const std::string& l : lines) {
    out += "    " + l + "\n";
    merged += l + "; ";
  }
  const std::string body = shell_word((std::filesystem::path(r.out_dir.empty() ? "." : r.out_dir) / "roo.body").string());
  out += "  merged with roo.body: (" + merged + "cat " + body + ") | mactime -d -y\n";
  return out;
}

// The summary's line of what a partition's job carved (--deep): the unallocated blocks and slack of its file system;
// the unpartitioned space it carved is told on the gaps' own lines.
std::string carved_line(const rapidjson::Value& carving) {
  auto n = [](int64_t v, const char* what) { return std::to_string(v) + " " + what; };
  const auto of = carving.FindMember("unallocated_of");
  const std::string whose = of != carving.MemberEnd() && of->value.IsString() ? of->value.GetString() : "";
  std::string line = "\n    carved (--deep): ";
  if (whose == "none")
    line += "unallocated blocks: none here (the APFS container's free blocks are carved with its first volume that "
            "is not encrypted)";
  else
    line += std::string(whose == "apfs container"              ? "the APFS container's free blocks "
                        : whose == "apfs container, decrypted" ? "the APFS container's free blocks, decrypted with "
                                                                 "the volume's key, "
                                                               : "unallocated blocks ") +
            n(int_of(carving, "unallocated_bytes"), "bytes") + ", " + n(int_of(carving, "unallocated_rows"), "row(s)");
  line += "; slack of the Roo files read " + n(int_of(carving, "slack_bytes"), "bytes") + ", " +
          n(int_of(carving, "slack_rows"), "row(s)");
  if (const int64_t bytes = int_of(carving, "unpartitioned_bytes"))
    line += "; unpartitioned space " + n(bytes, "bytes") + " (on the lines of its areas)";
  return line;
}

std::string run_summary(const RunReport& r) {
  std::string out = "roo-ingest " ROO_INGEST_VERSION " — " + r.evidence_kind + " " +
                    (r.evidence_paths.empty() ? "" : r.evidence_paths.front()) + "\n";
  for (const auto& [p, part] : r.partitions) {
    std::string where = p ? "partition " + std::to_string(p->index) + " @" + std::to_string(p->offset_bytes) + " (" +
                                p->description + ")"
                          : "folder";
    if (!part.collection_drive.empty())
      where += ", drive " + part.collection_drive + " (" + r.collection.collector + ": " + part.collection_folder + ")";
    if (p && p->pool_volume)
      where += ", APFS volume " + p->pool_volume->name + " (" + p->pool_volume->role + ", block " +
               std::to_string(p->pool_volume->block) + ")";
    std::string status = part_status_name(part.status);
    if (part.status == PartStatus::not_searched) status = unsearched_status(r, p);
    out += "  " + where + ": " + status;
    if (!part.fs_type.empty()) out += " (" + part.fs_type + ")";
    if (!part.reason.empty()) out += " — " + part.reason;
    if (p && r.image && p->cut(r.image->size))
      out += " — cut: the image ends at byte " + std::to_string(r.image->size) + ", the partition at byte " +
             std::to_string(p->offset_bytes + p->length_bytes);
    const rapidjson::Value* scan = scan_section(part);
    if (scan && scan->HasMember("roots_found")) {
      for (const auto& root : (*scan)["roots_found"].GetArray()) {
        out += "\n    Roo root [" + std::string(root["surface"].GetString()) + "] " + root["path"].GetString() + ": " +
               std::to_string(root["task_dirs"].GetInt64()) + " task dir(s)";
        if (root.HasMember("checkpoint_only_dirs") && root["checkpoint_only_dirs"].GetInt64() > 0)
          out += ", " + std::to_string(root["checkpoint_only_dirs"].GetInt64()) +
                 " dir(s) with only checkpoints/ (their tasks' files are under a custom storage path)";
      }
    }
    if (const rapidjson::Value* carving = carving_section(part)) out += carved_line(*carving);
    out += "\n";
  }
  for (const RunReport::CustomPathResolution& c : r.custom_path_resolutions)
    out += "  customStoragePath " + c.named.recorded_path + " (from " + c.named.settings_file + "): " + c.resolution +
           "\n";
  if (!r.totals.tasks.empty()) out += "  tasks:\n";
  for (const auto& [session, t] : r.totals.tasks) {
    std::string title = t.title.size() > 60 ? t.title.substr(0, 60) + "…" : t.title;
    for (char& c : title)
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    out += "    " + session + " [" + t.surface + "] " + std::to_string(t.rows) + " rows  " + title + "\n";
  }
  out += "  rows: " + std::to_string(r.totals.rows);
  for (const auto& [k, n] : r.totals.by_kind) out += "  " + k + "=" + std::to_string(n);
  out += "\n";
  out += completeness_paragraph(r);
  out += headline(r);
  out += file_system_timeline_commands(r);
  for (const std::string& warning : r.warnings) out += "  WARNING: " + warning + "\n";
  if (r.verification)
    out += std::string("  ") +
           (verification_failed(*r.verification) ? "IMAGE NOT VERIFIED: " : "image verification: ") +
           verification_line(*r.verification) + "\n";
  return out;
}

}  // namespace roo
