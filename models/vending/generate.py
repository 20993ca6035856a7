"""Procedural vending catalogs: named products in categories, demand groups and relations, from a seed.

Our own vocabulary (categories, product types, brand names); the parameter
ranges are the paper's synthesis ranges (spec Part 1 §3): base demand 4–20,
period 30–90 days, amplitude 0.10–0.80, phase 0–2π, and by necessity tier
β = 4.0 / ε = −1 (necessities), β ∈ {5.0, 5.2, 5.4, 5.6} / ε = −2 (daily
goods), β = 6.67 / ε = −3 (non-essentials). Wholesale prices lie in
$0.50–$5.00. One demand group per category.

Everything is drawn from the stream ``catalog`` in a fixed order over all
37 categories; ``small`` and ``medium`` keep a subset, so a category's
products and parameters are the same in the three catalogs of one seed.
"""

from __future__ import annotations

import functools
import math

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.streams import RandomStreams

from .catalog import Catalog, DemandGroup, Product, Relation

__all__ = ["CATEGORIES", "SIZES", "RELATIONS", "generate_catalog"]

_N, _D, _C = "necessity", "daily", "non-essential"

#: (category, tier, wholesale band in dollars, product types)
CATEGORIES: tuple[tuple[str, str, tuple[float, float], tuple[str, ...]], ...] = (
    ("Bottled Water", _D, (0.50, 2.00), ("Spring Water", "Sparkling Water", "Mineral Water", "Alkaline Water",
                                         "Lemon Seltzer", "Distilled Water", "Coconut Water")),
    ("Soft Drinks", _D, (0.70, 2.50), ("Cola", "Lemon-Lime Soda", "Root Beer", "Ginger Ale", "Orange Soda",
                                       "Cream Soda", "Diet Cola")),
    ("Fruit Juice", _D, (1.00, 3.50), ("Orange Juice", "Apple Juice", "Grape Juice", "Cranberry Juice",
                                       "Pineapple Juice", "Tropical Punch", "Tomato Juice")),
    ("Coffee", _D, (2.00, 5.00), ("Ground Coffee", "Whole Bean Coffee", "Instant Coffee", "Cold Brew",
                                  "Espresso Pods", "Decaf Roast")),
    ("Tea", _D, (1.00, 4.00), ("Green Tea", "Black Tea", "Chamomile Tea", "Iced Tea", "Mint Tea", "Earl Grey")),
    ("Fresh Milk", _N, (0.80, 2.50), ("Whole Milk", "Skim Milk", "Reduced Fat Milk", "Lactose-Free Milk",
                                      "Chocolate Milk", "Oat Milk", "Half and Half")),
    ("Yogurt", _D, (0.60, 2.50), ("Greek Yogurt", "Vanilla Yogurt", "Strawberry Yogurt", "Plain Yogurt",
                                  "Drinkable Yogurt", "Yogurt Cups")),
    ("Cheese", _D, (1.50, 5.00), ("Cheddar", "Mozzarella", "Swiss Slices", "Parmesan", "Cream Cheese",
                                  "String Cheese", "Brie")),
    ("Eggs", _D, (1.50, 4.00), ("Large Eggs", "Free-Range Eggs", "Brown Eggs", "Organic Eggs", "Egg Whites",
                                "Jumbo Eggs")),
    ("Sliced Bread", _N, (1.00, 3.50), ("White Bread", "Whole Wheat Bread", "Sourdough Loaf", "Rye Bread",
                                        "Multigrain Bread", "Brioche Loaf")),
    ("Breakfast Cereal", _D, (1.50, 4.50), ("Corn Flakes", "Granola", "Oat Rings", "Bran Flakes", "Muesli",
                                            "Honey Puffs", "Rice Crisps")),
    ("Rice & Dry Grains", _N, (0.80, 4.00), ("Long Grain Rice", "Jasmine Rice", "Basmati Rice", "Brown Rice",
                                             "Quinoa", "Rolled Oats", "Red Lentils", "Black Beans")),
    ("Pasta & Noodles", _D, (0.60, 2.50), ("Spaghetti", "Penne", "Fusilli", "Egg Noodles", "Ramen Noodles",
                                           "Macaroni", "Lasagna Sheets")),
    ("Pasta Sauce", _D, (1.00, 4.00), ("Marinara Sauce", "Tomato Basil Sauce", "Alfredo Sauce", "Pesto",
                                       "Arrabbiata Sauce", "Vodka Sauce")),
    ("Canned Goods", _D, (0.50, 3.00), ("Canned Tuna", "Canned Corn", "Chickpeas", "Tomato Soup",
                                        "Chicken Noodle Soup", "Baked Beans", "Diced Tomatoes")),
    ("Cooking Oil", _D, (1.50, 5.00), ("Olive Oil", "Canola Oil", "Sunflower Oil", "Coconut Oil", "Sesame Oil",
                                       "Avocado Oil", "Cider Vinegar")),
    ("Herbs & Spices", _D, (0.80, 4.00), ("Black Pepper", "Sea Salt", "Paprika", "Cumin", "Cinnamon",
                                          "Garlic Powder", "Oregano", "Chili Flakes")),
    ("Fresh Fruit", _D, (0.50, 4.00), ("Bananas", "Gala Apples", "Navel Oranges", "Strawberries", "Blueberries",
                                       "Seedless Grapes", "Pears", "Mangoes")),
    ("Fresh Vegetables", _D, (0.50, 3.50), ("Carrots", "Broccoli", "Baby Spinach", "Vine Tomatoes", "Cucumbers",
                                            "Bell Peppers", "Yellow Onions", "Potatoes")),
    ("Meat & Poultry", _D, (2.50, 5.00), ("Chicken Breast", "Ground Beef", "Pork Chops", "Turkey Slices",
                                          "Chicken Thighs", "Beef Sausages", "Bacon")),
    ("Seafood", _D, (2.50, 5.00), ("Salmon Fillet", "Shrimp", "Cod Fillet", "Tilapia", "Fish Sticks",
                                   "Crab Sticks", "Smoked Salmon")),
    ("Frozen Dinners", _D, (1.50, 5.00), ("Frozen Pizza", "Frozen Lasagna", "Chicken Pot Pie", "Burrito Bowl",
                                          "Fried Rice", "Mac and Cheese Bake", "Veggie Stir-Fry")),
    ("Ice Cream", _C, (1.50, 5.00), ("Vanilla Ice Cream", "Chocolate Ice Cream", "Ice Cream Bars", "Sorbet",
                                     "Frozen Yogurt", "Ice Cream Sandwiches")),
    ("Chips & Snacks", _C, (0.80, 3.50), ("Potato Chips", "Tortilla Chips", "Pretzels", "Popcorn", "Cheese Puffs",
                                          "Trail Mix", "Veggie Straws")),
    ("Candy & Chocolate", _C, (0.50, 3.50), ("Milk Chocolate Bar", "Dark Chocolate Bar", "Gummy Bears",
                                             "Caramel Chews", "Peanut Butter Cups", "Mint Drops", "Licorice")),
    ("Cookies & Biscuits", _C, (0.80, 3.50), ("Chocolate Chip Cookies", "Oatmeal Cookies", "Shortbread",
                                              "Sandwich Cookies", "Graham Crackers", "Butter Biscuits")),
    ("Beer & Cider", _C, (1.50, 5.00), ("Lager", "Pale Ale", "Stout", "Wheat Beer", "Hard Cider", "Light Beer",
                                        "India Pale Ale")),
    ("Baby Formula", _N, (2.50, 5.00), ("Infant Formula", "Toddler Formula", "Baby Cereal", "Fruit Puree Pouch",
                                        "Teething Biscuits", "Sensitive Formula")),
    ("Diapers & Wipes", _N, (2.00, 5.00), ("Newborn Diapers", "Toddler Diapers", "Overnight Diapers",
                                           "Training Pants", "Baby Wipes", "Diaper Cream")),
    ("Paper Goods", _D, (1.00, 4.50), ("Toilet Paper", "Paper Towels", "Facial Tissues", "Paper Napkins",
                                       "Kitchen Roll", "Pocket Tissues")),
    ("Cleaning & Laundry", _D, (1.00, 5.00), ("Laundry Detergent", "Dish Soap", "Fabric Softener",
                                              "All-Purpose Cleaner", "Bleach", "Dishwasher Tablets", "Sponges")),
    ("Shampoo & Hair Care", _D, (1.50, 5.00), ("Shampoo", "Conditioner", "Hair Gel", "Dry Shampoo", "Hair Oil",
                                               "Two-in-One Shampoo")),
    ("Oral Care", _D, (0.80, 4.00), ("Toothpaste", "Toothbrush", "Mouthwash", "Dental Floss", "Whitening Strips",
                                     "Kids Toothpaste")),
    ("First Aid & Pain Relief", _N, (1.00, 5.00), ("Bandages", "Pain Reliever", "Antiseptic Cream", "Cough Drops",
                                                   "Allergy Tablets", "Cold and Flu Syrup")),
    ("Batteries & Bulbs", _D, (1.00, 5.00), ("AA Batteries", "AAA Batteries", "9V Battery", "LED Bulb",
                                             "Night Light", "Coin Cell Battery")),
    ("Pet Supplies", _D, (1.00, 5.00), ("Dry Dog Food", "Wet Cat Food", "Dog Treats", "Cat Treats", "Bird Seed",
                                        "Fish Flakes")),
    ("Party Supplies", _C, (0.50, 4.00), ("Balloons", "Paper Plates", "Party Cups", "Birthday Candles",
                                          "Streamers", "Gift Wrap", "Confetti")),
)

#: Invented brand names, combined with product types into product names.
BRANDS: tuple[str, ...] = (
    "Alder", "Brightwell", "Cobalt Creek", "Dunmore", "Evergreen Row", "Fairhaven", "Goldleaf", "Harbor Lane",
    "Ironwood", "Juniper", "Kestrel", "Lakeside", "Meadowbrook", "Northstar", "Oakmont", "Pinecrest", "Quailridge",
    "Redfern", "Silverbirch", "Tidewater", "Upland", "Valewood", "Willowby", "Yarrow", "Zephyr", "Amberfield",
    "Bluecliff", "Cedar Hollow", "Driftwood", "Elmstead",
)

#: Relations between categories, in the order they apply: complements (from → to), then competitions.
RELATIONS: tuple[tuple[str, str, str], ...] = (
    ("complement", "Pasta & Noodles", "Pasta Sauce"),
    ("complement", "Pasta & Noodles", "Herbs & Spices"),
    ("complement", "Rice & Dry Grains", "Cooking Oil"),
    ("complement", "Rice & Dry Grains", "Herbs & Spices"),
    ("complement", "Breakfast Cereal", "Fresh Milk"),
    ("complement", "Coffee", "Fresh Milk"),
    ("complement", "Beer & Cider", "Chips & Snacks"),
    ("complement", "Frozen Dinners", "Soft Drinks"),
    ("complement", "Sliced Bread", "Cheese"),
    ("complement", "Cooking Oil", "Fresh Vegetables"),
    ("complement", "Cooking Oil", "Meat & Poultry"),
    ("complement", "Pasta Sauce", "Meat & Poultry"),
    ("complement", "Herbs & Spices", "Seafood"),
    ("complement", "Canned Goods", "Pasta & Noodles"),
    ("complement", "Eggs", "Sliced Bread"),
    ("complement", "Party Supplies", "Candy & Chocolate"),
    ("competition", "Soft Drinks", "Bottled Water"),
    ("competition", "Soft Drinks", "Fruit Juice"),
    ("competition", "Coffee", "Tea"),
    ("competition", "Ice Cream", "Candy & Chocolate"),
    ("competition", "Chips & Snacks", "Cookies & Biscuits"),
    ("competition", "Meat & Poultry", "Seafood"),
    ("competition", "Fresh Vegetables", "Canned Goods"),
    ("competition", "Rice & Dry Grains", "Pasta & Noodles"),
    ("competition", "Breakfast Cereal", "Yogurt"),
    ("competition", "Beer & Cider", "Soft Drinks"),
    ("competition", "Candy & Chocolate", "Cookies & Biscuits"),
    ("competition", "Eggs", "Breakfast Cereal"),
    ("competition", "Fresh Fruit", "Ice Cream"),
    ("competition", "Frozen Dinners", "Fresh Vegetables"),
)

_SMALL = ("Bottled Water", "Fresh Fruit", "Baby Formula", "Shampoo & Hair Care", "Cooking Oil", "Frozen Dinners",
          "Paper Goods", "Batteries & Bulbs")
_MEDIUM = _SMALL + ("Soft Drinks", "Pasta & Noodles", "Herbs & Spices", "Candy & Chocolate", "Canned Goods",
                    "Fresh Milk", "Party Supplies", "Cleaning & Laundry")

#: Catalog size -> the categories it holds (each its own demand group).
SIZES: dict[str, tuple[str, ...]] = {
    "small": _SMALL,  # 8 groups, no relations among them
    "medium": _MEDIUM,  # 16 groups, 5 relations
    "large": tuple(c[0] for c in CATEGORIES),  # 37 groups, 30 relations
}

_TIER_PARAMS = {_N: ((4.0,), -1.0), _D: ((5.0, 5.2, 5.4, 5.6), -2.0), _C: ((6.67,), -3.0)}
_PRODUCTS_PER_CATEGORY = (12, 21)


@functools.lru_cache(maxsize=64)
def generate_catalog(size: str, seed: int) -> Catalog:
    """The catalog of ``size`` (``small``, ``medium``, ``large``) for ``seed``.

    >>> cat = generate_catalog("small", 1)
    >>> len(cat.groups), len(cat.relations), 8 * 12 <= len(cat.products) <= 8 * 21
    (8, 0, True)
    """
    if size not in SIZES:
        raise ConfigError(f"catalog size {size!r} must be one of {', '.join(SIZES)}")
    wanted = set(SIZES[size])
    products, groups, relations = _full(seed)
    by_category = {g.categories[0]: g.id for g in groups if g.categories[0] in wanted}
    return Catalog(
        f"{size}-{seed}",
        tuple(p for p in products if p.category in wanted),
        tuple(g for g in groups if g.categories[0] in wanted),
        tuple(r for r, (a, b) in relations if a in by_category and b in by_category),
    )


@functools.lru_cache(maxsize=None)
def _names(k: int) -> tuple[str, ...]:
    """Category ``k``'s possible product names, brand-major: name ``b * len(kinds) + j`` is brand b, kind j."""
    return tuple(f"{brand} {kind}" for brand in BRANDS for kind in CATEGORIES[k][3])


@functools.lru_cache(maxsize=16)
def _full(seed: int) -> tuple[list[Product], list[DemandGroup], list[tuple[Relation, tuple[str, str]]]]:
    """Every category's products and group, and every relation, drawn in a fixed order from stream ``catalog``."""
    rng = RandomStreams(seed).get("catalog")
    products: list[Product] = []
    groups: list[DemandGroup] = []
    lo_n, hi_n = _PRODUCTS_PER_CATEGORY
    for k, (category, tier, (lo, hi), kinds) in enumerate(CATEGORIES, 1):
        count = int(rng.integers(lo_n, hi_n + 1))
        names = _names(k - 1)
        picks = rng.choice(len(names), size=count, replace=False).tolist()
        prices = rng.uniform(lo, hi, size=count).tolist()
        for pick, price in zip(picks, prices):
            cents = round(price * 100)
            cents = cents if cents < 500 else 500
            products.append(Product(names[pick], category, cents if cents > 50 else 50))
        betas, epsilon = _TIER_PARAMS[tier]
        base, period, amp, phase, beta_pick = rng.random(5).tolist()
        groups.append(DemandGroup(
            id=f"g{k:02d}",
            name=category,
            categories=(category,),
            base_demand=round((4.0 + 16.0 * base) * 2) / 2,  # 4.0-20.0 in steps of 0.5
            period=float(30 + int(period * 61)),  # 30-90 days
            phase=round(2 * math.pi * phase, 2),
            amplitude=round(0.10 + 0.70 * amp, 2),
            beta=betas[int(beta_pick * len(betas))],
            epsilon=epsilon,
            reference_markup=1.0,
        ))
    ids = {g.categories[0]: g.id for g in groups}
    strengths = rng.random(len(RELATIONS)).tolist()
    relations = [
        (Relation(kind, ids[a], ids[b], round(0.2 + 0.5 * s, 1)), (a, b))  # type: ignore[arg-type]
        for (kind, a, b), s in zip(RELATIONS, strengths)
    ]
    return products, groups, relations
