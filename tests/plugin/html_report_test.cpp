// report.html's writer on hand-made rows: evidence text stays data, long text is cut with a note, provenance is
// never cut, the same rows give the same bytes. What the page draws from the data is tested in headless Chromium
// (html_report_chromium_test.py).
#include "plugin/formats/html_report.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace roo {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + needle.size())) ++n;
  return n;
}

// A row as rows.jsonl has it, with a source object of the contract's shape.
std::string row_line(const std::string& row_id, const std::string& kind, const std::string& text_json,
                     const std::string& path =
                         "/home/alice/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/"
                         "tasks/t1/ui_messages.json",
                     int record = 0, const std::string& extra = "") {
  return R"({"schema":"roo-ingest/row/1","row_id":")" + row_id + R"(","kind":")" + kind +
         R"(","time_utc":"2026-03-10T09:20:00.772Z","time_source":"ui.ts","agent":"roo-code","surface":"vscode",)"
         R"("user":"alice","session_id":"t1","parent_session_id":null,"root_session_id":null,)"
         R"("project_path":"/home/alice/proj","role":"user","text":)" +
         text_json + extra +
         R"(,"source":{"evidence":"demo.E01","partition_offset":1048576,"fs_type":"ext4","path":")" + path +
         R"(","inode":28,"meta_seq":null,"attr":null,"name_allocated":true,"meta_allocated":true,"reallocated":false,)"
         R"("recovery":"allocated","size":3642,"mtime":"2024-04-25T10:00:00.123456700Z","atime":null,"ctime":null,)"
         R"("crtime":null,"sha256":"7337b96d6e7c04fe51ae79f8cf089f57e79e382d46be3230eb59338e4fd966ef",)"
         R"("record_index":)" +
         std::to_string(record) + R"(,"sub_index":null,"part_index":null,"byte_offset":176,"byte_length":187}})";
}

std::string json_string(const std::string& s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return buf.GetString();
}

class HtmlReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("roo-html-test-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::vector<std::string>& lines, const FormatContext& ctx,
                    const std::string& name = "r.html") {
    const fs::path out = dir_ / name;
    auto writer = make_html_report_writer(out, ctx);
    for (const std::string& line : lines) {
      rapidjson::Document d;
      d.Parse(line.data(), line.size());
      EXPECT_FALSE(d.HasParseError()) << line.substr(0, 200);
      writer->row(d, line);
    }
    std::string error;
    EXPECT_TRUE(writer->finish(&error)) << error;
    return read_file(out);
  }

  // The data chunks of a page, parsed back: the page's file list and rows, in order.
  struct Data {
    rapidjson::Document files{rapidjson::kArrayType}, rows{rapidjson::kArrayType};
  };
  static Data data_of(const std::string& page) {
    Data d;
    const std::string open = R"(<script type="application/json" class="roo-data">)";
    for (size_t at = page.find(open); at != std::string::npos; at = page.find(open, at + 1)) {
      const size_t start = at + open.size(), end = page.find("</script>", start);
      rapidjson::Document chunk;
      chunk.Parse(page.data() + start, end - start);
      EXPECT_FALSE(chunk.HasParseError());
      for (auto& f : chunk["files"].GetArray())
        d.files.PushBack(rapidjson::Value(f, d.files.GetAllocator()), d.files.GetAllocator());
      for (auto& r : chunk["rows"].GetArray())
        d.rows.PushBack(rapidjson::Value(r, d.rows.GetAllocator()), d.rows.GetAllocator());
    }
    return d;
  }

  fs::path dir_;
  FormatContext ctx_{"Europe/Berlin", R"({"evidence":{"paths":["/cases/x</script><b>.E01"]}})", "0.1.0"};
};

TEST(HtmlReportText, CutsAtACharacterBoundaryAndSaysWhatIsLeftOut) {
  EXPECT_EQ(html_truncated_text("abcdef", 6, "r1"), "abcdef");
  EXPECT_EQ(html_truncated_text("abcdef", 4, "r1"), "abcd… 2 more bytes — full text in rows.jsonl row_id r1");
  // "€" is 3 bytes (E2 82 AC) at bytes 2..4: a cut at 4 would split it, so the cut moves back to 2.
  EXPECT_EQ(html_truncated_text("ab\xE2\x82\xAC"
                                "cd",
                                4, "r2"),
            "ab… 5 more bytes — full text in rows.jsonl row_id r2");
}

TEST(HtmlReportText, ScriptSafeJsonEscapesEveryAngleBracketAndAmpersand) {
  EXPECT_EQ(html_script_safe_json(R"({"t":"</script><!--<script>&"})"),
            R"({"t":"\u003c/script\u003e\u003c!--\u003cscript\u003e\u0026"})");
}

// Evidence text holding a script end tag, markup and an HTML comment opener stays text: in the page it appears
// only \u-escaped, no evidence "</script>" or "<img" appears raw, and the data parses back to the same text.
TEST_F(HtmlReport, EvidenceMarkupStaysData) {
  const std::string hostile = R"(</script><img src=x onerror=alert(1)><!--<script>alert(2)</script>&amp;)";
  const std::string page =
      write({row_line("aaaa0000aaaa0000aaaa0000aaaa0001", "user_message", json_string(hostile),
                      "/home/alice/x</script>.json", 0, R"(,"tool_input":{"</script>":"<b>bold</b>"})")},
            ctx_);
  EXPECT_NE(page.find(R"(\u003c/script\u003e\u003cimg src=x onerror=alert(1)\u003e\u003c!--\u003cscript\u003ealert(2))"
                      R"(\u003c/script\u003e\u0026amp;)"),
            std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);  // neither from the row nor from report.json
  EXPECT_EQ(page.find("<!--<"), std::string::npos);
  // Four script elements, each closed once: roo-meta, one data chunk, roo-end, the page's script.
  EXPECT_EQ(count(page, "<script"), 4u);
  EXPECT_EQ(count(page, "</script>"), 4u);

  Data d = data_of(page);
  ASSERT_EQ(d.rows.Size(), 1u);
  EXPECT_EQ(std::string(d.rows[0]["text"].GetString()), hostile);
  EXPECT_EQ(std::string(d.rows[0]["tool_input"]["</script>"].GetString()), "<b>bold</b>");
  ASSERT_EQ(d.files.Size(), 1u);
  EXPECT_EQ(std::string(d.files[0]["path"].GetString()), "/home/alice/x</script>.json");
}

TEST_F(HtmlReport, LongTextIsCutWithANoteNamingTheRow) {
  // 4100 bytes: 3998 × "a", "€" (3 bytes, would straddle byte 4000), 99 × "b".
  const std::string text = std::string(3998, 'a') + "\xE2\x82\xAC" + std::string(99, 'b');
  ASSERT_EQ(text.size(), 4100u);
  const std::string page =
      write({row_line("bbbb0000bbbb0000bbbb0000bbbb0001", "tool_result", json_string(text))}, ctx_);
  Data d = data_of(page);
  EXPECT_EQ(
      std::string(d.rows[0]["text"].GetString()),
      std::string(3998, 'a') + "… 102 more bytes — full text in rows.jsonl row_id bbbb0000bbbb0000bbbb0000bbbb0001");
  EXPECT_EQ(page.find(std::string(3999, 'a')), std::string::npos);
  EXPECT_EQ(page.find("bbbbbbbbbb"), std::string::npos);  // none of the cut tail
}

// A row may put 32000 bytes of strings into the page; after that each string keeps 200 bytes. An array keeps 500
// items and a note.
TEST_F(HtmlReport, RowBudgetAndArrayCap) {
  std::string hunks = ",\"hunks\":[";
  for (int i = 0; i < 10; ++i)
    hunks += std::string(i ? "," : "") + "{\"new_text\":" + json_string(std::string(5000, 'x')) + "}";
  hunks += "],\"args\":[";
  for (int i = 0; i < 600; ++i) hunks += std::string(i ? "," : "") + "\"a\"";
  hunks += "]";
  const std::string page =
      write({row_line("cccc0000cccc0000cccc0000cccc0001", "file_edit", "\"src/a.py\"", "/p/api.json", 3, hunks)}, ctx_);
  Data d = data_of(page);
  const auto& h = d.rows[0]["hunks"];
  ASSERT_EQ(h.Size(), 10u);
  // The common fields' strings come first: 134 bytes (schema 16, row_id 32, kind 9, time_utc 24, time_source 5,
  // agent 8, surface 6, user 5, session_id 2, project_path 15, role 4, text 8). Hunks 0..7 then keep 4000 bytes
  // each (before hunk 7: 134 + 7 × 4000 = 28134 < 32000); after hunk 7 the row is at 32134, so hunks 8 and 9 keep 200.
  for (rapidjson::SizeType i = 0; i < 10; ++i) {
    const size_t kept = i < 8 ? 4000 : 200;
    EXPECT_EQ(std::string(h[i]["new_text"].GetString()),
              std::string(kept, 'x') + "… " + std::to_string(5000 - kept) +
                  " more bytes — full text in rows.jsonl row_id cccc0000cccc0000cccc0000cccc0001")
        << i;
  }
  const auto& args = d.rows[0]["args"];
  ASSERT_EQ(args.Size(), 501u);
  EXPECT_EQ(std::string(args[499].GetString()), "a");
  EXPECT_EQ(std::string(args[500].GetString()),
            "… 100 more items — full array in rows.jsonl row_id cccc0000cccc0000cccc0000cccc0001");
}

// Provenance is never cut, and a file's source fields are written once: rows name them by number, and file +
// record fields give back exactly the row's source.
TEST_F(HtmlReport, SourceIsSharedPerFileAndComesBackWhole) {
  const std::string long_path = "/home/alice/" + std::string(5000, 'p') + "/ui_messages.json";
  const std::vector<std::string> lines = {
      row_line("dddd0000dddd0000dddd0000dddd0001", "user_message", "\"one\"", long_path, 0),
      row_line("dddd0000dddd0000dddd0000dddd0002", "user_message", "\"two\"", long_path, 1),
      row_line("dddd0000dddd0000dddd0000dddd0003", "user_message", "\"three\"", "/other.json", 0)};
  const std::string page = write(lines, ctx_);
  Data d = data_of(page);
  ASSERT_EQ(d.files.Size(), 2u);
  ASSERT_EQ(d.rows.Size(), 3u);
  EXPECT_EQ(d.rows[0]["source"]["_file"].GetInt(), 0);
  EXPECT_EQ(d.rows[1]["source"]["_file"].GetInt(), 0);
  EXPECT_EQ(d.rows[2]["source"]["_file"].GetInt(), 1);
  for (rapidjson::SizeType i = 0; i < 3; ++i) {
    rapidjson::Document original;
    original.Parse(lines[i].c_str());
    rapidjson::Document rebuilt;
    rebuilt.SetObject();
    auto& a = rebuilt.GetAllocator();
    const auto& file = d.files[d.rows[i]["source"]["_file"].GetUint()];
    for (const auto& m : original["source"].GetObject()) {  // in the original's order
      const char* k = m.name.GetString();
      const rapidjson::Value& from = d.rows[i]["source"].HasMember(k) ? d.rows[i]["source"][k] : file[k];
      rebuilt.AddMember(rapidjson::Value(k, a), rapidjson::Value(from, a), a);
    }
    EXPECT_EQ(rebuilt, original["source"]) << i;
    EXPECT_EQ(d.rows[i]["source"].MemberCount() + file.MemberCount(), original["source"].MemberCount() + 1) << i;
  }
  EXPECT_EQ(std::string(d.files[0]["path"].GetString()), long_path);
}

TEST_F(HtmlReport, SameRowsGiveTheSameBytes) {
  std::vector<std::string> lines;
  for (int i = 0; i < 2500; ++i)  // more than one chunk (2000 rows)
    lines.push_back(row_line("eeee0000eeee0000eeee0000" + std::to_string(10000000 + i), "assistant_message",
                             json_string("answer " + std::to_string(i)), "/f" + std::to_string(i % 7) + ".json", i));
  const std::string a = write(lines, ctx_, "a.html"), b = write(lines, ctx_, "b.html");
  EXPECT_EQ(a, b);
  EXPECT_EQ(count(a, R"(<script type="application/json" class="roo-data">)"), 2u);
  EXPECT_EQ(data_of(a).rows.Size(), 2500u);
  EXPECT_EQ(data_of(a).files.Size(), 7u);
  EXPECT_NE(a.find(R"(<script type="application/json" id="roo-end">{"rows":2500,"files":7}</script>)"),
            std::string::npos);
}

// The page itself: one file, a policy that forbids every fetch, the zone and report.json given to it, and no URL
// but the SVG namespace name.
TEST_F(HtmlReport, PageShell) {
  const std::string page = write({}, ctx_);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(
      page.find(
          R"(<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; )"
          R"(style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">)"),
      std::string::npos);
  EXPECT_LT(page.find("Content-Security-Policy"), page.find("<style>"));
  EXPECT_EQ(count(page, "http"), count(page, "http-equiv") + count(page, "'http://www.w3.org/2000/svg'"));
  EXPECT_EQ(count(page, "'http://www.w3.org/2000/svg'"), 1u);
  EXPECT_EQ(page.find("src="), std::string::npos);
  // The page's script builds its DOM from text only: none of the calls that parse a string as HTML or code.
  for (const char* parser : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function("})
    EXPECT_EQ(page.find(parser), std::string::npos) << parser;
  EXPECT_NE(
      page.find(R"(<script type="application/json" id="roo-meta">{"display_tz":"Europe/Berlin","tool_version":"0.1.0",)"
                R"("text_bytes":4000,"row_budget_bytes":32000,"array_items":500,)"
                R"("report":{"evidence":{"paths":["/cases/x\u003c/script\u003e\u003cb\u003e.E01"]}}}</script>)"),
      std::string::npos);
  EXPECT_NE(page.find(R"(<script type="application/json" id="roo-end">{"rows":0,"files":0}</script>)"),
            std::string::npos);
  EXPECT_EQ(page.substr(page.size() - 8), "</html>\n");
}

TEST_F(HtmlReport, UnreadableReportJsonIsShownAsText) {
  FormatContext ctx{"UTC", "{not json <", "0.1.0"};
  const std::string page = write({}, ctx);
  EXPECT_NE(page.find(R"("report":"{not json \u003c"})"), std::string::npos);
}

TEST_F(HtmlReport, UnwritableFileIsAnError) {
  auto writer = make_html_report_writer(dir_ / "no-such-dir" / "report.html", ctx_);
  std::string error;
  EXPECT_FALSE(writer->finish(&error));
  EXPECT_NE(error.find("no-such-dir/report.html"), std::string::npos) << error;
}

}  // namespace
}  // namespace roo
