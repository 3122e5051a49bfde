#!/usr/bin/env python3
"""report.html rendered by headless Chromium (Debian `chromium`), made by the real roo-ingest binary.

The demo image's page is loaded at its views (overview, a task, search, configuration, rows of one kind, denials)
and the DOM Chromium built is checked against rows.jsonl and against facts of the fixture written here by hand.
The views other than the overview load their rows from the page's parts (report/*.js) as a file:// page does. A folder whose task text is
hostile markup checks that evidence never becomes markup and that the page fetched nothing (a local HTTP server
counts requests), and a probe script injected into a copy of the page shows that the page's Content-Security-Policy
stops every fetch, with a control copy without the policy showing that the probe does reach the server.

Exits 77 (ctest: skipped) when no chromium is installed.

usage: html_report_chromium_test.py [HtmlReportChromium.test_NAME] --binary PATH --repo PATH
"""
import http.server
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
from html.parser import HTMLParser

BINARY = None
REPO = None
CHROMIUM = None

# Facts of the demo image (fixtures/trees/linux-ext4, alice's first VS Code task), read from the tree by hand.
ALICE_TASK = "019cd70b-cb3d-73c1-9a4e-5f0b2d7c8e16"
ALICE_PROMPT = "tests/test_parse.py fails since the last refactor. Please find out why and fix parse_date in src/dates.py."
# Its user message is timed by its ui record (docs/row-contract.md "Which record times a row"): ui_messages.json
# record 0, ts 1773134400317 = 2026-03-10T09:20:00.317Z; Berlin is UTC+1 then (summer time starts 2026-03-29).
ALICE_PROMPT_UTC = "2026-03-10T09:20:00.317Z"
ALICE_PROMPT_BERLIN = "2026-03-10 10:20:00.317 CET"
ALICE_FIXED_LINE = '    return datetime.strptime(text, "%Y-%m-%d").date()'  # what write_to_file put in src/dates.py


# ---------- a small DOM from Chromium's --dump-dom output -----------------------------------------------------------
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.iter()

    def all(self, tag=None, cls=None, **attrs):
        return [n for n in self.iter() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes())
                and all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())]

    def one(self, tag=None, cls=None, **attrs):
        found = self.all(tag, cls, **attrs)
        assert len(found) == 1, f"{len(found)} elements {tag} .{cls} {attrs}"
        return found[0]


class DomBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("#document", [], None)

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def render(page, fragment=""):
    """The DOM Chromium built for page#fragment once its script ran."""
    url = pathlib.Path(page).resolve().as_uri() + ("#" + fragment if fragment else "")
    with tempfile.TemporaryDirectory(prefix="roo-chromium-") as profile:
        proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                               "--disable-extensions", "--disable-background-networking",
                               f"--user-data-dir={profile}", "--virtual-time-budget=10000", "--dump-dom", url],
                              capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 or "<html" not in proc.stdout:
        raise AssertionError(f"chromium failed ({proc.returncode}): {proc.stderr[-2000:]}")
    b = DomBuilder()
    b.feed(proc.stdout)
    return b.root


class CountingServer:
    """An HTTP server on 127.0.0.1 that records every request it gets."""

    def __init__(self):
        hits = self.hits = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"x")

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def executable_scripts(dom):
    return [s for s in dom.all("script") if s.attrs.get("type") != "application/json"]


def read_rows(out):
    with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def run_tool(args, out):
    proc = subprocess.run([BINARY, "--quiet", *args, "-o", out], capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"roo-ingest {' '.join(args)} exited {proc.returncode}: {proc.stderr}")


class HtmlReportChromium(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="roo-html-")
        cls.out = os.path.join(cls.tmp, "demo")
        run_tool([os.path.join(REPO, "fixtures", "images", "demo.E01"), "--tz", "Europe/Berlin",
                  "--format", "html"], cls.out)
        cls.page = os.path.join(cls.out, "report.html")
        cls.rows = read_rows(cls.out)
        with open(os.path.join(cls.out, "report.json"), encoding="utf-8") as f:
            cls.report = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assert_provenance(self, node, row):
        """The row's box names its row_id (as a link to itself), its file and inode, and its UTC time."""
        prov = node.one(cls="prov")
        text = prov.text()
        self.assertEqual(prov.all("a")[0].attrs["href"], "#row=" + row["row_id"])
        self.assertIn("row " + row["row_id"], text)
        self.assertIn(row["source"]["path"], text)
        self.assertIn(f"inode {row['source']['inode']}", text)
        if row["source"]["record_index"] is not None:
            self.assertIn(f"record {row['source']['record_index']}", text)
        self.assertIn(f"UTC {row['time_utc'] or 'none'} ({row['time_source']})", text)

    def test_overview(self):
        dom = render(self.page)
        tasks = [r for r in self.rows if r["kind"] == "task"]
        self.assertEqual(len(tasks), 18)  # the demo image's task rows (fixtures/expected)
        entries = dom.all("li", cls="task-entry")
        self.assertEqual(len(entries), len(tasks))
        self.assertEqual(sorted(e.attrs["data-task"] for e in entries), sorted(t["row_id"] for t in tasks))
        self.assertEqual(dom.all("li", cls="session-entry"), [])  # every session's rows follow its task row
        titles = [e.all("a")[0].text() for e in entries]
        self.assertIn(ALICE_PROMPT, titles)
        # The timeline: one lane per task (every demo task has timed rows), each with at least one mark.
        chart = dom.one("svg", id="timeline")
        lanes = chart.all("g", cls="lane")
        self.assertEqual(sorted(g.attrs["data-task"] for g in lanes), sorted(t["row_id"] for t in tasks))
        for g in lanes:
            self.assertGreater(len(g.all("rect", cls="mark")), 0, g.attrs["data-task"])
        self.assertIsNotNone(dom.one("input", id="search"))
        self.assertEqual(dom.one(id="zone-note").text(),
                         "Times shown in Europe/Berlin (hover a time for UTC) · roo-ingest 0.1.0")
        self.assertEqual(dom.one(id="banners").children, [])  # not cut off, all rows there
        # Evidence and completeness from report.json.
        evidence = dom.one("div", cls="evidence").text()
        self.assertIn("demo.E01", evidence)
        self.assertIn(self.report["evidence"]["stored_hashes"]["md5"], evidence)
        self.assertIn(f"{len(self.rows)} in rows.jsonl, {len(self.rows)} in this report", evidence)
        parts = dom.one("table", cls="partitions").all("tr")[1:]
        self.assertEqual(sum("parsed" in tr.text() for tr in parts), 2)  # the ext4 and the NTFS partition
        # The filter by kind: every kind of rows.jsonl with its count, and the denials.
        kinds = {li.attrs["data-kind"]: li.text() for li in dom.all("li", cls="kind-entry")}
        want = {}
        for r in self.rows:
            want[r["kind"]] = want.get(r["kind"], 0) + 1
        self.assertEqual(set(kinds), set(want) | {"denied"})
        for k, n in want.items():
            self.assertEqual(kinds[k], f"{k} ({n})")
        # Nothing in the page points anywhere: every link is inside the page, no element loads anything.
        for n in dom.iter():
            self.assertNotIn(n.tag, {"img", "iframe", "object", "embed", "link", "audio", "video", "source"})
            self.assertNotIn("src", n.attrs, n.tag)
            if "href" in n.attrs:
                self.assertTrue(n.attrs["href"].startswith("#"), n.attrs["href"])
        self.assertEqual(len(executable_scripts(dom)), 1)  # the page's own: the overview loads no part
        self.assertEqual(dom.all("script", cls="roo-data"), [])  # the data chunks were read and removed

    def test_task_view(self):
        task = next(r for r in self.rows if r["kind"] == "task" and r["session_id"] == ALICE_TASK)
        mine = [r for r in self.rows if r["session_id"] == ALICE_TASK]
        dom = render(self.page, "task=" + task["row_id"])
        boxes = dom.one(cls="conversation").all("div", cls="row")
        self.assertEqual(len(boxes), len(mine))
        self.assertEqual(len(executable_scripts(dom)), 1)  # the part's script element went once it had run
        self.assertEqual(dom.one(id="banners").children, [])  # the part was whole
        by_id = {b.attrs["data-row-id"]: b for b in boxes}
        self.assertEqual(set(by_id), {r["row_id"] for r in mine})
        for r in mine:
            self.assert_provenance(by_id[r["row_id"]], r)
        # The prompt, in Berlin time with UTC on hover.
        prompt = next(r for r in mine if r["kind"] == "user_message")
        box = by_id[prompt["row_id"]]
        self.assertEqual(box.one("pre").text(), ALICE_PROMPT)
        t = box.one("span", cls="time")
        self.assertEqual(t.text(), ALICE_PROMPT_BERLIN)
        self.assertEqual(t.attrs["title"], f"UTC {ALICE_PROMPT_UTC} (ui.ts)")
        # Commands with their exit codes: pytest exited 0 ("Exit code: 0" in its result); git add was skipped after
        # the user rejected the call before it, so no exit code exists.
        commands = [r for r in mine if r["kind"] == "command"]
        self.assertEqual([r["command"] for r in commands], ["python -m pytest -q", "git add src/dates.py"])
        pytest, git = (by_id[r["row_id"]] for r in commands)
        self.assertEqual(pytest.one("pre", cls="cmd").text(), "$ python -m pytest -q")
        self.assertIn("exit code 0", [b.text() for b in pytest.all("span", cls="badge")])
        self.assertIn("exited", [b.text() for b in pytest.all("span", cls="badge")])
        self.assertEqual(git.one("pre", cls="cmd").text(), "$ git add src/dates.py")
        self.assertIn("exit code not recorded", [b.text() for b in git.all("span", cls="badge")])
        self.assertIn("outcome skipped_after_rejection", [b.text() for b in git.all("span", cls="badge")])
        # The edit as a diff: write_to_file records only the new side, so every line is added.
        edit = next(r for r in mine if r["kind"] == "file_edit")
        added = [s.text() for s in by_id[edit["row_id"]].all("span", cls="add")]
        self.assertIn("+ " + ALICE_FIXED_LINE, added)
        self.assertEqual(by_id[edit["row_id"]].all("span", cls="del"), [])
        # Approvals and the denial stand out.
        denied = [r for r in mine if r["kind"] == "permission_decision" and r["decision"] == "denied"]
        self.assertEqual(len(denied), 1)
        self.assertIn("cat-deny", by_id[denied[0]["row_id"]].classes())
        self.assertEqual(by_id[denied[0]["row_id"]].one("span", cls="decision").text(), "DENIED")
        asks = [r for r in mine if r["kind"] == "approval_request"]
        self.assertGreater(len(asks), 0)
        for r in asks:
            self.assertIn("cat-approval", by_id[r["row_id"]].classes())
            self.assertIn("Approval requested", by_id[r["row_id"]].text())
        # Reasoning is there, folded.
        reasoning = [r for r in mine if r["kind"] == "reasoning"]
        self.assertGreater(len(reasoning), 0)
        for r in reasoning:
            fold = by_id[r["row_id"]].one(cls="body").one("details")
            self.assertNotIn("open", fold.attrs)
            self.assertEqual(fold.one("pre").text(), r["text"])
        # Time order: the times shown never go back.
        shown = [b.one(cls="head").all("span", cls="time")[0].attrs.get("title", "") for b in boxes]
        utc = [s.split(" ")[1] for s in shown if s.startswith("UTC ")]
        self.assertEqual(utc, sorted(utc))

    def test_deleted_task_marker(self):
        # The demo's index-only task: its directory is gone, the page says so on the list and on the task.
        gone = [r for r in self.rows if r["kind"] == "task" and r.get("task_dir_present") is False]
        self.assertEqual(len(gone), 3)  # one from an _index.json, two from a global state's taskHistory
        dom = render(self.page)
        for r in gone:
            entry = dom.one("li", cls="task-entry", data_task=r["row_id"])
            self.assertIn("task directory gone — known from " + r["known_from"], entry.text())

    def test_recovered_file_markers(self):
        """No fixture yields rows of a deleted file yet, so a copy of the page has one file's entry in its data
        edited to say what a recovered file's source says (recovery "deleted", name not allocated): every row of that
        file, and only those, must carry the markers, and the task must count them."""
        task = next(r for r in self.rows if r["kind"] == "task" and r["session_id"] == ALICE_TASK)
        ui_path = task["source"]["path"].replace("history_item.json", "ui_messages.json")
        from_file = {r["row_id"] for r in self.rows if r["source"]["path"] == ui_path}
        self.assertGreater(len(from_file), 5)
        # The file's fields are in the part of the task (report/task-N.js), once, the first time a row names it.
        copy_dir = os.path.join(self.tmp, "recovered")
        shutil.copytree(self.out, copy_dir)
        part = next(str(p) for p in pathlib.Path(copy_dir, "report").glob("task-*.js")
                    if f'"path":"{ui_path}"' in p.read_text(encoding="utf-8"))
        with open(part, encoding="utf-8") as f:
            text = f.read()
        at = text.index(f'"path":"{ui_path}"')
        end = text.index("}", at)
        entry = text[at:end]
        self.assertIn('"name_allocated":true', entry)
        self.assertIn('"recovery":"allocated"', entry)
        entry = entry.replace('"name_allocated":true', '"name_allocated":false') \
                     .replace('"recovery":"allocated"', '"recovery":"deleted"')
        with open(part, "w", encoding="utf-8") as f:
            f.write(text[:at] + entry + text[end:])
        copy = os.path.join(copy_dir, "report.html")
        dom = render(copy, "task=" + task["row_id"])
        for box in dom.one(cls="conversation").all("div", cls="row"):
            badges = [b.text() for b in box.one(cls="head").all("span", cls="badge")]
            mine = box.attrs["data-row-id"] in from_file
            self.assertEqual("recovered: deleted" in badges, mine, box.attrs["data-row-id"])
            self.assertEqual("deleted name" in badges, mine, box.attrs["data-row-id"])
            self.assertEqual("recovered" in box.classes(), mine)
            if mine:
                self.assertIn("deleted", box.one(cls="prov").text())
        # The overview counts what the writer counted from the real, unedited rows: none recovered.
        dom = render(self.page)
        entry = dom.one("li", cls="task-entry", data_task=task["row_id"])
        self.assertNotIn(f"{len(from_file)} row(s) from deleted/recovered files",
                         [b.text() for b in entry.all("span", cls="badge")])

    def test_deleted_names_column(self):
        """The Roo roots table's deleted-names column shows report.json's roots_found[].deleted_names_seen. On
        deleted-ntfs.E01 bob's VS Code root has 3 deleted names (fixtures/images/README.md: ui_messages.json of two
        tasks and one task directory); the other roots none."""
        out = os.path.join(self.tmp, "deleted-ntfs")
        run_tool([os.path.join(REPO, "fixtures", "images", "deleted-ntfs.E01"), "--format", "html"], out)
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            roots = [r for p in json.load(f)["partitions"] for r in p["scan"]["roots_found"]]
        evidence = render(os.path.join(out, "report.html")).one("div", cls="evidence")
        heading = next(h for h in evidence.all("h4") if h.text().startswith("Roo roots found"))
        siblings = [n for n in heading.parent.children if isinstance(n, Node)]
        header, *lines = siblings[siblings.index(heading) + 1].all("tr")
        column = next(i for i, th in enumerate(header.all("th")) if th.text().startswith("deleted names"))
        shown = [(tr.all("td")[3].text(), tr.all("td")[column].text()) for tr in lines]
        self.assertEqual(shown, [(r["path"], str(r["deleted_names_seen"])) for r in roots])
        bob = "/Users/bob/AppData/Roaming/Code/User/globalStorage/rooveterinaryinc.roo-cline"
        self.assertEqual(sorted(n for path, n in shown if path != bob), ["0"] * (len(shown) - 1))
        self.assertIn((bob, "3"), shown)

    def test_kind_filter(self):
        """#kind=K shows exactly the rows of kind K, of every task, in rows.jsonl order, each linked to its task;
        #denials the rows the page calls denied: a permission decision "denied", a call whose outcome is "denied"
        or "access_denied", a result whose result_status is "denied" (docs/html-report.md)."""
        task_of = {}  # row_id → the task row_id the row belongs to (session rows follow their task row)
        current = {}
        for r in self.rows:
            if r["session_id"] is None and r["kind"] != "task":
                continue
            key = (r["source"]["evidence"], r["source"]["partition_offset"], r["user"], r["surface"], r["session_id"])
            if r["kind"] == "task":
                current[key] = r["row_id"]
            task_of[r["row_id"]] = current.get(key)
        def denied(r):
            return ((r["kind"] == "permission_decision" and r.get("decision") == "denied")
                    or r.get("outcome") in ("denied", "access_denied") or r.get("result_status") == "denied")
        for fragment, want in (("kind=command", [r for r in self.rows if r["kind"] == "command"]),
                               ("kind=file_edit", [r for r in self.rows if r["kind"] == "file_edit"]),
                               ("kind=credential_present", [r for r in self.rows if r["kind"] == "credential_present"]),
                               ("denials", [r for r in self.rows if denied(r)])):
            self.assertGreater(len(want), 1, fragment)
            dom = render(self.page, fragment)
            boxes = dom.one(cls="search-results").all("div", cls="row")
            self.assertEqual([b.attrs["data-row-id"] for b in boxes], [r["row_id"] for r in want], fragment)
            self.assertEqual(dom.one(id="kind-count").text().split(" ")[0], str(len(want)), fragment)
            for b, r in zip(boxes, want):
                self.assertIn("k-" + r["kind"], b.classes())
                head_links = [a.attrs["href"] for a in b.one(cls="head").all("a")]
                if task_of.get(r["row_id"]):
                    self.assertEqual(head_links, [f"#task={task_of[r['row_id']]}&row={r['row_id']}"], fragment)
                else:
                    self.assertEqual(head_links, ["#config"], fragment)
            self.assertEqual(dom.one(id="banners").children, [], fragment)
        # The denials of the demo: alice's denied command among them, and more than permission decisions.
        self.assertTrue(any(r["kind"] != "permission_decision" for r in self.rows if denied(r)))
        # A link from the list opens the row in its task.
        r = next(r for r in self.rows if r["kind"] == "command" and task_of.get(r["row_id"]))
        dom = render(self.page, f"task={task_of[r['row_id']]}&row={r['row_id']}")
        self.assertEqual(dom.one("div", cls="target").attrs["data-row-id"], r["row_id"])

    def test_partitions_with_nothing_to_search_are_folded(self):
        """Partitions report.json says were not searched (volume-system entries, unallocated space) or hold no file
        system are in a folded table below the table of the ones searched."""
        idle = [p for p in self.report["partitions"]
                if p["status"].startswith("not searched") or p["status"] == "no_file_system"]
        searched = [p for p in self.report["partitions"] if p not in idle]
        self.assertEqual(len(searched), 2)  # demo.E01: the ext4 and the NTFS partition
        self.assertEqual(len(idle), 5)      # its GPT entries and unallocated space (report.json)
        evidence = render(self.page).one("div", cls="evidence")
        shown = evidence.one("table", cls="partitions").all("tr")[1:]
        self.assertEqual([tr.all("td")[1].text() for tr in shown], [str(p["offset_bytes"]) for p in searched])
        fold = evidence.one("details", cls="idle-partitions")
        self.assertNotIn("open", fold.attrs)
        self.assertEqual(fold.one("summary").text(), "5 partition(s) with nothing to search")
        folded = fold.one("table", cls="partitions-idle").all("tr")[1:]
        self.assertEqual([tr.all("td")[1].text() for tr in folded], [str(p["offset_bytes"]) for p in idle])
        kids = [n for n in evidence.children if isinstance(n, Node)]
        self.assertLess(kids.index(evidence.one("table", cls="partitions")), kids.index(fold))

    def test_parts_one_per_task_and_the_same_bytes_twice(self):
        """report/ holds one part per task (and the configuration, each kind, the denials); a second run on the same
        image gives byte-identical report.html and parts."""
        folder = pathlib.Path(self.out, "report")
        tasks = [r for r in self.rows if r["kind"] == "task"]
        names = sorted(p.name for p in folder.iterdir())
        self.assertEqual(len([n for n in names if n.startswith("task-")]), len(tasks))
        self.assertEqual(sorted(n for n in names if n.startswith("kind-")),
                         sorted(f"kind-{k}.js" for k in {r["kind"] for r in self.rows}))
        self.assertIn("config.js", names)
        self.assertIn("denied.js", names)
        # Two runs into one OUTDIR (report.json, in the page, names it on the command line); a stray file in
        # report/ does not outlive the second.
        same = os.path.join(self.tmp, "same")
        args = [os.path.join(REPO, "fixtures", "images", "demo.E01"), "--tz", "Europe/Berlin", "--format", "html",
                "--force"]
        run_tool(args, same)
        folder = pathlib.Path(same, "report")
        first = {n: pathlib.Path(same, n).read_bytes() for n in ["report.html"] + ["report/" + n for n in names]}
        pathlib.Path(folder, "task-999999.js").write_text("stale")
        run_tool(args, same)
        for name, data in first.items():
            self.assertEqual(pathlib.Path(same, name).read_bytes(), data, name)
        self.assertEqual(sorted(p.name for p in folder.iterdir()), names)

    def test_cut_off_page_says_so(self):
        """A page cut while it was written (a killed run, a full disk) has no end mark; its script, in the head,
        still runs and says so."""
        with open(self.page, encoding="utf-8") as f:
            page = f.read()
        chunk = page.index('<script type="application/json" class="roo-data">')
        end_mark = page.index('<script type="application/json" id="roo-end">')
        for name, cut_at, unreadable in (("after-data", end_mark, False), ("inside-data", (chunk + end_mark) // 2, True)):
            copy = os.path.join(self.tmp, f"cut-{name}.html")
            with open(copy, "w", encoding="utf-8") as f:
                f.write(page[:cut_at])
            dom = render(copy)
            notes = [b.text() for b in dom.one(id="banners").all("div", cls="banner")]
            self.assertIn("This page was cut off while it was written: the rows below may be incomplete. "
                          "rows.jsonl is the reference.", notes, name)
            self.assertEqual(any(n.startswith("Unreadable data in the page") for n in notes), unreadable, name)
            tasks = len([r for r in self.rows if r["kind"] == "task"])
            self.assertEqual(len(dom.all("li", cls="task-entry")), 0 if unreadable else tasks, name)
            self.assertIsNotNone(dom.one("input", id="search"))

    def test_search(self):
        # The search matches text, kind, tool, path, command, session id, row id and source path, ignoring case.
        query = "PARSE_DATE"
        fields = ("text", "kind", "tool_name", "file_path", "command", "session_id", "row_id")
        want = [r["row_id"] for r in self.rows
                if any(isinstance(r.get(k), str) and query.lower() in r[k].lower() for k in fields)
                or query.lower() in r["source"]["path"].lower()]
        self.assertGreater(len(want), 3)
        dom = render(self.page, "search=" + query)
        self.assertEqual(dom.one(id="search-count").text(), f'{len(want)} row(s) match "{query}"')
        got = [b.attrs["data-row-id"] for b in dom.one(cls="search-results").all("div", cls="row")]
        self.assertEqual(got, want)  # in rows.jsonl order
        prompt = next(r for r in self.rows if r["kind"] == "user_message" and r["session_id"] == ALICE_TASK)
        self.assertIn(prompt["row_id"], got)

    def test_configuration(self):
        outside = [r for r in self.rows if r["session_id"] is None]
        dom = render(self.page, "config")
        lines = dom.all("tr", cls="crow")
        self.assertEqual(sorted(tr.attrs["data-row-id"] for tr in lines), sorted(r["row_id"] for r in outside))
        users = [s.attrs["data-user"] for s in dom.all("section", cls="config-user")]
        self.assertEqual(sorted(users), sorted({r["user"] for r in outside}))
        by_id = {tr.attrs["data-row-id"]: tr for tr in lines}
        # 13 credential rows in the demo; 3 are queued uploads' Authorization headers, which carry their task as
        # session (row contract) and so show in that task, not here.
        creds = [r for r in outside if r["kind"] == "credential_present"]
        self.assertEqual(len(creds), 10)
        for r in creds:
            self.assertIn(r["text"], by_id[r["row_id"]].text())
            self.assert_provenance(by_id[r["row_id"]], r)
        for kind in ("permission_setting", "mcp_server", "mcp_always_allow"):
            self.assertTrue(any(r["kind"] == kind for r in outside), kind)

    def test_row_link_opens_its_context(self):
        edit = next(r for r in self.rows if r["kind"] == "file_edit" and r.get("edit_form") == "search_replace_blocks")
        dom = render(self.page, "row=" + edit["row_id"])
        target = dom.one("div", cls="target")
        self.assertEqual(target.attrs["data-row-id"], edit["row_id"])
        # both sides of a search/replace hunk: removed and added lines
        self.assertGreater(len(target.all("span", cls="del")), 0)
        self.assertGreater(len(target.all("span", cls="add")), 0)

    def test_hostile_evidence_stays_text_and_nothing_is_fetched(self):
        server = CountingServer()
        try:
            base = f"http://127.0.0.1:{server.port}"
            hostile = (f"</script><script>fetch('{base}/script')</script><img src=\"{base}/img\" "
                       f"onerror=\"fetch('{base}/onerror')\"><!--<script>x</script><style>@import '{base}/css';</style>")
            tree = os.path.join(self.tmp, "hostile-tree")
            task = "019e0000-0000-7000-8000-000000000001"
            tdir = os.path.join(tree, "home", "mallory", ".config", "Code", "User", "globalStorage",
                                "rooveterinaryinc.roo-cline", "tasks", task)
            os.makedirs(tdir)
            with open(os.path.join(tdir, "history_item.json"), "w", encoding="utf-8") as f:
                json.dump({"id": task, "number": 1, "ts": 1773151605400, "task": hostile,
                           "workspace": "/home/mallory/w", "mode": "code"}, f)
            with open(os.path.join(tdir, "api_conversation_history.json"), "w", encoding="utf-8") as f:
                json.dump([
                    {"role": "user", "ts": 1773151500483,
                     "content": [{"type": "text", "text": "<user_message>\n" + hostile + "\n</user_message>"}]},
                    {"role": "assistant", "ts": 1773151504032,
                     "content": [{"type": "text", "text": hostile},
                                 {"type": "tool_use", "id": "toolu_1", "name": "write_to_file",
                                  "input": {"path": "x.html", "content": hostile + "\n"}}]}], f)
            out = os.path.join(self.tmp, "hostile-out")
            run_tool(["--dir", tree], out)
            rows = read_rows(out)
            self.assertEqual(sum(r["text"] == hostile for r in rows), 3)  # task, user and assistant rows
            page = os.path.join(out, "report.html")
            with open(page, encoding="utf-8") as f:
                self.assertNotIn("<img", f.read())
            task_row = next(r for r in rows if r["kind"] == "task")
            for fragment in ("", "task=" + task_row["row_id"], "search=fetch"):
                dom = render(page, fragment)
                self.assertEqual(dom.all("img"), [], fragment)
                self.assertEqual(len(dom.all("style")), 1, fragment)  # only the page's own
                self.assertEqual(len(executable_scripts(dom)), 1, fragment)
                if fragment:
                    self.assertIn(hostile, [p.text() for p in dom.all("pre")], fragment)
            edit = next(r for r in rows if r["kind"] == "file_edit")
            dom = render(page, "row=" + edit["row_id"])
            self.assertEqual([s.text() for s in dom.one("div", cls="target").all("span", cls="add")], ["+ " + hostile])
            self.assertEqual(server.hits, [])
        finally:
            server.close()

    def test_policy_stops_every_fetch(self):
        """A script that does run in the page (injected into a copy) cannot reach the network; without the page's
        policy the same probe does, so the probe is not blind."""
        server = CountingServer()
        try:
            with open(self.page, encoding="utf-8") as f:
                page = f.read()
            base = f"http://127.0.0.1:{server.port}"
            probe = ("<script>document.documentElement.setAttribute('data-probe', 'ran');"
                     f"fetch('{base}/fetch').then(() => document.documentElement.setAttribute('data-fetch', 'ok'),"
                     " () => document.documentElement.setAttribute('data-fetch', 'failed'));</script>"
                     f"<img src=\"{base}/img\"><link rel=\"stylesheet\" href=\"{base}/css\">")
            self.assertEqual(page.count("<body>"), 1)
            policy = 'http-equiv="Content-Security-Policy"'
            self.assertEqual(page.count(policy), 1)
            for name, text, want_hits in (("with-policy", page, False),
                                          ("without-policy", page.replace(policy, 'http-equiv="x-no-policy"'), True)):
                copy = os.path.join(self.tmp, name + ".html")
                with open(copy, "w", encoding="utf-8") as f:
                    f.write(text.replace("<body>", "<body>" + probe))
                server.hits.clear()
                dom = render(copy)
                html = dom.one("html")
                self.assertEqual(html.attrs.get("data-probe"), "ran", name)
                self.assertEqual(html.attrs.get("data-fetch"), "failed", name)
                if want_hits:
                    self.assertIn("/fetch", server.hits, name)
                    self.assertIn("/img", server.hits, name)
                else:
                    self.assertEqual(server.hits, [], name)
        finally:
            server.close()


def find_chromium():
    for name in (os.environ.get("ROO_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


if __name__ == "__main__":
    args = sys.argv[1:]
    for flag in ("--binary", "--repo"):
        i = args.index(flag)
        globals()[flag[2:].upper()] = args[i + 1]
        del args[i:i + 2]
    CHROMIUM = find_chromium()
    if CHROMIUM is None:
        print("SKIP: no chromium found (Debian: apt-get install chromium); report.html was not rendered")
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], *args], verbosity=2)
