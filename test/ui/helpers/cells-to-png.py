#!/usr/bin/env python3
"""Draw a terminal screen dump (cells with colours and attributes, from screenshot.ts) as a PNG."""
import json
import sys

from PIL import Image, ImageDraw, ImageFont

FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf'
BOLD = '/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf'
SIZE = 15
BG = (24, 26, 33)
FG = (214, 219, 228)
# xterm's 16 colours, a dark-theme take.
BASE16 = [
    (40, 42, 54), (235, 94, 94), (118, 204, 120), (233, 196, 106), (97, 153, 235), (199, 128, 232), (86, 196, 214), (200, 204, 212),
    (98, 104, 120), (255, 120, 120), (150, 230, 150), (250, 218, 130), (130, 178, 255), (220, 160, 250), (120, 220, 236), (240, 242, 246),
]


def palette(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


def rgb(c, default):
    if c is None:
        return default
    if isinstance(c, str):
        return tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))
    return palette(c)


def main(src, dst):
    screen = json.load(open(src))
    font = ImageFont.truetype(FONT, SIZE)
    bold = ImageFont.truetype(BOLD, SIZE)
    asc, desc = font.getmetrics()
    cw = round(font.getlength('M'))
    ch = asc + desc + 3
    pad = 14
    img = Image.new('RGB', (screen['cols'] * cw + 2 * pad, screen['rows'] * ch + 2 * pad), BG)
    d = ImageDraw.Draw(img)
    for y, row in enumerate(screen['cells']):
        x = 0
        for cell in row:
            fg = rgb(cell['fg'], FG)
            bg = rgb(cell['bg'], BG)
            if cell.get('v'):
                fg, bg = bg, fg
            if cell.get('d'):
                fg = tuple((a + b) // 2 for a, b in zip(fg, bg))
            px, py = pad + x * cw, pad + y * ch
            w = cell['w'] * cw
            if bg != BG:
                d.rectangle([px, py, px + w - 1, py + ch - 1], fill=bg)
            c = cell['c']
            if c.strip():
                if c in '─│╭╮╰╯':
                    draw_box(d, c, px, py, cw, ch, fg)
                else:
                    d.text((px, py + 1), c, font=bold if cell.get('b') else font, fill=fg)
            x += cell['w']
    img.save(dst)


def draw_box(d, c, x, y, w, h, fg):
    """Box-drawing characters drawn as lines, so borders join across cells."""
    cx, cy = x + w // 2, y + h // 2
    r = max(3, w // 2)
    if c == '─':
        d.line([x, cy, x + w, cy], fill=fg, width=1)
    elif c == '│':
        d.line([cx, y, cx, y + h], fill=fg, width=1)
    elif c == '╭':
        d.line([cx, cy + r, cx, y + h], fill=fg)
        d.line([cx + r, cy, x + w, cy], fill=fg)
        d.arc([cx, cy, cx + 2 * r, cy + 2 * r], 180, 270, fill=fg)
    elif c == '╮':
        d.line([x, cy, cx - r, cy], fill=fg)
        d.line([cx, cy + r, cx, y + h], fill=fg)
        d.arc([cx - 2 * r, cy, cx, cy + 2 * r], 270, 360, fill=fg)
    elif c == '╰':
        d.line([cx, y, cx, cy - r], fill=fg)
        d.line([cx + r, cy, x + w, cy], fill=fg)
        d.arc([cx, cy - 2 * r, cx + 2 * r, cy], 90, 180, fill=fg)
    elif c == '╯':
        d.line([x, cy, cx - r, cy], fill=fg)
        d.line([cx, y, cx, cy - r], fill=fg)
        d.arc([cx - 2 * r, cy - 2 * r, cx, cy], 0, 90, fill=fg)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
