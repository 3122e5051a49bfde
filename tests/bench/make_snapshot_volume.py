#!/usr/bin/env python3
"""make_snapshot_volume: the bench's APFS container, a Data volume with 24 hourly local snapshots.

    make_snapshot_volume.py REPO OUTDIR [--short-names] [--ordinary]

Writes OUTDIR/volume.apfs (a bare container, fixtures/tools/apfs_put.py) and OUTDIR/expected.tsv. The live volume
holds fixtures/trees/macos-apfs/data without frank's Cursor task 019db70c; snapshots 1 (oldest, xid 1) to 24 (xid
24), an hour apart, hold that tree as it was, most files unchanged (their extents shared with the live file's):

  - snapshots 1-18 still hold frank's Cursor task 019db70c (deleted after snapshot 18): its two files, one extent
    each, shared by the 18 snapshots;
  - snapshots 1-12 hold frank's Code task 019dabc5's ui_messages.json as it was while its last request streamed
    (fixtures/trees/macos-apfs-snap-older/): one extent shared by the 12;
  - snapshots 22, 23 and 24 each hold grace's Code task 019cd70b's ui_messages.json with its last 3, 2 and 1 records
    not yet written: three extents of their own.

So a reader that opens a snapshot's copy only when its extents differ from the live file's and from those of newer
snapshots' copies opens, per snapshot: 2 files in snapshot 18, 1 in 12, 1 each in 22, 23 and 24, none in the other 19
(6 in all). expected.tsv says that per snapshot ("XID<TAB>NAME<TAB>FILES"), from the plan above, not from any reader.
Snapshots are named as Time Machine names them (com.apple.TimeMachine.2026-04-22-090000.local …), so the volume's
snapshot-metadata tree needs two leaves under an index node; --short-names names them snap-01 … snap-24 instead,
which fit one leaf (libfsapfs 20201107 reads no other: fixtures/README.md "Snapshots: 24 of them").
--ordinary adds to every state about 20,000 ordinary files outside Roo's storage, laid out as a Mac's Data volume
holds them (ORDINARY below: apps' folders, caches, preferences, documents, source trees, temp files), some in the
directories the search lists (Application Support, globalStorage, the homes, the temp folder), most not; between
snapshots they change as an hour of use changes them: each snapshot's temp folder holds three files deleted since
(so that folder is listed in every snapshot), and a few caches and a preference were rewritten in place since. None
is a Roo file, so expected.tsv is the same. Directories keep their times across states unless an entry was added,
removed or renamed in them, as on APFS.
Every apfs_put.py input is written under OUTDIR; OUTDIR/apfs_put.args holds its --volume argument, which
fixtures/tools/apfs_check.py takes to check the image with libtsk, libfsapfs and apfsck.
"""
import datetime
import json
import os
import shutil
import subprocess
import sys

SNAPSHOTS = 24
FIRST_SNAPSHOT = datetime.datetime(2026, 4, 22, 9, 0, tzinfo=datetime.timezone.utc)
VOLUME_UUID = "a9f5c0de-0000-4a00-8000-00000000d012"
CONTAINER_UUID = "a9f5c0de-0000-4a00-8000-00000000d001"
EPOCH = 1711929600   # 2024-04-01T00:00:00Z, the fixtures' (fixtures/build-apfs.sh FS_EPOCH)
FRANK = "Users/frank/Library/Application Support"
DELETED_TASK = f"{FRANK}/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks/019db70c-52f8-7a16-b3e9-5c07d41f8a2b"
OLDER_UI = f"{FRANK}/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/019dabc5-57a7-7e4b-9c1d-3f5a8b20e6d4/ui_messages.json"
GRACE_UI = ("Users/grace/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/"
            "019cd70b-cb3d-73c1-9a4e-5f0b2d7c8e16/ui_messages.json")


TEMP = "private/var/folders/7x/k2m9q4sd1r3b5n0v8w6t2cxh0000gn"
DIR_TIME = 1776700800   # 2026-04-20T16:00:00Z: the ordinary directories' times, before the first snapshot


def ordinary_files():
    """The --ordinary files' paths, as (directory, names) pairs."""
    out = []
    for user in ("frank", "grace"):
        home = f"Users/{user}"
        lib = f"{home}/Library"
        out += [(f"{lib}/Application Support/App{a:02d}", [f"file{k}.dat" for k in range(5)]) for a in range(60)]
        out += [(f"{lib}/Application Support/Code/User/globalStorage/vendor.ext{e:02d}",
                 [f"state{k}.json" for k in range(3)]) for e in range(20)]
        out += [(f"{lib}/Caches/com.vendor.app{a:02d}", [f"cache{k:03d}" for k in range(40)]) for a in range(50)]
        out += [(f"{lib}/Preferences", [f"com.vendor.pref{k:03d}.plist" for k in range(300)])]
        out += [(f"{home}/Documents/Folder{d:02d}", [f"doc{k:02d}.txt" for k in range(40)]) for d in range(50)]
        out += [(f"{home}/src/repo{r}/pkg{p:02d}", [f"mod{k:02d}.js" for k in range(25)])
                for r in range(10) for p in range(20)]
        out += [(home, [f".profile{k}" for k in range(10)])]
    out += [(f"{TEMP}/T", [f"tmp{k:03d}" for k in range(300)])]
    out += [(f"{TEMP}/C/com.apple.x{d:02d}", [f"f{k:02d}" for k in range(20)]) for d in range(20)]
    return out


def add_ordinary(state, source):
    """Hard-links the ordinary files of source into the state's tree, leaving the times of the directories the
    state already had as they were (adding entries to a state is how it is written here, not a change of it)."""
    times = {}
    for d, _, _ in os.walk(state):
        st = os.stat(d)
        times[d] = (st.st_atime_ns, st.st_mtime_ns)
    made = []
    for rel, names in ordinary_files():
        d = os.path.join(state, rel)
        if not os.path.isdir(d):
            os.makedirs(d)
        for name in names:
            os.link(os.path.join(source, rel, name), os.path.join(d, name))
    for d, _, _ in os.walk(state):
        if d in times:
            os.utime(d, ns=times[d])
        else:
            os.utime(d, (DIR_TIME, DIR_TIME))


def churn(state, i):
    """What an hour of use since snapshot i left behind it: its temp folder's three files deleted since, and caches
    and a preference rewritten in place since (so the snapshot holds their older bytes)."""
    for k in range(3):
        with open(os.path.join(state, TEMP, "T", f"tmp-{i:02d}-{k}"), "w", encoding="utf-8") as f:
            f.write(f"temp file {k} of the hour before snapshot {i}\n")
    for user in ("frank", "grace"):
        for rel in (f"Users/{user}/Library/Caches/com.vendor.app{i % 50:02d}/cache{i:03d}",
                    f"Users/{user}/Library/Preferences/com.vendor.pref{i:03d}.plist"):
            path = os.path.join(state, rel)
            os.unlink(path)   # a hard link to the live bytes: replaced by its own
            with open(path, "w", encoding="utf-8") as f:
                f.write(f"{rel} as of snapshot {i}\n")


def main():
    repo, out = sys.argv[1], sys.argv[2]
    short_names = "--short-names" in sys.argv[3:]
    ordinary = "--ordinary" in sys.argv[3:]
    trees = os.path.join(repo, "fixtures", "trees")
    data = os.path.join(trees, "macos-apfs", "data")
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    live = os.path.join(out, "live")
    shutil.copytree(data, live)
    shutil.rmtree(os.path.join(live, DELETED_TASK))
    source = os.path.join(out, "ordinary")
    if ordinary:
        for n, (rel, names) in enumerate(ordinary_files()):
            os.makedirs(os.path.join(source, rel), exist_ok=True)
            for name in names:
                with open(os.path.join(source, rel, name), "w", encoding="utf-8") as f:
                    f.write(f"ordinary file {n}/{name}\n")
        add_ordinary(live, source)
    with open(os.path.join(data, GRACE_UI), encoding="utf-8") as f:
        grace_records = json.load(f)
    expected, manifest = [], []
    for i in range(1, SNAPSHOTS + 1):   # snapshot i is xid i
        src = os.path.join(out, f"snap-{i:02d}")
        shutil.copytree(data, src)
        if i > 18:
            shutil.rmtree(os.path.join(src, DELETED_TASK))
        if i <= 12:
            shutil.copyfile(os.path.join(trees, "macos-apfs-snap-older", OLDER_UI), os.path.join(src, OLDER_UI))
        if i >= 22:
            with open(os.path.join(src, GRACE_UI), "w", encoding="utf-8") as f:
                json.dump(grace_records[:len(grace_records) - (SNAPSHOTS + 1 - i)], f, ensure_ascii=False,
                          separators=(",", ":"))
        if ordinary:
            add_ordinary(src, source)
            churn(src, i)
        # Each version is read in the newest snapshot holding it: the deleted task's two files in 18, the older
        # ui_messages.json in 12, grace's shorter ones in their own.
        reads = (2 if i == 18 else 0) + (1 if i == 12 else 0) + (1 if i >= 22 else 0)
        when = FIRST_SNAPSHOT + datetime.timedelta(hours=i - 1)
        name = f"snap-{i:02d}" if short_names else f"com.apple.TimeMachine.{when:%Y-%m-%d-%H%M%S}.local"
        manifest.append(f"{name}\t{int(when.timestamp())}\t{src}\n")
        expected.append(f"{i}\t{name}\t{reads}\n")
    with open(os.path.join(out, "snaps.tsv"), "w", encoding="utf-8") as f:
        f.writelines(manifest)
    with open(os.path.join(out, "expected.tsv"), "w", encoding="utf-8") as f:
        f.writelines(expected)
    volume = (f"name=Macintosh HD - Data,role=data,uuid={VOLUME_UUID},case=insensitive,src={live},"
              f"snaps={os.path.join(out, 'snaps.tsv')}")
    with open(os.path.join(out, "apfs_put.args"), "w", encoding="utf-8") as f:
        f.write(volume + "\n")
    subprocess.run([sys.executable, os.path.join(repo, "fixtures", "tools", "apfs_put.py"), "-o",
                    os.path.join(out, "volume.apfs"), "--blocks", "131072" if ordinary else "8192", "--uuid", CONTAINER_UUID, "-b", str(EPOCH),
                    "--volume", volume], check=True, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
