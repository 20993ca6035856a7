"""The vending arena's market: one location's demand, shared by several machines.

A day ``t`` of the location (the vending world's demand model, spec §2.4,
taken over every machine at once, then split between the machines):

1. each group's seasonal demand ``S`` (as in the vending world);
2. the price factor ``F = clamp((Pbar / Pref) ** epsilon, 0.01, 100)`` of the
   *location*: ``Pbar`` is the stock-weighted mean retail price of every
   machine's in-stock priced products of the group, ``Pref`` =
   ``max(0.5, mean wholesale of every machine's priced products * markup)``;
   ``D = max(0, S * F)``; then the relations between groups, in catalog order;
3. **the choice between machines.** A machine offers a group when it has an
   in-stock priced product of it. Customers of the group split between the
   offering machines by a softmax of

   ``u = -choice_price_weight * beta * (P_m / Pref) + choice_assortment_weight * ln(n_m)``

   where ``P_m`` is the machine's stock-weighted mean price of its in-stock
   products of the group, ``n_m`` how many it has in stock, ``beta`` the
   group's price sensitivity: the cheaper machine and the one with the wider
   choice draw more customers; a machine with nothing of the group in stock
   draws none (a stock-out is a lost sale, not a customer sent to a rival).
   The machine's share of ``D`` is then split between its own products
   exactly as in the vending world (softmax of ``-beta * P / Pref_share``);
4. each expected quantity gets the vending world's multiplicative normal
   noise, is rounded half to even, and is capped by the machine's stock.

Draw order: groups in the order the location first priced them (machines
in seat order, each machine's groups in its pricing order), then machines
in seat order, then products in the machine's pricing order; one standard
normal from the arena's stream ``demand`` for each product that gets a
positive expected quantity. With one machine every step is the vending
world's, float for float and draw for draw: an arena of one seat *is* the
vending world.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import repeat

from .demand import DemandModel, NormalStream

__all__ = ["Machine", "MarketDay", "market_sales"]

_REF_FLOOR = 0.5

#: One machine as the market sees it: (its priced, researched products by group in pricing order, its prices in
#: cents by product index, its stock by product index).
Machine = tuple[Mapping[int, Sequence[int]], Sequence[int], Sequence[int]]


class MarketDay:
    """What the market did on one day: every machine's sales and the demand they came from."""

    __slots__ = ("sold", "expected", "wanted")

    def __init__(self, machines: int) -> None:
        #: Per machine: ``(product index, units sold)`` in draw order.
        self.sold: list[list[tuple[int, int]]] = [[] for _ in range(machines)]
        #: The location's expected units over every machine (the sum of each product's expected quantity).
        self.expected = 0.0
        #: Units customers came for after the noise, before stock capped them (what was served is at most this).
        self.wanted = 0


def market_sales(demand: DemandModel, t: int, machines: Sequence[Machine], rng: NormalStream | None, *,
                 price_weight: float, assortment_weight: float) -> MarketDay:
    """Every machine's sales on day ``t`` (``rng`` ``None``: no noise)."""
    d = demand.seasonal(t)
    w, eps_of, markup_of, beta = demand.wholesale, demand.epsilon, demand.markup, demand.beta
    log, exp = math.log, math.exp
    rows = [(m, by_group, prices, stock) for m, (by_group, prices, stock) in enumerate(machines)]
    groups: dict[int, None] = {}
    for _m, by_group, _prices, _stock in rows:
        groups.update(dict.fromkeys(by_group))
    # One pass over every machine's priced products: the location's price level (steps 1-2) and each machine's
    # offer (its in-stock products, their stock-weighted price sum and units, their wholesale sum when known).
    live: list[tuple[int, float, list[tuple[int, Sequence[int], float, int, float | None]]]] = []
    for g in groups:
        offers: list[tuple[int, Sequence[int], float, int, float | None]] = []
        psum = wsum = 0.0
        inv = count = 0
        for m, by_group, prices, stock in rows:
            items = by_group.get(g)
            if not items:
                continue
            if len(items) == 1:  # the loop below with one product, as the planners trade (0.0 + x is x)
                i = items[0]
                q = stock[i]
                wsum += w[i]
                count += 1
                if q > 0:
                    ps = prices[i] / 100 * q
                    psum += ps
                    inv += q
                    offers.append((m, items, ps, q, w[i]))
                continue
            ps = ws = 0.0
            units = 0
            short = False
            for i in items:
                q = stock[i]
                if q > 0:
                    ps += prices[i] / 100 * q
                    units += q
                else:
                    short = True
                ws += w[i]
            psum += ps
            wsum += ws
            inv += units
            count += len(items)
            if units:
                # Usually every priced product is in stock: the in-stock list is then the priced list (no copy),
                # and its wholesale sum, added in the same order, is already known.
                offers.append((m, [i for i in items if stock[i] > 0] if short else items, ps, units,
                               None if short else ws))
        if not inv:
            continue
        ref = wsum / count * markup_of[g]
        if ref < _REF_FLOOR:
            ref = _REF_FLOOR
        eps = eps_of[g]
        if eps != 0.0:
            avg = psum / inv
            if avg > 0:
                factor = math.pow(avg / ref, eps)
                factor = 0.01 if factor < 0.01 else (100.0 if factor > 100.0 else factor)
                v = d[g] * factor
                d[g] = v if v > 0.0 else 0.0
        live.append((g, ref, offers))
    for complement, a, b, s in demand.relations_for(tuple(g for g, _, _ in live)):
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
    out = MarketDay(len(machines))
    where: list[int] = []
    idx: list[int] = []
    xs: list[float] = []
    for g, ref, offers in live:
        total = d[g]
        if total <= 0:
            continue
        markup, group_beta = markup_of[g], beta[g]
        if len(offers) == 1:
            shares: list[float] = [total]
        else:
            price_beta = group_beta * price_weight
            utilities = []
            for _m, avail, ps, units, _aw in offers:
                u = -price_beta * (ps / units / ref)
                if len(avail) > 1:  # ln 1 = 0: one product adds nothing
                    u += assortment_weight * log(len(avail))
                utilities.append(u)
            top = max(utilities)
            weights = [exp(u - top) for u in utilities]
            norm = sum(weights)
            shares = [total * (x / norm) for x in weights]
        for (m, avail, _ps, _units, aw), demand_m in zip(offers, shares):
            if len(avail) == 1:  # _split with one product, inline: the planners' usual shelf
                i = avail[0]
                r = w[i] * markup
                if r < _REF_FLOOR:
                    r = _REF_FLOOR
                e = exp(-group_beta * (machines[m][1][i] / 100 / r))
                if e > 0:
                    where.append(m)
                    idx.append(i)
                    xs.append(e / e * demand_m)
            else:
                _split(demand_m, avail, aw, machines[m][1], w, markup, group_beta, m, where, idx, xs)
    out.expected = sum(xs)
    if not idx:
        return out
    std = demand.noise_std
    sold = out.sold
    stocks = [stock for _by_group, _prices, stock in machines]
    wanted = 0
    for m, i, x, z in zip(where, idx, xs, repeat(0.0) if rng is None else rng.normals(len(idx))):
        y = x + z * (abs(x) * std)
        if y > 0:
            n = round(y)
            wanted += n
            q = stocks[m][i]
            if q < n:
                n = q
            if n > 0:
                sold[m].append((i, n))
    out.wanted = wanted
    return out


def _split(demand: float, avail: Sequence[int], aw: float | None, prices: Sequence[int], w: Sequence[float],
           markup: float, beta: float, m: int, where: list[int], idx: list[int], xs: list[float]) -> None:
    """A machine's demand for a group among its in-stock products (the vending world's step 4, to the bit)."""
    exp = math.exp
    if len(avail) == 1:
        i = avail[0]
        ref = w[i] * markup
        if ref < _REF_FLOOR:
            ref = _REF_FLOOR
        e = exp(-beta * (prices[i] / 100 / ref))
        if e <= 0:
            return
        where.append(m)
        idx.append(i)
        xs.append(e / e * demand)
        return
    if aw is None:
        aw = 0.0
        for i in avail:
            aw += w[i]
    ref = aw / len(avail) * markup
    if ref < _REF_FLOOR:
        ref = _REF_FLOOR
    nb = -beta
    es = []
    esum = 0.0
    for i in avail:
        e = exp(nb * (prices[i] / 100 / ref))
        es.append(e)
        esum += e
    if esum <= 0:
        return
    for i, e in zip(avail, es):
        where.append(m)
        idx.append(i)
        xs.append(e / esum * demand)
