#!/usr/bin/env python3
"""Writes scenes/shoal.png, the depth map of scenes/shoal.json: 8-bit grey,
256 x 192 cells of 1 cm, value v giving the depth 0.01 + v (0.30 - 0.01) m
(the scene's depth_range). Open water 30 cm deep; a round shoal centred at
(96, 96), radius 40 cells, rising smoothly to 4 cm below the surface
(d = 0.30 - 0.26 (1 - (r/R)^2)^2, zero slope at its rim); and a beach on the
right whose shore runs slanted from (214, 0) to (246, 191), the water
shoaling linearly over the 100 cells before it, to 1.5 cm at the waterline.
Beyond the shore is dry land, value 0, which the scene walls off with an
obstacle mask made from this same picture (wall where v < 0.01).
Run: python3 scenes/shoal_map.py (standard library only)."""
import math

from graypng import write_gray

W, H = 256, 192
DEEP, LOW, TOP, SHORE_MIN = 0.30, 0.01, 0.04, 0.015
CX, CY, R = 96, 96, 40
X0, Y0, X1, Y1, BEACH = 214, 0, 246, 191, 100


def depth(x, y):
    # signed distance to the shore line, positive on the water side (left)
    dx, dy = X1 - X0, Y1 - Y0
    dist = ((x - X0) * dy - (y - Y0) * dx) / -math.hypot(dx, dy)
    if dist <= 0:
        return None   # dry land
    d = min(DEEP, SHORE_MIN + (DEEP - SHORE_MIN) * dist / BEACH)
    r = math.hypot(x - CX, y - CY) / R
    if r < 1:
        d = min(d, DEEP - (DEEP - TOP) * (1 - r * r) ** 2)
    return d


def value(x, y):
    d = depth(x, y)
    return 0.0 if d is None else (d - LOW) / (DEEP - LOW)


write_gray("shoal.png", W, H, value)
