"""A branch's entries as ROOT streamed them: the raw bytes per entry, and objects decoded along the file's
streamer info where uproot cannot build them (xAOD classes without a dictionary).

Used by ``rootparams.ownfile.calibrate`` to measure what an object branch of a real file holds byte by byte: its framing
(byte counts, versions, class checksums, the headers of empty base classes), its element count, and its members'
values. Every ROOT object streamed object-wise starts with a 4-byte byte count (high bit 0x40000000 set) and a
2-byte version; a class without a compiled-in version (version 0) adds a 4-byte checksum. A std::vector member
is a byte count, a version, the element count and the elements (big-endian); a vector of class objects is stored
member-wise (version bit 0x4000: the class's version and checksum, the count, then every element's first member,
every element's second member, ...); a nested vector's inner vectors are a count and their elements, a class
object in it is its own framing and members. An ATLAS aux store (``xAOD::JetAuxContainer_v1`` written unsplit)
is a byte count covering only its version, checksum and (empty) base classes, followed by its members, each
framed as above.

Decoding never guesses: a member whose bytes do not add up to its framing is kept as opaque bytes, and an entry
that is not framed at all is left undecoded.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

import numpy as np

_BYTECOUNT = 0x40000000
_MEMBERWISE = 0x4000

# Basic types: name in a streamer's type name -> (numpy big-endian dtype, recipe leaf type).
_BASIC = {
    "float": (">f4", "float"),
    "double": (">f8", "double"),
    "char": (">i1", "int8"),
    "signed char": (">i1", "int8"),
    "unsigned char": (">u1", "uint8"),
    "bool": (">u1", "uint8"),
    "short": (">i2", "int16"),
    "unsigned short": (">u2", "uint16"),
    "int": (">i4", "int"),
    "unsigned int": (">u4", "uint32"),
    "long": (">i8", "int64"),
    "long long": (">i8", "int64"),
    "Long64_t": (">i8", "int64"),
    "unsigned long": (">u8", "uint64"),
    "unsigned long long": (">u8", "uint64"),
    "ULong64_t": (">u8", "uint64"),
    "int8_t": (">i1", "int8"),
    "uint8_t": (">u1", "uint8"),
    "int16_t": (">i2", "int16"),
    "uint16_t": (">u2", "uint16"),
    "int32_t": (">i4", "int"),
    "uint32_t": (">u4", "uint32"),
    "int64_t": (">i8", "int64"),
    "uint64_t": (">u8", "uint64"),
    "Float_t": (">f4", "float"),
    "Double_t": (">f8", "double"),
    "Int_t": (">i4", "int"),
    "UInt_t": (">u4", "uint32"),
    "Short_t": (">i2", "int16"),
    "UShort_t": (">u2", "uint16"),
    "Char_t": (">i1", "int8"),
    "UChar_t": (">u1", "uint8"),
    "Bool_t": (">u1", "uint8"),
}


def normal(typename: str) -> str:
    """A type name without std::, with single spaces only where C++ needs them (``unsigned int``)."""
    t = typename.replace("std::", "").strip()
    t = re.sub(r"\s*([<>,*&])\s*", r"\1", t)
    return re.sub(r"\s+", " ", t)


# ------------------------------------------------------------------------------------------------------------
# Raw entries


def streamer_element(branch):
    """The streamer element a TBranchElement stores (its class's element number fID), or None."""
    element = getattr(branch, "streamer", None)
    if element is not None:
        return element
    try:  # uproot finds none for a member named as its branch: take it from the class's streamer info
        info = branch.file.streamer_named(
            str(branch.member("fClassName")), int(branch.member("fClassVersion"))
        )
        return info.member("fElements")[int(branch.member("fID"))]
    except Exception:
        return None


def raw_entries(branch, entry_stop: int | None = None) -> list[bytes]:
    """The uncompressed bytes of each entry of ``branch`` (an uproot TBranch), its own baskets only."""
    out: list[bytes] = []
    stop = branch.num_entries if entry_stop is None else min(entry_stop, branch.num_entries)
    for i in range(branch.num_baskets):
        if len(out) >= stop:
            break
        basket = branch.basket(i)
        data = basket.data.tobytes() if hasattr(basket.data, "tobytes") else bytes(basket.data)
        n = basket.num_entries
        offsets = basket.byte_offsets
        if offsets is None:  # fixed-size entries
            size = len(data) // n if n else 0
            out += [data[k * size : (k + 1) * size] for k in range(n)]
        else:
            out += [data[offsets[k] : offsets[k + 1]] for k in range(n)]
    return out[:stop]


# ------------------------------------------------------------------------------------------------------------
# Decoded members


@dataclass
class Member:
    """One member of a streamed object, decoded in every entry.

    shape: "vector" (vector<T>), "nested" (vector<vector<T>>), "links" (vector<ElementLink>, member-wise),
    "nestedlinks" (vector<vector<ElementLink>>), "scalar" (a basic member, no framing) or "opaque".
    leaf: the recipe leaf type of the values (float, int, uint32, ...), "" for links and opaque members.
    version: the 2 bytes after the member's byte count (hex); element: the framing bytes before each element
    (hex): the member-wise class header of a link vector, or the class headers of each link in a nested vector.
    """

    name: str
    typename: str
    shape: str
    leaf: str = ""
    version: str = ""
    element: str = ""
    values: list = field(default_factory=list)  # per entry: ndarray, list of ndarrays, or (keys, indices)
    sizes: list[int] = field(default_factory=list)  # bytes of the member in each entry

    @property
    def framed(self) -> bool:
        return self.shape != "scalar"


class Undecodable(ValueError):
    pass


def _u32(buf: bytes, pos: int) -> int:
    return struct.unpack_from(">I", buf, pos)[0]


def _u16(buf: bytes, pos: int) -> int:
    return struct.unpack_from(">H", buf, pos)[0]


def _link_element(buf: bytes, pos: int, end: int) -> tuple[bytes, int, int, int]:
    """One ElementLink streamed object-wise inside a nested vector: (its framing, key, index, next position).
    Its framing is the class's and its base's byte count, version and checksum, each byte count spanning the rest
    of its object; the key and index are the innermost object's last 8 bytes."""
    start, limit, first_end, depth = pos, end, None, 0
    while depth == 0 or limit - pos != 8:
        if pos + 8 > limit or depth >= 4 or not _u32(buf, pos) & _BYTECOUNT:
            raise Undecodable("not a framed element link")
        object_end = pos + 4 + (_u32(buf, pos) & ~_BYTECOUNT)
        if object_end > limit:
            raise Undecodable("element link overruns its byte count")
        version = _u16(buf, pos + 4)
        pos += 6 + (4 if version == 0 else 0)
        limit = object_end
        first_end = first_end or object_end
        depth += 1
    key, index = struct.unpack_from(">II", buf, pos)
    return buf[start:pos], key, index, first_end


def _stl_body(buf: bytes, pos: int, end: int, typename: str, member: Member) -> None:
    """Decodes the body of an STL member (after its byte count and version) into ``member``."""
    t = normal(typename)
    inner = re.fullmatch(r"vector<vector<(.+)>>", t)
    outer = re.fullmatch(r"vector<(.+)>", t)
    if inner and inner.group(1).startswith("ElementLink<"):
        n = _u32(buf, pos)
        pos += 4
        keys, indices, lengths = [], [], []
        element = None
        for _ in range(n):
            m = _u32(buf, pos)
            pos += 4
            lengths.append(m)
            for _ in range(m):
                frame, key, index, pos = _link_element(buf, pos, end)
                if element is None:
                    element = frame
                elif frame != element:
                    raise Undecodable("link framing differs between elements")
                keys.append(key)
                indices.append(index)
        if pos != end:
            raise Undecodable("nested links do not fill their byte count")
        member.shape = "nestedlinks"
        if element is not None:
            if member.element and member.element != element.hex():
                raise Undecodable("link framing differs between entries")
            member.element = element.hex()
        member.values.append(
            (np.array(lengths, np.int64), np.array(keys, np.uint32), np.array(indices, np.uint32))
        )
        return
    if inner and inner.group(1) in _BASIC:
        dtype, leaf = _BASIC[inner.group(1)]
        size = np.dtype(dtype).itemsize
        n = _u32(buf, pos)
        pos += 4
        rows = []
        for _ in range(n):
            m = _u32(buf, pos)
            pos += 4
            rows.append(np.frombuffer(buf, dtype, m, pos))
            pos += m * size
        if pos != end:
            raise Undecodable("nested vector does not fill its byte count")
        member.shape, member.leaf = "nested", leaf
        member.values.append(rows)
        return
    if outer and outer.group(1).startswith("ElementLink<"):
        raise Undecodable("link vector without member-wise streaming")
    if outer and outer.group(1) in _BASIC:
        dtype, leaf = _BASIC[outer.group(1)]
        n = _u32(buf, pos)
        pos += 4
        if pos + n * np.dtype(dtype).itemsize != end:
            raise Undecodable("vector does not fill its byte count")
        member.shape, member.leaf = "vector", leaf
        member.values.append(np.frombuffer(buf, dtype, n, pos))
        return
    raise Undecodable(f"no decoding for {typename}")


def _memberwise_links(buf: bytes, pos: int, end: int, member: Member) -> None:
    """A vector<ElementLink<...>> stored member-wise: class version (+ checksum), count, keys, indices."""
    start = pos
    version = _u16(buf, pos)
    pos += 2 + (4 if version == 0 else 0)
    element = buf[start:pos]
    n = _u32(buf, pos)
    pos += 4
    if pos + 8 * n != end:
        raise Undecodable("member-wise links do not fill their byte count")
    keys = np.frombuffer(buf, ">u4", n, pos).astype(np.uint32)
    indices = np.frombuffer(buf, ">u4", n, pos + 4 * n).astype(np.uint32)
    if member.element and member.element != element.hex():
        raise Undecodable("link class framing differs between entries")
    member.shape, member.element = "links", element.hex()
    member.values.append((np.array([n], np.int64), keys, indices))


def decode_member(
    buf: bytes, pos: int, end: int, name: str, typename: str, member: Member | None
) -> tuple[Member, int]:
    """Decodes one member at ``pos``; returns it (``member`` extended by this entry) and the next position."""
    t = normal(typename)
    if member is None:
        member = Member(name, t, "opaque")
    if t in _BASIC:  # a basic member: its value, no framing
        dtype, leaf = _BASIC[t]
        size = np.dtype(dtype).itemsize
        if pos + size > end:
            raise Undecodable("basic member beyond the entry")
        member.shape, member.leaf = "scalar", leaf
        member.values.append(np.frombuffer(buf, dtype, 1, pos))
        member.sizes.append(size)
        return member, pos + size
    if pos + 6 > end or not _u32(buf, pos) & _BYTECOUNT:
        raise Undecodable(f"member {name} ({typename}) has no byte count")
    stop = pos + 4 + (_u32(buf, pos) & ~_BYTECOUNT)
    if stop > end:
        raise Undecodable(f"member {name} overruns the entry")
    version = buf[pos + 4 : pos + 6]
    if member.version and member.version != version.hex():
        raise Undecodable(f"member {name}: version differs between entries")
    member.version = version.hex()
    try:
        if _u16(buf, pos + 4) & _MEMBERWISE and re.fullmatch(r"vector<ElementLink<.+>>", t):
            _memberwise_links(buf, pos + 6, stop, member)
        else:
            _stl_body(buf, pos + 6, stop, t, member)
    except (Undecodable, struct.error, ValueError):
        if member.shape not in ("opaque",) and member.values:
            raise Undecodable(f"member {name} decodes in some entries only") from None
        member.shape = "opaque"
        member.values.append(np.frombuffer(buf, np.uint8, stop - pos - 6, pos + 6))
    member.sizes.append(stop - pos)
    return member, stop


# ------------------------------------------------------------------------------------------------------------
# Objects


@dataclass
class Layout:
    """What every entry of an object branch holds. A framed object (``framed``: it starts with a byte count) has
    its version (``version``) and the constant bytes that follow it (``header``: checksum and base-class headers),
    then either its decoded ``members``, or an element count (``counts``: a DataVector interface) possibly followed
    by one 4-byte word per element (``words``), or bytes that vary and are not decoded (``rest``). ``head_bytes``:
    a header that differs between entries (a base class holding data). ``note`` says why decoding stopped."""

    entries: int
    sizes: np.ndarray  # bytes per entry
    framed: bool = False
    version: str = ""
    header: str = ""
    members: list[Member] = field(default_factory=list)
    counts: np.ndarray | None = None  # element counts (a DataVector's, or the members' common length)
    rest: list[bytes] = field(default_factory=list)  # undecoded bytes after the header, per entry
    head_bytes: list[bytes] = field(default_factory=list)  # a header that differs between entries, per entry
    words: list[np.ndarray] = field(default_factory=list)  # one 4-byte word per element after the count
    note: str = ""


def streamer_elements(streamers: dict, classname: str) -> list[tuple[str, str, bool]] | None:
    """(name, type name, is a base class) of a class's streamer elements, from the file's streamer info."""
    versions = streamers.get(classname) or streamers.get(normal(classname))
    if not versions:
        return None
    info = versions[max(versions)]
    return [
        (el.member("fName"), el.member("fTypeName"), type(el).__name__.endswith("TStreamerBase"))
        for el in info.elements
    ]


def common_prefix(chunks: list[bytes]) -> bytes:
    if not chunks:
        return b""
    first = chunks[0]
    n = min(len(c) for c in chunks)
    for c in chunks[1:]:
        i = 0
        while i < n and c[i] == first[i]:
            i += 1
        n = i
        if n == 0:
            break
    return first[:n]


def layout(entries: list[bytes], classname: str, streamers: dict) -> Layout:
    """The layout of an object branch's entries (see Layout); members decoded along ``classname``'s streamer
    info where the object is an ATLAS-style store (a byte count covering the header only)."""
    sizes = np.array([len(e) for e in entries], np.int64)
    lay = Layout(len(entries), sizes)
    if not entries or any(len(e) < 6 or not _u32(e, 0) & _BYTECOUNT for e in entries):
        lay.note = "not framed"
        return lay
    lay.framed = True
    versions = {e[4:6] for e in entries}
    if len(versions) != 1:
        lay.note = "version differs between entries"
        lay.rest = [e[6:] for e in entries]
        return lay
    lay.version = versions.pop().hex()
    header_ends = [4 + (_u32(e, 0) & ~_BYTECOUNT) for e in entries]
    elements = streamer_elements(streamers, classname)
    outside = all(end < len(e) for end, e in zip(header_ends, entries, strict=True))
    if outside and elements is not None:  # an ATLAS aux store: header, then the members
        heads = {e[6:end] for end, e in zip(header_ends, entries, strict=True)}
        if len(heads) == 1:
            lay.header = heads.pop().hex()
        else:  # a base class holding data of its own (ByteStreamAuxContainer_v1): opaque bytes before the members
            lay.head_bytes = [e[6:end] for end, e in zip(header_ends, entries, strict=True)]
        members: list[Member | None] = [None for name, _, base in elements if not base]
        names = [(name, t) for name, t, base in elements if not base]
        try:
            for end, e in zip(header_ends, entries, strict=True):
                pos = end
                for k, (name, t) in enumerate(names):
                    members[k], pos = decode_member(e, pos, len(e), name, t, members[k])
                if pos != len(e):
                    raise Undecodable("bytes after the last member")
            lay.members = [m for m in members if m is not None]
            return lay
        except (Undecodable, struct.error) as err:
            lay.members, lay.head_bytes, lay.header = [], [], ""
            lay.note = f"members not decoded ({err})"
    # Otherwise: the constant bytes after the version, then what varies: a count (a DataVector interface),
    # possibly followed by one word per element (a member-wise DataVector of a class with one 4-byte member),
    # or opaque bytes.
    tails = [e[6:] for e in entries]
    head = common_prefix(tails)
    if all(len(t) == len(head) for t in tails):  # every entry the same: all header
        lay.header = head.hex()
        return lay
    shortest = min(len(t) for t in tails)
    for k in range(min(len(head), shortest - 4), max(len(head) - 4, -1), -1):
        counts = np.array([_u32(t, k) for t in tails], np.int64)
        rests = np.array([len(t) - k - 4 for t in tails], np.int64)
        if np.all(rests == 0):
            lay.header, lay.counts = tails[0][:k].hex(), counts
            return lay
        if np.all(rests == 4 * counts):
            lay.header, lay.counts = tails[0][:k].hex(), counts
            lay.words = [
                np.frombuffer(t, ">u4", int(c), k + 4).astype(np.uint32)
                for t, c in zip(tails, counts, strict=True)
            ]
            return lay
    lay.header = head.hex()
    lay.rest = [t[len(head) :] for t in tails]
    return lay
