"""How far apart two colours look: sRGB to CIELAB (D65) and the CIEDE2000 colour difference (Sharma, Wu and
Dalal's formulation), for tests that need colours a reader can tell apart, not only different hex strings."""

from __future__ import annotations

import math

__all__ = ["delta_e", "delta_e_lab", "lab"]


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def lab(hex_colour: str) -> tuple[float, float, float]:
    """``#rrggbb`` as CIELAB (L*, a*, b*) under the D65 white point."""
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    r, g, b = (_linear(int(h[k:k + 2], 16) / 255) for k in (0, 2, 4))
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(one: str, two: str) -> float:
    """CIEDE2000 between two ``#rrggbb`` colours: about 1 is just noticeable, 10 and more clearly different.

    >>> round(delta_e("#000000", "#ffffff"), 1), delta_e("#2a9d8f", "#2a9d8f")
    (100.0, 0.0)
    """
    return delta_e_lab(lab(one), lab(two))


def delta_e_lab(one: tuple[float, float, float], two: tuple[float, float, float]) -> float:
    """CIEDE2000 between two CIELAB colours; Sharma, Wu and Dalal's test pairs 1, 7 and 17:

    >>> round(delta_e_lab((50, 2.6772, -79.7751), (50, 0, -82.7485)), 4)
    2.0425
    >>> round(delta_e_lab((50, 0, 0), (50, -1, 2)), 4), round(delta_e_lab((50, 2.5, 0), (73, 25, -18)), 4)
    (2.3669, 27.1492)
    """
    l1, a1, b1 = one
    l2, a2, b2 = two
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = a1 * (1 + g), a2 * (1 + g)
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    dhh = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6)) - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * cp_bar, 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (dhh / s_h) ** 2 + r_t * (dc / s_c) * (dhh / s_h))
