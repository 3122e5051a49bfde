// report.html's writer on hand-made rows: evidence text stays data, long text is cut with a note, provenance is
// never cut, each row goes to the parts of its task, its kind (and the denials), the same rows give the same bytes. What the page draws from the data is tested in headless Chromium
// (html_report_chromium_test.py).
#include "plugin/formats/html_report.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
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

  // Rows and source files parsed back from the page's data chunks (its task rows) or from one part's rooPart
  // statements (report/NAME.js).
  struct Data {
    rapidjson::Document files{rapidjson::kObjectType}, rows{rapidjson::kArrayType};
    size_t chunks = 0;
    std::string end;  // the part's closing rooPartEnd statement
  };
  static void take(Data& d, const char* json, size_t size) {
    rapidjson::Document chunk;
    chunk.Parse(json, size);
    EXPECT_FALSE(chunk.HasParseError()) << std::string(json, std::min<size_t>(size, 200));
    if (chunk.HasParseError()) return;
    ++d.chunks;
    for (auto& f : chunk["files"].GetObject())
      d.files.AddMember(rapidjson::Value(f.name, d.files.GetAllocator()), rapidjson::Value(f.value, d.files.GetAllocator()),
                        d.files.GetAllocator());
    for (auto& r : chunk["rows"].GetArray())
      d.rows.PushBack(rapidjson::Value(r, d.rows.GetAllocator()), d.rows.GetAllocator());
  }
  static Data data_of(const std::string& page) {
    Data d;
    const std::string open = R"(<script type="application/json" class="roo-data">)";
    for (size_t at = page.find(open); at != std::string::npos; at = page.find(open, at + 1)) {
      const size_t start = at + open.size(), end = page.find("</script>", start);
      take(d, page.data() + start, end - start);
    }
    return d;
  }
  // Every part in the folder beside the page, by name; each line is one statement.
  std::map<std::string, Data> parts() const {
    std::map<std::string, Data> out;
    for (const auto& e : fs::directory_iterator(dir_ / "report")) {
      const std::string name = e.path().stem().string();
      Data& d = out[name];
      std::istringstream text(read_file(e.path()));
      const std::string head = "rooPart(\"" + name + "\",", tail = ");";
      for (std::string line; std::getline(text, line);) {
        if (line.rfind("rooPartEnd(", 0) == 0) {
          d.end = line;
          continue;
        }
        EXPECT_EQ(line.rfind(head, 0), 0u) << line.substr(0, 80);
        EXPECT_EQ(line.substr(line.size() - tail.size()), tail);
        take(d, line.data() + head.size(), line.size() - head.size() - tail.size());
      }
    }
    return out;
  }
  static std::vector<std::string> row_ids(const Data& d) {
    std::vector<std::string> ids;
    for (const auto& r : d.rows.GetArray()) ids.push_back(r["row_id"].GetString());
    return ids;
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
  // The row is in its task's part (a script of the page's folder): there too only \u-escaped.
  const std::string part = read_file(dir_ / "report" / "task-000000.js");
  EXPECT_NE(part.find(R"(\u003c/script\u003e\u003cimg src=x onerror=alert(1)\u003e\u003c!--\u003cscript\u003ealert(2))"
                      R"(\u003c/script\u003e\u0026amp;)"),
            std::string::npos);
  EXPECT_EQ(part.find("<"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);  // neither from the row nor from report.json
  EXPECT_EQ(page.find("<!--<"), std::string::npos);
  // Four script elements, each closed once: roo-meta, roo-index, roo-end, the page's script (a user message is no
  // task row: it is in its task's part, not in the page).
  EXPECT_EQ(count(page, "<script"), 4u);
  EXPECT_EQ(count(page, "</script>"), 4u);

  auto all = parts();
  Data& d = all["task-000000"];
  ASSERT_EQ(d.rows.Size(), 1u);
  EXPECT_EQ(std::string(d.rows[0]["text"].GetString()), hostile);
  EXPECT_EQ(std::string(d.rows[0]["tool_input"]["</script>"].GetString()), "<b>bold</b>");
  ASSERT_EQ(d.files.MemberCount(), 1u);
  EXPECT_EQ(std::string(d.files["0"]["path"].GetString()), "/home/alice/x</script>.json");
}

TEST_F(HtmlReport, LongTextIsCutWithANoteNamingTheRow) {
  // 4100 bytes: 3998 × "a", "€" (3 bytes, would straddle byte 4000), 99 × "b".
  const std::string text = std::string(3998, 'a') + "\xE2\x82\xAC" + std::string(99, 'b');
  ASSERT_EQ(text.size(), 4100u);
  const std::string page =
      write({row_line("bbbb0000bbbb0000bbbb0000bbbb0001", "tool_result", json_string(text))}, ctx_);
  auto all = parts();
  const Data& d = all["kind-tool_result"];
  EXPECT_EQ(
      std::string(d.rows[0]["text"].GetString()),
      std::string(3998, 'a') + "… 102 more bytes — full text in rows.jsonl row_id bbbb0000bbbb0000bbbb0000bbbb0001");
  for (const auto& e : fs::directory_iterator(dir_ / "report")) {
    EXPECT_EQ(read_file(e.path()).find(std::string(3999, 'a')), std::string::npos);
    EXPECT_EQ(read_file(e.path()).find("bbbbbbbbbb"), std::string::npos);  // none of the cut tail
  }
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
  auto all = parts();
  const Data& d = all["task-000000"];
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
  write(lines, ctx_);
  auto all = parts();
  const Data& d = all["task-000000"];
  ASSERT_EQ(d.files.MemberCount(), 2u);
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
    const auto& file = d.files[std::to_string(d.rows[i]["source"]["_file"].GetUint()).c_str()];
    for (const auto& m : original["source"].GetObject()) {  // in the original's order
      const char* k = m.name.GetString();
      const rapidjson::Value& from = d.rows[i]["source"].HasMember(k) ? d.rows[i]["source"][k] : file[k];
      rebuilt.AddMember(rapidjson::Value(k, a), rapidjson::Value(from, a), a);
    }
    EXPECT_EQ(rebuilt, original["source"]) << i;
    EXPECT_EQ(d.rows[i]["source"].MemberCount() + file.MemberCount(), original["source"].MemberCount() + 1) << i;
  }
  EXPECT_EQ(std::string(d.files["0"]["path"].GetString()), long_path);
}

TEST_F(HtmlReport, SameRowsGiveTheSameBytes) {
  std::vector<std::string> lines;
  for (int i = 0; i < 2500; ++i)  // more than one chunk (2000 rows) in the kind's part
    lines.push_back(row_line("eeee0000eeee0000eeee0000" + std::to_string(10000000 + i), "assistant_message",
                             json_string("answer " + std::to_string(i)), "/f" + std::to_string(i % 7) + ".json", i));
  auto folder = [&] {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::directory_iterator(dir_ / "report")) files[e.path().filename()] = read_file(e.path());
    return files;
  };
  const std::string a = write(lines, ctx_, "a.html");
  const auto a_parts = folder();
  const std::string b = write(lines, ctx_, "b.html");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a_parts, folder());
  auto all = parts();
  EXPECT_EQ(all.size(), 2u);  // one session (no task row: a group of its own) and one kind
  for (const char* name : {"task-000000", "kind-assistant_message"}) {
    EXPECT_EQ(all[name].chunks, 2u) << name;
    EXPECT_EQ(all[name].rows.Size(), 2500u) << name;
    EXPECT_EQ(all[name].files.MemberCount(), 7u) << name;
    EXPECT_EQ(all[name].end, "rooPartEnd(\"" + std::string(name) + "\",{\"rows\":2500});") << name;
  }
  EXPECT_NE(a.find(R"(<script type="application/json" id="roo-end">{"rows":2500,"files":7}</script>)"),
            std::string::npos);
}

// A row goes to its task's part (a task row starts a task; the rows after it with its session join it; a row of
// no session is configuration), to its kind's part, and a denied one to the denials; the index counts each task.
TEST_F(HtmlReport, RowsGoToTheirTaskKindAndDenialParts) {
  auto with_session = [](std::string line, const std::string& session) {
    const std::string from = R"("session_id":"t1")";
    return line.replace(line.find(from), from.size(), session == "null" ? R"("session_id":null)" : "\"session_id\":\"" + session + "\"");
  };
  const std::vector<std::string> lines = {
      with_session(row_line("a1", "task", "\"first task\""), "t1"),
      with_session(row_line("a2", "command", "\"ls\"", "/x/ui.json", 1, R"(,"command":"ls","exit_code":2)"), "t1"),
      with_session(row_line("a3", "permission_setting", "\"allow\""), "null"),
      with_session(row_line("a4", "task", "\"second task\""), "t2"),
      with_session(row_line("a5", "permission_decision", "\"no\"", "/x/ui.json", 2, R"(,"decision":"denied")"), "t2"),
      with_session(row_line("a6", "tool_call", "\"x\"", "/x/ui.json", 3, R"(,"outcome":"denied")"), "t1"),
      with_session(row_line("a7", "command", "\"pwd\"", "/x/ui.json", 4, R"(,"command":"pwd","exit_code":0)"), "t2")};
  const std::string page = write(lines, ctx_);
  auto all = parts();
  using Ids = std::vector<std::string>;
  EXPECT_EQ(row_ids(all["task-000000"]), (Ids{"a1", "a2", "a6"}));
  EXPECT_EQ(row_ids(all["task-000001"]), (Ids{"a4", "a5", "a7"}));
  EXPECT_EQ(row_ids(all["config"]), (Ids{"a3"}));
  EXPECT_EQ(row_ids(all["kind-command"]), (Ids{"a2", "a7"}));
  EXPECT_EQ(row_ids(all["kind-task"]), (Ids{"a1", "a4"}));
  EXPECT_EQ(row_ids(all["denied"]), (Ids{"a5", "a6"}));
  EXPECT_EQ(all.size(), 9u);  // 2 tasks, config, denied, 5 kinds
  // Rows of many tasks name theirs; every row its place in rows.jsonl.
  EXPECT_EQ(all["denied"].rows[0]["_group"].GetInt(), 1);
  EXPECT_EQ(all["denied"].rows[1]["_group"].GetInt(), 0);
  EXPECT_EQ(all["denied"].rows[1]["_n"].GetInt(), 5);
  EXPECT_FALSE(all["task-000000"].rows[0].HasMember("_group"));
  // The page holds the task rows and the index.
  EXPECT_EQ(row_ids(data_of(page)), (Ids{"a1", "a4"}));
  const std::string open = R"(<script type="application/json" id="roo-index">)";
  const size_t at = page.find(open) + open.size();
  rapidjson::Document index;
  index.Parse(page.data() + at, page.find("</script>", at) - at);
  ASSERT_FALSE(index.HasParseError());
  const auto& g = index["groups"];
  ASSERT_EQ(g.Size(), 2u);
  EXPECT_EQ(std::string(g[0]["id"].GetString()), "a1");
  EXPECT_EQ(std::string(g[0]["part"].GetString()), "task-000000");
  EXPECT_EQ(g[0]["rows"].GetInt(), 3);
  EXPECT_EQ(g[0]["c"]["commands"].GetInt(), 1);
  EXPECT_EQ(g[0]["c"]["errors"].GetInt(), 1);  // exit code 2
  EXPECT_EQ(g[0]["c"]["calls"].GetInt(), 2);
  EXPECT_EQ(g[0]["c"]["denied"].GetInt(), 0);  // a denied outcome is no denied permission decision
  EXPECT_EQ(g[1]["c"]["denied"].GetInt(), 1);
  EXPECT_EQ(std::string(g[1]["first"].GetString()), "2026-03-10T09:20:00.772Z");
  EXPECT_EQ(index["parts"]["config"].GetInt(), 1);
  EXPECT_EQ(index["parts"]["denied"].GetInt(), 2);
  EXPECT_EQ(index["parts"]["kind-command"].GetInt(), 2);
  EXPECT_FALSE(index["parts"].HasMember("task-000000"));  // tasks are named by the groups
}

// The page itself: one file, a policy that forbids every fetch, the zone and report.json given to it, and no URL
// but the SVG namespace name.
TEST_F(HtmlReport, PageShell) {
  const std::string page = write({}, ctx_);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(
      page.find(
          R"(<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self' 'unsafe-inline'; )"
          R"(style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">)"),
      std::string::npos);
  EXPECT_LT(page.find("Content-Security-Policy"), page.find("<style>"));
  EXPECT_EQ(count(page, "http"), count(page, "http-equiv") + count(page, "'http://www.w3.org/2000/svg'"));
  EXPECT_EQ(count(page, "'http://www.w3.org/2000/svg'"), 1u);
  // The one script source the page sets is a part of its own folder.
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(count(page, "'src'"), 1u);
  EXPECT_NE(page.find("s.setAttribute('src', file);"), std::string::npos);
  // The page's script builds its DOM from text only: none of the calls that parse a string as HTML or code.
  for (const char* parser : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function("})
    EXPECT_EQ(page.find(parser), std::string::npos) << parser;
  EXPECT_NE(
      page.find(R"(<script type="application/json" id="roo-meta">{"display_tz":"Europe/Berlin","tool_version":"0.1.0",)"
                R"("text_bytes":4000,"row_budget_bytes":32000,"array_items":500,"parts_folder":"report",)"
                R"("report":{"evidence":{"paths":["/cases/x\u003c/script\u003e\u003cb\u003e.E01"]}}}</script>)"),
      std::string::npos);
  EXPECT_NE(page.find(R"(<script type="application/json" id="roo-index">{"groups":[],"parts":{}}</script>)"
                      "\n" R"(<script type="application/json" id="roo-end">{"rows":0,"files":0}</script>)"),
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
