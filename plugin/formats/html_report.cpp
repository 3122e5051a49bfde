#include "plugin/formats/html_report.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string_view>
#include <unordered_map>

#include "plugin/formats/json_text.h"
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

// Copies one row's values into the page's JSON, cutting long strings and arrays (kHtml* limits). It writes the text
// html_script_safe_json would make of RapidJSON's Writer's, straight into the page (append_json_string's
// ScriptSafe): the HTML writer took a fifth less CPU than writing JSON first and making it script-safe after. It
// recurses like every DOM walk of the formats: rows come from core's parse_json, which refuses nesting deeper than
// kMaxJsonDepth.
class CuttingCopier {
 public:
  CuttingCopier(std::string& out, std::string_view row_id) : out_(out), row_id_(row_id) {}

  void value(const rapidjson::Value& v) {
    if (v.IsString()) {
      string(std::string_view(v.GetString(), v.GetStringLength()));
    } else if (v.IsArray()) {
      out_ += '[';
      const size_t n = v.Size();
      for (size_t i = 0; i < n && i < kHtmlArrayItems; ++i) {
        if (i > 0) out_ += ',';
        value(v[static_cast<rapidjson::SizeType>(i)]);
      }
      if (n > kHtmlArrayItems) {
        out_ += ',';
        string_raw("… " + std::to_string(n - kHtmlArrayItems) + " more items — full array in rows.jsonl row_id " +
                   std::string(row_id_));
      }
      out_ += ']';
    } else if (v.IsObject()) {
      out_ += '{';
      bool first = true;
      for (const auto& m : v.GetObject()) {
        if (!first) out_ += ',';
        first = false;
        string_raw(std::string_view(m.name.GetString(), m.name.GetStringLength()));
        out_ += ':';
        value(m.value);
      }
      out_ += '}';
    } else {
      append_json(out_, v);  // numbers, booleans, null as they are
    }
  }

 private:
  void string(std::string_view s) {
    const size_t limit = used_ < kHtmlRowBudgetBytes ? kHtmlTextBytes : kHtmlRowTailBytes;
    if (s.size() <= limit) {
      used_ += s.size();
      string_raw(s);
    } else {
      used_ += limit;
      string_raw(html_truncated_text(s, limit, row_id_));
    }
  }
  void string_raw(std::string_view s) { append_json_string(out_, s, JsonEscape::ScriptSafe); }

  std::string& out_;
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

    if (rows_in_chunk_ > 0) chunk_rows_ += ',';
    CuttingCopier copy(chunk_rows_, row_id);
    chunk_rows_ += '{';
    bool first = true;
    for (const auto& m : row.GetObject()) {
      if (!first) chunk_rows_ += ',';
      first = false;
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      append_json_string(chunk_rows_, name, JsonEscape::ScriptSafe);
      chunk_rows_ += ':';
      if (name == "source" && m.value.IsObject())
        source(chunk_rows_, m.value);  // never cut: provenance must stay citable
      else
        copy.value(m.value);
    }
    chunk_rows_ += '}';
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
  void source(std::string& out, const rapidjson::Value& src) {
    std::string key = "{";  // the file's fields as compact JSON, in their order
    for (const auto& m : src.GetObject()) {
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      if (is_record_field(name)) continue;
      if (key.size() > 1) key += ',';
      append_json_string(key, name);
      key += ':';
      append_json(key, m.value);
    }
    key += '}';
    auto [it, added] = files_.try_emplace(std::move(key), files_.size());
    if (added) {
      if (!chunk_files_.empty()) chunk_files_ += ',';
      append_script_safe(chunk_files_, it->first);
    }
    out += "{\"_file\":";
    out += std::to_string(it->second);
    for (const auto& m : src.GetObject()) {
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      if (!is_record_field(name)) continue;
      out += ',';
      append_json_string(out, name, JsonEscape::ScriptSafe);
      out += ':';
      append_json(out, m.value, JsonEscape::ScriptSafe);
    }
    out += '}';
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
