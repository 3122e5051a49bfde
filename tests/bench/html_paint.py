#!/usr/bin/env python3
"""Times how long headless Chromium takes to show a report.html view, measured by Chromium itself.

    html_paint.py [--chromium PATH] [--repeats N] [--timeout S] URL [URL ...]

For each URL (file://…/report.html, optionally with #task=…) a fresh headless Chromium (its own profile, nothing
cached) is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: no port, no network). Before the
page loads, a script added with Page.addScriptToEvaluateOnNewDocument watches the DOM and notes performance.now()
when the view is usable: the overview's task list (li.task-entry) or a task's rows (.conversation .row) are in
the document. The figures are the page's own clock (ms since navigation start):

  first-paint, first-contentful-paint   performance.getEntriesByType('paint')
  usable                                the watcher's time

Prints one JSON object per URL (the best of --repeats runs of each figure) on stdout. Exits non-zero only when
Chromium fails or a view never became usable within --timeout seconds; it never judges the times.
ROO_PAINT_DEBUG=1 shows Chromium's stderr and each poll.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

WATCH = r"""
(() => {
  const done = () => document.querySelector('li.task-entry') || document.querySelector('.conversation .row');
  const note = () => { if (window.__rooUsable == null && done()) window.__rooUsable = performance.now(); };
  new MutationObserver(note).observe(document, { childList: true, subtree: true });
})();
"""
PROBE = ("JSON.stringify({usable: window.__rooUsable == null ? null : window.__rooUsable, "
         "paint: Object.fromEntries(performance.getEntriesByType('paint').map(e => [e.name, e.startTime]))})")


class Pipe:
    """The DevTools protocol over Chromium's fds 3 (commands in) and 4 (replies out), NUL-terminated JSON."""

    def __init__(self, chromium, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # The child must see them as fds 3 and 4 (copied out of the way first: they may be 3 and 4 already, swapped).
        def setup():
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=None if os.environ.get("ROO_PAINT_DEBUG") else subprocess.DEVNULL,
            preexec_fn=setup, pass_fds=(3, 4))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        want = self.next_id
        while True:
            m = self.read()
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)


def measure(chromium, url, timeout):
    with tempfile.TemporaryDirectory(prefix="roo-paint-") as profile:
        cdp = Pipe(chromium, profile)
        try:
            target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            cdp.send("Page.enable", session=session)
            cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH}, session=session)
            cdp.send("Page.navigate", {"url": url}, session=session)
            deadline = time.monotonic() + timeout
            while True:
                got = json.loads(cdp.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True},
                                          session=session)["result"]["value"])
                if got["usable"] is not None and "first-contentful-paint" in got["paint"]:
                    return {"first_paint_ms": got["paint"].get("first-paint"),
                            "first_contentful_paint_ms": got["paint"]["first-contentful-paint"],
                            "usable_ms": got["usable"]}
                if os.environ.get("ROO_PAINT_DEBUG"): print(got, file=sys.stderr)
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{url}: not usable after {timeout} s ({got})")
                time.sleep(0.05)
        finally:
            cdp.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("urls", nargs="+")
    args = ap.parse_args()
    for url in args.urls:
        runs = [measure(args.chromium, url, args.timeout) for _ in range(args.repeats)]
        best = {k: min(r[k] for r in runs if r[k] is not None) if any(r[k] is not None for r in runs) else None
                for k in runs[0]}
        print(json.dumps({"url": url, **best, "runs": runs}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
