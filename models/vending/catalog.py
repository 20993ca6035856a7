"""The vending catalog: products, demand groups and relations; keyword search; the reference's file format.

A catalog is plain frozen data. :func:`load_reference_catalog` reads
EcoGym's ``products.jsonl`` + ``demand_structure.json`` pair (spec §2.5,
§2.7); :func:`write_reference_catalog` writes one, so a generated catalog
can be run in the reference implementation too.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import math
import re
from pathlib import Path
from typing import Any, Literal

import attrs

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import read_text_file
from bizsim.simcore.untrusted_json import loads_untrusted


__all__ = [
    "Product", "DemandGroup", "Relation", "Catalog", "ProductSearch", "load_reference_catalog",
    "write_reference_catalog",
]

_LINE_END = re.compile("\r\n|\r|\n")


@attrs.frozen
class Product:
    """One SKU: its exact name, category and wholesale price in cents."""

    name: str
    category: str
    wholesale_cents: int


@attrs.frozen
class DemandGroup:
    """A demand group: categories sharing one seasonal demand curve and price sensitivity.

    ``amplitude`` is a fraction (0.25 = ±25 %); ``phase`` is in radians;
    ``period`` in days.
    """

    id: str
    name: str
    categories: tuple[str, ...]
    base_demand: float
    period: float
    phase: float
    amplitude: float
    beta: float
    epsilon: float
    reference_markup: float = 1.0


@attrs.frozen
class Relation:
    """A relation between two groups, applied to the day's group demand in catalog order.

    ``complement`` (a → b): ``D_b = min(D_b, strength * D_a)``.
    ``competition`` (a, b): both multiplied by ``1 - strength / 2``.
    """

    kind: Literal["complement", "competition"]
    a: str
    b: str
    strength: float


@attrs.frozen(cache_hash=True)
class Catalog:
    """Everything the supplier sells and how customers want it."""

    name: str
    products: tuple[Product, ...]
    groups: tuple[DemandGroup, ...]
    relations: tuple[Relation, ...]

    def __attrs_post_init__(self) -> None:
        names = [p.name for p in self.products]
        if len(set(names)) != len(names):
            dupes = sorted({n for n in names if names.count(n) > 1})[:3]
            raise ConfigError(f"catalog {self.name!r} repeats product names: {', '.join(dupes)}")
        ids = [g.id for g in self.groups]
        if len(set(ids)) != len(ids):
            raise ConfigError(f"catalog {self.name!r} repeats group ids")

    @property
    def categories(self) -> list[str]:
        """The product categories, in catalog order."""
        return list(dict.fromkeys(p.category for p in self.products))


class ProductSearch:
    """The reference's keyword search (its fallback when no embeddings are available).

    Each whitespace-separated word of the lowercased query scores one point
    for a product if it occurs anywhere in ``"<name> <category>"``
    (lowercased). Products scoring above zero are ranked by score; ties keep
    catalog order; the first ``top_k`` are returned.

    >>> water, cola = Product("Blue Spring Water", "Bottled Water", 80), Product("Red Cola", "Soft Drinks", 90)
    >>> cat = Catalog("t", (water, cola), (), ())
    >>> [p.name for p in ProductSearch(cat).search("sparkling water")]
    ['Blue Spring Water']
    """

    def __init__(self, catalog: Catalog, top_k: int = 3) -> None:
        self.products = catalog.products
        self.top_k = top_k
        texts = [f"{p.name} {p.category}".lower() for p in catalog.products]
        # One text of all products, "\n"-separated: a query word holds no whitespace, so a match found by
        # ``str.find`` lies inside one product's text, and the search scans in C instead of once per product.
        self._blob = "\n".join(texts)
        self._starts: list[int] = []
        at = 0
        for text in texts:
            self._starts.append(at)
            at += len(text) + 1
        self._cache: dict[str, tuple[int, ...]] = {}

    def _matches(self, word: str) -> list[int]:
        """Indices of the products whose text contains ``word``, ascending."""
        blob, starts = self._blob, self._starts
        last = len(starts) - 1
        out = []
        pos = blob.find(word)
        while pos >= 0:
            i = bisect.bisect_right(starts, pos) - 1
            out.append(i)
            if i == last:
                break
            pos = blob.find(word, starts[i + 1])
        return out

    def search_indices(self, query: str) -> tuple[int, ...]:
        """Catalog indices of the best matches."""
        hit = self._cache.get(query)
        if hit is None:
            scores = [0] * len(self._starts)
            for word in set(query.lower().split()):
                for i in self._matches(word):
                    scores[i] += 1
            scored = [(s, i) for i, s in enumerate(scores) if s]
            scored.sort(key=lambda s: -s[0])  # stable: ties keep catalog order
            hit = tuple(i for _, i in scored[: self.top_k])
            if len(self._cache) < 100_000:
                self._cache[query] = hit
        return hit

    def search(self, query: str) -> list[Product]:
        """The best-matching products."""
        return [self.products[i] for i in self.search_indices(query)]


# --------------------------------------------------------------------------------------
# the reference's file format

#: The highest wholesale price a catalog file may give, in dollars (cents stay exact in a float below 2**53).
_MAX_DOLLARS = 10**12


def _cents(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{where}: wholesale_price(={value!r}) must be a number of dollars")
    if not math.isfinite(value) or value > _MAX_DOLLARS:  # NaN and Infinity are JSON to json.loads
        raise ConfigError(f"{where}: wholesale_price(={value!r:.40}) must be a finite number of dollars up to "
                          f"{_MAX_DOLLARS:,}")
    cents = round(value * 100)
    if cents <= 0:
        raise ConfigError(f"{where}: wholesale_price(={value!r}) must be at least $0.01")
    return cents


def _number(obj: dict, key: str, where: str, default: float | None = None) -> float:
    value = obj.get(key, default)
    if isinstance(value, str):  # the reference reads these fields with float(), so "7.0" is a number there too
        with contextlib.suppress(ValueError):
            if math.isfinite(number := float(value)):
                return number
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{where}: {key}(={value!r}) must be a number")
    try:
        number = float(value)
    except OverflowError:  # an integer past float's range
        number = math.inf
    if not math.isfinite(number):  # NaN demand ran a whole year of NaN sales
        raise ConfigError(f"{where}: {key}(={value!r:.40}) must be a finite number")
    return number


def _group(raw: Any, i: int) -> DemandGroup:
    where = f"demand group #{i + 1}"
    if not isinstance(raw, dict) or "id" not in raw:
        raise ConfigError(f"{where} must be an object with an 'id'")
    gid = str(raw["id"])
    where = f"demand group {gid!r}"
    members = raw.get("members", [])
    if isinstance(members, str):
        members = [members]
    if not isinstance(members, list):
        raise ConfigError(f"{where}: members(={members!r:.60}) must be a list of categories")
    cats = []
    for m in members:
        if isinstance(m, str):
            cats.append(m)
        elif isinstance(m, dict) and m.get("match") == "category" and isinstance(m.get("value"), str):
            cats.append(m["value"])
        # other match kinds never match a product in the reference; skip them too
    sens = raw.get("price_sensitivity")
    if not isinstance(sens, dict) or not sens:
        raise ConfigError(f"{where} has no 'price_sensitivity' (beta, epsilon, reference_markup)")
    if "reference_markup" not in sens:
        raise ConfigError(f"{where}: price_sensitivity has no 'reference_markup' (1.0 = wholesale)")
    season = raw.get("seasonality", {}) or {}
    if not isinstance(season, dict):
        raise ConfigError(f"{where}: seasonality(={season!r:.60}) must be an object with T, phi and amp")
    amp = _number(season, "amp", where, 0.0)
    amp = amp / 100.0 if amp > 1.0 else amp  # the reference reads amplitudes above 1 as percent
    return DemandGroup(
        id=gid,
        name=str(raw.get("name", gid)),
        categories=tuple(cats),
        base_demand=_number(raw, "base_demand", where, 0.0),
        period=max(1.0, _number(season, "T", where, 30.0)),
        phase=_number(season, "phi", where, 0.0),
        amplitude=max(0.0, min(1.0, amp)),
        beta=_number(sens, "beta", where, 1.0),
        epsilon=_number(sens, "epsilon", where, 0.0),
        reference_markup=_number(sens, "reference_markup", where),
    )


def _relation(raw: Any, i: int) -> Relation | None:
    if not isinstance(raw, dict):
        raise ConfigError(f"relation #{i + 1} must be an object")
    kind = raw.get("type")
    strength = _number(raw, "strength", f"relation #{i + 1}", 0.0)
    if kind == "complement":
        if "from" not in raw or "to" not in raw:
            return None
        return Relation("complement", str(raw["from"]), str(raw["to"]), strength)
    if kind == "competition":
        pair = raw.get("between")
        if pair is None and raw.get("from") and raw.get("to"):
            pair = [raw["from"], raw["to"]]
        if not isinstance(pair, list) or len(pair) != 2:
            return None
        return Relation("competition", str(pair[0]), str(pair[1]), strength)
    return None  # unknown kinds are ignored, as in the reference


def load_reference_catalog(products_path: str | Path, demand_path: str | Path, name: str | None = None) -> Catalog:
    """Read a catalog in the reference's format.

    ``products.jsonl``: one ``{"name", "category", "wholesale_price"}`` object a
    line (dollars; blank and unparseable lines are skipped, as the reference
    does). ``demand_structure.json``: ``{"groups": [...], "relations": [...]}``
    with members as ``{"match": "category", "value": ...}`` objects or plain
    strings and competition given as ``between`` or ``from``/``to``.

    Raises:
        ConfigError: a file is missing, a group lacks ``price_sensitivity`` or
            ``reference_markup``, a price is not a positive number, or a name repeats.
    """
    products = []
    # Both files are read no further than the data-file limit ("/dev/zero" read until memory ran out).
    # Lines end as a file read in text mode ends them (\n, \r\n, \r), not at U+2028 and the other breaks
    # str.splitlines knows, which a JSON string may hold unescaped.
    lines = _LINE_END.split(read_text_file(products_path, "products_path"))
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            row = loads_untrusted(line)  # a line nested past 64 levels is skipped, as unparseable ones are
        except json.JSONDecodeError:
            continue
        if not (isinstance(row, dict) and isinstance(row.get("name"), str) and isinstance(row.get("category"), str)):
            continue
        cents = _cents(row.get("wholesale_price"), f"{products_path}:{n}")
        products.append(Product(row["name"], row["category"], cents))
    if not products:
        raise ConfigError(f"products file {str(products_path)!r} holds no products: it needs one "
                          '{"name", "category", "wholesale_price"} object a line')
    text = read_text_file(demand_path, "demand_path")
    try:
        data = loads_untrusted(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"demand structure {str(demand_path)!r} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"demand structure {str(demand_path)!r} must be a JSON object")
    for key in ("groups", "relations"):
        if not isinstance(data.get(key, []), list):
            raise ConfigError(f"demand structure {str(demand_path)!r}: {key} must be a list")
    groups = tuple(_group(g, i) for i, g in enumerate(data.get("groups", [])))
    relations = tuple(r for r in (_relation(r, i) for i, r in enumerate(data.get("relations", []))) if r is not None)
    return Catalog(name or Path(products_path).stem, tuple(products), groups, relations)


def write_reference_catalog(catalog: Catalog, products_path: str | Path, demand_path: str | Path) -> None:
    """Write a catalog in the reference's format (the inverse of :func:`load_reference_catalog`)."""
    rows = [json.dumps({"name": p.name, "category": p.category, "wholesale_price": p.wholesale_cents / 100},
                       ensure_ascii=False) for p in catalog.products]
    Path(products_path).write_text("".join(r + "\n" for r in rows), encoding="utf-8")
    groups = [
        {
            "id": g.id, "name": g.name, "members": [{"match": "category", "value": c} for c in g.categories],
            "base_demand": g.base_demand, "seasonality": {"T": g.period, "phi": g.phase, "amp": g.amplitude},
            "price_sensitivity": {"beta": g.beta, "epsilon": g.epsilon, "reference_markup": g.reference_markup},
        }
        for g in catalog.groups
    ]
    relations = [
        {"from": r.a, "to": r.b, "type": "complement", "strength": r.strength} if r.kind == "complement"
        else {"between": [r.a, r.b], "type": "competition", "strength": r.strength}
        for r in catalog.relations
    ]
    doc = {"version": "1.0", "notes": f"bizsim catalog {catalog.name}", "groups": groups, "relations": relations}
    Path(demand_path).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
