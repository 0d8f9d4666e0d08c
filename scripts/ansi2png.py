#!/usr/bin/python3
"""Renders a `tmux capture-pane -e -p` dump (text with SGR colour escapes)
into a PNG, one monospace cell per character, for screenshots/.

Usage: ansi2png.py CAPTURE.txt OUT.png COLS ROWS
Needs Debian's python3-pil and fonts-dejavu-core (DejaVu Sans Mono has the
block glyphs the plots use; braille cells are drawn as dots)."""
import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
SIZE = 15
BG, FG = (24, 24, 24), (212, 212, 212)
BASE = [(0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16),
        (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229)]
BRIGHT = [(102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67),
          (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255)]


def xterm256(n):
    if n < 8:
        return BASE[n]
    if n < 16:
        return BRIGHT[n - 8]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[n // 6 % 6], steps[n % 6])
    v = 8 + 10 * (n - 232)
    return (v, v, v)


# Braille dots drawn as squares: DejaVu Sans Mono has no braille glyphs.
DOTS = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (0, 3), (1, 3)]


def braille(draw, c, px, py, cw, ch, fg):
    bits = ord(c) - 0x2800
    d = max(2, cw // 4)
    for i, (dx, dy) in enumerate(DOTS):
        if bits & (1 << i):
            x = px + (cw // 4) + dx * (cw // 2) - d // 2
            y = py + (ch // 8) + dy * (ch // 4) - d // 2 + 1
            draw.rectangle([x, y, x + d - 1, y + d - 1], fill=fg)


def sgr(params, st):
    it = iter(params or [0])
    for p in it:
        if p == 0:
            st.update(fg=None, bg=None, bold=False, rev=False)
        elif p == 1:
            st["bold"] = True
        elif p == 22:
            st["bold"] = False
        elif p == 7:
            st["rev"] = True
        elif p == 27:
            st["rev"] = False
        elif 30 <= p <= 37:
            st["fg"] = BASE[p - 30]
        elif 90 <= p <= 97:
            st["fg"] = BRIGHT[p - 90]
        elif 40 <= p <= 47:
            st["bg"] = BASE[p - 40]
        elif 100 <= p <= 107:
            st["bg"] = BRIGHT[p - 100]
        elif p == 39:
            st["fg"] = None
        elif p == 49:
            st["bg"] = None
        elif p in (38, 48):
            kind = next(it, None)
            if kind == 5:
                col = xterm256(next(it, 0))
            elif kind == 2:
                col = (next(it, 0), next(it, 0), next(it, 0))
            else:
                continue
            st["fg" if p == 38 else "bg"] = col


def main():
    src, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    font, bold = ImageFont.truetype(FONT, SIZE), ImageFont.truetype(BOLD, SIZE)
    cw = round(font.getlength("M"))
    ch = SIZE + 4
    img = Image.new("RGB", (cw * cols + 16, ch * rows + 16), BG)
    draw = ImageDraw.Draw(img)
    st = dict(fg=None, bg=None, bold=False, rev=False)
    text = open(src, encoding="utf-8", errors="replace").read()
    for y, line in enumerate(text.split("\n")[:rows]):
        x = 0
        for tok in re.split(r"(\x1b\[[0-9;]*m)", line):
            if tok.startswith("\x1b["):
                sgr([int(p) for p in tok[2:-1].split(";") if p != ""], st)
                continue
            for c in tok:
                if unicodedata.combining(c):
                    continue
                fg, bg = st["fg"] or FG, st["bg"] or BG
                if st["rev"]:
                    fg, bg = bg, fg
                px, py = 8 + x * cw, 8 + y * ch
                if bg != BG:
                    draw.rectangle([px, py, px + cw - 1, py + ch - 1], fill=bg)
                if 0x2800 < ord(c) <= 0x28FF:
                    braille(draw, c, px, py, cw, ch, fg)
                elif c != " " and c != "\u2800":
                    draw.text((px, py + 1), c, font=bold if st["bold"] else font, fill=fg)
                x += 2 if unicodedata.east_asian_width(c) in "WF" else 1
    img.save(out)


if __name__ == "__main__":
    main()
