#!/usr/bin/python3
# retag.py RPM FROM TO: renumbers the header tag FROM of an unsigned
# package to TO, in place, and writes the header digests again, as a
# stranger's tool would: rpmbuild cannot set a tag its spec syntax does
# not know (rpm's reserved MSSFDOMAIN, 5039), a byte editor can. rpm
# sorts a header's index when it reads it, so the entry keeps its place
# and its data. Only the digests a package carries over the header
# (SHA1, SHA256) and over header and payload (MD5) are written; the
# package is then signed like any other (rpmsign --addsign).
# retag.py --show RPM TAG prints a string tag's value (rpm's query formats
# do not know the reserved tags).
import hashlib
import struct
import sys

LEAD_SIZE = 96
MAGIC = b"\x8e\xad\xe8\x01\x00\x00\x00\x00"
SIG_SHA1, SIG_SHA256, SIG_MD5 = 269, 273, 1004


def header_at(data, start):
    """(index start, data start, end) of the header at start."""
    if data[start:start + 8] != MAGIC:
        sys.exit(f"retag.py: no header at {start}")
    count, size = struct.unpack(">II", data[start + 8:start + 16])
    index = start + 16
    store = index + 16 * count
    return index, count, store, store + size


def entries(data, index, count):
    for i in range(count):
        at = index + 16 * i
        yield at, struct.unpack(">iIiI", data[at:at + 16])


def show(path, wanted):
    data = open(path, "rb").read()
    _, _, _, sig_end = header_at(data, LEAD_SIZE)
    index, count, store, _ = header_at(data, sig_end + (-sig_end % 8))
    for _, (tag, _, offset, _) in entries(data, index, count):
        if tag == wanted:
            print(data[store + offset:data.index(b"\0", store + offset)].decode())


def main():
    if sys.argv[1] == "--show":
        return show(sys.argv[2], int(sys.argv[3]))
    path, old_tag, new_tag = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    data = bytearray(open(path, "rb").read())
    sig_index, sig_count, sig_store, sig_end = header_at(data, LEAD_SIZE)
    main_start = sig_end + (-sig_end % 8)
    index, count, _, main_end = header_at(data, main_start)
    found = [at for at, (tag, _, _, _) in entries(data, index, count) if tag == old_tag]
    if len(found) != 1:
        sys.exit(f"retag.py: {path} has {len(found)} tag {old_tag} entries")
    struct.pack_into(">i", data, found[0], new_tag)
    header = bytes(data[main_start:main_end])
    digests = {
        SIG_SHA1: hashlib.sha1(header).hexdigest().encode() + b"\0",
        SIG_SHA256: hashlib.sha256(header).hexdigest().encode() + b"\0",
        SIG_MD5: hashlib.md5(bytes(data[main_start:])).digest(),
    }
    for _, (tag, _, offset, _) in entries(data, sig_index, sig_count):
        if tag in digests:
            value = digests.pop(tag)
            data[sig_store + offset:sig_store + offset + len(value)] = value
    open(path, "wb").write(data)


main()
