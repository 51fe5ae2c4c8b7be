"""The prime-order group: NIST P-256 (FIPS 186-4 / SEC 2 secp256r1), pure Python.

P-256 has cofactor 1, so every point on the curve other than the point at
infinity is in the group of prime order ``N``: decoding a point (SEC 1
compressed form, 33 bytes) and checking it is on the curve is the whole
subgroup check.  Points are affine ``(x, y)`` tuples; the point at infinity
is ``None`` and never crosses the wire.  Arithmetic uses Jacobian
coordinates (a = -3 formulas); fixed bases (the generator, a game's keys)
get a table of 4-bit windows so a multiplication by them is 64 mixed
additions and no doublings.

Nothing here is constant-time: Python integers are not.  See
docs/fairness.md (timing is outside the threat model).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
A = P - 3
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
GX = 0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296
GY = 0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5

POINT_BYTES = 33
SCALAR_BYTES = 32

Point = tuple[int, int] | None
_Jac = tuple[int, int, int]  # Z == 0: infinity

G: Point = (GX, GY)
_INF: _Jac = (1, 1, 0)


class GroupError(ValueError):
    """Bytes that are not a valid encoding of a group element or scalar."""


def on_curve(pt: Point) -> bool:
    if pt is None:
        return False
    x, y = pt
    return 0 <= x < P and 0 <= y < P and (y * y - (x * x * x - 3 * x + B)) % P == 0


def _to_jac(pt: Point) -> _Jac:
    return _INF if pt is None else (pt[0], pt[1], 1)


def _to_affine(j: _Jac) -> Point:
    x, y, z = j
    if z == 0:
        return None
    zi = pow(z, -1, P)
    zi2 = zi * zi % P
    return (x * zi2 % P, y * zi2 * zi % P)


def _dbl(j: _Jac) -> _Jac:
    x, y, z = j
    if z == 0 or y == 0:
        return _INF
    delta = z * z % P
    gamma = y * y % P
    beta = x * gamma % P
    alpha = 3 * (x - delta) * (x + delta) % P
    x3 = (alpha * alpha - 8 * beta) % P
    z3 = ((y + z) * (y + z) - gamma - delta) % P
    y3 = (alpha * (4 * beta - x3) - 8 * gamma * gamma) % P
    return (x3, y3, z3)


def _add(j1: _Jac, j2: _Jac) -> _Jac:
    x1, y1, z1 = j1
    x2, y2, z2 = j2
    if z1 == 0:
        return j2
    if z2 == 0:
        return j1
    z1z1 = z1 * z1 % P
    z2z2 = z2 * z2 % P
    s1 = y1 * z2 * z2z2 % P
    return _sum(j1, x1 * z2z2 % P, x2 * z1z1 % P, s1, y2 * z1 * z1z1 % P, z1 * z2 % P)


def _add_mixed(j1: _Jac, x2: int, y2: int) -> _Jac:
    """j1 + (x2, y2) with the second point affine."""
    x1, y1, z1 = j1
    if z1 == 0:
        return (x2, y2, 1)
    z1z1 = z1 * z1 % P
    return _sum(j1, x1, x2 * z1z1 % P, y1, y2 * z1 * z1z1 % P, z1)


def _sum(j1: _Jac, u1: int, u2: int, s1: int, s2: int, zz: int) -> _Jac:
    """The addition's common tail (add-1998-cmo-2), from U1, U2, S1, S2 and Z1*Z2."""
    h = (u2 - u1) % P
    r = (s2 - s1) % P
    if h == 0:
        return _dbl(j1) if r == 0 else _INF
    hh = h * h % P
    hhh = h * hh % P
    v = u1 * hh % P
    x3 = (r * r - hhh - 2 * v) % P
    y3 = (r * (v - x3) - s1 * hhh) % P
    return (x3, y3, zz * h % P)


def add(p1: Point, p2: Point) -> Point:
    return _to_affine(_add(_to_jac(p1), _to_jac(p2)))


def neg(pt: Point) -> Point:
    return None if pt is None else (pt[0], (-pt[1]) % P)


def sub(p1: Point, p2: Point) -> Point:
    return add(p1, neg(p2))


def mul(k: int, pt: Point) -> Point:
    """k * pt for any point (4-bit fixed windows)."""
    k %= N
    if k == 0 or pt is None:
        return None
    table: list[_Jac] = [_INF, _to_jac(pt)]
    for _ in range(14):
        table.append(_add(table[-1], table[1]))
    acc = _INF
    for shift in range(252, -4, -4):
        if acc[2]:
            acc = _dbl(_dbl(_dbl(_dbl(acc))))
        d = (k >> shift) & 15
        if d:
            acc = _add(acc, table[d])
    return _to_affine(acc)


def mul2(a: int, p1: Point, b: int, p2: Point) -> Point:
    """a * p1 + b * p2 in one pass (Shamir's trick with 4-bit windows): the
    doublings are shared, about 0.6 of two separate multiplications."""
    a %= N
    b %= N
    if p1 is None or p2 is None:
        return add(mul(a, p1), mul(b, p2))
    t1: list[_Jac] = [_INF, _to_jac(p1)]
    t2: list[_Jac] = [_INF, _to_jac(p2)]
    for _ in range(14):
        t1.append(_add(t1[-1], t1[1]))
        t2.append(_add(t2[-1], t2[1]))
    acc = _INF
    for shift in range(252, -4, -4):
        if acc[2]:
            acc = _dbl(_dbl(_dbl(_dbl(acc))))
        d1 = (a >> shift) & 15
        if d1:
            acc = _add(acc, t1[d1])
        d2 = (b >> shift) & 15
        if d2:
            acc = _add(acc, t2[d2])
    return _to_affine(acc)


def msm(scalars: Sequence[int], points: Sequence[tuple[int, int]], bits: int) -> Point:
    """The sum of ``k * P`` over the pairs, every scalar below ``2**bits``
    (Pippenger's bucket method: a few additions per point and window)."""
    c = 5 if len(points) > 100 else 4
    mask = (1 << c) - 1
    acc = _INF
    for shift in range(((bits + c - 1) // c - 1) * c, -1, -c):
        if acc[2]:
            for _ in range(c):
                acc = _dbl(acc)
        buckets: list[_Jac] = [_INF] * (mask + 1)
        for k, (x, y) in zip(scalars, points, strict=True):
            d = (k >> shift) & mask
            if d:
                buckets[d] = _add_mixed(buckets[d], x, y)
        running = total = _INF
        for d in range(mask, 0, -1):
            running = _add(running, buckets[d])
            total = _add(total, running)
        acc = _add(acc, total)
    return _to_affine(acc)


class FixedBase:
    """A point with a table of 4-bit windows: ``table[i][d-1] = d * 16**i * P``."""

    __slots__ = ("point", "_table")

    def __init__(self, pt: Point) -> None:
        if pt is None:
            raise GroupError("the point at infinity cannot be a base")
        self.point = pt
        rows: list[list[tuple[int, int]]] = []
        base = _to_jac(pt)
        for _ in range(64):
            row_j: list[_Jac] = [base]
            for _ in range(14):
                row_j.append(_add(row_j[-1], base))
            row: list[tuple[int, int]] = []
            for j in row_j:
                a = _to_affine(j)
                assert a is not None  # d * 16**i * P, d < 16, is never infinity (N is prime)
                row.append(a)
            rows.append(row)
            base = _dbl(_dbl(_dbl(_dbl(base))))
        self._table = rows

    def mul(self, k: int) -> Point:
        k %= N
        acc = _INF
        table = self._table
        i = 0
        while k:
            d = k & 15
            if d:
                x, y = table[i][d - 1]
                acc = _add_mixed(acc, x, y)
            k >>= 4
            i += 1
        return _to_affine(acc)


_G_TABLE: FixedBase | None = None


def base_g() -> FixedBase:
    """The generator's table (built once, on first use: about 20 ms)."""
    global _G_TABLE
    if _G_TABLE is None:
        _G_TABLE = FixedBase(G)
    return _G_TABLE


def encode(pt: Point) -> bytes:
    """SEC 1 compressed form: 0x02/0x03 (parity of y) then x, 33 bytes."""
    if pt is None:
        raise GroupError("the point at infinity has no encoding here")
    return bytes((2 | (pt[1] & 1),)) + pt[0].to_bytes(32, "big")


def decode(data: bytes) -> Point:
    """A point from its 33-byte compressed form; GroupError unless it is a
    canonical encoding of a point on the curve (hence in the group)."""
    if len(data) != POINT_BYTES or data[0] not in (2, 3):
        raise GroupError("a point is 33 bytes starting with 0x02 or 0x03")
    x = int.from_bytes(data[1:], "big")
    if x >= P:
        raise GroupError("point x-coordinate out of range")
    rhs = (x * x * x - 3 * x + B) % P
    y = pow(rhs, (P + 1) // 4, P)
    if y * y % P != rhs:
        raise GroupError("not a point on P-256")
    if (y & 1) != (data[0] & 1):
        y = P - y
    return (x, y)


def scalar_bytes(k: int) -> bytes:
    return k.to_bytes(SCALAR_BYTES, "big")


def decode_scalar(data: bytes) -> int:
    """A scalar in [0, N): GroupError for anything non-canonical."""
    if len(data) != SCALAR_BYTES:
        raise GroupError("a scalar is 32 bytes")
    k = int.from_bytes(data, "big")
    if k >= N:
        raise GroupError("scalar out of range")
    return k


def hash_to_scalar(key: bytes, *parts: bytes) -> int:
    """A scalar in [1, N) from HMAC-SHA-512 (64 bytes reduced mod N-1: bias
    below 2**-256), used for derived secrets and nonces."""
    mac = hmac.new(key, b"".join(_frame(p) for p in parts), hashlib.sha512).digest()
    return int.from_bytes(mac, "big") % (N - 1) + 1


def _frame(part: bytes) -> bytes:
    return len(part).to_bytes(4, "big") + part
