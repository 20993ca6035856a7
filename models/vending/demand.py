"""The group demand model (spec §2.4), compiled from a catalog.

For a day ``t`` (0-based), for every group:

1. seasonal demand ``S = base * (1 + amp * sin(2π t / T + phi))``;
2. for a group with priced products and ``epsilon != 0``, a price factor
   ``F = clamp((Pbar / Pref) ** epsilon, 0.01, 100)`` where ``Pbar`` is the
   stock-weighted mean retail price of its in-stock priced products and
   ``Pref = max(0.5, mean wholesale of its priced products * markup)``
   (F = 1 when nothing priced is in stock); ``D = max(0, S * F)``;
3. relations in catalog order on the dict of all group demands
   (complement caps, competition factors; later ones see earlier ones);
4. within a group, in-stock priced products share ``D`` by a softmax of
   ``-beta * P / Pref_share`` with ``Pref_share = max(0.5, mean wholesale of
   the in-stock priced products * markup)``;
5. each expected quantity ``x`` gets multiplicative normal noise
   (``max(0, x + z * 0.2 x)``), is rounded half to even, and is capped by stock.

Products are visited group by group (groups in the order their first
product was priced), products in the order they were priced: the
reference's order. One standard normal is drawn, in that order, for each
in-stock priced product of a group whose demand is positive; nothing else
draws.

Float expressions follow the reference's order of operations.
"""

from __future__ import annotations

import math
from itertools import repeat
from collections.abc import Mapping, Sequence

import numpy as np

from .catalog import Catalog

__all__ = ["DemandModel", "NormalStream"]

_REF_FLOOR = 0.5
_BLOCK = 2048


class NormalStream:
    """Standard normals from a numpy generator, drawn in blocks and handed out in order.

    Numpy's generator makes the same values in a block as one at a time, so
    ``normals(3)`` then ``normals(2)`` equals ``generator.standard_normal(5)``:

    >>> a = NormalStream(np.random.default_rng(1)); b = np.random.default_rng(1).standard_normal(5).tolist()
    >>> a.normals(3) + a.normals(2) == b
    True
    """

    __slots__ = ("_rng", "_buf", "_pos")

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._buf: list[float] = []
        self._pos = 0

    def normals(self, n: int) -> list[float]:
        """The next ``n`` standard normals."""
        end = self._pos + n
        if end > len(self._buf):
            rest = self._buf[self._pos:]
            self._buf = rest + self._rng.standard_normal(max(_BLOCK, n - len(rest))).tolist()
            self._pos, end = 0, n
        out = self._buf[self._pos:end]
        self._pos = end
        return out


class DemandModel:
    """Daily sales of a catalog's products given prices, stock and a noise source."""

    def __init__(self, catalog: Catalog, horizon_days: int = 366, noise_std: float = 0.20) -> None:
        groups = catalog.groups
        index = {g.id: k for k, g in enumerate(groups)}
        first_group: dict[str, int] = {}
        for k, g in enumerate(groups):
            for c in g.categories:
                first_group.setdefault(c, k)
        #: Product index -> group index (-1: the product belongs to no group and never sells).
        self.product_group: list[int] = [first_group.get(p.category, -1) for p in catalog.products]
        self.wholesale: list[float] = [p.wholesale_cents / 100 for p in catalog.products]
        self.beta = [g.beta for g in groups]
        self.epsilon = [g.epsilon for g in groups]
        self.markup = [g.reference_markup for g in groups]
        self.noise_std = noise_std
        self.relations: list[tuple[bool, int, int, float]] = [
            (r.kind == "complement", index[r.a], index[r.b], r.strength)
            for r in catalog.relations if r.a in index and r.b in index
        ]
        self._base = np.array([g.base_demand for g in groups], dtype=float)
        self._amp = np.array([g.amplitude for g in groups], dtype=float)
        self._period = np.array([g.period for g in groups], dtype=float)
        self._phase = np.array([g.phase for g in groups], dtype=float)
        #: live groups -> the relations that matter to them (content-keyed: safe to share between worlds)
        self._relevant: dict[tuple[int, ...], list[tuple[bool, int, int, float]]] = {}
        self._seasonal: list[list[float]] = self._seasonal_rows(0, horizon_days) if groups else []

    def _seasonal_rows(self, start: int, stop: int) -> list[list[float]]:
        t = np.arange(start, stop, dtype=float)[:, None]
        s = self._base * (1.0 + self._amp * np.sin(2 * math.pi / self._period * t + self._phase))
        return np.maximum(s, 0.0).tolist()

    def seasonal(self, t: int) -> list[float]:
        """Every group's seasonal demand on day ``t`` (a fresh list)."""
        if t < len(self._seasonal):
            return list(self._seasonal[t])
        return self._seasonal_rows(t, t + 1)[0] if self.beta else []

    def relations_for(self, live: tuple[int, ...]) -> list[tuple[bool, int, int, float]]:
        """The relations that can change the demand of the groups in ``live``, in catalog order.

        Walking the relations backwards: a complement matters if its target
        does (and then its source matters before it); a competition matters
        if either side does (its factor depends on no demand). The others
        change only groups nobody sells, so skipping them leaves the live
        groups' demand the same to the bit.
        """
        hit = self._relevant.get(live)
        if hit is None:
            need = set(live)
            keep = []
            for rel in reversed(self.relations):
                complement, a, b, _ = rel
                if complement:
                    if b in need:
                        keep.append(rel)
                        need.add(a)
                elif a in need or b in need:
                    keep.append(rel)
            hit = keep[::-1]
            if len(self._relevant) < 4096:
                self._relevant[live] = hit
        return hit

    def _scan(self, t: int, by_group: Mapping[int, Sequence[int]], price_cents: Sequence[int],
              stock: Sequence[int], *, live_only: bool = False
              ) -> tuple[list[float], list[tuple[int, Sequence[int], float | None]]]:
        """Steps 1–3, and each priced group with products in stock.

        Returns the group demands and, per such group, ``(group, in-stock
        products in pricing order, their wholesale sum if already known)``.
        ``live_only``: only the demand of the groups returned is exact.
        """
        d = self.seasonal(t)
        w = self.wholesale
        eps_of, markup_of = self.epsilon, self.markup
        in_stock: list[tuple[int, Sequence[int], float | None]] = []
        live: list[int] = []
        for g, items in by_group.items():
            psum = 0.0
            inv = 0
            short = False
            for i in items:
                q = stock[i]
                if q > 0:
                    psum += price_cents[i] / 100 * q
                    inv += q
                else:
                    short = True
            if not inv:
                continue  # the price factor is 1: the mean price equals the reference price
            # Usually every priced product is in stock: then the in-stock list is the priced list (no copy),
            # and the wholesale sum over it, added in the same order, is the one the price factor uses.
            avail: Sequence[int] = items
            if short:
                kept = []
                for i in items:
                    if stock[i] > 0:
                        kept.append(i)
                avail = kept
            wsum = None
            eps = eps_of[g]
            if eps != 0.0:
                wsum = 0.0
                for i in items:
                    wsum += w[i]
                avg = psum / inv
                ref = wsum / len(items) * markup_of[g]
                if ref < _REF_FLOOR:
                    ref = _REF_FLOOR
                if avg > 0:
                    factor = math.pow(avg / ref, eps)
                    factor = 0.01 if factor < 0.01 else (100.0 if factor > 100.0 else factor)
                    v = d[g] * factor
                    d[g] = v if v > 0.0 else 0.0
            in_stock.append((g, avail, None if short else wsum))
            live.append(g)
        relations = self.relations_for(tuple(live)) if live_only else self.relations
        for complement, a, b, s in relations:
            if complement:
                cap = d[a] * s
                if cap < 0.0:
                    cap = 0.0
                if cap < d[b]:
                    d[b] = cap
            else:
                f = 1.0 - 0.5 * s
                if f < 0.0:
                    f = 0.0
                d[a] *= f
                d[b] *= f
        return d, in_stock

    def group_demand(self, t: int, by_group: Mapping[int, Sequence[int]], price_cents: Sequence[int],
                     stock: Sequence[int]) -> list[float]:
        """Every group's demand on day ``t`` after price factors and relations (steps 1–3).

        ``by_group`` maps a group index to its priced products' indices, in pricing order.
        """
        return self._scan(t, by_group, price_cents, stock)[0]

    def expected(self, t: int, by_group: Mapping[int, Sequence[int]], price_cents: Sequence[int],
                 stock: Sequence[int]) -> list[tuple[int, float]]:
        """``(product index, expected quantity)`` for every product that gets a noise draw, in draw order."""
        idx, xs = self._plan(t, by_group, price_cents, stock)
        return list(zip(idx, xs))

    def _plan(self, t: int, by_group: Mapping[int, Sequence[int]], price_cents: Sequence[int],
              stock: Sequence[int]) -> tuple[list[int], list[float]]:
        """:meth:`expected` as two parallel lists: product indices and expected quantities."""
        d, in_stock = self._scan(t, by_group, price_cents, stock, live_only=True)
        idx: list[int] = []
        xs: list[float] = []
        exp = math.exp
        w, beta, markup_of = self.wholesale, self.beta, self.markup
        for g, avail, aw in in_stock:
            demand = d[g]
            if demand <= 0:
                continue
            if len(avail) == 1:
                # the general case below with one product: (0.0 + w) / 1 is w, and e / (0.0 + e) is e / e
                i = avail[0]
                ref = w[i] * markup_of[g]
                if ref < _REF_FLOOR:
                    ref = _REF_FLOOR
                e = exp(-beta[g] * (price_cents[i] / 100 / ref))
                if e <= 0:
                    continue
                idx.append(i)
                xs.append(e / e * demand)
                continue
            if aw is None:
                aw = 0.0
                for i in avail:
                    aw += w[i]
            ref = aw / len(avail) * markup_of[g]
            if ref < _REF_FLOOR:
                ref = _REF_FLOOR
            nb = -beta[g]
            es = []
            esum = 0.0
            for i in avail:
                e = exp(nb * (price_cents[i] / 100 / ref))
                es.append(e)
                esum += e
            if esum <= 0:
                continue
            idx += avail
            for e in es:
                xs.append(e / esum * demand)
        return idx, xs

    def sales(self, t: int, by_group: Mapping[int, Sequence[int]], price_cents: Sequence[int], stock: Sequence[int],
              rng: NormalStream | None) -> list[tuple[int, int]]:
        """``(product index, units sold)`` for the products that sell, in draw order.

        ``rng`` ``None`` turns the noise off (units = expected quantity rounded half to even).
        """
        idx, xs = self._plan(t, by_group, price_cents, stock)
        if not idx:
            return []
        out = []
        std = self.noise_std
        # Noise off: z = 0.0 leaves y exactly x (x >= 0), so both cases share the clamp below.
        for i, x, z in zip(idx, xs, repeat(0.0) if rng is None else rng.normals(len(idx))):
            y = x + z * (abs(x) * std)
            if y > 0:
                n = round(y)
                q = stock[i]
                if q < n:
                    n = q
                if n > 0:
                    out.append((i, n))
        return out
