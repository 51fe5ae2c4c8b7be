"""The fast P-256 paths (fairdeck/group.py) against a plain affine
double-and-add written here from the textbook formulas, including the
corner cases an attacker can choose (equal points, opposite points, zero
and N - 1 scalars)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_spite.fairdeck import group as grp

Pt = tuple[int, int] | None


def ref_add(p1: Pt, p2: Pt) -> Pt:
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2:
        if (y1 + y2) % grp.P == 0:
            return None
        lam = (3 * x1 * x1 + grp.A) * pow(2 * y1, -1, grp.P) % grp.P
    else:
        lam = (y2 - y1) * pow(x2 - x1, -1, grp.P) % grp.P
    x3 = (lam * lam - x1 - x2) % grp.P
    return (x3, (lam * (x1 - x3) - y1) % grp.P)


def ref_mul(k: int, pt: Pt) -> Pt:
    out: Pt = None
    for bit in bin(k % grp.N)[2:]:
        out = ref_add(out, out)
        if bit == "1":
            out = ref_add(out, pt)
    return out


SCALAR = st.one_of(
    st.integers(min_value=0, max_value=grp.N - 1),
    st.sampled_from([0, 1, 2, 3, 15, 16, 17, 2**128, grp.N - 1, grp.N - 2, grp.N - 17, 2**255]),
)
POINT_K = st.integers(min_value=1, max_value=grp.N - 1)


def point(k: int) -> tuple[int, int]:
    pt = ref_mul(k, grp.G)
    assert pt is not None
    return pt


@settings(max_examples=30, deadline=None)
@given(SCALAR, POINT_K)
def test_wnaf_multiplication_agrees_with_double_and_add(k: int, base: int) -> None:
    pt = point(base)
    assert grp.mul(k, pt) == ref_mul(k, pt)
    assert grp.mul(k + grp.N, pt) == ref_mul(k, pt)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**260), st.integers(min_value=2, max_value=12))
def test_wnaf_digits_rebuild_the_scalar(k: int, w: int) -> None:
    digits = grp._wnaf(k, w)
    assert sum(d << pos for pos, d in digits) == k
    assert all(d % 2 and abs(d) < 2 ** (w - 1) for _, d in digits)
    assert all(b[0] - a[0] >= w for a, b in itertools.pairwise(digits))


@settings(max_examples=30, deadline=None)
@given(SCALAR, SCALAR, POINT_K, POINT_K)
def test_two_point_multiplication_agrees(a: int, b: int, p: int, q: int) -> None:
    p1, p2 = point(p), point(q)
    assert grp.mul2(a, p1, b, p2) == ref_add(ref_mul(a, p1), ref_mul(b, p2))


@settings(max_examples=20, deadline=None)
@given(SCALAR, SCALAR, POINT_K, st.sampled_from([1, -1, 2, -2, 0]))
def test_two_point_multiplication_with_related_points(a: int, b: int, p: int, rel: int) -> None:
    """A peer chooses D: it may be H itself, -H, 2H, or make the sum vanish."""
    p1 = point(p)
    p2 = point(p * rel % grp.N) if rel else p1
    if rel == 0:  # a*P + b*P with b = -a: infinity
        b = (-a) % grp.N
    assert grp.mul2(a, p1, b, p2) == ref_add(ref_mul(a, p1), ref_mul(b, p2))


@settings(max_examples=20, deadline=None)
@given(st.lists(SCALAR, min_size=1, max_size=4), POINT_K)
def test_several_scalars_of_one_point_agree(ks: list[int], base: int) -> None:
    pt = point(base)
    assert grp.mul_same(ks, pt) == [ref_mul(k, pt) for k in ks]


@settings(max_examples=10, deadline=None)
@given(st.lists(SCALAR, min_size=0, max_size=12), POINT_K, st.integers(min_value=2, max_value=8))
def test_fixed_base_tables_agree(ks: list[int], base: int, w: int) -> None:
    pt = point(base)
    table = grp.FixedBase(pt, w)
    expected = [ref_mul(k, pt) for k in ks]
    assert [table.mul(k) for k in ks] == expected
    assert table.mul_many(ks) == expected
    assert grp.base_g().mul_many(ks) == [ref_mul(k, grp.G) for k in ks]


def test_fixed_base_many_with_repeated_and_opposite_scalars() -> None:
    """Side-by-side sums meet equal and opposite partial sums (the affine
    addition's doubling and infinity cases)."""
    ks = [5, 5, grp.N - 5, 0, 1, grp.N - 1, 2**200, 2**200, 7 * 2**56, grp.N - 7 * 2**56] * 2
    assert grp.base_g().mul_many(ks) == [ref_mul(k, grp.G) for k in ks]


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(POINT_K, st.sampled_from(["rand", "same", "opposite", "none"])), max_size=10))
def test_batched_additions_agree(spec: list[tuple[int, str]]) -> None:
    pairs: list[tuple[Pt, Pt]] = []
    for i, (k, how) in enumerate(spec):
        p = point(k)
        other = point((k * 7 + i + 1) % grp.N or 1)
        q: Pt = {"rand": other, "same": p, "opposite": grp.neg(p), "none": None}[how]
        pairs.append((p, q) if i % 2 else (q, p))
    assert grp.add_many(pairs) == [ref_add(p, q) for p, q in pairs]


def test_batch_inverse_and_normalization() -> None:
    values = [1, 2, grp.P - 1, 123456789, 2**255]
    assert grp._batch_inverse(values) == [pow(v, -1, grp.P) for v in values]
    assert grp._batch_inverse([]) == []
    jac = [(grp.GX * 4 % grp.P, grp.GY * 8 % grp.P, 2), grp._INF, (grp.GX, grp.GY, 1)]
    assert grp.normalize(jac) == [grp.G, None, grp.G]


@settings(max_examples=40, deadline=None)
@given(
    ks=st.lists(st.integers(0, grp.N - 1), min_size=1, max_size=40),
    small=st.booleans(),
)
def test_signed_digit_msm_agrees_with_the_sum(ks: list[int], small: bool) -> None:
    """msm's signed windows (a point negated for a negative digit, the carry past the
    top window) give the plain sum, for any window the size picks."""
    if small:
        ks = [k % (1 << 64) for k in ks]
    bits = max(1, max(k.bit_length() for k in ks))
    pts = [grp.mul(7 + 11 * i, grp.G) for i in range(len(ks))]
    want: grp.Point = None
    for k, p in zip(ks, pts, strict=True):
        want = grp.add(want, grp.mul(k, p))
    assert grp.msm(ks, [p for p in pts if p is not None], bits) == want
