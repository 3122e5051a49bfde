#!/usr/bin/env python3
"""Generates the benchmark's source tree: a Linux root file system with many unrelated files and one Roo Code
root holding many realistic tasks, one of which has a very large ui_messages.json.

    tests/bench/generate_tree.py OUT_DIR [--small] [--seed N] [--unrelated N] [--tasks N] [--big-mib N]

Deterministic: the same arguments give the same names and the same bytes (file times are left to the host).
The tree is written to OUT_DIR.tmp and renamed to OUT_DIR when complete; a manifest OUT_DIR.manifest.json says
what was generated (counts, bytes, the Roo JSON files and their sizes).

Layout (full scale, defaults):
  - >= 200,000 unrelated small files over ~74k directories: usr/share (docs, locales, man pages, icons),
    usr/lib/python3/dist-packages, and home dirs (node_modules, pip cache, VS Code extensions,
    workspaceStorage, other extensions' globalStorage) for users bench, alice and carol.
  - home/bench/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/<uuidv7>/ x 1,000 tasks with
    ui_messages.json, api_conversation_history.json, history_item.json, task_metadata.json (when a file was
    touched), and tasks/_index.json. Compact JSON as safeWriteJson writes it: no spaces, non-ASCII unescaped,
    no trailing newline (docs/roo-format.md §2.2).
  - one of those tasks ("the big task") has a ui_messages.json >= 200 MiB: thousands of command runs whose
    say:command_output records hold 50-200 KB of output each, amid the usual mix of records.
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import time

GENERATOR_VERSION = 3

ROO_TASKS = "home/bench/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks"
WORKSPACES = ["/home/bench/src/webshop", "/home/bench/src/ingest-service", "/home/bench/src/dotfiles",
              "/home/bench/src/ml-pipeline", "/home/bench/src/rust-cli", "/home/bench/src/wiki-ドキュメント"]
T0 = 1772323200000  # 2026-03-01T00:00:00Z: native tasks need >= v3.49 (fixtures/README.md "Conventions")


def dumps(obj):
    """JSON.stringify-compatible compact JSON (non-ASCII unescaped, control chars as \\uXXXX or short escapes)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# ---------------------------------------------------------------------------------------------------------------
# Text corpora
# ---------------------------------------------------------------------------------------------------------------

PROMPTS = [
    "tests/test_parse.py fails since the last refactor. Please find out why and fix parse_date in src/dates.py.",
    "Add a GET /health endpoint that returns {\"status\":\"ok\"} and a test for it.",
    "Refactor src/cli.py to use argparse subcommands.",
    "Summarise the last 5 commits on this branch.",
    "The Docker build fails on `RUN npm ci` — can you look at the log and fix the Dockerfile?",
    "Bitte die Fehlermeldungen in src/i18n/de.json übersetzen und die Umlaute prüfen (ä, ö, ü, ß).",
    "Corrige le bug dans le calcul de la TVA : le total affiché est faux quand la quantité dépasse 100.",
    "README のインストール手順を更新して、Windows での注意点も追加してください。",
    "把 utils/date.ts 里的时区处理改成使用 Intl.DateTimeFormat，并补充单元测试。",
    "Why does `cargo build --release` take 4 minutes? Profile it and suggest fixes 🚀",
    "Write a migration that adds an index on orders(customer_id, created_at) and backfill the column.",
    "Find every TODO in src/ and open an issue per file.",
    "Our CI on Windows fails with \"C:\\Users\\runner\\work\\app\\node_modules\\.bin\\tsc\" not found. Fix the path handling.",
    "Upgrade React from 17 to 18 and fix the breaking changes in src/components/.",
    "Set up pre-commit with black, ruff and mypy; make the existing code pass.",
    "Implement pagination for GET /api/v2/orders (cursor-based, default page size 50).",
    "The nightly export job runs out of memory on large tenants. Stream the rows instead of loading them all.",
    "Explain how the retry logic in src/net/client.go works, then add exponential backoff with jitter.",
    "Rename the `usr_id` column to `user_id` everywhere, including the SQL fixtures.",
    "Fix the flaky test tests/integration/test_queue.py::test_redelivery (fails ~1 in 10 runs).",
]

ASSISTANT_TEXTS = [
    "I'll start by reading the relevant files to understand the current structure.",
    "The failure comes from the date format: the code uses %Y-%d-%m instead of %Y-%m-%d.",
    "Let me run the test suite to see which tests fail before changing anything.",
    "All tests pass now. I'll also check the linter output.",
    "The build log shows the lockfile is out of date; `npm ci` refuses to install.",
    "I found three places where the path is joined with a hard-coded \"/\" — on Windows this must use path.join.",
    "Die Übersetzungen sind jetzt vollständig; zwei Schlüssel fehlten in de.json.",
    "Le calcul utilise un arrondi intermédiaire ; je le déplace à la fin.",
    "README を更新しました。Windows では長いパスを有効にする必要があります。",
    "Next I'll update the tests to cover the edge cases (empty input, 0, and values > 100).",
    "The query plan shows a sequential scan on orders; the new index should fix that.",
    "\nI'll read src/dates.py first.",
    "There's a race between the ack and the redelivery timer; I'll make the timer cancellation explicit.",
]

REASONING_TEXTS = [
    "The user says the tests fail after a refactor. I should read the test file and the module before changing anything.",
    "The stack trace points at line 42 in client.go. The retry loop never resets the backoff, so it grows without bound.",
    "I need to check whether the lockfile matches package.json. If not, npm ci fails with EUSAGE.",
    "Two options: patch the format string or switch to date.fromisoformat. The latter is stricter but changes behaviour for inputs like '2026-3-1'.",
    "The memory grows linearly with the number of rows, which means everything is materialised in a list. A generator would keep it flat.",
    "Let me think about Windows paths: backslashes must be escaped in JSON (\"C:\\\\Users\\\\bob\"), and the drive letter is lower-cased by Uri.fsPath.",
]

CODE_LINES = [
    "from datetime import datetime", "import os", "import sys", "", "def parse_date(text):",
    "    \"\"\"Parse a date like 2026-03-10.\"\"\"", "    return datetime.strptime(text, \"%Y-%m-%d\").date()",
    "export async function fetchOrders(cursor?: string): Promise<Page<Order>> {",
    "  const res = await fetch(`/api/v2/orders?cursor=${cursor ?? ''}`);", "  if (!res.ok) throw new Error(`HTTP ${res.status}`);",
    "  return res.json();", "}", "fn main() -> anyhow::Result<()> {", "    let args = Args::parse();",
    "    println!(\"{}\", args.path.display());", "\tif err != nil {", "\t\treturn fmt.Errorf(\"dial %s: %w\", addr, err)",
    "\t}", "SELECT id, customer_id, created_at FROM orders WHERE customer_id = $1 ORDER BY created_at DESC;",
    "    # TODO: handle the Windows case (C:\\\\temp\\\\x)", "const msg = \"Größe überschritten – bitte erneut versuchen\";",
    "    label = \"合計金額\"  # total amount", "  <div className=\"card\">{children}</div>",
]

PATHS = ["src/dates.py", "src/cli.py", "tests/test_parse.py", "src/server.ts", "src/a.ts", "src/net/client.go",
         "src/components/OrderList.tsx", "migrations/0042_orders_index.sql", "Dockerfile", "package.json",
         "src/i18n/de.json", "README.md", "src/main.rs", "Cargo.toml", "utils/date.ts", "tests/integration/test_queue.py"]

COMMANDS = ["python -m pytest -q", "npm test", "npm ci", "cargo build --release", "make -j8", "git log --oneline -20",
            "ls -la", "go test ./...", "docker build -t app .", "npx tsc --noEmit", "npx eslint src", "npx jest --ci",
            "pip install -r requirements.txt", "git status"]


def build_line_pools(rng, n_per_kind):
    """Pools of realistic command-output lines, one per command style. Outputs are drawn from these pools."""
    def hexs(k):
        return "".join(rng.choice("0123456789abcdef") for _ in range(k))

    words = ["parse", "order", "client", "queue", "retry", "export", "tenant", "config", "router", "cache",
             "schema", "index", "render", "widget", "token", "session", "payment", "invoice", "report", "user"]
    pkgs = ["serde", "tokio", "clap", "anyhow", "regex", "hyper", "rand", "syn", "quote", "tracing", "reqwest",
            "lodash", "react", "typescript", "webpack", "babel-core", "eslint", "jest", "express", "numpy", "pandas"]
    pools = {}

    def gen(kind, f):
        pools[kind] = [f() for _ in range(n_per_kind)]

    gen("pytest", lambda: rng.choice([
        f"tests/test_{rng.choice(words)}.py::test_{rng.choice(words)}_{rng.choice(words)} PASSED{' ' * rng.randint(1, 30)}[{rng.randint(0, 100):3d}%]",
        f"tests/test_{rng.choice(words)}.py::test_{rng.choice(words)} FAILED{' ' * rng.randint(1, 20)}[{rng.randint(0, 100):3d}%]",
        f"E       AssertionError: assert '{rng.choice(words)}' == '{rng.choice(words)}'",
        f"E         - {rng.choice(words)}\\n+ {rng.choice(words)}",
        f"  File \"/home/bench/src/ml-pipeline/src/{rng.choice(words)}.py\", line {rng.randint(1, 900)}, in {rng.choice(words)}",
        f"{'.' * rng.randint(10, 70)}{' ' * rng.randint(1, 10)}[{rng.randint(0, 100):3d}%]",
        f"WARNING  {rng.choice(words)}:{rng.choice(words)}.py:{rng.randint(1, 500)} deprecated: use {rng.choice(words)}() instead",
    ]))
    gen("npm", lambda: rng.choice([
        f"npm WARN deprecated {rng.choice(pkgs)}@{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}: This package is no longer supported.",
        f"added {rng.randint(1, 1500)} packages, and audited {rng.randint(1, 1600)} packages in {rng.randint(1, 90)}s",
        f"npm ERR! code E{rng.choice(['RESOLVE', 'USAGE', 'NOENT', 'INTEGRITY'])}",
        f"npm ERR! path /home/bench/src/webshop/node_modules/{rng.choice(pkgs)}/package.json",
        f"  \u001b[32m✓\u001b[39m {rng.choice(words)} renders {rng.choice(words)} ({rng.randint(1, 300)} ms)",
        f"  \u001b[31m✕\u001b[39m {rng.choice(words)} handles \"{rng.choice(words)}\" ({rng.randint(1, 300)} ms)",
        f"    at Object.<anonymous> (src/components/{rng.choice(words).title()}.test.tsx:{rng.randint(1, 300)}:{rng.randint(1, 80)})",
        f"ℹ 「wdm」: Compiled successfully in {rng.randint(100, 9000)}ms — {rng.randint(1, 400)} modules",
        f"{rng.randint(1, 400)}:{rng.randint(1, 80)}  {rng.choice(['error', 'warning'])}  '{rng.choice(words)}' is assigned a value but never used  no-unused-vars",
    ]))
    gen("cargo", lambda: rng.choice([
        f"   Compiling {rng.choice(pkgs)} v{rng.randint(0, 3)}.{rng.randint(0, 200)}.{rng.randint(0, 40)}",
        f"warning: unused variable: `{rng.choice(words)}`",
        f"  --> src/{rng.choice(words)}.rs:{rng.randint(1, 800)}:{rng.randint(1, 80)}",
        f"   |",
        f"{rng.randint(1, 800):>4} |     let {rng.choice(words)} = {rng.choice(words)}::new(&cfg)?;",
        f"    Finished `release` profile [optimized] target(s) in {rng.randint(1, 300)}.{rng.randint(0, 99):02d}s",
        f"src/{rng.choice(words)}.c:{rng.randint(1, 999)}:{rng.randint(1, 80)}: warning: unused variable ‘{rng.choice(words)}’ [-Wunused-variable]",
        f"gcc -O2 -Wall -c src/{rng.choice(words)}.c -o build/{rng.choice(words)}.o",
    ]))
    gen("git", lambda: rng.choice([
        f"{hexs(7)} {rng.choice(['fix', 'feat', 'chore', 'refactor', 'docs'])}({rng.choice(words)}): {rng.choice(words)} the {rng.choice(words)} {rng.choice(words)}",
        f"-rw-r--r--  1 bench bench {rng.randint(0, 99999):>6} Mar {rng.randint(1, 28):>2} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {rng.choice(words)}.{rng.choice(['py', 'ts', 'json', 'md'])}",
        f"drwxr-xr-x  {rng.randint(2, 9)} bench bench   4096 Mar {rng.randint(1, 28):>2} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {rng.choice(words)}/",
        f"\tmodified:   src/{rng.choice(words)}/{rng.choice(words)}.ts",
        f"#{rng.randint(1, 20)} [{rng.randint(1, 9)}/9] RUN apt-get update && apt-get install -y {rng.choice(pkgs)}",
        f"#{rng.randint(1, 20)} {rng.randint(0, 60)}.{rng.randint(0, 999):03d} Get:{rng.randint(1, 90)} http://deb.debian.org/debian bookworm/main amd64 {rng.choice(pkgs)} [{rng.randint(1, 9000)} kB]",
        f"C:\\Users\\runner\\work\\app\\node_modules\\{rng.choice(pkgs)}\\lib\\index.js:{rng.randint(1, 900)}",
        f"{rng.choice(words)}\t{rng.randint(0, 9999)}\t{rng.choice(words)}\r",
        f"│ {rng.choice(words):<12} │ {rng.randint(0, 9999):>6} │ {rng.choice(['✔', '✘', '…'])} │",
    ]))
    return pools


def make_output(rng, pools, target_bytes):
    """A command output of about target_bytes: runs of lines of one style, as real logs look."""
    kinds = list(pools)
    parts, size = [], 0
    while size < target_bytes:
        pool = pools[rng.choice(kinds)]
        start = rng.randrange(len(pool))
        run = pool[start:start + rng.randint(20, 200)]
        for line in run:
            parts.append(line)
            size += len(line) + 1
    return "\n".join(parts)


def env_details(rng, ts_ms, workspace, cost, first):
    iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts_ms / 1000)) + ".%03dZ" % (ts_ms % 1000)
    vis = rng.sample(PATHS, 2)
    s = ("<environment_details>\n# VSCode Visible Files\n" + vis[0] + "\n\n# VSCode Open Tabs\n" + ",".join(vis) +
         "\n\n# Current Time\nCurrent time in ISO 8601 UTC format: " + iso + "\nUser time zone: Europe/Berlin, UTC+1:00\n\n"
         "# Current Cost\n$%.2f\n\n# Current Mode\n<slug>code</slug>\n<name>💻 Code</name>\n<model>claude-sonnet-4-5</model>\n" % cost)
    if first:
        s += "\n\n# Current Workspace Directory (" + workspace + ") Files\n" + "\n".join(sorted(set(PATHS))) + "\n"
    s += ("You have not created a todo list yet. Create one with `update_todo_list` if your task is complicated or "
          "involves multiple steps.\n</environment_details>")
    return s


def uuid7(rng, ts_ms):
    r = rng.getrandbits(74)
    hi = (ts_ms << 16) | (0x7 << 12) | (r >> 62)
    lo = (0b10 << 62) | (r & ((1 << 62) - 1))
    h = "%016x%016x" % (hi, lo)
    return "%s-%s-%s-%s-%s" % (h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])


def toolu(rng):
    return "toolu_01" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(22))


def numbered(lines):
    w = len(str(len(lines)))
    return "\n".join("%*d | %s" % (w, i + 1, l) for i, l in enumerate(lines))


# ---------------------------------------------------------------------------------------------------------------
# One task
# ---------------------------------------------------------------------------------------------------------------

def simulate_task(rng, pools, task_id, start_ts, workspace, n_turns, big_output_bytes=0, parent=None):
    """Returns (ui records, api records, history item, files_in_context or None, last ts)."""
    t = start_ts
    ui, api, fic = [], [], []
    totals = {"in": 0, "out": 0, "cw": 0, "cr": 0, "cost": 0.0}
    prompt = rng.choice(PROMPTS)
    ui.append({"ts": t, "type": "say", "say": "text", "text": prompt, "images": []})
    api.append({"role": "user", "content": [{"type": "text", "text": "<user_message>\n" + prompt + "\n</user_message>"},
                                             {"type": "text", "text": env_details(rng, t + 40, workspace, 0.0, True)}],
                "ts": t + 40})
    edited = 0
    for turn in range(n_turns):
        last = turn == n_turns - 1
        t += rng.randint(200, 900)
        usage = {"apiProtocol": "anthropic", "tokensIn": rng.randint(3, 40), "tokensOut": rng.randint(40, 1500),
                 "cacheWrites": rng.randint(0, 3000), "cacheReads": rng.randint(10000, 90000)}
        usage["cost"] = round(0.0001 + usage["tokensOut"] * 0.000015 + usage["cacheWrites"] * 0.00000375 +
                              usage["cacheReads"] * 0.0000003, 4)
        totals["in"] += usage["tokensIn"]
        totals["out"] += usage["tokensOut"]
        totals["cw"] += usage["cacheWrites"]
        totals["cr"] += usage["cacheReads"]
        totals["cost"] += usage["cost"]
        ui.append({"ts": t, "type": "say", "say": "api_req_started", "text": dumps(usage)})
        content = []
        if rng.random() < 0.5:
            r = rng.choice(REASONING_TEXTS)
            t += rng.randint(500, 4000)
            ui.append({"ts": t, "type": "say", "say": "reasoning", "text": r, "partial": False})
            content.append({"type": "reasoning", "text": r, "summary": []})
        if rng.random() < 0.8:
            a = rng.choice(ASSISTANT_TEXTS)
            t += rng.randint(300, 3000)
            ui.append({"ts": t, "type": "say", "say": "text", "text": a, "partial": False})
            content.append({"type": "text", "text": a.lstrip("\n")})
        tid = toolu(rng)
        t += rng.randint(100, 2000)
        if big_output_bytes:
            tool = "attempt_completion" if last else ("execute_command" if rng.random() < 0.85 else
                                                      rng.choice(["read_file", "apply_diff", "search_files"]))
        else:
            tool = "attempt_completion" if last else rng.choices(
                ["read_file", "write_to_file", "apply_diff", "execute_command", "search_files", "list_files",
                 "ask_followup_question", "update_todo_list", "mcp"], [25, 8, 10, 30, 8, 5, 3, 4, 2])[0]
        path = rng.choice(PATHS)
        result = None
        if tool == "read_file":
            lines = [rng.choice(CODE_LINES) for _ in range(rng.randint(5, 400))]
            content.append({"type": "tool_use", "id": tid, "name": "read_file", "input": {"path": path}})
            ui.append({"ts": t, "type": "ask", "ask": "tool", "text": dumps({"tool": "readFile", "path": path,
                       "isOutsideWorkspace": False, "content": workspace + "/" + path}),
                       "partial": False, "isProtected": False, "isAnswered": True})
            result = "File: " + path + "\n" + numbered(lines)
            fic.append({"path": path, "record_state": "active", "record_source": "read_tool", "roo_read_date": t + 300,
                        "roo_edit_date": None, "user_edit_date": None,
                        "content_hash": hashlib.md5((path + str(t)).encode()).hexdigest()})
        elif tool in ("write_to_file", "apply_diff"):
            lines = [rng.choice(CODE_LINES) for _ in range(rng.randint(3, 120))]
            body = "\n".join(lines) + "\n"
            if tool == "write_to_file":
                inp = {"path": path, "content": body}
                say_tool = {"tool": "editedExistingFile", "path": path,
                            "content": "@@ -1,%d +1,%d @@\n" % (len(lines), len(lines)) + "\n".join("+" + l for l in lines),
                            "isOutsideWorkspace": False, "isProtected": False,
                            "diffStats": {"added": len(lines), "removed": rng.randint(0, len(lines))}}
            else:
                old = "\n".join(rng.choice(CODE_LINES) for _ in range(rng.randint(1, 20)))
                inp = {"path": path, "diff": "<<<<<<< SEARCH\n:start_line:%d\n-------\n%s\n=======\n%s\n>>>>>>> REPLACE"
                       % (rng.randint(1, 300), old, body.rstrip("\n"))}
                say_tool = {"tool": "appliedDiff", "path": path, "diff": inp["diff"], "content": body,
                            "originalContent": old, "isOutsideWorkspace": False, "isProtected": False,
                            "diffStats": {"added": len(lines), "removed": old.count("\n") + 1}}
            content.append({"type": "tool_use", "id": tid, "name": tool, "input": inp})
            ui.append({"ts": t, "type": "ask", "ask": "tool", "text": dumps(say_tool), "partial": False,
                       "isProtected": False, "isAnswered": True})
            result = dumps({"path": path, "operation": "modified", "notice": "You do not need to re-read the file, as "
                            "you have seen all changes Proceed with the task using these changes as the new baseline."})
            if tool == "apply_diff":
                result += "\n\n<notice>Making multiple related changes in a single apply_diff is more efficient.</notice>"
            edited += 1
            fic.append({"path": path, "record_state": "active", "record_source": "roo_edited", "roo_read_date": t + 200,
                        "roo_edit_date": t + 200, "user_edit_date": None, "content_hash": None})
            t += rng.randint(50, 400)
            ui.append({"ts": t, "type": "say", "say": "checkpoint_saved", "text": "%040x" % rng.getrandbits(160),
                       "checkpoint": {"from": "%040x" % rng.getrandbits(160), "to": "%040x" % rng.getrandbits(160),
                                      "suppressMessage": False}})
        elif tool == "execute_command":
            cmd = rng.choice(COMMANDS)
            content.append({"type": "tool_use", "id": tid, "name": "execute_command",
                            "input": {"command": cmd, "cwd": None, "timeout": None}})
            ui.append({"ts": t, "type": "ask", "ask": "command", "text": cmd, "partial": False, "isProtected": False})
            cmd_ts = t
            if big_output_bytes:
                size = rng.randint(50_000, 200_000)
            else:
                size = int(min(60_000, rng.lognormvariate(7.0, 1.3)))
            out = make_output(rng, pools, size)
            code = 0 if rng.random() < 0.75 else rng.choice([1, 2, 127])
            t += rng.randint(300, 20000)
            ui.append({"ts": t, "type": "ask", "ask": "command_output", "text": "", "isProtected": False})
            ui.append({"ts": t, "type": "say", "say": "command_output", "text": out})
            if len(out) > 10_000:
                result = ("Command executed in '%s'. Exit code: %d\n\nOutput (%.1fKB) persisted. Artifact ID: cmd-%d.txt"
                          "\n\nPreview:\n%s" % (workspace, code, len(out.encode()) / 1024, cmd_ts, out[:2000]))
            elif code == 0:
                result = ("Command executed in terminal within working directory '%s'. Exit code: 0\nOutput:\n%s"
                          % (workspace, out))
            else:
                result = ("Command execution was not successful, inspect the cause and adjust as needed.\nExit code: %d\n"
                          "Output:\n%s" % (code, out))
        elif tool == "search_files":
            rx = rng.choice(["TODO", "parse_date", "fetchOrders", r"def \w+\(", "Größe", "retry"])
            inp = {"path": "src", "regex": rx, "file_pattern": rng.choice(["*.py", "*.ts", None])}
            content.append({"type": "tool_use", "id": tid, "name": "search_files", "input": inp})
            ui.append({"ts": t, "type": "ask", "ask": "tool", "text": dumps({"tool": "searchFiles", "path": "src",
                       "regex": rx, "filePattern": inp["file_pattern"], "isOutsideWorkspace": False}),
                       "partial": False, "isProtected": False, "isAnswered": True})
            hits = []
            for _ in range(rng.randint(0, 30)):
                hits.append("# %s\n%3d | %s\n----" % (rng.choice(PATHS), rng.randint(1, 500), rng.choice(CODE_LINES)))
            result = "Found %d results.\n\n%s" % (len(hits), "\n".join(hits))
        elif tool == "list_files":
            content.append({"type": "tool_use", "id": tid, "name": "list_files", "input": {"path": ".", "recursive": True}})
            ui.append({"ts": t, "type": "ask", "ask": "tool", "text": dumps({"tool": "listFilesRecursive", "path": ".",
                       "content": "\n".join(sorted(set(PATHS))), "isOutsideWorkspace": False}),
                       "partial": False, "isProtected": False, "isAnswered": True})
            result = "\n".join(sorted(set(PATHS)))
        elif tool == "ask_followup_question":
            q = "Which database should the migration target — PostgreSQL 15 or 16?"
            sugg = [{"answer": "PostgreSQL 16", "mode": None}, {"answer": "PostgreSQL 15"}]
            content.append({"type": "tool_use", "id": tid, "name": "ask_followup_question",
                            "input": {"question": q, "follow_up": [{"text": s["answer"]} for s in sugg]}})
            ui.append({"ts": t, "type": "ask", "ask": "followup", "text": dumps({"question": q, "suggest": sugg}),
                       "partial": False, "isProtected": False, "isAnswered": True})
            t += rng.randint(2000, 60000)
            ans = rng.choice(["PostgreSQL 16", "16, bitte — wir sind schon migriert.", "15"])
            ui.append({"ts": t, "type": "say", "say": "user_feedback", "text": ans, "images": []})
            result = "<user_message>\n" + ans + "\n</user_message>"
        elif tool == "update_todo_list":
            todos = [{"id": hashlib.md5(("%d%d" % (t, i)).encode()).hexdigest(), "content": rng.choice(ASSISTANT_TEXTS).strip(),
                      "status": rng.choice(["pending", "in_progress", "completed"])} for i in range(rng.randint(2, 8))]
            mark = {"pending": "[ ]", "in_progress": "[-]", "completed": "[x]"}
            content.append({"type": "tool_use", "id": tid, "name": "update_todo_list",
                            "input": {"todos": "\n".join(mark[x["status"]] + " " + x["content"] for x in todos)}})
            ui.append({"ts": t, "type": "ask", "ask": "tool", "text": dumps({"tool": "updateTodoList", "todos": todos}),
                       "partial": False, "isProtected": False, "isAnswered": True})
            result = "Todo list updated successfully."
        elif tool == "mcp":
            args = {"owner": "bench", "repo": "webshop", "title": "Flaky test in queue", "body": "Fails ~1 in 10 runs.\nSee CI #4821."}
            content.append({"type": "tool_use", "id": tid, "name": "mcp--github--create_issue", "input": args})
            ui.append({"ts": t, "type": "ask", "ask": "use_mcp_server", "text": dumps({"type": "use_mcp_tool",
                       "serverName": "github", "toolName": "create_issue", "arguments": dumps(args)}),
                       "partial": False, "isProtected": False})
            result = dumps({"status": "denied", "message": "The user denied this operation."}) if rng.random() < 0.5 else \
                "{\"number\":%d,\"html_url\":\"https://github.com/bench/webshop/issues/%d\"}" % (turn + 100, turn + 100)
        else:  # attempt_completion
            res = rng.choice(ASSISTANT_TEXTS).strip() + " Done: " + prompt[:80]
            content.append({"type": "tool_use", "id": tid, "name": "attempt_completion", "input": {"result": res}})
            ui.append({"ts": t, "type": "say", "say": "completion_result", "text": res})
            t += rng.randint(100, 800)
            ui.append({"ts": t, "type": "ask", "ask": "completion_result", "text": "", "isProtected": False})
        msg = {"role": "assistant", "content": content, "id": "msg_01" + "%022x" % rng.getrandbits(88), "ts": t - 10}
        api.append(msg)
        if result is not None:
            t += rng.randint(100, 1500)
            block = {"type": "tool_result", "tool_use_id": tid, "content": result}
            if tool == "execute_command" and result.startswith("Command execution was not"):
                block["is_error"] = True
            api.append({"role": "user", "content": [block, {"type": "text", "text": env_details(
                rng, t, workspace, totals["cost"], False)}], "ts": t})
    item = {"id": task_id, "number": 1, "ts": ui[-1]["ts"], "task": prompt.strip(), "tokensIn": totals["in"],
            "tokensOut": totals["out"], "cacheWrites": totals["cw"], "cacheReads": totals["cr"],
            "totalCost": totals["cost"], "size": 0, "workspace": workspace, "mode": rng.choice(["code", "code", "architect", "debug"]),
            "apiConfigName": "default"}
    if parent:
        item = {"id": task_id, "rootTaskId": parent, "parentTaskId": parent, **{k: v for k, v in item.items() if k != "id"},
                "status": "completed"}
    # Older entries for a path become stale (docs/roo-format.md §2.6).
    seen = set()
    for e in reversed(fic):
        if e["path"] in seen:
            e["record_state"] = "stale"
        seen.add(e["path"])
    return ui, api, item, (fic or None), t


def write_json_array(path, records):
    """Writes a compact JSON array record by record (the big file is never one string in memory)."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("[")
        for i, r in enumerate(records):
            s = dumps(r)
            if i:
                f.write(",")
            f.write(s)
        f.write("]")
    return os.path.getsize(path)


# ---------------------------------------------------------------------------------------------------------------
# Unrelated files
# ---------------------------------------------------------------------------------------------------------------

def unrelated_layout(rng, n_files):
    """Yields (relative path, size) for n_files unrelated files over many directories."""
    words = ["alpha", "beta", "gamma", "delta", "core", "util", "net", "ui", "io", "db", "auth", "cli", "fmt", "log",
             "test", "cache", "http", "json", "xml", "yaml", "crypto", "image", "font", "locale", "theme", "sync"]
    langs = ["de", "fr", "es", "it", "ja", "zh_CN", "pt_BR", "ru", "pl", "nl", "sv", "ko", "tr", "cs", "uk"]

    def size():
        x = rng.random()
        if x < 0.35:
            return rng.randint(0, 600)
        if x < 0.85:
            return rng.randint(600, 4000)
        if x < 0.98:
            return rng.randint(4000, 16000)
        return rng.randint(16000, 64000)

    def name(ext):
        return "%s_%s%d.%s" % (rng.choice(words), rng.choice(words), rng.randint(0, 999), ext)

    # Share of the files per area, summing to 1.
    areas = [("usr_share", 0.30), ("dist_packages", 0.15), ("node_modules", 0.25), ("pip_cache", 0.08),
             ("vscode_ext", 0.12), ("vscode_user", 0.05), ("other_homes", 0.05)]
    count = 0
    for area, share in areas:
        quota = n_files - count if area == areas[-1][0] else int(n_files * share)
        made = 0
        i = 0
        while made < quota:
            if area == "usr_share":
                pkg = "usr/share/%s-%d" % (rng.choice(words), i)
                files = ["%s/doc/%s" % (pkg, n) for n in ("README", "copyright", "changelog.Debian.gz", "NEWS.gz")]
                files += ["%s/locale/%s/LC_MESSAGES/%s.mo" % (pkg, l, rng.choice(words)) for l in rng.sample(langs, rng.randint(0, 8))]
                files += ["%s/man/man1/%s.1.gz" % (pkg, rng.choice(words)) for _ in range(rng.randint(0, 2))]
                files += ["%s/icons/hicolor/%dx%d/apps/%s.png" % (pkg, s, s, rng.choice(words)) for s in (16, 32, 48, 128) if rng.random() < 0.4]
            elif area == "dist_packages":
                pkg = "usr/lib/python3/dist-packages/%s%d" % (rng.choice(words), i)
                files = ["%s/__init__.py" % pkg] + ["%s/%s" % (pkg, name("py")) for _ in range(rng.randint(1, 12))]
                files += ["%s/__pycache__/%s" % (pkg, name("cpython-311.pyc")) for _ in range(rng.randint(0, 6))]
            elif area == "node_modules":
                proj = WORKSPACES[i % 3]
                pkg = "%s/node_modules/%s-%s%d" % (proj.lstrip("/"), rng.choice(words), rng.choice(words), i)
                files = ["%s/package.json" % pkg, "%s/README.md" % pkg, "%s/index.js" % pkg, "%s/LICENSE" % pkg]
                files += ["%s/lib/%s" % (pkg, name("js")) for _ in range(rng.randint(0, 10))]
                files += ["%s/dist/%s" % (pkg, name("d.ts")) for _ in range(rng.randint(0, 4))]
            elif area == "pip_cache":
                d = "home/bench/.cache/pip/http-v2/%x/%x/%x" % (rng.randrange(16), rng.randrange(16), rng.randrange(256))
                files = ["%s/%040x" % (d, rng.getrandbits(160)) for _ in range(rng.randint(1, 4))]
            elif area == "vscode_ext":
                ext = "home/bench/.vscode/extensions/%s.%s-%d.%d.%d" % (rng.choice(words), rng.choice(words), rng.randint(0, 3), rng.randint(0, 30), i)
                files = ["%s/package.json" % ext, "%s/README.md" % ext, "%s/CHANGELOG.md" % ext]
                files += ["%s/out/%s" % (ext, name("js")) for _ in range(rng.randint(0, 12))]
                files += ["%s/resources/%s" % (ext, name("svg")) for _ in range(rng.randint(0, 6))]
            elif area == "vscode_user":
                base = "home/bench/.config/Code/User"
                files = rng.choice([
                    ["%s/workspaceStorage/%032x/state.vscdb" % (base, i), "%s/workspaceStorage/%032x/workspace.json" % (base, i)],
                    ["%s/History/%x/entries.json" % (base, i)] + ["%s/History/%x/%s" % (base, i, name("ts")) for _ in range(rng.randint(1, 6))],
                    ["%s/globalStorage/%s.%s/%s" % (base, rng.choice(words), rng.choice(words), name("json"))],
                ])
            else:
                user = rng.choice(["alice", "carol"])
                files = ["home/%s/%s/%s" % (user, rng.choice(["Documents", "Downloads", "Pictures", ".cache/thumbnails",
                                                               ".local/share/Trash/files"]), name(rng.choice(["pdf", "txt", "png", "odt"])))
                         for _ in range(rng.randint(1, 10))]
            i += 1
            for f in files:
                if made >= quota:
                    break
                yield f, size()
                made += 1
        count += made


def fill(pool, rng, n):
    if n == 0:
        return b""
    start = rng.randrange(len(pool) - n) if n < len(pool) else 0
    data = pool[start:start + n]
    while len(data) < n:
        data += pool[:n - len(data)]
    return data


# ---------------------------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--small", action="store_true", help="quick smoke scale: 20k files, 100 tasks, 20 MiB big ui")
    ap.add_argument("--seed", type=int, default=20260301)
    ap.add_argument("--unrelated", type=int)
    ap.add_argument("--tasks", type=int)
    ap.add_argument("--big-mib", type=float)
    a = ap.parse_args()
    n_unrel = a.unrelated if a.unrelated is not None else (20_000 if a.small else 200_000)
    n_tasks = a.tasks if a.tasks is not None else (100 if a.small else 1_000)
    big_bytes = int((a.big_mib if a.big_mib is not None else (20 if a.small else 201)) * 1048576)

    out = os.path.abspath(a.out)
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    t_start = time.time()

    # -- unrelated files
    rng = random.Random(a.seed)
    pool = bytes(rng.getrandbits(8) for _ in range(1 << 16))
    text_pool = ("".join(rng.choice(CODE_LINES) + "\n" for _ in range(6000))).encode("utf-8")
    made_dirs = set()
    n_files = 0
    unrel_bytes = 0
    for rel, sz in unrelated_layout(rng, n_unrel):
        d = os.path.dirname(rel)
        if d not in made_dirs:
            os.makedirs(os.path.join(tmp, d), exist_ok=True)
            made_dirs.add(d)
        src = text_pool if rel.endswith((".py", ".js", ".ts", ".md", ".json", "README", "LICENSE")) else pool
        with open(os.path.join(tmp, rel), "wb") as f:
            f.write(fill(src, rng, sz))
        n_files += 1
        unrel_bytes += sz
    print("generate_tree: %d unrelated files (%d MB) in %d dirs, %.0fs" %
          (n_files, unrel_bytes // 1_000_000, len(made_dirs), time.time() - t_start), file=sys.stderr)

    # -- the Roo root
    rng = random.Random(a.seed + 1)
    pools = build_line_pools(rng, 4000)
    tasks_dir = os.path.join(tmp, ROO_TASKS)
    os.makedirs(tasks_dir)
    big_index = n_tasks // 2
    start = T0
    index_entries = []
    roo_files = []
    prev_id = None
    for k in range(n_tasks):
        start += rng.randint(600_000, max(1_200_000, 2 * 60 * 86_400_000 // n_tasks))  # ~60 days of tasks
        tid = uuid7(rng, start)
        ws = rng.choice(WORKSPACES)
        big = k == big_index
        if big:
            # ~125 KB per command output on average, one command per ~1.18 turns
            n_turns = int(big_bytes * 0.88 / (125_000 * 0.85)) + 10
        else:
            n_turns = max(2, min(120, int(rng.lognormvariate(2.4, 0.8))))
        parent = prev_id if (prev_id and rng.random() < 0.08) else None
        d = os.path.join(tasks_dir, tid)
        os.makedirs(d)
        while True:
            ui, api, item, fic, last_t = simulate_task(rng, pools, tid, start, ws, n_turns,
                                                       big_output_bytes=big_bytes if big else 0, parent=parent)
            size = write_json_array(os.path.join(d, "api_conversation_history.json"), api)
            ui_size = write_json_array(os.path.join(d, "ui_messages.json"), ui)
            if not big or ui_size >= big_bytes:
                break
            n_turns = int(n_turns * big_bytes / ui_size * 1.02) + 5  # short of the target: more turns, same seed path
        size += ui_size
        roo_files += [(os.path.join(ROO_TASKS, tid, "api_conversation_history.json"), size - ui_size),
                      (os.path.join(ROO_TASKS, tid, "ui_messages.json"), ui_size)]
        if big:
            big_info = {"task": tid, "ui_messages_bytes": ui_size, "ui_records": len(ui)}
        if fic:
            with open(os.path.join(d, "task_metadata.json"), "w", encoding="utf-8") as f:
                f.write(dumps({"files_in_context": fic}))
            size += os.path.getsize(os.path.join(d, "task_metadata.json"))
            roo_files.append((os.path.join(ROO_TASKS, tid, "task_metadata.json"), os.path.getsize(os.path.join(d, "task_metadata.json"))))
        item["size"] = size
        with open(os.path.join(d, "history_item.json"), "w", encoding="utf-8") as f:
            f.write(dumps(item))
        roo_files.append((os.path.join(ROO_TASKS, tid, "history_item.json"), os.path.getsize(os.path.join(d, "history_item.json"))))
        if rng.random() < 0.05:  # a surviving command-output artifact (docs/roo-format.md §11 item 3): not JSON, not parsed
            os.makedirs(os.path.join(d, "command-output"))
            with open(os.path.join(d, "command-output", "cmd-%d.txt" % last_t), "w", encoding="utf-8") as f:
                f.write(make_output(rng, pools, rng.randint(11_000, 80_000)))
        index_entries.append(item)
        prev_id = tid
    index_entries.sort(key=lambda e: e["ts"], reverse=True)
    idx_path = os.path.join(tasks_dir, "_index.json")
    with open(idx_path, "w", encoding="utf-8") as f:
        f.write(dumps({"version": 1, "updatedAt": index_entries[0]["ts"] + 1500, "entries": index_entries}))
    roo_files.append((os.path.join(ROO_TASKS, "_index.json"), os.path.getsize(idx_path)))

    roo_bytes = sum(s for _, s in roo_files)
    manifest = {
        "generator_version": GENERATOR_VERSION, "seed": a.seed, "unrelated_files": n_files,
        "unrelated_bytes": unrel_bytes, "unrelated_dirs": len(made_dirs), "tasks": n_tasks,
        "roo_json_files": len(roo_files), "roo_json_bytes": roo_bytes, "big": big_info,
        "args": {"unrelated": n_unrel, "tasks": n_tasks, "big_bytes": big_bytes},
        "files": sorted(roo_files),
    }
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    with open(out + ".manifest.json", "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=1)
    print("generate_tree: %d tasks, %d Roo JSON files, %.1f MB (big ui_messages.json %.1f MB, %d records), %.0fs total"
          % (n_tasks, len(roo_files), roo_bytes / 1e6, big_info["ui_messages_bytes"] / 1e6, big_info["ui_records"],
             time.time() - t_start), file=sys.stderr)


if __name__ == "__main__":
    main()
