#!/usr/bin/env python3
"""make_snapshot_volume: the bench's APFS container, a Data volume with 24 hourly local snapshots.

    make_snapshot_volume.py REPO OUTDIR [--short-names]

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


def main():
    repo, out = sys.argv[1], sys.argv[2]
    short_names = sys.argv[3:] == ["--short-names"]
    trees = os.path.join(repo, "fixtures", "trees")
    data = os.path.join(trees, "macos-apfs", "data")
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    live = os.path.join(out, "live")
    shutil.copytree(data, live)
    shutil.rmtree(os.path.join(live, DELETED_TASK))
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
                    os.path.join(out, "volume.apfs"), "--blocks", "8192", "--uuid", CONTAINER_UUID, "-b", str(EPOCH),
                    "--volume", volume], check=True, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
