#include "plugin/body_file.h"

#include "core/text_util.h"

namespace roo {

namespace {

// Cuts at a UTF-8 character boundary.
std::string shorten(const std::string& s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "…";
}

}  // namespace

std::string body_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 8);
  size_t run = 0;  // start of the bytes not copied yet: copied a run at a time
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c != '|' && c != '%' && c >= 0x20 && c != 0x7F) continue;
    out.append(s, run, i - run);
    run = i + 1;
    if (c == '|' || c == '%') {
      static const char kHex[] = "0123456789ABCDEF";
      const char esc[3] = {'%', kHex[c >> 4], kHex[c & 0xF]};
      out.append(esc, 3);
    } else {
      out += ' ';
    }
  }
  out.append(s, run, std::string::npos);
  return out;
}

std::optional<int64_t> body_time(const Row& row) {
  if (!row.time_ms) return std::nullopt;
  const int64_t secs = *row.time_ms / 1000 - (*row.time_ms % 1000 < 0 ? 1 : 0);
  if (secs <= 0) return std::nullopt;
  return secs;
}

std::optional<std::string> body_line_for_row(const Row& row) {
  const auto time = body_time(row);
  if (!time) return std::nullopt;
  const int64_t secs = *time;

  std::string summary = row.text ? *row.text : "";
  if (summary.empty())
    if (const std::string* tool = row.string_field("tool_name")) summary = *tool;
  std::string name = "roo-code " + row.kind;
  if (row.identity && row.identity->session_id) name += " [" + *row.identity->session_id + "]";
  if (!summary.empty()) name += ": " + shorten(summary, 160);
  std::string inode = "0";
  if (row.source) {
    if (row.source->file.inode) inode = std::to_string(*row.source->file.inode);
    // The record's position makes each line unique (mactime folds identical lines, and two approvals can share a
    // second) and lets the examiner find the record: "#<record>[.<block>][.<part>]".
    name += " (" + row.source->file.path;
    if (row.position.record_index) {
      name += " #";
      name += std::to_string(*row.position.record_index);
      for (const auto& part : {row.position.sub_index, row.position.part_index})
        if (part) {
          name += '.';
          name += std::to_string(*part);
        }
    }
    name += ")";
  }
  // MD5|name|inode|mode|UID|GID|size|atime|mtime|ctime|crtime
  const std::string t = std::to_string(secs);
  return "0|" + body_escape(utf8_sanitize(name)) + "|" + inode + "|-/----------|0|0|0|" + t + "|" + t + "|" + t +
         "|" + t + "\n";
}

void BodyFileWriter::emit(const Row& row) {
  if (auto line = body_line_for_row(row)) {
    if (std::fwrite(line->data(), 1, line->size(), out_) != line->size()) ok_ = false;
  }
}

void BodyFileWriter::end_source(const std::string&) {
  if (std::fflush(out_) != 0) ok_ = false;
}

}  // namespace roo
