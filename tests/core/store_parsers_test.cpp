// Settings, permission and credential stores on literal bytes in Roo's shapes. Expected texts are written from
// docs/row-contract.md ("Permission rows", "Sync, relay and origin rows", "Past-use rows and secondary sources",
// "Bad-line rows") and docs/roo-format.md §6-§8, never produced by the code under test.
#include "core/parsers/store_parsers.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace roo {
namespace {

using test::CapturedRows;
using test::MemoryBytes;
using test::ParserHarness;

// A harness as the caller sets it up for a store that belongs to no task: no session, a known file mtime.
// 1760000100 s + 250 ms = 2025-10-09T08:55:00.250Z.
struct StoreHarness : ParserHarness {
  StoreHarness() {
    identity = TaskIdentity{"cli", "u", {}, {}, {}, {}};
    source.file.mtime = FsTime{1760000100, 250000000};
  }
  // ctx for file `name` at `path`.
  ParseContext at(const std::string& name, const std::string& path, bool native = false) {
    ParseContext c = ctx(name);
    source.file.path = path;
    c.native = native;
    return c;
  }
};
constexpr const char* kMtime = "2025-10-09T08:55:00.250Z";

template <typename Parse>
auto run(StoreHarness& h, const std::string& name, const std::string& path, const std::string& bytes, Parse parse,
         bool native = false) {
  MemoryBytes src(bytes);
  HashingStream in(src);
  return parse(in, h.at(name, path, native));
}

void expect_no_secret(const CapturedRows& rows, std::initializer_list<const char*> secrets) {
  ASSERT_FALSE(rows.lines.empty());
  for (const std::string& line : rows.lines)
    for (const char* s : secrets) EXPECT_EQ(line.find(s), std::string::npos) << s << " leaked in " << line;
}

// --- global-state.json ----------------------------------------------------------------------------------------

const char* kGsPath = "/home/u/.vscode-mock/global-storage/global-state.json";
// A CLI global-state.json: permission keys, command lists (also as the roo-cline.* setting) and both cloud caches.
const char* kGlobalStateFixture =
    R"({"autoApprovalEnabled":true,"alwaysAllowReadOnly":true,"allowedCommands":["git status","npm test"],"deniedCommands":["rm -rf"],"mode":"architect","roo-cline.allowedCommands":["git status"],"user-settings":{"features":{},"settings":{"taskSyncEnabled":true},"version":3},"organization-settings":{"version":1,"cloudSettings":{"recordTaskMessages":true,"enableTaskSharing":false},"defaultSettings":{},"allowList":{"allowAll":true,"providers":{}}}})";

TEST(GlobalState, SeedFixtureGivesPermissionAndSyncRowsInDocumentOrder) {
  StoreHarness h;
  GlobalStateResult res = run(h, "global-state.json", kGsPath, kGlobalStateFixture, parse_global_state_file);
  EXPECT_TRUE(res.read);
  EXPECT_TRUE(res.task_history.empty());
  const std::string from = std::string(" (from ") + kGsPath + ", file mtime)";
  const std::string cache = std::string(" (from ") + kGsPath + ", Roo Code Cloud settings cache, file mtime)";
  const std::vector<std::string> want = {
      "permission setting: autoApprovalEnabled=true" + from,
      "permission setting: alwaysAllowReadOnly=true" + from,
      "permission setting: allowedCommands=git status" + from,
      "permission setting: allowedCommands=npm test" + from,
      "permission setting: deniedCommands=rm -rf" + from,
      "permission setting: mode=architect" + from,
      "permission setting: roo-cline.allowedCommands=git status" + from,
      "sync setting: user-settings.settings.taskSyncEnabled=true" + cache,
      "sync setting: organization-settings.cloudSettings.recordTaskMessages=true" + cache,
      "sync setting: organization-settings.cloudSettings.enableTaskSharing=false" + cache,
  };
  ASSERT_EQ(h.rows.rows.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(h.rows.str(i, "text"), want[i]);
    EXPECT_EQ(h.rows.str(i, "kind"), i < 7 ? "permission_setting" : "sync_setting");
    EXPECT_EQ(h.rows.str(i, "role"), "system");
    EXPECT_EQ(h.rows.str(i, "time_utc"), kMtime);
    EXPECT_EQ(h.rows.str(i, "time_source"), "file.mtime");
    EXPECT_TRUE(h.rows.rows[i]["session_id"].IsNull());
    EXPECT_TRUE(h.rows.src(i)["record_index"].IsNull());
    EXPECT_EQ(h.rows.str(i, "setting_source"), kGsPath);
  }
  EXPECT_EQ(h.rows.str(3, "setting_key"), "allowedCommands");
  EXPECT_EQ(h.rows.str(3, "setting_value"), "npm test");
  EXPECT_EQ(h.rows.str(0, "setting_value"), "true");
  EXPECT_EQ(h.rows.str(7, "setting_key"), "user-settings.settings.taskSyncEnabled");
  // List entries are parts of one whole-document row: distinct part_index, and so distinct row ids.
  EXPECT_EQ(h.rows.src(2)["part_index"].GetInt(), 2);
  EXPECT_EQ(h.rows.src(3)["part_index"].GetInt(), 3);
  std::set<std::string> ids;
  for (size_t i = 0; i < h.rows.rows.size(); ++i) ids.insert(h.rows.str(i, "row_id"));
  EXPECT_EQ(ids.size(), h.rows.rows.size());
}

TEST(GlobalState, StateVscdbRowNamesTheDatabaseAndTheKey) {
  StoreHarness h;
  rapidjson::Document doc;
  doc.Parse(R"({"alwaysAllowExecute":false,"allowedMaxCost":1.5,"allowedMaxRequests":20})");
  const std::string where =
      "/home/u/.config/Code/User/globalStorage/state.vscdb ItemTable RooVeterinaryInc.roo-cline";
  parse_global_state(doc, h.at("state.vscdb", "/home/u/.config/Code/User/globalStorage/state.vscdb"), where);
  ASSERT_EQ(h.rows.rows.size(), 3u);
  EXPECT_EQ(h.rows.str(0, "text"), "permission setting: alwaysAllowExecute=false (from " + where + ", file mtime)");
  EXPECT_EQ(h.rows.str(1, "text"), "permission setting: allowedMaxCost=1.5 (from " + where + ", file mtime)");
  EXPECT_EQ(h.rows.str(2, "text"), "permission setting: allowedMaxRequests=20 (from " + where + ", file mtime)");
  EXPECT_EQ(h.rows.str(2, "setting_source"), where);
}

// "Sync, relay and origin rows": unset (defaults to true) when the cache lacks the key; no cache, no sync row.
TEST(GlobalState, TaskSyncUnsetWhenTheCacheLacksTheKey) {
  StoreHarness h;
  run(h, "global-state.json", kGsPath,
      R"({"organization-settings":{"cloudSettings":{"recordTaskMessages":false,"taskShareExpirationDays":30,"workspaceTaskVisibility":"all","allowPublicTaskSharing":null}}})",
      parse_global_state_file);
  const std::string cache = std::string(" (from ") + kGsPath + ", Roo Code Cloud settings cache, file mtime)";
  ASSERT_EQ(h.rows.rows.size(), 4u);
  EXPECT_EQ(h.rows.str(0, "text"), "sync setting: user-settings.settings.taskSyncEnabled=unset (defaults to true)" + cache);
  EXPECT_TRUE(h.rows.rows[0]["setting_unset"].GetBool());
  EXPECT_FALSE(h.rows.rows[0].HasMember("setting_value"));
  EXPECT_EQ(h.rows.str(1, "text"), "sync setting: organization-settings.cloudSettings.recordTaskMessages=false" + cache);
  EXPECT_EQ(h.rows.str(2, "text"), "sync setting: organization-settings.cloudSettings.taskShareExpirationDays=30" + cache);
  EXPECT_EQ(h.rows.str(3, "text"), "sync setting: organization-settings.cloudSettings.workspaceTaskVisibility=all" + cache);

  StoreHarness h2;
  run(h2, "global-state.json", kGsPath, R"({"user-settings":{"features":{},"settings":{},"version":3}})",
      parse_global_state_file);
  ASSERT_EQ(h2.rows.rows.size(), 1u);
  EXPECT_EQ(h2.rows.str(0, "text"), "sync setting: user-settings.settings.taskSyncEnabled=unset (defaults to true)" + cache);

  StoreHarness h3;
  run(h3, "global-state.json", kGsPath, R"({"telemetrySetting":"enabled","enableCheckpoints":false})",
      parse_global_state_file);
  EXPECT_TRUE(h3.rows.rows.empty());
}

TEST(GlobalState, TaskHistoryIsReturnedNotEmitted) {
  StoreHarness h;
  GlobalStateResult res = run(h, "global-state.json", kGsPath,
                              R"({"taskHistory":[{"id":"8f1c2b7e-1","number":1,"ts":1760000000000,"task":"fix tests","mode":"code"},5],"mode":"code"})",
                              parse_global_state_file);
  ASSERT_EQ(res.task_history.size(), 1u);
  EXPECT_EQ(res.task_history[0].record_index, 0);
  EXPECT_EQ(res.task_history[0].item.id, std::optional<std::string>("8f1c2b7e-1"));
  EXPECT_EQ(res.task_history[0].item.task, std::optional<std::string>("fix tests"));
  ASSERT_EQ(h.rows.rows.size(), 2u);
  EXPECT_EQ(h.rows.str(0, "text"), "parser: unparseable record 2 (not a JSON object): 5");
  EXPECT_EQ(h.rows.str(1, "kind"), "permission_setting");
}

const char* kGlobalStateSecrets =
    R"({"rooApiKey":"rk-PLANTED-6","apiProvider":"roo","awsUseApiKey":true,"openAiHeaders":{"Authorization":"Bearer oah-PLANTED-8","X-Title":"Roo"},)"
    R"("clerk-auth-credentials":"{\"clientToken\":\"clerk-PLANTED-5\",\"sessionId\":\"sess_1\"}","alwaysAllowExecute":true,"allowedCommands":["git status","npm test"],"openRouterApiKey":""})";

TEST(GlobalState, CredentialsAreNamedNeverShown) {
  for (bool native : {false, true}) {
    StoreHarness h;
    run(h, "global-state.json", kGsPath, kGlobalStateSecrets, parse_global_state_file, native);
    ASSERT_EQ(h.rows.rows.size(), 6u);
    EXPECT_EQ(h.rows.str(0, "text"), std::string("credential present: rooApiKey (from ") + kGsPath + ")");
    EXPECT_EQ(h.rows.str(0, "kind"), "credential_present");
    EXPECT_EQ(h.rows.str(0, "credential_key"), "rooApiKey");
    EXPECT_EQ(h.rows.str(0, "credential_location"), kGsPath);
    EXPECT_EQ(h.rows.str(1, "credential_key"), "openAiHeaders.Authorization");
    EXPECT_EQ(h.rows.str(2, "credential_key"), "clerk-auth-credentials");
    EXPECT_EQ(h.rows.str(3, "text"), std::string("permission setting: alwaysAllowExecute=true (from ") + kGsPath +
                                         ", file mtime)");
    // awsUseApiKey (a flag) and an empty openRouterApiKey hold no credential: no row.
    for (size_t i = 0; i < 3; ++i) EXPECT_FALSE(h.rows.rows[i].HasMember("native"));
    if (native) {
      EXPECT_EQ(h.rows.str(3, "native"), R"({"alwaysAllowExecute":true})");
      EXPECT_EQ(h.rows.str(4, "native"), R"({"allowedCommands":"git status"})");
      EXPECT_EQ(h.rows.str(5, "native"), R"({"allowedCommands":"npm test"})");
    } else {
      EXPECT_FALSE(h.rows.rows[3].HasMember("native"));
    }
    expect_no_secret(h.rows, {"rk-PLANTED-6", "clerk-PLANTED-5", "oah-PLANTED-8", "sess_1"});
  }
}

// --- workspace-state.json -------------------------------------------------------------------------------------

const char* kWsPath = "/home/u/.vscode-mock/workspace-storage/3f2a/workspace-state.json";
// A CLI workspace-state.json holding one queued Roo Code Cloud upload of a task message (docs/roo-format.md §7.2).
const char* kWorkspaceStateFixture =
    R"({"roo.retryQueue":[{"id":"1760000000500-abc123def","url":"https://app.roocode.com/api/events","options":{"method":"POST","body":"{\"type\":\"Task Message\",\"properties\":{\"taskId\":\"8f1c2b7e-1\",\"message\":{}}}","headers":{"Authorization":"Bearer <token>","Content-Type":"application/json"}},"timestamp":1760000000500,"retryCount":2,"type":"telemetry","lastError":"fetch failed"}]})";

TEST(WorkspaceState, SeedFixtureGivesOneQueuedUploadRow) {
  StoreHarness h;
  run(h, "workspace-state.json", kWsPath, kWorkspaceStateFixture, parse_workspace_state_file);
  ASSERT_EQ(h.rows.rows.size(), 2u);
  EXPECT_EQ(h.rows.str(0, "kind"), "cloud_upload_queued");
  EXPECT_EQ(h.rows.str(0, "text"),
            std::string("cloud upload queued: Task Message task=8f1c2b7e-1 type=telemetry retries=2 "
                        "url=https://app.roocode.com/api/events lastError=fetch failed (Roo Code Cloud retry queue, "
                        "from ") + kWsPath + " roo.retryQueue, request timestamp)");
  EXPECT_EQ(h.rows.str(0, "time_utc"), "2025-10-09T08:53:20.500Z");
  EXPECT_EQ(h.rows.str(0, "time_source"), "retry_queue.timestamp");
  EXPECT_EQ(h.rows.str(0, "task_id"), "8f1c2b7e-1");
  EXPECT_TRUE(h.rows.rows[0]["session_id"].IsNull());
  EXPECT_EQ(h.rows.str(0, "event_type"), "Task Message");
  EXPECT_EQ(h.rows.str(0, "request_type"), "telemetry");
  EXPECT_EQ(h.rows.rows[0]["retry_count"].GetInt(), 2);
  EXPECT_EQ(h.rows.str(0, "last_error"), "fetch failed");
  EXPECT_EQ(h.rows.src(0)["record_index"].GetInt(), 0);
  EXPECT_EQ(h.rows.str(1, "kind"), "credential_present");
  EXPECT_EQ(h.rows.str(1, "text"),
            std::string("credential present: roo.retryQueue[0].options.headers.Authorization (from ") + kWsPath + ")");
  expect_no_secret(h.rows, {"<token>", "Bearer", "properties"});
}

TEST(WorkspaceState, OperationThenDashWhenNoEventTypeAndBodyNeverWritten) {
  for (bool native : {false, true}) {
    StoreHarness h;
    run(h, "workspace-state.json", kWsPath,
        R"({"roo.retryQueue":[{"id":"1","url":"https://app.roocode.com/api/x","options":{"body":"{\"message\":\"MSG-PLANTED-9\"}","headers":{"Authorization":"Bearer bt-PLANTED-10"}},"timestamp":1760000001000,"retryCount":0,"type":"settings","operation":"updateSettings"},)"
        R"({"url":"u","options":{"body":"not json MSG-PLANTED-9"}},"x"]})",
        parse_workspace_state_file, native);
    ASSERT_EQ(h.rows.rows.size(), 4u);
    EXPECT_EQ(h.rows.str(0, "text"),
              std::string("cloud upload queued: updateSettings task=- type=settings retries=0 url=https://app.roocode.com/api/x "
                          "(Roo Code Cloud retry queue, from ") + kWsPath + " roo.retryQueue, request timestamp)");
    EXPECT_EQ(h.rows.str(1, "kind"), "credential_present");
    EXPECT_EQ(h.rows.str(2, "text"), std::string("cloud upload queued: - task=- type=- retries=- url=u (Roo Code Cloud "
                                                 "retry queue, from ") + kWsPath + " roo.retryQueue, request timestamp)");
    EXPECT_EQ(h.rows.str(2, "time_source"), "none");  // no request timestamp: no time
    EXPECT_EQ(h.rows.str(3, "text"), "parser: unparseable record 3 (not a JSON object): \"x\"");
    if (native) {
      EXPECT_EQ(h.rows.str(0, "native"),
                R"({"id":"1","url":"https://app.roocode.com/api/x","timestamp":1760000001000,"retryCount":0,"type":"settings","operation":"updateSettings"})");
    }
    EXPECT_FALSE(h.rows.rows[1].HasMember("native"));
    expect_no_secret(h.rows, {"MSG-PLANTED-9", "bt-PLANTED-10", "Bearer"});
  }
}

// --- mcp_settings.json ------------------------------------------------------------------------------------------

const char* kMcpPath = "/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json";

TEST(McpSettings, SeedFixtureGivesAlwaysAllowRowsAndNamesTheEnvKey) {
  StoreHarness h;
  // A settings/mcp_settings.json with one stdio server, an env secret and two always-allowed tools.
  run(h, "mcp_settings.json", kMcpPath,
      R"({"mcpServers":{"github":{"command":"npx","env":{"GITHUB_TOKEN":"<token>"},"alwaysAllow":["list_issues","get_issue"]}}})",
      parse_mcp_settings);
  ASSERT_EQ(h.rows.rows.size(), 4u);
  EXPECT_EQ(h.rows.str(0, "kind"), "mcp_server");
  EXPECT_EQ(h.rows.str(0, "text"), "mcp server: github npx");
  EXPECT_EQ(h.rows.str(0, "mcp_server"), "github");
  EXPECT_EQ(h.rows.str(0, "command"), "npx");
  EXPECT_EQ(h.rows.str(1, "kind"), "mcp_always_allow");
  EXPECT_EQ(h.rows.str(1, "text"),
            std::string("permission setting: mcpServers.github.alwaysAllow=list_issues (from ") + kMcpPath +
                ", file mtime)");
  EXPECT_EQ(h.rows.str(2, "text"),
            std::string("permission setting: mcpServers.github.alwaysAllow=get_issue (from ") + kMcpPath +
                ", file mtime)");
  EXPECT_EQ(h.rows.str(2, "mcp_tool"), "get_issue");
  EXPECT_EQ(h.rows.str(2, "time_utc"), kMtime);
  EXPECT_EQ(h.rows.str(3, "text"),
            std::string("credential present: mcpServers.github.env.GITHUB_TOKEN (from ") + kMcpPath + ")");
  expect_no_secret(h.rows, {"<token>"});
}

TEST(McpSettings, RemoteServerHeadersAreNamedNeverShown) {
  for (bool native : {false, true}) {
    StoreHarness h;
    run(h, "mcp.json", "/home/u/proj/.roo/mcp.json",
        R"({"mcpServers":{"ctx":{"type":"streamable-http","url":"https://mcp.example/x","headers":{"Authorization":"Bearer ghp_PLANTED"},"disabled":true},)"
        R"("fs":{"command":"node","args":["srv.js","--root","/tmp"],"env":{"API_KEY":"sk-test-SECRET-1"},"alwaysAllow":["*"]}}})",
        parse_mcp_settings, native);
    ASSERT_EQ(h.rows.rows.size(), 5u);
    EXPECT_EQ(h.rows.str(0, "text"), "mcp server: ctx https://mcp.example/x");
    EXPECT_EQ(h.rows.str(0, "server_type"), "streamable-http");
    EXPECT_TRUE(h.rows.rows[0]["disabled"].GetBool());
    EXPECT_EQ(h.rows.str(1, "text"),
              "credential present: mcpServers.ctx.headers.Authorization (from /home/u/proj/.roo/mcp.json)");
    EXPECT_EQ(h.rows.str(2, "text"), "mcp server: fs node");
    EXPECT_EQ(h.rows.rows[2]["args"].Size(), 3u);
    EXPECT_EQ(h.rows.str(3, "text"),
              "permission setting: mcpServers.fs.alwaysAllow=* (from /home/u/proj/.roo/mcp.json, file mtime)");
    EXPECT_EQ(h.rows.str(4, "credential_key"), "mcpServers.fs.env.API_KEY");
    expect_no_secret(h.rows, {"ghp_PLANTED", "sk-test-SECRET-1"});
  }
}

// docs/row-contract.md, "Secrets in an MCP server's command line and url": a value after a secret flag, in
// --flag=VALUE or NAME=VALUE, in an auth header arg, in a URL's user info or secret query/fragment parameter is
// shown as <redacted> and named by a credential_present row, in text, fields and native alike.
TEST(McpSettings, SecretsInArgsAndUrlAreRedactedAndNamed) {
  const std::string bytes =
      R"({"mcpServers":{"remote":{"command":"npx","args":["-y","mcp-remote","https://mcp.example/sse?token=PLANTED-q1&team=core",)"
      R"("--header","Authorization: Bearer PLANTED-h2","--api-key","PLANTED-a3","--token=PLANTED-t4","-e","GITHUB_TOKEN=PLANTED-e5",)"
      R"("--port","8080","-k"],"alwaysAllow":["fetch"]},)"
      R"("win":{"command":"cmd","args":["/c","npx -y srv  --password PLANTED-p6 --verbose"]},)"
      R"("http":{"type":"streamable-http","url":"https://user:PLANTED-u7@mcp.example/mcp?api_key=PLANTED-k8&sig=PLANTED-s9#access_token=PLANTED-f10",)"
      R"("headers":{"X-Api-Key":"PLANTED-x11"}}}})";
  for (bool native : {false, true}) {
    StoreHarness h;
    run(h, "mcp_settings.json", kMcpPath, bytes, parse_mcp_settings, native);
    const std::string from = std::string(" (from ") + kMcpPath + ")";
    const std::vector<std::pair<std::string, std::string>> want = {
        {"mcp_server", "mcp server: remote npx"},
        {"mcp_always_allow", std::string("permission setting: mcpServers.remote.alwaysAllow=fetch (from ") + kMcpPath +
                                 ", file mtime)"},
        {"credential_present", "credential present: mcpServers.remote.args.token" + from},
        {"credential_present", "credential present: mcpServers.remote.args.Authorization" + from},
        {"credential_present", "credential present: mcpServers.remote.args.--api-key" + from},
        {"credential_present", "credential present: mcpServers.remote.args.--token" + from},
        {"credential_present", "credential present: mcpServers.remote.args.GITHUB_TOKEN" + from},
        {"mcp_server", "mcp server: win cmd"},
        {"credential_present", "credential present: mcpServers.win.args.--password" + from},
        {"mcp_server",
         "mcp server: http https://user:<redacted>@mcp.example/mcp?api_key=<redacted>&sig=<redacted>"
         "#access_token=<redacted>"},
        {"credential_present", "credential present: mcpServers.http.url.userinfo" + from},
        {"credential_present", "credential present: mcpServers.http.url.api_key" + from},
        {"credential_present", "credential present: mcpServers.http.url.sig" + from},
        {"credential_present", "credential present: mcpServers.http.url.access_token" + from},
        {"credential_present", "credential present: mcpServers.http.headers.X-Api-Key" + from},
    };
    ASSERT_EQ(h.rows.rows.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(h.rows.str(i, "kind"), want[i].first) << i;
      EXPECT_EQ(h.rows.str(i, "text"), want[i].second) << i;
    }
    const char* remote_args =
        R"(["-y","mcp-remote","https://mcp.example/sse?token=<redacted>&team=core","--header","Authorization: <redacted>",)"
        R"("--api-key","<redacted>","--token=<redacted>","-e","GITHUB_TOKEN=<redacted>","--port","8080","-k"])";
    EXPECT_NE(h.rows.lines[0].find(std::string("\"args\":") + remote_args), std::string::npos) << h.rows.lines[0];
    EXPECT_NE(h.rows.lines[7].find(R"("args":["/c","npx -y srv  --password <redacted> --verbose"])"), std::string::npos)
        << h.rows.lines[7];
    EXPECT_EQ(h.rows.str(9, "url"),
              "https://user:<redacted>@mcp.example/mcp?api_key=<redacted>&sig=<redacted>#access_token=<redacted>");
    EXPECT_EQ(h.rows.str(2, "mcp_server"), "remote");
    if (native) {
      EXPECT_EQ(h.rows.str(0, "native"),
                std::string(R"({"command":"npx","args":)") + remote_args + R"(,"alwaysAllow":["fetch"]})");
      EXPECT_EQ(h.rows.str(9, "native"),
                R"({"type":"streamable-http","url":"https://user:<redacted>@mcp.example/mcp?api_key=<redacted>)"
                R"(&sig=<redacted>#access_token=<redacted>"})");
    }
    expect_no_secret(h.rows, {"PLANTED"});
  }
}

// The rule takes only what it names: other flags, a secret flag with no value after it (the next word is another
// flag, or there is none), a --keyfile path, a one-letter flag, a URL without secret parameters stay as written.
TEST(McpSettings, OrdinaryArgsAreKeptAsWritten) {
  StoreHarness h;
  const char* args =
      R"(["--root","/srv/data","--keyfile","/etc/mcp/key.pem","-k","x","--auth","--verbose","--url=https://h.example/a?b=c","--token"])";
  run(h, "mcp.json", "/home/u/proj/.roo/mcp.json",
      std::string(R"({"mcpServers":{"fs":{"command":"node srv.js --port 3000","args":)") + args +
          R"(,"url":"https://mcp.example/mcp?team=core&keyboard=1"}}})",
      parse_mcp_settings);
  ASSERT_EQ(h.rows.rows.size(), 1u);
  EXPECT_EQ(h.rows.str(0, "text"), "mcp server: fs node srv.js --port 3000");
  EXPECT_NE(h.rows.lines[0].find(std::string("\"args\":") + args), std::string::npos) << h.rows.lines[0];
  EXPECT_EQ(h.rows.str(0, "url"), "https://mcp.example/mcp?team=core&keyboard=1");
}

// "Bad-line rows": a store that is not a JSON object is one row. Roo reads these files with JSON.parse, so a
// hand edit with a comment is not JSON either.
TEST(McpSettings, NotAJsonObjectIsOneRow) {
  StoreHarness h;
  run(h, "mcp_settings.json", kMcpPath, "[1,2]", parse_mcp_settings);
  run(h, "mcp_settings.json", kMcpPath, "{\n  // github\n  \"mcpServers\": {}\n}", parse_mcp_settings);
  ASSERT_EQ(h.rows.rows.size(), 2u);
  EXPECT_EQ(h.rows.str(0, "text"), "parser: mcp_settings.json is not a JSON object");
  EXPECT_EQ(h.rows.str(1, "text").rfind("parser: mcp_settings.json is not a JSON object (", 0), 0u);
  EXPECT_EQ(h.rows.str(1, "kind"), "parser_error");
}

TEST(ConfigStores, EveryStoreThatIsNotAnObjectGivesItsRow) {
  StoreHarness h;
  run(h, "global-state.json", kGsPath, "[]", parse_global_state_file);
  run(h, "workspace-state.json", kWsPath, "\"x\"", parse_workspace_state_file);
  run(h, "cli-settings.json", "/home/u/.roo/cli-settings.json", "{\"mode\":", parse_cli_settings);
  run(h, "cli-credentials.json", "/home/u/.roo/cli-credentials.json", "7", parse_cli_credentials);
  run(h, "secrets.json", "/home/u/.vscode-mock/global-storage/secrets.json", "null", parse_cli_secrets);
  ASSERT_EQ(h.rows.rows.size(), 5u);
  EXPECT_EQ(h.rows.str(0, "text"), "parser: global-state.json is not a JSON object");
  EXPECT_EQ(h.rows.str(1, "text"), "parser: workspace-state.json is not a JSON object");
  EXPECT_EQ(h.rows.str(2, "text").rfind("parser: cli-settings.json is not a JSON object (", 0), 0u);
  EXPECT_EQ(h.rows.str(3, "text"), "parser: cli-credentials.json is not a JSON object");
  EXPECT_EQ(h.rows.str(4, "text"), "parser: secrets.json is not a JSON object");
}

// --- ~/.roo/cli-settings.json ---------------------------------------------------------------------------------

TEST(CliSettings, SeedFixtureGivesPermissionAndCliSettingRows) {
  StoreHarness h;
  const std::string path = "/home/u/.roo/cli-settings.json";
  // A ~/.roo/cli-settings.json with a mode, a provider and requireApproval.
  run(h, "cli-settings.json", path, R"({"mode":"code","provider":"anthropic","requireApproval":true})",
      parse_cli_settings);
  ASSERT_EQ(h.rows.rows.size(), 3u);
  EXPECT_EQ(h.rows.str(0, "kind"), "permission_setting");
  EXPECT_EQ(h.rows.str(0, "text"), "permission setting: mode=code (from " + path + ", file mtime)");
  EXPECT_EQ(h.rows.str(1, "kind"), "cli_setting");
  EXPECT_EQ(h.rows.str(1, "text"), "cli setting: provider=anthropic (from " + path + ", file mtime)");
  EXPECT_EQ(h.rows.str(2, "kind"), "permission_setting");
  EXPECT_EQ(h.rows.str(2, "text"), "permission setting: requireApproval=true (from " + path + ", file mtime)");
  EXPECT_EQ(h.rows.str(2, "time_utc"), kMtime);
  EXPECT_EQ(h.rows.src(0)["part_index"].GetInt(), 0);
  EXPECT_EQ(h.rows.src(2)["part_index"].GetInt(), 1);
}

TEST(CliSettings, OlderKeysAndNoMtime) {
  StoreHarness h;
  h.source.file.mtime.reset();
  const std::string path = "/home/u/.roo/cli-settings.json";
  run(h, "cli-settings.json", path,
      R"({"dangerouslySkipPermissions":false,"oneshot":true,"consecutiveMistakeLimit":3,"model":"claude-sonnet-4-5"})",
      parse_cli_settings);
  ASSERT_EQ(h.rows.rows.size(), 4u);
  EXPECT_EQ(h.rows.str(0, "text"), "permission setting: dangerouslySkipPermissions=false (from " + path + ", file mtime)");
  EXPECT_EQ(h.rows.str(1, "text"), "cli setting: oneshot=true (from " + path + ", file mtime)");
  EXPECT_EQ(h.rows.str(2, "text"), "cli setting: consecutiveMistakeLimit=3 (from " + path + ", file mtime)");
  EXPECT_EQ(h.rows.str(3, "setting_value"), "claude-sonnet-4-5");
  EXPECT_TRUE(h.rows.rows[0]["time_utc"].IsNull());  // the file has no mtime: no time
  EXPECT_EQ(h.rows.str(0, "time_source"), "none");
}

// --- ~/.roo/cli-credentials.json --------------------------------------------------------------------------------

TEST(CliCredentials, TokenRowTimedByCreatedAtWithIds) {
  for (bool native : {false, true}) {
    StoreHarness h;
    const std::string path = "/home/u/.roo/cli-credentials.json";
    run(h, "cli-credentials.json", path,
        R"({"token":"ghp_PLANTED","createdAt":"2026-04-01T12:00:00.000Z","userId":"user_1","orgId":"org_2","apiKeys":{"openrouter":"sk-test-SECRET-1","anthropic":""}})",
        parse_cli_credentials, native);
    ASSERT_EQ(h.rows.rows.size(), 2u);
    EXPECT_EQ(h.rows.str(0, "text"), "credential present: token (from " + path + ")");
    EXPECT_EQ(h.rows.str(0, "time_utc"), "2026-04-01T12:00:00.000Z");
    EXPECT_EQ(h.rows.str(0, "time_source"), "cli_credentials.createdAt");
    EXPECT_EQ(h.rows.str(0, "created_at"), "2026-04-01T12:00:00.000Z");
    EXPECT_EQ(h.rows.str(0, "user_id"), "user_1");
    EXPECT_EQ(h.rows.str(0, "org_id"), "org_2");
    EXPECT_EQ(h.rows.str(1, "text"), "credential present: apiKeys.openrouter (from " + path + ")");
    EXPECT_EQ(h.rows.str(1, "time_source"), "file.mtime");
    for (size_t i = 0; i < 2; ++i) EXPECT_FALSE(h.rows.rows[i].HasMember("native"));
    expect_no_secret(h.rows, {"ghp_PLANTED", "sk-test-SECRET-1"});
  }
}

TEST(CliCredentials, UnreadableCreatedAtFallsBackToMtime) {
  StoreHarness h;
  run(h, "cli-credentials.json", "/home/u/.roo/cli-credentials.json",
      R"({"token":"ghp_PLANTED","createdAt":"2026-02-30T12:00:00.000Z"})", parse_cli_credentials);
  ASSERT_EQ(h.rows.rows.size(), 1u);
  EXPECT_EQ(h.rows.str(0, "time_utc"), kMtime);
  EXPECT_EQ(h.rows.str(0, "time_source"), "file.mtime");
  EXPECT_EQ(h.rows.str(0, "created_at"), "2026-02-30T12:00:00.000Z");
}

// --- ~/.vscode-mock/global-storage/secrets.json -------------------------------------------------------------

const char* kSecretsPath = "/home/u/.vscode-mock/global-storage/secrets.json";
// docs/roo-format.md §8, §10: the provider profiles are a JSON string holding JSON.
const char* kSecrets =
    R"({"openRouterApiKey":"sk-test-SECRET-1","roo_cline_config_api_config":"{\n  \"currentApiConfigName\": \"default\",\n  \"apiConfigs\": {\"default\": {\"id\": \"k3v9q2m7x1p4z\", \"apiProvider\": \"openrouter\", \"openRouterApiKey\": \"sk-or-PLANTED-2\", \"openRouterModelId\": \"anthropic/claude-sonnet-4.5\", \"openAiHeaders\": {\"Authorization\": \"Bearer hdr-PLANTED-3\"}},)"
    R"( \"work\": {\"id\": \"abc\", \"apiProvider\": \"anthropic\", \"apiKey\": \"sk-ant-PLANTED-4\", \"apiModelId\": \"claude-sonnet-4-5\", \"awsUseApiKey\": true}},\n  \"modeApiConfigs\": {\"code\": \"k3v9q2m7x1p4z\"}\n}",)"
    R"("clerk-auth-credentials":"{\"clientToken\":\"clerk-PLANTED-5\",\"sessionId\":\"sess_1\"}"})";

TEST(CliSecrets, ProfilesAndKeysAreNamedNeverShown) {
  for (bool native : {false, true}) {
    StoreHarness h;
    run(h, "secrets.json", kSecretsPath, kSecrets, parse_cli_secrets, native);
    const std::string inner = std::string(" (from ") + kSecretsPath + " roo_cline_config_api_config)";
    ASSERT_EQ(h.rows.rows.size(), 7u);
    EXPECT_EQ(h.rows.str(0, "text"), std::string("credential present: openRouterApiKey (from ") + kSecretsPath + ")");
    EXPECT_EQ(h.rows.str(1, "kind"), "provider_profile");
    EXPECT_EQ(h.rows.str(1, "text"),
              std::string("provider profile: default provider=openrouter model=anthropic/claude-sonnet-4.5 (from ") +
                  kSecretsPath + ")");
    EXPECT_EQ(h.rows.str(1, "profile_id"), "k3v9q2m7x1p4z");
    EXPECT_EQ(h.rows.str(1, "api_provider"), "openrouter");
    EXPECT_EQ(h.rows.str(1, "model_id"), "anthropic/claude-sonnet-4.5");
    EXPECT_TRUE(h.rows.rows[1]["current"].GetBool());
    EXPECT_EQ(h.rows.str(2, "text"), "credential present: apiConfigs.default.openRouterApiKey" + inner);
    EXPECT_EQ(h.rows.str(2, "provider"), "openrouter");
    EXPECT_EQ(h.rows.str(2, "profile_name"), "default");
    EXPECT_EQ(h.rows.str(3, "text"), "credential present: apiConfigs.default.openAiHeaders.Authorization" + inner);
    EXPECT_EQ(h.rows.str(4, "text"),
              std::string("provider profile: work provider=anthropic model=claude-sonnet-4-5 (from ") + kSecretsPath + ")");
    EXPECT_FALSE(h.rows.rows[4]["current"].GetBool());
    EXPECT_EQ(h.rows.str(5, "text"), "credential present: apiConfigs.work.apiKey" + inner);
    EXPECT_EQ(h.rows.str(6, "credential_key"), "clerk-auth-credentials");
    for (size_t i : {0, 2, 3, 5, 6}) EXPECT_FALSE(h.rows.rows[i].HasMember("native"));
    if (native) {
      EXPECT_EQ(h.rows.str(1, "native"),
                R"({"id":"k3v9q2m7x1p4z","apiProvider":"openrouter","openRouterModelId":"anthropic/claude-sonnet-4.5"})");
    }
    expect_no_secret(h.rows, {"sk-test-SECRET-1", "sk-or-PLANTED-2", "hdr-PLANTED-3", "sk-ant-PLANTED-4",
                              "clerk-PLANTED-5", "Bearer"});
  }
}

TEST(CliSecrets, BadProfileJsonIsReportedWithoutEchoingIt) {
  StoreHarness h;
  run(h, "secrets.json", kSecretsPath, R"({"roo_cline_config_api_config":"{\"apiConfigs\":{\"a\":{\"apiKey\":\"sk-test-SECRET-1\""})",
      parse_cli_secrets);
  ASSERT_EQ(h.rows.rows.size(), 1u);
  EXPECT_EQ(h.rows.str(0, "text"), "parser: secrets.json roo_cline_config_api_config is not a JSON object");
  expect_no_secret(h.rows, {"sk-test-SECRET-1"});
}

// --- ~/.roo/cli-history.json ----------------------------------------------------------------------------------

const char* kHistPath = "/home/u/.roo/cli-history.json";

std::vector<std::string> texts(const CliHistory& hist) {
  std::vector<std::string> out;
  for (const auto& e : hist.entries) out.push_back(e.text);
  return out;
}

TEST(CliHistory, EntriesAreUserRowsWithoutTime) {
  StoreHarness h;
  // docs/roo-format.md §6: tab-indented {"version":1,"entries":[…]}, oldest first.
  CliHistory hist = run(h, "cli-history.json", kHistPath,
                        "{\n\t\"version\": 1,\n\t\"entries\": [\n\t\t\"explain the project layout\",\n\t\t\"/new\"\n\t]\n}",
                        parse_cli_history);
  EXPECT_TRUE(h.rows.rows.empty());  // the caller decides which entries to keep
  ASSERT_EQ(texts(hist), (std::vector<std::string>{"explain the project layout", "/new"}));
  const ParseContext ctx = h.at("cli-history.json", kHistPath);
  for (const auto& e : hist.entries) emit_cli_history_row(e, ctx);
  ASSERT_EQ(h.rows.rows.size(), 2u);
  EXPECT_EQ(h.rows.str(0, "kind"), "cli_history");
  EXPECT_EQ(h.rows.str(0, "role"), "user");
  EXPECT_EQ(h.rows.str(0, "text"), "explain the project layout");
  EXPECT_TRUE(h.rows.rows[0]["time_utc"].IsNull());
  EXPECT_EQ(h.rows.str(0, "time_source"), "none");
  EXPECT_TRUE(h.rows.rows[0]["session_id"].IsNull());
  EXPECT_TRUE(h.rows.rows[0]["project_path"].IsNull());
  EXPECT_EQ(h.rows.src(1)["record_index"].GetInt(), 1);
}

// "Bad-line rows": a cli-history.json cut mid-write gives the entries before the cut and one system row for the
// cut.
TEST(CliHistory, CutFileKeepsTheEntriesBeforeTheCut) {
  StoreHarness h;
  CliHistory hist = run(h, "cli-history.json", kHistPath,
                        "{\n\t\"version\": 1,\n\t\"entries\": [\n\t\t\"explain the project layout\",\n\t\t\"list the "
                        "TODO comments in src\",\n\t\t\"/ne",
                        parse_cli_history);
  EXPECT_EQ(texts(hist), (std::vector<std::string>{"explain the project layout", "list the TODO comments in src"}));
  ASSERT_EQ(h.rows.rows.size(), 1u);
  EXPECT_EQ(h.rows.str(0, "kind"), "parser_error");
  EXPECT_EQ(h.rows.str(0, "role"), "system");
  EXPECT_EQ(h.rows.str(0, "text"), "parser: array cut off after record 2");

  StoreHarness h2;  // cut right after a comma
  hist = run(h2, "cli-history.json", kHistPath, R"({"version":1,"entries":["a",)", parse_cli_history);
  EXPECT_EQ(texts(hist), (std::vector<std::string>{"a"}));
  ASSERT_EQ(h2.rows.rows.size(), 1u);
  EXPECT_EQ(h2.rows.str(0, "text"), "parser: array cut off after record 1");

  StoreHarness h3;  // cut after the array closed: every entry is whole, the object is not
  hist = run(h3, "cli-history.json", kHistPath, R"({"version":1,"entries":["a","b"])", parse_cli_history);
  EXPECT_EQ(texts(hist), (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(h3.rows.rows.size(), 1u);
  EXPECT_EQ(h3.rows.str(0, "text").rfind("parser: cli-history.json is not a JSON object (", 0), 0u);
}

TEST(CliHistory, NonStringAndUnparseableEntries) {
  StoreHarness h;
  CliHistory hist = run(h, "cli-history.json", kHistPath, R"({"version":1,"entries":["a",5,tru,{"x":1},"b"]})",
                        parse_cli_history);
  EXPECT_EQ(texts(hist), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(hist.entries[1].record_index, 4);
  ASSERT_EQ(h.rows.rows.size(), 3u);
  EXPECT_EQ(h.rows.str(0, "text"), "parser: unparseable record 2 (not a string): 5");
  EXPECT_EQ(h.rows.str(1, "text").rfind("parser: unparseable record 3 (", 0), 0u);
  EXPECT_EQ(h.rows.str(2, "text"), R"(parser: unparseable record 4 (not a string): {"x":1})");
  EXPECT_EQ(h.rows.src(2)["record_index"].GetInt(), 3);
}

TEST(CliHistory, NotAnObjectOrNoEntries) {
  StoreHarness h;
  run(h, "cli-history.json", kHistPath, R"(["a"])", parse_cli_history);
  run(h, "cli-history.json", kHistPath, R"({"version":1})", parse_cli_history);
  run(h, "cli-history.json", kHistPath, "", parse_cli_history);
  ASSERT_EQ(h.rows.rows.size(), 3u);
  EXPECT_EQ(h.rows.str(0, "text"), "parser: cli-history.json is not a JSON object");
  EXPECT_EQ(h.rows.str(1, "text"), "parser: cli-history.json has no entries array");
  EXPECT_EQ(h.rows.str(2, "text"), "parser: cli-history.json is empty");
}

// --- ~/.roo/cli-debug.log -------------------------------------------------------------------------------------

const char* kDebugLogPath = "/home/u/.roo/cli-debug.log";

// docs/row-contract.md "CLI debug log": entries in debugLog's format (packages/core/src/debug-log/index.ts v3.52.1:
// "[<ISO>] <message>" or "[<ISO>] <message>: <JSON.stringify(data, null, 2)>"); a line with no leading time continues
// the entry before it, and bytes before the first entry are a bad record.
TEST(CliDebugLog, OneRowPerEntryTimedByItsIsoTime) {
  StoreHarness h;
  ParseStats st = run(h, "cli-debug.log", kDebugLogPath,
                      "}\n"
                      "[2026-04-02T09:15:01.003Z] [MessageProcessor] EMIT streamingStarted\n"
                      "[2026-04-02T09:15:04.480Z] [MessageProcessor] State update: {\n"
                      "  \"lastMessage\": {\n"
                      "    \"textPreview\": \"Fix the login test\"\n"
                      "  }\n"
                      "}\n"
                      "[2026-04-02T09:15:06.000Z] [Task#019d4f10-2b3c.ab12] WARN: stream failed\n"
                      "[2026-13-02T09:15:06.000Z] not a time: part of the entry before",
                      parse_cli_debug_log);
  ASSERT_EQ(h.rows.rows.size(), 4u);
  EXPECT_EQ(st.records, 4);
  EXPECT_EQ(st.errors, 1);
  EXPECT_EQ(h.rows.str(0, "kind"), "parser_error");
  EXPECT_EQ(h.rows.str(0, "text"), "parser: unparseable record 1 (no [ISO time] at its start): }");
  EXPECT_EQ(h.rows.str(1, "kind"), "cli_debug_log");
  EXPECT_EQ(h.rows.str(1, "time_utc"), "2026-04-02T09:15:01.003Z");
  EXPECT_EQ(h.rows.str(1, "time_source"), "cli_debug_log.time");
  EXPECT_EQ(h.rows.str(1, "text"), "[MessageProcessor] EMIT streamingStarted");
  EXPECT_EQ(h.rows.str(1, "component"), "MessageProcessor");
  EXPECT_EQ(h.rows.src(1)["record_index"].GetInt(), 1);
  EXPECT_EQ(h.rows.src(1)["byte_offset"].GetInt(), 2);
  EXPECT_EQ(h.rows.src(1)["byte_length"].GetInt(), 68);
  EXPECT_EQ(h.rows.str(2, "text"),
            "[MessageProcessor] State update: {\n  \"lastMessage\": {\n    \"textPreview\": \"Fix the login test\"\n"
            "  }\n}");
  EXPECT_EQ(h.rows.str(2, "text_preview"), "Fix the login test");
  EXPECT_EQ(h.rows.str(2, "task_id"), "<absent>");
  EXPECT_EQ(h.rows.str(3, "task_id"), "019d4f10-2b3c");
  EXPECT_EQ(h.rows.str(3, "level"), "warn");
  EXPECT_EQ(h.rows.str(3, "component"), "Task#019d4f10-2b3c.ab12");
  EXPECT_EQ(h.rows.str(3, "text"),
            "[Task#019d4f10-2b3c.ab12] WARN: stream failed\n[2026-13-02T09:15:06.000Z] not a time: part of the entry "
            "before");
}

// Secrets in an entry: a credential-named member (also a whole object of them), a secret flag in a string, a secret
// URL parameter; each named by a credential_present row after the entry's row, the value nowhere, with --native too.
TEST(CliDebugLog, SecretsAreRedactedAndNamed) {
  StoreHarness h;
  run(h, "cli-debug.log", kDebugLogPath,
      "[2026-04-02T09:15:05.712Z] [ProviderSettings] saved: {\n"
      "  \"openRouterApiKey\": \"sk-or-v1-SECRET1\",\n"
      "  \"clerk-auth-credentials\": {\n"
      "    \"session\": \"SECRET2\"\n"
      "  },\n"
      "  \"textPreview\": \"deploy --token SECRET3\",\n"
      "  \"url\": \"https://h/x?key=SECRET4&a=b\",\n"
      "  \"taskId\": \"t-1\"\n"
      "}\n",
      parse_cli_debug_log, true);
  expect_no_secret(h.rows, {"SECRET1", "SECRET2", "SECRET3", "SECRET4"});
  ASSERT_EQ(h.rows.rows.size(), 5u);
  EXPECT_EQ(h.rows.str(0, "text"),
            "[ProviderSettings] saved: {\n  \"openRouterApiKey\": \"<redacted>\",\n  \"clerk-auth-credentials\": {\n"
            "    \"session\": \"<redacted>\"\n  },\n  \"textPreview\": \"deploy --token <redacted>\",\n"
            "  \"url\": \"https://h/x?key=<redacted>&a=b\",\n  \"taskId\": \"t-1\"\n}");
  EXPECT_EQ(h.rows.str(0, "text_preview"), "deploy --token <redacted>");
  EXPECT_EQ(h.rows.str(0, "task_id"), "t-1");
  std::vector<std::string> keys;
  for (size_t i = 1; i < 5; ++i) {
    EXPECT_EQ(h.rows.str(i, "kind"), "credential_present");
    EXPECT_EQ(h.rows.str(i, "credential_location"), std::string(kDebugLogPath) + " entry 1");
    EXPECT_EQ(h.rows.src(i)["part_index"].GetInt(), static_cast<int>(i - 1));
    keys.push_back(h.rows.str(i, "credential_key"));
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"data.openRouterApiKey", "data.clerk-auth-credentials", "text.--token",
                                            "text.key"}));
}

}  // namespace
}  // namespace roo
