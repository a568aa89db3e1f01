"""Pictures of a table: the ``rgb_array`` render mode's canvas, drawn with Pillow (imported lazily).

Pillow is an optional extra (``pip install "fiveplay-env[render]"``, or ``pip install pillow``): only
``render_mode="rgb_array"`` needs it, and asking for that mode without it is an ``ImportError`` that says
so. Each game draws its own table in its ``render.py`` (``table_image(state, viewer) -> uint8[H, W, 3]``)
on a ``Canvas`` from here, with the web app's colours (``experiments/web/static/style.css`` and each
game's script there: a test checks that they agree), so a picture, a video frame and the web page show
the same cards.

Pictures are ``WIDTH`` x ``HEIGHT`` (640 x 480: both multiples of 16, what video encoders want).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

WIDTH, HEIGHT = 640, 480
"""The size of every table picture (pixels)."""
BG = "#f4f1e8"       # the page (style.css --bg)
PANEL = "#fffdf7"    # a panel (--panel)
INK = "#1d1d1d"      # text (--ink)
MUTED = "#4a4a4a"    # secondary text, card outlines (--muted)
ACCENT = "#15604e"   # the acting player (--accent)
ACCENT_BG = "#e3f1ec"
WARN = "#a3211a"     # penalties, lives lost (--warn)
LINE = "#cfc6b2"     # panel borders (--line)
HEADER = "#1f3d36"   # the title bar (--header)
EXTRA = "render"
"""The optional extra that brings Pillow."""


def pillow() -> Any:
    """``(Image, ImageDraw, ImageFont)`` of Pillow; ``ImportError`` naming the extra when it is missing."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise ImportError(f"render_mode='rgb_array' draws the table with Pillow, which is not installed: "
                          f'pip install "fiveplay-env[{EXTRA}]" (or pip install pillow)') from None
    return Image, ImageDraw, ImageFont


@lru_cache(maxsize=16)
def font(size: int) -> Any:
    """Pillow's own font at ``size`` pixels (its scalable default where Pillow has FreeType, else its
    bitmap one): no font file of the system is looked for, so pictures are the same everywhere."""
    _, _, ImageFont = pillow()
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, AttributeError, OSError):  # (Pillow < 10.1, or no FreeType)
        return ImageFont.load_default()


class Canvas:
    """A ``WIDTH`` x ``HEIGHT`` RGB picture with the few drawing calls the tables need."""

    def __init__(self, width: int = WIDTH, height: int = HEIGHT, background: str = BG) -> None:
        Image, ImageDraw, _ = pillow()
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)
        self.width, self.height = width, height

    def rect(self, box: tuple[float, float, float, float], fill: str | None = None, outline: str | None = None,
             radius: int = 0, width: int = 1) -> None:
        self.draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)

    def circle(self, cx: float, cy: float, r: float, fill: str) -> None:
        self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)

    def text(self, xy: tuple[float, float], text: str, size: int = 14, fill: str = INK, anchor: str = "la") -> None:
        """``text`` at ``xy`` (``anchor``: Pillow's, e.g. ``"mm"`` centred, ``"la"`` left and top)."""
        f = font(size)
        try:
            self.draw.text(xy, text, fill=fill, font=f, anchor=anchor)
        except ValueError:  # (a bitmap font takes no anchor)
            self.draw.text(xy, text, fill=fill, font=f)

    def title(self, text: str) -> None:
        """The title bar across the top (28 pixels)."""
        self.rect((0, 0, self.width, 28), fill=HEADER)
        self.text((10, 14), text, 15, "#ffffff", "lm")

    def array(self) -> np.ndarray:
        """The picture as ``uint8[H, W, 3]`` (a new array)."""
        return np.array(self.image, dtype=np.uint8)


def message_image(text: str) -> np.ndarray:
    """A picture holding one line of text (the table before ``reset``)."""
    cv = Canvas()
    cv.title(text)
    return cv.array()
