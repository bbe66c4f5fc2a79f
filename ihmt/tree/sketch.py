"""Subtree vocabulary sketches: what makes the descent lossless.

A branch keeps, for each child, a sketch of every indexed term anywhere below that child, so
the navigator can bound the best score inside a subtree without opening it. Two forms:

- ``set``: the exact sorted set of 32-bit term hashes, while the subtree has at most
  SET_CAP distinct terms (lower layers: tight, exact up to hash collisions);
- ``bloom``: a fixed-size Bloom filter (BLOOM_BITS bits, BLOOM_K probes) above that.

Both answer "may term t occur below?" with no false negatives, which is all the bound needs.
Both are closed under union (sets merge; blooms OR, sets insert), so a parent's sketch is
computed from its children's sketches alone, and recomputing it after a child is removed
drops the removed words exactly. Size is bounded: at most max(4*SET_CAP, BLOOM_BITS/8) bytes.
"""

from __future__ import annotations

import base64
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable

SET_CAP = 12_000
BLOOM_BITS = 1 << 19
BLOOM_K = 3
_MASK = BLOOM_BITS - 1


def _blake2b(data: bytes, digest_size: int):
    """``hashlib.blake2b``, imported on the first call (a small store's reads, the hooks' usual
    case, never hash a term; loading hashlib costs each of them a few ms). The first call puts
    the real function in this name's place, so later calls pay nothing extra."""
    global _blake2b
    from hashlib import blake2b

    _blake2b = blake2b
    return blake2b(data, digest_size=digest_size)


def term_hash(term: str) -> int:
    return int.from_bytes(
        _blake2b(term.encode("utf-8", "surrogatepass"), digest_size=4).digest(), "little"
    )


def _probes(h: int) -> list[int]:
    # Derive BLOOM_K well-spread positions from one 32-bit hash (multiply-shift mixing).
    out = []
    x = h
    for i in range(BLOOM_K):
        x = (x * 0x9E3779B1 + 0x7F4A7C15 + i) & 0xFFFFFFFF
        x ^= x >> 15
        out.append(x & _MASK)
    return out


def _to_b64(arr: array) -> str:
    if sys.byteorder == "big":
        arr = array(arr.typecode, arr)
        arr.byteswap()
    return base64.b64encode(arr.tobytes()).decode("ascii")


def _from_b64(text: str, typecode: str) -> array:
    arr = array(typecode)
    arr.frombytes(base64.b64decode(text))
    if sys.byteorder == "big":
        arr.byteswap()
    return arr


class Sketch:
    """A no-false-negative membership summary of a set of terms."""

    __slots__ = ("kind", "hashes", "bits", "count")

    def __init__(
        self,
        kind: str,
        *,
        hashes: array | None = None,
        bits: bytearray | None = None,
        count: int = 0,
    ) -> None:
        self.kind = kind
        self.hashes = hashes
        self.bits = bits
        self.count = count

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def from_terms(cls, terms: Iterable[str]) -> Sketch:
        return cls.from_hashes({term_hash(t) for t in terms})

    @classmethod
    def from_hashes(cls, hashes: set[int]) -> Sketch:
        if len(hashes) <= SET_CAP:
            return cls("set", hashes=array("I", sorted(hashes)), count=len(hashes))
        bits = bytearray(BLOOM_BITS // 8)
        for h in hashes:
            for p in _probes(h):
                bits[p >> 3] |= 1 << (p & 7)
        return cls("bloom", bits=bits, count=len(hashes))

    @classmethod
    def union(cls, sketches: Iterable[Sketch]) -> Sketch:
        sketches = list(sketches)
        blooms = [s for s in sketches if s.kind == "bloom"]
        sets = [s for s in sketches if s.kind == "set"]
        if not blooms:
            merged: set[int] = set()
            for s in sets:
                merged.update(s.hashes)
            return cls.from_hashes(merged)
        bits = bytearray(blooms[0].bits)
        for other in blooms[1:]:
            bits = bytearray(a | b for a, b in zip(bits, other.bits, strict=True))
        for s in sets:
            for h in s.hashes:
                for p in _probes(h):
                    bits[p >> 3] |= 1 << (p & 7)
        return cls("bloom", bits=bits, count=sum(s.count for s in sketches))

    # -- queries ----------------------------------------------------------------------------
    def may_contain(self, term: str) -> bool:
        return self.may_contain_hash(term_hash(term))

    def may_contain_hash(self, h: int) -> bool:
        if self.kind == "set":
            i = bisect_left(self.hashes, h)
            return i < len(self.hashes) and self.hashes[i] == h
        return all(self.bits[p >> 3] >> (p & 7) & 1 for p in _probes(h))

    # -- serialisation ----------------------------------------------------------------------
    def to_json(self) -> dict:
        if self.kind == "set":
            return {"kind": "set", "count": self.count, "data": _to_b64(self.hashes)}
        return {
            "kind": "bloom",
            "count": self.count,
            "bits": BLOOM_BITS,
            "k": BLOOM_K,
            "data": base64.b64encode(bytes(self.bits)).decode("ascii"),
        }

    @classmethod
    def from_json(cls, data: dict) -> Sketch:
        if data.get("kind") == "bloom":
            return cls("bloom", bits=bytearray(base64.b64decode(data["data"])), count=data["count"])
        return cls("set", hashes=_from_b64(data.get("data", ""), "I"), count=data.get("count", 0))
