#!/usr/bin/env python3
"""Draws the installed app's icons (icon-192.png, icon-512.png, maskable: the picture
keeps to the middle 80 %): a Togyz board seen from above, two rows of nine holes with
the two kazans between them, in the page's colours. Plain Python (zlib, struct), so the
committed pictures can be made again anywhere:  tools/wasm/site/make_icons.py"""
import os
import struct
import zlib

BACKGROUND = (0x2f, 0x5d, 0x3a)
BOARD = (0xc8, 0x9b, 0x5e)
HOLE = (0x7a, 0x52, 0x2a)
STONE = (0xf4, 0xed, 0xdc)


def draw(size):
    px = [[BACKGROUND] * size for _ in range(size)]
    s = size / 512.0

    def fill(shape, colour):
        for y in range(size):
            for x in range(size):
                if shape(x + 0.5, y + 0.5):
                    px[y][x] = colour

    def rounded(x0, y0, x1, y1, r):
        def inside(x, y):
            if not (x0 <= x <= x1 and y0 <= y <= y1):
                return False
            cx = min(max(x, x0 + r), x1 - r)
            cy = min(max(y, y0 + r), y1 - r)
            return (x - cx) ** 2 + (y - cy) ** 2 <= r * r
        return inside

    fill(rounded(64 * s, 112 * s, 448 * s, 400 * s, 28 * s), BOARD)
    # Two rows of nine holes, a stone in each, and two kazans across the middle.
    for row_y in (150, 362):
        for i in range(9):
            cx, cy, r = (96 + i * 40) * s, row_y * s, 15 * s
            fill(lambda x, y, cx=cx, cy=cy, r=r: (x - cx) ** 2 + (y - cy) ** 2 <= r * r, HOLE)
            fill(lambda x, y, cx=cx, cy=cy: (x - cx) ** 2 + (y - cy) ** 2 <= (6 * s) ** 2, STONE)
    for x0, x1 in ((92, 244), (268, 420)):
        fill(rounded(x0 * s, 218 * s, x1 * s, 294 * s, 36 * s), HOLE)
    return px


def png(px):
    raw = b"".join(b"\0" + bytes(c for p in row for c in p) for row in px)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    h, w = len(px), len(px[0])
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for size in (192, 512):
        with open(os.path.join(here, f"icon-{size}.png"), "wb") as f:
            f.write(png(draw(size)))
