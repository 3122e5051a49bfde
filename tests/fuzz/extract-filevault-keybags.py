#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_filevault_keybag (tests/fuzz/corpus/filevault_keybag/): the two keybag blocks of
fixtures/apfs/macos-apfs-filevault.E01 (fixtures/README.md "FileVault"), decrypted as tsk_glue/apfs_filevault.cpp
decrypts them: the container keybag at nx_keylocker (AES-XTS-128 with the container's UUID as both keys, each 512-byte
sector's number from the container's start its tweak), and the volume keybag at the place its KB_TAG_VOLUME_UNLOCK_RECORDS
entry gives, under the volume's UUID; and each wrapped key's packed object (the KB_TAG_VOLUME_KEY and the volume
keybag's KB_TAG_VOLUME_UNLOCK_RECORDS entries' data), alone. The decryption is fixtures/tools/apfs_crypto.py's (pure Python, held to IEEE 1619's
known answers), not the code under test. Needs ewfexport (libewf-tools).
Usage: tests/fuzz/extract-filevault-keybags.py"""
import pathlib
import struct
import subprocess
import sys
import tempfile

repo = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(repo / "fixtures" / "tools"))
from apfs_crypto import xts_decrypt  # noqa: E402

VOLUME_UUID = bytes.fromhex("a9f5c0de00004a00800000000000c011")  # "Macintosh HD" (fixtures/README.md)
SECTOR = 512


def decrypt_block(raw, block, block_size, uuid):
    data = raw[block * block_size:(block + 1) * block_size]
    first = block * block_size // SECTOR
    return b"".join(xts_decrypt(uuid, uuid, first + i, data[i * SECTOR:(i + 1) * SECTOR])
                    for i in range(block_size // SECTOR))


def entries(bag):
    """keybag_entry_t list (Apple File System Reference "Encryption"): (uuid, tag, data), each 16-byte aligned."""
    count, at = struct.unpack_from("<H", bag, 34)[0], 48
    for _ in range(count):
        uuid, tag, length = bag[at:at + 16], *struct.unpack_from("<HH", bag, at + 16)
        yield uuid, tag, bag[at + 24:at + 24 + length]
        at = (at + 24 + length + 15) & ~15


def main():
    with tempfile.TemporaryDirectory() as tmp:
        target = pathlib.Path(tmp) / "image"
        subprocess.run(["ewfexport", "-q", "-u", "-f", "raw", "-t", str(target),
                        str(repo / "fixtures" / "apfs" / "macos-apfs-filevault.E01")], check=True,
                       stdout=subprocess.DEVNULL)
        raw = (pathlib.Path(tmp) / "image.raw").read_bytes()
    assert raw[32:36] == b"NXSB"  # a bare container: its superblock at byte 0
    block_size = struct.unpack_from("<I", raw, 0x24)[0]
    container_uuid = raw[0x48:0x58]
    keylocker = struct.unpack_from("<Q", raw, 0x510)[0]
    container_bag = decrypt_block(raw, keylocker, block_size, container_uuid)
    assert container_bag[24:28] == b"syek"  # o_type 'keys', little-endian
    recs = next(struct.unpack_from("<Q", data)[0] for uuid, tag, data in entries(container_bag)
                if uuid == VOLUME_UUID and tag == 3)
    volume_bag = decrypt_block(raw, recs, block_size, VOLUME_UUID)
    assert volume_bag[24:28] == b"scer"  # 'recs'
    out = repo / "tests" / "fuzz" / "corpus" / "filevault_keybag"
    out.mkdir(parents=True, exist_ok=True)
    (out / "container-keybag").write_bytes(container_bag)
    (out / "volume-keybag").write_bytes(volume_bag)
    wrapped = [data for _, tag, data in entries(container_bag) if tag == 2]
    wrapped += [data for _, tag, data in entries(volume_bag) if tag == 3]
    for n, data in enumerate(wrapped):
        (out / f"wrapped-key-{n}").write_bytes(data)
    print(f"container keybag at block {keylocker}, volume keybag at block {recs}: {out}")


if __name__ == "__main__":
    main()
