#!/usr/bin/env python3
"""Writes scenes/lens.png, the speed map of scenes/lens.json: 8-bit grey,
256 x 160, white (value 1: the fast end of speed_range) everywhere except a
round lens of slow water centred at (72, 80), radius 44 cells, whose value
falls smoothly to 0 at its centre: v = 1 - (1 - (r/R)^2)^2, so the rim has
zero slope and scatters little. Slower water in the middle is a convex
lens for waves: the plane wave from the left comes to a focus behind it.
Run: python3 scenes/lens_map.py (standard library only)."""
import math

from graypng import write_gray

W, H, CX, CY, R = 256, 160, 72, 80, 44


def value(x, y):
    r = math.hypot(x - CX, y - CY) / R
    if r >= 1:
        return 1.0
    return 1.0 - (1.0 - r * r) ** 2   # 0 at the centre, 1 with zero slope at the rim


write_gray("lens.png", W, H, value)
