"""The prime-order group: NIST P-256 (FIPS 186-4 / SEC 2 secp256r1), pure Python.

P-256 has cofactor 1, so every point on the curve other than the point at
infinity is in the group of prime order ``N``: decoding a point (SEC 1
compressed form, 33 bytes) and checking it is on the curve is the whole
subgroup check.  Points are affine ``(x, y)`` tuples; the point at infinity
is ``None`` and never crosses the wire.

In CPython a field multiplication (a 256-bit product and its reduction mod
``P``) costs far more than the interpreter's overhead around it, and an
inversion about 40 multiplications, so everything here counts field
multiplications and inversions:

- Jacobian coordinates with the a = -3 doubling (dbl-2001-b, 3M + 5S) and
  mixed Jacobian-affine addition (7M + 4S); every table is normalized to
  affine with one inversion for all its points (Montgomery's trick).
- Any point (``mul``): width-5 signed windows (wNAF), 256 doublings and
  about 43 mixed additions.  ``mul2`` (``a*P + b*Q``, a proof check) shares
  the doublings of both (Straus / Shamir's trick with wNAF).  ``mul_same``
  (several scalars, one point, as a Chaum-Pedersen prover needs) doubles the
  point once into a chain of ``16**i * P`` and sums it into buckets per
  scalar (the BGMW / Yao fixed-base method on a table built on the fly).
- Fixed bases (the generator, a game's keys; :class:`FixedBase`): a table
  of ``d * 2**(w*i) * P`` for signed digits ``d``, so a multiplication is
  about ``256/w`` additions and no doubling.  ``FixedBase.mul_many`` works
  out many scalars side by side and makes each addition affine, with one
  inversion per table row shared by all the scalars.
- ``add_many``: many affine additions with one inversion.

Nothing here is constant-time: Python integers are not, and signed windows
and skipped zero digits make the work depend on the scalar.  See
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
UNCOMPRESSED_BYTES = 65
SCALAR_BYTES = 32

Point = tuple[int, int] | None
Affine = tuple[int, int]
Jacobian = tuple[int, int, int]  # (X, Y, Z) for (X/Z**2, Y/Z**3); Z == 0: infinity

G: Point = (GX, GY)
_INF: Jacobian = (1, 1, 0)

_W_VAR = 5  # window of a variable-base multiplication (wNAF: 8 odd multiples)
_W_G = 10  # the generator's table: 26 rows of 512 points, built once per process (~0.1 s)
W_GAME = 7  # a game's key tables: 37 rows of 64 points


class GroupError(ValueError):
    """Bytes that are not a valid encoding of a group element or scalar."""


def on_curve(pt: Point) -> bool:
    if pt is None:
        return False
    x, y = pt
    return 0 <= x < P and 0 <= y < P and (y * y - (x * x * x - 3 * x + B)) % P == 0


# -- field and coordinates -----------------------------------------------------


def _batch_inverse(values: Sequence[int]) -> list[int]:
    """The inverses mod P of nonzero ``values`` with one inversion
    (Montgomery's trick: 3 multiplications a value instead)."""
    prefix: list[int] = []
    acc = 1
    for v in values:
        prefix.append(acc)
        acc = acc * v % P
    inv = pow(acc, -1, P)
    out = [0] * len(values)
    for i in range(len(values) - 1, -1, -1):
        out[i] = inv * prefix[i] % P
        inv = inv * values[i] % P
    return out


def normalize(points: Sequence[Jacobian]) -> list[Point]:
    """Jacobian points to affine (infinity to None) with one inversion."""
    idx = [i for i, j in enumerate(points) if j[2]]
    out: list[Point] = [None] * len(points)
    for i, zi in zip(idx, _batch_inverse([points[i][2] for i in idx]), strict=True):
        x, y, _ = points[i]
        zi2 = zi * zi % P
        out[i] = (x * zi2 % P, y * zi2 * zi % P)
    return out


def _to_affine(j: Jacobian) -> Point:
    x, y, z = j
    if z == 0:
        return None
    zi = pow(z, -1, P)
    zi2 = zi * zi % P
    return (x * zi2 % P, y * zi2 * zi % P)


def _dbl_n(x: int, y: int, z: int, n: int) -> Jacobian:
    """2**n * (x, y, z), a = -3 (dbl-2001-b); infinity (z = 0) stays
    infinity, and no point of odd order has y = 0."""
    for _ in range(n):
        delta = z * z % P
        gamma = y * y % P
        beta = x * gamma % P
        alpha = 3 * (x - delta) * (x + delta) % P
        z = 2 * y * z % P
        x = (alpha * alpha - 8 * beta) % P
        y = (alpha * (4 * beta - x) - 8 * gamma * gamma) % P
    return (x, y, z)


def _dbl(j: Jacobian) -> Jacobian:
    return _dbl_n(j[0], j[1], j[2], 1)


def _madd(x1: int, y1: int, z1: int, x2: int, y2: int) -> Jacobian:
    """(x1, y1, z1) + (x2, y2) with the second point affine (madd, add-1998-cmo-2
    with Z2 = 1); every case, infinity and equal points included."""
    if z1 == 0:
        return (x2, y2, 1)
    z1z1 = z1 * z1 % P
    h = (x2 * z1z1 - x1) % P
    r = (y2 * z1 * z1z1 - y1) % P
    if h == 0:
        return _dbl_n(x1, y1, z1, 1) if r == 0 else _INF
    hh = h * h % P
    hhh = h * hh % P
    v = x1 * hh % P
    x3 = (r * r - hhh - 2 * v) % P
    return (x3, (r * (v - x3) - y1 * hhh) % P, z1 * h % P)


def _add(j1: Jacobian, j2: Jacobian) -> Jacobian:
    """Jacobian + Jacobian (add-1998-cmo-2), every case."""
    x1, y1, z1 = j1
    x2, y2, z2 = j2
    if z1 == 0:
        return j2
    if z2 == 0:
        return j1
    z1z1 = z1 * z1 % P
    z2z2 = z2 * z2 % P
    u1 = x1 * z2z2 % P
    s1 = y1 * z2 * z2z2 % P
    h = (x2 * z1z1 - u1) % P
    r = (y2 * z1 * z1z1 - s1) % P
    if h == 0:
        return _dbl(j1) if r == 0 else _INF
    hh = h * h % P
    hhh = h * hh % P
    v = u1 * hh % P
    x3 = (r * r - hhh - 2 * v) % P
    return (x3, (r * (v - x3) - s1 * hhh) % P, z1 * z2 * h % P)


# -- affine operations -----------------------------------------------------------


def neg(pt: Point) -> Point:
    return None if pt is None else (pt[0], (-pt[1]) % P)


def add(p1: Point, p2: Point) -> Point:
    return add_many([(p1, p2)])[0]


def sub(p1: Point, p2: Point) -> Point:
    return add(p1, neg(p2))


def add_many(pairs: Sequence[tuple[Point, Point]]) -> list[Point]:
    """``p + q`` for every pair, in affine coordinates with one inversion for
    all of them (the equal-x cases, a doubling or infinity, apart)."""
    out: list[Point] = [None] * len(pairs)
    todo: list[int] = []
    hs: list[int] = []
    for i, (p1, p2) in enumerate(pairs):
        if p1 is None or p2 is None:
            out[i] = p2 if p1 is None else p1
            continue
        h = (p2[0] - p1[0]) % P
        if h:
            todo.append(i)
            hs.append(h)
        elif (p1[1] + p2[1]) % P:  # p1 == p2
            out[i] = _to_affine(_dbl((p1[0], p1[1], 1)))
    for i, inv in zip(todo, _batch_inverse(hs), strict=True):
        (x1, y1), (x2, y2) = pairs[i]  # type: ignore[misc]  # neither is None here
        lam = (y2 - y1) * inv % P
        x3 = (lam * lam - x1 - x2) % P
        out[i] = (x3, (lam * (x1 - x3) - y1) % P)
    return out


# -- variable bases ----------------------------------------------------------------


def _wnaf(k: int, w: int = _W_VAR) -> list[tuple[int, int]]:
    """The nonzero digits of k's width-w non-adjacent form as (bit position,
    digit), lowest first: k = sum(d * 2**pos), every digit odd with
    |d| < 2**(w-1), at least w positions apart; the last digit is positive."""
    out: list[tuple[int, int]] = []
    mask, half, full = (1 << w) - 1, 1 << (w - 1), 1 << w
    pos = 0
    while k:
        tz = (k & -k).bit_length() - 1
        k >>= tz
        pos += tz
        d = k & mask
        if d >= half:
            d -= full
        out.append((pos, d))
        k = (k - d) >> w
        pos += w
    return out


def _progression(out: list[Jacobian], start: Affine, step: Affine, count: int) -> Jacobian:
    """Append start, start + step, ..., start + (count-1)*step to ``out``; the last."""
    sx, sy = step
    j: Jacobian = (start[0], start[1], 1)
    out.append(j)
    for _ in range(count - 1):
        j = _madd(j[0], j[1], j[2], sx, sy)
        out.append(j)
    return j


def _odd_multiples(points: Sequence[Affine], count: int = 1 << (_W_VAR - 2)) -> list[list[Affine]]:
    """For each point P: [P, 3P, 5P, ..., (2*count - 1)P], affine (two
    inversions for all).  None of them is infinity: N is prime."""
    flat: list[Jacobian] = []
    doubles = normalize([_dbl((x, y, 1)) for x, y in points])
    for pt, twice in zip(points, doubles, strict=True):
        assert twice is not None
        _progression(flat, pt, twice, count)
    aff = normalize(flat)
    return [aff[i * count : (i + 1) * count] for i in range(len(points))]  # type: ignore[misc]


def _straus(scalars: Sequence[int], points: Sequence[Affine]) -> Jacobian:
    """sum(k * P) with wNAF digits and the doublings shared by all the points
    (Straus's method, "Shamir's trick")."""
    tables = _odd_multiples(points)
    at: dict[int, list[tuple[list[Affine], int]]] = {}
    for k, table in zip(scalars, tables, strict=True):
        for pos, d in _wnaf(k % N):
            at.setdefault(pos, []).append((table, d))
    x, y, z = _INF
    last = 0
    for pos in sorted(at, reverse=True):
        if z and last > pos:
            x, y, z = _dbl_n(x, y, z, last - pos)
        for table, d in at[pos]:
            tx, ty = table[d >> 1] if d > 0 else table[-d >> 1]
            x, y, z = _madd(x, y, z, tx, ty if d > 0 else P - ty)
        last = pos
    if z:
        x, y, z = _dbl_n(x, y, z, last)
    return (x, y, z)


def mul(k: int, pt: Point) -> Point:
    """k * pt for any point (wNAF, width 5)."""
    k %= N
    if k == 0 or pt is None:
        return None
    return _to_affine(_straus([k], [pt]))


def mul2(a: int, p1: Point, b: int, p2: Point) -> Point:
    """a * p1 + b * p2 in one pass (Straus, wNAF): the doublings are shared."""
    return _to_affine(mul2_jacobian(a, p1, b, p2))


def mul2_jacobian(a: int, p1: Point, b: int, p2: Point) -> Jacobian:
    """:func:`mul2` before its inversion (to :func:`normalize` with others)."""
    pairs = [(k % N, p) for k, p in ((a, p1), (b, p2)) if p is not None and k % N]
    if not pairs:
        return _INF
    return _straus([k for k, _ in pairs], [p for _, p in pairs])


def add_jacobian(j1: Jacobian, j2: Jacobian) -> Jacobian:
    return _add(j1, j2)


def mul_same(scalars: Sequence[int], pt: Point) -> list[Point]:
    """``[k * pt for k in scalars]``, the point doubled once for all of them:
    a chain of ``16**i * pt`` (256 doublings, one inversion), then per scalar
    its signed 4-bit digits summed into 8 buckets (about 64 mixed additions
    and 16 more).  Two scalars cost about 0.75 of two :func:`mul`."""
    if pt is None:
        return [None] * len(scalars)
    jchain: list[Jacobian] = [(pt[0], pt[1], 1)]
    for _ in range(64):  # 16**64 * pt: the carry of a signed top digit
        j = jchain[-1]
        jchain.append(_dbl_n(j[0], j[1], j[2], 4))
    chain: list[Affine] = normalize(jchain)  # type: ignore[assignment]  # 16**i is never 0 mod N
    out: list[Jacobian] = []
    for k in scalars:
        k %= N
        buckets: list[Jacobian] = [_INF] * 9
        i = 0
        while k:
            d = k & 15
            k >>= 4
            if d > 8:
                d -= 16
                k += 1
            if d:
                tx, ty = chain[i]
                if d < 0:
                    d, ty = -d, P - ty
                bx, by, bz = buckets[d]
                buckets[d] = _madd(bx, by, bz, tx, ty)
            i += 1
        running = total = _INF
        for d in range(8, 0, -1):
            running = _add(running, buckets[d])
            total = _add(total, running)
        out.append(total)
    return normalize(out)


def _msm_window(n: int, bits: int) -> int:
    """The window of :func:`msm` for ``n`` points: the fewest additions, counting a
    bucket sum's Jacobian addition as 1.5 mixed ones."""
    return min(range(2, 10), key=lambda c: ((bits + c) // c + 1) * (n + 1.5 * (1 << c)))


def msm(scalars: Sequence[int], points: Sequence[Affine], bits: int) -> Point:
    """The sum of ``k * P`` over the pairs, every scalar below ``2**bits``
    (Pippenger's bucket method with signed digits: a point goes into bucket
    ``|d|``, negated for a negative digit, so a window of ``c`` bits needs
    ``2**(c-1)`` buckets; a few additions per point and window)."""
    n = len(points)
    c = _msm_window(n, bits)
    half, full = 1 << (c - 1), 1 << c
    mask = full - 1
    windows = (bits + c) // c + 1  # (the last digit's carry)
    digits: list[list[int]] = []
    for k in scalars:
        ds: list[int] = []
        for _ in range(windows):
            d = k & mask
            k >>= c
            if d > half:
                d -= full
                k += 1
            ds.append(d)
        digits.append(ds)
    pairs = [((x, y), (x, P - y)) for x, y in points]
    acc = _INF
    for w in range(windows - 1, -1, -1):
        if acc[2]:
            acc = _dbl_n(acc[0], acc[1], acc[2], c)
        buckets: list[Jacobian] = [_INF] * (half + 1)
        for ds, (pos, negp) in zip(digits, pairs, strict=True):
            d = ds[w]
            if d:
                if d < 0:
                    d = -d
                    x, y = negp
                else:
                    x, y = pos
                bx, by, bz = buckets[d]
                buckets[d] = _madd(bx, by, bz, x, y)
        running = total = _INF
        for d in range(half, 0, -1):
            running = _add(running, buckets[d])
            total = _add(total, running)
        acc = _add(acc, total)
    return _to_affine(acc)


# -- fixed bases ---------------------------------------------------------------------


class FixedBase:
    """A point with a table of signed ``w``-bit windows:
    ``rows[i][d-1] = d * 2**(w*i) * P`` for ``1 <= d <= 2**(w-1)``, affine, so
    ``k * P`` is one addition per nonzero digit of ``k`` and no doubling."""

    __slots__ = ("point", "_w", "_rows")

    def __init__(self, pt: Point, w: int = W_GAME) -> None:
        if pt is None:
            raise GroupError("the point at infinity cannot be a base")
        self.point = pt
        self._w = w
        half = 1 << (w - 1)
        nrows = 256 // w + 1  # signed digits of k < 2**256 and their carry
        flat: list[Jacobian] = []
        base: Affine = pt
        for _ in range(nrows):
            j = _progression(flat, base, base, half)
            nxt = _to_affine(_dbl(j))  # 2 * half * base: the next row's base
            assert nxt is not None  # 2**(w*i) is never 0 mod the prime N
            base = nxt
        aff = normalize(flat)
        self._rows: list[list[Affine]] = [aff[i * half : (i + 1) * half] for i in range(nrows)]  # type: ignore[misc]

    def _digits(self, k: int) -> list[tuple[int, int]]:
        """k's signed base-2**w digits as (row, digit), zero digits left out."""
        w = self._w
        mask, half, full = (1 << w) - 1, 1 << (w - 1), 1 << w
        out: list[tuple[int, int]] = []
        i = 0
        while k:
            d = k & mask
            k >>= w
            if d > half:
                d -= full
                k += 1
            if d:
                out.append((i, d))
            i += 1
        return out

    def mul_jacobian(self, k: int) -> Jacobian:
        """:meth:`mul` before its inversion (to :func:`normalize` with others)."""
        rows = self._rows
        x, y, z = _INF
        for i, d in self._digits(k % N):
            if d > 0:
                tx, ty = rows[i][d - 1]
            else:
                tx, ty = rows[i][-d - 1]
                ty = P - ty
            x, y, z = _madd(x, y, z, tx, ty)
        return (x, y, z)

    def mul(self, k: int) -> Point:
        return _to_affine(self.mul_jacobian(k))

    def mul_many(self, scalars: Sequence[int]) -> list[Point]:
        """``[k * P for k in scalars]``: the scalars' sums built side by side,
        row by row, each addition affine with one inversion per row for all."""
        if len(scalars) < 4:
            return normalize([self.mul_jacobian(k) for k in scalars])
        rows = self._rows
        per_row: list[list[tuple[int, int]]] = [[] for _ in rows]
        for n, k in enumerate(scalars):
            for i, d in self._digits(k % N):
                per_row[i].append((n, d))
        acc: list[Point] = [None] * len(scalars)
        for row, todo in zip(rows, per_row, strict=True):
            pairs: list[tuple[Point, Point]] = []
            for n, d in todo:
                tx, ty = row[d - 1] if d > 0 else row[-d - 1]
                pairs.append((acc[n], (tx, ty if d > 0 else P - ty)))
            for (n, _), s in zip(todo, add_many(pairs), strict=True):
                acc[n] = s
        return acc


_G_TABLE: FixedBase | None = None


def base_g() -> FixedBase:
    """The generator's table (built once, on first use)."""
    global _G_TABLE
    if _G_TABLE is None:
        _G_TABLE = FixedBase(G, _W_G)
    return _G_TABLE


# -- encodings ----------------------------------------------------------------------


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


def encode_uncompressed(pt: Point) -> bytes:
    """SEC 1 uncompressed form: 0x04, then x and y, 65 bytes (RFC 9382's encoding)."""
    if pt is None:
        raise GroupError("the point at infinity has no encoding here")
    return b"\x04" + pt[0].to_bytes(32, "big") + pt[1].to_bytes(32, "big")


def decode_uncompressed(data: bytes) -> Point:
    """A point from its 65-byte uncompressed form; GroupError unless it is a canonical
    encoding of a point on the curve (hence in the group: cofactor 1)."""
    if len(data) != UNCOMPRESSED_BYTES or data[0] != 4:
        raise GroupError("an uncompressed point is 65 bytes starting with 0x04")
    pt = (int.from_bytes(data[1:33], "big"), int.from_bytes(data[33:], "big"))
    if not on_curve(pt):  # (coordinates in [0, P) included)
        raise GroupError("not a point on P-256")
    return pt


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
