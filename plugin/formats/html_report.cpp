#include "plugin/formats/html_report.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string_view>
#include <unordered_map>

#include "plugin/formats/output_file.h"

namespace roo {

namespace {

// The page (plugin/formats/report_template.html), turned into a raw string literal by plugin/CMakeLists.txt.
constexpr std::string_view kTemplate =
#include "report_template.inc"
    ;
// Where the data goes (near the end of the body): the page before it is written first, the rest last.
constexpr std::string_view kDataMarker = "<!--ROO:DATA-->";
static_assert(kTemplate.find(kDataMarker) != std::string_view::npos, "report_template.html lost its data marker");

// A data chunk is closed at this size or row count: JSON.parse gets pieces of a few MB, not one of hundreds.
constexpr size_t kChunkBytes = 1 << 20;
constexpr size_t kChunkRows = 2000;

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// The source fields that differ between rows of one file. The rest (evidence, path, inode, allocation, MAC times,
// sha256 …) is the file's: written once per page and named by number from each row, which keeps a 110k-row page
// about 600 bytes a row smaller. Every field is still there for the page to show.
bool is_record_field(std::string_view key) {
  return key == "record_index" || key == "sub_index" || key == "part_index" || key == "byte_offset" ||
         key == "byte_length";
}

void append_script_safe(std::string& out, std::string_view json) {
  size_t run = 0;  // the bytes since the last escaped one are copied whole
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c != '<' && c != '>' && c != '&') continue;
    out.append(json.substr(run, i - run));
    out += c == '<' ? "\\u003c" : c == '>' ? "\\u003e" : "\\u0026";
    run = i + 1;
  }
  out.append(json.substr(run));
}

std::string compact_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

// Copies one row's values into the page's JSON, cutting long strings and arrays (kHtml* limits). It recurses like
// every DOM walk of the formats: rows come from core's parse_json, which refuses nesting deeper than kMaxJsonDepth.
class CuttingCopier {
 public:
  CuttingCopier(JsonWriter& w, std::string_view row_id) : w_(w), row_id_(row_id) {}

  void value(const rapidjson::Value& v) {
    if (v.IsString()) {
      string(std::string_view(v.GetString(), v.GetStringLength()));
    } else if (v.IsArray()) {
      w_.StartArray();
      const size_t n = v.Size();
      for (size_t i = 0; i < n && i < kHtmlArrayItems; ++i) value(v[static_cast<rapidjson::SizeType>(i)]);
      if (n > kHtmlArrayItems)
        string_raw("… " + std::to_string(n - kHtmlArrayItems) + " more items — full array in rows.jsonl row_id " +
                   std::string(row_id_));
      w_.EndArray();
    } else if (v.IsObject()) {
      w_.StartObject();
      for (const auto& m : v.GetObject()) {
        w_.Key(m.name.GetString(), m.name.GetStringLength());
        value(m.value);
      }
      w_.EndObject();
    } else {
      v.Accept(w_);  // numbers, booleans, null as they are
    }
  }

 private:
  void string(std::string_view s) {
    const size_t limit = used_ < kHtmlRowBudgetBytes ? kHtmlTextBytes : kHtmlRowTailBytes;
    if (s.size() <= limit) {
      used_ += s.size();
      w_.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    } else {
      used_ += limit;
      string_raw(html_truncated_text(s, limit, row_id_));
    }
  }
  void string_raw(const std::string& s) { w_.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

  JsonWriter& w_;
  std::string_view row_id_;
  size_t used_ = 0;  // string bytes this row has put into the page
};

class HtmlReportWriter : public FormatWriter {
 public:
  HtmlReportWriter(const std::filesystem::path& out_file, const FormatContext& ctx) : out_(out_file) {
    out_.write(kTemplate.substr(0, kTemplate.find(kDataMarker)));
    out_.write(meta_script(ctx));
  }

  void row(const rapidjson::Value& row, std::string_view) override {
    if (!row.IsObject()) return;
    std::string_view row_id = "(none)";
    if (row.HasMember("row_id") && row["row_id"].IsString())
      row_id = std::string_view(row["row_id"].GetString(), row["row_id"].GetStringLength());

    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    CuttingCopier copy(w, row_id);
    w.StartObject();
    for (const auto& m : row.GetObject()) {
      w.Key(m.name.GetString(), m.name.GetStringLength());
      if (std::string_view(m.name.GetString(), m.name.GetStringLength()) == "source" && m.value.IsObject())
        source(w, m.value);  // never cut: provenance must stay citable
      else
        copy.value(m.value);
    }
    w.EndObject();

    if (rows_in_chunk_ > 0) chunk_rows_ += ',';
    append_script_safe(chunk_rows_, std::string_view(buf.GetString(), buf.GetSize()));
    ++rows_in_chunk_;
    ++rows_;
    if (chunk_rows_.size() + chunk_files_.size() >= kChunkBytes || rows_in_chunk_ >= kChunkRows) flush_chunk();
  }

  bool finish(std::string* error) override {
    flush_chunk();
    // The end mark: a page without it was cut off (a killed run, a full disk) and says so.
    out_.write("<script type=\"application/json\" id=\"roo-end\">{\"rows\":" + std::to_string(rows_) +
               ",\"files\":" + std::to_string(files_.size()) + "}</script>\n");
    out_.write(kTemplate.substr(kTemplate.find(kDataMarker) + kDataMarker.size()));
    return out_.close(error);
  }

 private:
  // The page's settings and report.json, before any row: the zone to show times in, the cut limits to explain.
  static std::string meta_script(const FormatContext& ctx) {
    rapidjson::Document report;
    const bool report_ok =
        !ctx.report_json.empty() && !report.Parse(ctx.report_json.data(), ctx.report_json.size()).HasParseError();
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("display_tz");
    w.String(ctx.display_tz.data(), static_cast<rapidjson::SizeType>(ctx.display_tz.size()));
    w.Key("tool_version");
    w.String(ctx.tool_version.data(), static_cast<rapidjson::SizeType>(ctx.tool_version.size()));
    w.Key("text_bytes");
    w.Uint64(kHtmlTextBytes);
    w.Key("row_budget_bytes");
    w.Uint64(kHtmlRowBudgetBytes);
    w.Key("array_items");
    w.Uint64(kHtmlArrayItems);
    w.Key("report");
    if (report_ok) {
      report.Accept(w);
    } else if (ctx.report_json.empty()) {
      w.Null();
    } else {  // shown as text, so nothing the run reported is lost
      w.String(ctx.report_json.data(), static_cast<rapidjson::SizeType>(ctx.report_json.size()));
    }
    w.EndObject();
    std::string out = "<script type=\"application/json\" id=\"roo-meta\">";
    append_script_safe(out, std::string_view(buf.GetString(), buf.GetSize()));
    out += "</script>\n";
    return out;
  }

  // The row's source as {"_file": N, record fields…}; the file's own fields go into the chunk's file list the
  // first time the page sees them.
  void source(JsonWriter& w, const rapidjson::Value& src) {
    rapidjson::Document file;
    file.SetObject();
    for (const auto& m : src.GetObject()) {
      if (is_record_field(std::string_view(m.name.GetString(), m.name.GetStringLength()))) continue;
      file.AddMember(rapidjson::Value(m.name, file.GetAllocator()), rapidjson::Value(m.value, file.GetAllocator()),
                     file.GetAllocator());
    }
    std::string key = compact_json(file);
    auto [it, added] = files_.try_emplace(std::move(key), files_.size());
    if (added) {
      if (!chunk_files_.empty()) chunk_files_ += ',';
      append_script_safe(chunk_files_, it->first);
    }
    w.StartObject();
    w.Key("_file");
    w.Uint64(it->second);
    for (const auto& m : src.GetObject()) {
      if (!is_record_field(std::string_view(m.name.GetString(), m.name.GetStringLength()))) continue;
      w.Key(m.name.GetString(), m.name.GetStringLength());
      m.value.Accept(w);
    }
    w.EndObject();
  }

  void flush_chunk() {
    if (rows_in_chunk_ == 0 && chunk_files_.empty()) return;
    out_.write("<script type=\"application/json\" class=\"roo-data\">{\"files\":[");
    out_.write(chunk_files_);
    out_.write("],\"rows\":[");
    out_.write(chunk_rows_);
    out_.write("]}</script>\n");
    chunk_files_.clear();
    chunk_rows_.clear();
    rows_in_chunk_ = 0;
  }

  OutputFile out_;
  std::unordered_map<std::string, size_t> files_;  // a source file's fields (JSON) → its number in the page
  std::string chunk_files_, chunk_rows_;
  size_t rows_in_chunk_ = 0;
  size_t rows_ = 0;
};

}  // namespace

std::string html_truncated_text(std::string_view s, size_t max_bytes, std::string_view row_id) {
  if (s.size() <= max_bytes) return std::string(s);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return std::string(s.substr(0, cut)) + "… " + std::to_string(s.size() - cut) +
         " more bytes — full text in rows.jsonl row_id " + std::string(row_id);
}

std::string html_script_safe_json(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  append_script_safe(out, json);
  return out;
}

std::unique_ptr<FormatWriter> make_html_report_writer(const std::filesystem::path& out_file, const FormatContext& ctx) {
  return std::make_unique<HtmlReportWriter>(out_file, ctx);
}

}  // namespace roo
