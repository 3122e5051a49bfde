#include "plugin/formats/body_file.h"

#include <charconv>
#include <string_view>

#include "core/text_util.h"

namespace roo {

namespace {

// Cuts at a UTF-8 character boundary; *cut says whether anything was cut ("…" then follows). A view: the text can be
// a whole command output, and only its first 160 bytes are used.
std::string_view shorten(std::string_view s, size_t max_bytes, bool* cut) {
  *cut = s.size() > max_bytes;
  if (!*cut) return s;
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

template <typename T>
void append_number(std::string& out, T v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// The first byte at or after p that body_escape changes ('|', '%', a control byte or DEL), or end.
const char* body_escape_stop(const char* p, const char* end) {
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c == '|' || c == '%' || c == 0x7F) return p;
  }
  return end;
}

void append_body_escaped(std::string& out, std::string_view s) {
  const char* p = s.data();
  const char* const end = p + s.size();
  for (;;) {
    const char* stop = body_escape_stop(p, end);
    out.append(p, stop);
    if (stop == end) return;
    const auto c = static_cast<unsigned char>(*stop);
    if (c == '|' || c == '%') {
      static const char kHex[] = "0123456789ABCDEF";
      const char esc[3] = {'%', kHex[c >> 4], kHex[c & 0xF]};
      out.append(esc, 3);
    } else {
      out += ' ';
    }
    p = stop + 1;
  }
}

// Appends the body line of row to line, or nothing (false) when the row has no time. name is scratch space: the
// writer reuses both buffers, so a line costs no allocation.
bool append_body_line(const Row& row, std::string& line, std::string& name) {
  const auto time = body_time(row);
  if (!time) return false;

  std::string_view summary = row.text ? std::string_view(*row.text) : std::string_view();
  if (summary.empty())
    if (const std::string* tool = row.string_field("tool_name")) summary = *tool;
  name.assign("roo-code ").append(row.kind);
  if (row.identity && row.identity->session_id) name.append(" [").append(*row.identity->session_id).append("]");
  if (!summary.empty()) {
    bool cut = false;
    name.append(": ").append(shorten(summary, 160, &cut));
    if (cut) name.append("…");
  }
  if (row.source) {
    // The record's position makes each line unique (mactime folds identical lines, and two approvals can share a
    // second) and lets the examiner find the record: "#<record>[.<block>][.<part>]".
    // On an image, the path has the prefix the summary's fls line gives that file system (/p<partition>/, an APFS
    // volume's /p<partition>v<volume>/), so roo.body's lines and fls's for the same file name it alike ($Unallocated
    // and $Unpartitioned, which fls does not list, keep their names).
    name.append(" (");
    if (const VolumeInfo* vol = row.source->volume;
        vol && vol->partition_offset && !row.source->file.path.empty() && row.source->file.path[0] == '/') {
      name.append("/p");
      append_number(name, static_cast<uint64_t>(vol->volume_index));
      if (vol->pool_volume) {
        name += 'v';
        append_number(name, static_cast<uint64_t>(vol->pool_volume->index));
      }
    }
    name.append(row.source->file.path);
    if (row.position.record_index) {
      name.append(" #");
      append_number(name, *row.position.record_index);
      for (const auto& part : {row.position.sub_index, row.position.part_index})
        if (part) {
          name += '.';
          append_number(name, *part);
        }
    }
    // The volumes of an APFS container share its offset and can hold the same path: the line names its volume.
    if (row.source->volume && row.source->volume->pool_volume)
      name.append(", APFS volume ").append(row.source->volume->pool_volume->name);
    // A copy read from a snapshot has the live file's path: the line names the snapshot.
    if (row.source->file.snapshot) name.append(", snapshot ").append(row.source->file.snapshot->name);
    name += ')';
  }
  // MD5|name|inode|mode|UID|GID|size|atime|mtime|ctime|crtime
  char t[24];
  const std::string_view secs(t, static_cast<size_t>(std::to_chars(t, t + sizeof t, *time).ptr - t));
  line.reserve(line.size() + name.size() + 96);
  line.append("0|");
  if (utf8_valid(name))
    append_body_escaped(line, name);
  else
    append_body_escaped(line, utf8_sanitize(name));
  line += '|';
  if (row.source && row.source->file.inode) {
    append_number(line, *row.source->file.inode);
    // NTFS: fls -m writes <entry>-<type>-<id> (the attribute read), so the two lines of one file match
    if (!row.source->file.attr.empty()) line.append("-").append(row.source->file.attr);
  } else {
    line += '0';
  }
  line.append("|-/----------|0|0|0|");
  for (int i = 0; i < 4; ++i) line.append(secs).append(i < 3 ? "|" : "\n");
  return true;
}

}  // namespace

std::string body_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 8);
  append_body_escaped(out, s);
  return out;
}

std::optional<int64_t> body_time(const Row& row) {
  if (!row.time_ms || !is_js_time(*row.time_ms)) return std::nullopt;  // rows.jsonl has no time for it either
  const int64_t secs = *row.time_ms / 1000 - (*row.time_ms % 1000 < 0 ? 1 : 0);
  if (secs <= 0) return std::nullopt;
  return secs;
}

void BodyFileWriter::emit(const Row& row) {
  line_.clear();
  if (append_body_line(row, line_, name_)) {
    if (std::fwrite(line_.data(), 1, line_.size(), out_) != line_.size()) ok_ = false;
  }
}

void BodyFileWriter::end_source(const std::string&) {
  if (std::fflush(out_) != 0) ok_ = false;
}

}  // namespace roo
