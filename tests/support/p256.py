"""NIST P-256 written out from its standard (FIPS 186-4 D.1.2.3, SEC 1 for the encoding),
sharing no code with ``p2p_spite``: the curve arithmetic of the tests that implement the
private deck from docs/fairness.md alone.

Plain and unhurried: Jacobian coordinates (a = -3 doubling), 4-bit fixed windows, one
inversion per multiplication; a table of the generator's windows.  Points are affine
``(x, y)`` tuples, the point at infinity is ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
G = (
    0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
    0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5,
)

Pt = tuple[int, int] | None
_Jac = tuple[int, int, int]  # (X, Y, Z): (X/Z^2, Y/Z^3); Z = 0 is infinity
_INF: _Jac = (1, 1, 0)


def _jac(p: Pt) -> _Jac:
    return _INF if p is None else (p[0], p[1], 1)


def _affine(j: _Jac) -> Pt:
    x, y, z = j
    if z == 0:
        return None
    zi = pow(z, -1, P)
    return (x * zi * zi % P, y * zi * zi * zi % P)


def _double(j: _Jac) -> _Jac:
    x, y, z = j
    if z == 0 or y == 0:
        return _INF
    zz = z * z % P
    m = 3 * (x - zz) * (x + zz) % P
    s = 4 * x * y * y % P
    x3 = (m * m - 2 * s) % P
    y3 = (m * (s - x3) - 8 * pow(y, 4, P)) % P
    return (x3, y3, 2 * y * z % P)


def _add(a: _Jac, b: _Jac) -> _Jac:
    x1, y1, z1 = a
    x2, y2, z2 = b
    if z1 == 0:
        return b
    if z2 == 0:
        return a
    z1z1, z2z2 = z1 * z1 % P, z2 * z2 % P
    u1, u2 = x1 * z2z2 % P, x2 * z1z1 % P
    s1, s2 = y1 * z2 * z2z2 % P, y2 * z1 * z1z1 % P
    if u1 == u2:
        return _double(a) if s1 == s2 else _INF
    h, r = (u2 - u1) % P, (s2 - s1) % P
    hh = h * h % P
    hhh = h * hh % P
    v = u1 * hh % P
    x3 = (r * r - hhh - 2 * v) % P
    return (x3, (r * (v - x3) - s1 * hhh) % P, z1 * z2 * h % P)


def _mul_jac(k: int, p: Pt) -> _Jac:
    k %= N
    if k == 0 or p is None:
        return _INF
    table = [_INF, _jac(p)]
    for _ in range(14):
        table.append(_add(table[-1], table[1]))
    acc = _INF
    for shift in range(252, -1, -4):
        for _ in range(4):
            acc = _double(acc)
        d = (k >> shift) & 15
        if d:
            acc = _add(acc, table[d])
    return acc


@cache
def _g_windows() -> list[list[_Jac]]:
    """rows[i][d] = d * 16**i * G."""
    rows: list[list[_Jac]] = []
    base = _jac(G)
    for _ in range(64):
        row = [_INF, base]
        for _ in range(14):
            row.append(_add(row[-1], base))
        rows.append(row)
        base = _add(row[15], base)
    return rows


def mul(k: int, p: Pt) -> Pt:
    """k * p."""
    k %= N
    if p == G:
        acc = _INF
        for i, row in enumerate(_g_windows()):
            d = (k >> (4 * i)) & 15
            if d:
                acc = _add(acc, row[d])
        return _affine(acc)
    return _affine(_mul_jac(k, p))


def add(*points: Pt) -> Pt:
    acc = _INF
    for p in points:
        acc = _add(acc, _jac(p))
    return _affine(acc)


def neg(p: Pt) -> Pt:
    return None if p is None else (p[0], (-p[1]) % P)


def lincomb(scalars: Sequence[int], points: Sequence[Pt]) -> Pt:
    """sum k * P."""
    acc = _INF
    for k, p in zip(scalars, points, strict=True):
        acc = _add(acc, _jac(mul(k, G)) if p == G else _mul_jac(k, p))
    return _affine(acc)


def encode(p: Pt) -> bytes:
    """SEC 1 compressed; 33 zero bytes for the point at infinity (hashed only, never sent)."""
    if p is None:
        return bytes(33)
    return bytes([2 | (p[1] & 1)]) + p[0].to_bytes(32, "big")


def decode(data: bytes) -> Pt:
    """The point of a 33-byte compressed encoding on P-256, or None if there is none."""
    if len(data) != 33 or data[0] not in (2, 3):
        return None
    x = int.from_bytes(data[1:], "big")
    if x >= P:
        return None
    rhs = (x**3 - 3 * x + B) % P
    y = pow(rhs, (P + 1) // 4, P)
    if y * y % P != rhs:
        return None
    return (x, y if y & 1 == data[0] & 1 else P - y)


def on_curve(p: Pt) -> bool:
    return p is not None and (p[1] ** 2 - (p[0] ** 3 - 3 * p[0] + B)) % P == 0
