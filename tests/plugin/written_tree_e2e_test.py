#!/usr/bin/env python3
"""End-to-end tests on folder trees the test writes itself: the real roo-ingest binary with --dir, every output
format. Each tree holds one case the committed fixtures do not (they would need new images); the expected values are
written here by hand from docs/row-contract.md, never taken from the code under test.

usage: written_tree_e2e_test.py WrittenTree.test_NAME --binary PATH
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BINARY = None

ROOT = os.path.join("home", "u", ".config", "Code", "User", "globalStorage", "rooveterinaryinc.roo-cline")
TASK = "0d6e3c1a-4b2f-4c8e-9a7d-2f1e5b6c7d8e"  # a UUIDv4: no time in the id to cross-check


class WrittenTree(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-written-tree-")
        self.tree = os.path.join(self.tmp, "tree")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, relative, text):
        path = os.path.join(self.tree, ROOT, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def run_tool(self, *args, out_name="out"):
        out = os.path.join(self.tmp, out_name)
        proc = subprocess.run([BINARY, "--quiet", *args, "--dir", self.tree, "-o", out], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("runtime error", proc.stderr)  # UBSan's word, in a ROO_SANITIZE build
        return out

    def rows(self, out):
        with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    # docs/row-contract.md, "Secrets in an MCP server's command line and url": no output of a plain or --native run
    # holds a key given on a server's command line or in its URL; each is named by a credential_present row.
    def test_mcp_command_line_secrets_never_leave(self):
        self.write(os.path.join("settings", "mcp_settings.json"), json.dumps({"mcpServers": {
            "remote": {"command": "npx", "args": ["-y", "mcp-remote", "https://mcp.example/sse?token=PLANTED-q1",
                                                  "--header", "Authorization: Bearer PLANTED-h2",
                                                  "--api-key", "PLANTED-a3", "--token=PLANTED-t4"]},
            "http": {"type": "streamable-http", "url": "https://mcp.example/mcp?key=PLANTED-k5&access_token=PLANTED-k6"},
        }}, indent="\t"))
        for name, args in (("plain", []), ("native", ["--native"])):
            out = self.run_tool(*args, out_name=name)
            keys = [r["credential_key"] for r in self.rows(out) if r["kind"] == "credential_present"]
            self.assertEqual(keys, ["mcpServers.remote.args.token", "mcpServers.remote.args.Authorization",
                                    "mcpServers.remote.args.--api-key", "mcpServers.remote.args.--token",
                                    "mcpServers.http.url.key", "mcpServers.http.url.access_token"], name)
            servers = [r for r in self.rows(out) if r["kind"] == "mcp_server"]
            self.assertEqual(servers[1]["text"],
                             "mcp server: http https://mcp.example/mcp?key=<redacted>&access_token=<redacted>")
            files = os.listdir(out)
            for file in ("rows.jsonl", "roo.body", "timeline.jsonl", "l2t.csv", "rows.csv", "roo.sqlite",
                         "report.html", "report.json"):
                self.assertIn(file, files)
            for folder, _, names in os.walk(out):  # report.html's rows are in report/
                for file in names:
                    with open(os.path.join(folder, file), "rb") as f:
                        self.assertNotIn(b"PLANTED", f.read(), f"{name}/{file}")

    # docs/row-contract.md, "A time outside JavaScript's Date range is no time": ±8.64e15 ms (275760-09-13,
    # -271821-04-20) are times; beyond them a ts is kept as raw_time_ms, time_utc null, time_source out_of_range, and
    # no format overflows on it (timeline.jsonl once held -9146744073709551616 for 9.3e15).
    def test_ts_outside_javascript_dates(self):
        cases = [  # ts, time_utc (None: none)
            (1760000000000, "2025-10-09T08:53:20.000Z"),
            (8640000000000000, "275760-09-13T00:00:00.000Z"),
            (8640000000000001, None),
            (9300000000000000, None),
            (100000000000000000, None),
            (-8640000000000000, "-271821-04-20T00:00:00.000Z"),
            (-9300000000000000, None),
        ]
        records = [{"ts": ts, "type": "say", "say": "error", "text": f"record {i}"} for i, (ts, _) in enumerate(cases)]
        self.write(os.path.join("tasks", TASK, "ui_messages.json"), json.dumps(records, separators=(",", ":")))
        out = self.run_tool()
        ui = [r for r in self.rows(out) if r["source"]["path"].endswith("/ui_messages.json")]
        self.assertEqual(len(ui), len(cases))
        for row, (ts, time_utc) in zip(ui, cases):
            self.assertEqual(row["time_utc"], time_utc, ts)
            if time_utc:
                self.assertEqual(row["time_source"], "ui.ts")
                self.assertNotIn("raw_time_ms", row)
            else:
                self.assertEqual((row["time_source"], row["raw_time_ms"], row["raw_time_source"]),
                                 ("out_of_range", ts, "ui.ts"))
        with open(os.path.join(out, "timeline.jsonl"), encoding="utf-8") as f:
            stamps = sorted(json.loads(line)["timestamp"] for line in f if "/ui_messages.json" in line)
        self.assertEqual(stamps, [-8640000000000000000, 1760000000000000, 8640000000000000000])
        with open(os.path.join(out, "roo.body"), encoding="utf-8") as f:
            body = [line.rstrip("\n").split("|")[-1] for line in f if "/ui_messages.json" in line]
        self.assertEqual(sorted(body), ["1760000000", "8640000000000"])  # mactime: times after the epoch only
        report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
        timeline = [o for o in report["outputs"]["files"] if o["file"] == "timeline.jsonl"][0]
        self.assertIn("time_utc null", timeline["left_out_reason"])


if __name__ == "__main__":
    import e2e_main

    e2e_main.run(sys.modules[__name__], "WrittenTree", flags=("--binary",))
