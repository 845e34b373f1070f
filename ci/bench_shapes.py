"""Redraw shapes for ci/bench_screens.py: each writes `size` bytes of one
way real TUIs redraw an 80x24 screen and returns the rows the last redraw
leaves (trailing spaces removed), so the capture's final screen is checked.
"""

import os
import subprocess
import tempfile

COLUMNS, ROWS = 80, 24


def text_of(n, r, width=COLUMNS):
    return (f"frame {n:06d} row {r:02d} " + "abcdefghij" * 8)[:width]


def _fill(path, size, step):
    """Writes step(n) for n = 0, 1, ... until `size` bytes; returns the last rows."""
    n, written, rows = 0, 0, None
    with open(path, "w") as f:
        while written < size:
            chunk, rows = step(n)
            f.write(chunk)
            written += len(chunk.encode())
            n += 1
    return [r.rstrip(" ") for r in rows]


def full_clear(path, size):
    """CUP + ED 2, then each row addressed (the repo's first benchmark)."""
    def step(n):
        rows = [text_of(n, r) for r in range(ROWS)]
        parts = ["\x1b[H\x1b[2J"] + [f"\x1b[{r + 1};1H\x1b[3{r % 8};1m{t}\x1b[0m" for r, t in enumerate(rows)]
        return "".join(parts), rows
    return _fill(path, size, step)


def home_overwrite_el(path, size):
    """htop/vim: cursor home, each row overwritten (shorter every other
    frame), ESC[K, CR LF between rows; no clear."""
    def step(n):
        width = 60 + (n % 3) * 10
        rows = [text_of(n, r, width) for r in range(ROWS)]
        parts = ["\x1b[H"]
        for r, t in enumerate(rows):
            parts.append(f"\x1b[3{r % 8}m{t}\x1b[m\x1b[K" + ("\r\n" if r < ROWS - 1 else ""))
        return "".join(parts), rows
    return _fill(path, size, step)


def scroll_region(path, size):
    """less: a scroll region above a status line, new lines scrolled in at
    its bottom, and lines inserted (IL) and deleted (DL) inside it."""
    screen = [""] * ROWS
    state = {"screen": screen}

    def step(n):
        s = state["screen"]
        parts = [f"\x1b[1;{ROWS - 1}r"]
        for k in range(8):
            line = text_of(n * 8 + k, k, 70)
            parts.append(f"\x1b[{ROWS - 1};1H\n{line}\x1b[K")
            s[:ROWS - 1] = s[1:ROWS - 1] + [line]
        parts.append("\x1b[3;1H\x1b[2L")
        s[:ROWS - 1] = s[:2] + ["", ""] + s[2:ROWS - 3]
        parts.append("\x1b[10;1H\x1b[1M")
        s[:ROWS - 1] = s[:9] + s[10:ROWS - 1] + [""]
        status = f"\x1b[7m lines {n:08d} (END)\x1b[m"
        parts.append(f"\x1b[r\x1b[{ROWS};1H{status}\x1b[K")
        s[ROWS - 1] = f" lines {n:08d} (END)"
        return "".join(parts), list(s)
    return _fill(path, size, step)


def colours(path, size):
    """256-colour and true-colour SGR every few cells, rows addressed."""
    def step(n):
        rows, parts = [], []
        for r in range(ROWS):
            t = text_of(n, r)
            cells = []
            for i in range(0, COLUMNS, 4):
                c = (n + r + i) % 256
                sgr = f"38;5;{c};48;5;{255 - c}" if i % 8 == 0 else f"38;2;{c};{(c * 3) % 256};{(c * 7) % 256}"
                cells.append(f"\x1b[{sgr}m{t[i:i + 4]}")
            parts.append(f"\x1b[{r + 1};1H" + "".join(cells) + "\x1b[m")
            rows.append(t)
        return "".join(parts), rows
    return _fill(path, size, step)


def wide(path, size):
    """Wide (CJK) characters, rows addressed and overwritten."""
    han = "日本語の文字列表示幅広漢字全角テキスト"
    def step(n):
        rows = []
        for r in range(ROWS):
            k = (n + r) % len(han)
            rows.append(f"{n % 100:02d}" + "".join(han[(k + i) % len(han)] for i in range(39)))
        parts = [f"\x1b[{r + 1};1H\x1b[3{r % 8}m{t}" for r, t in enumerate(rows)] + ["\x1b[m"]
        return "".join(parts), rows
    return _fill(path, size, step)


def recorded(path, size, source):
    """A recorded session (`ci/streams/*.bin`) concatenated to `size` bytes;
    the final screen is what tmux shows after one copy."""
    data = open(source, "rb").read()
    with open(path, "wb") as f:
        for _ in range(max(1, size // len(data))):
            f.write(data)
    return tmux_final(source)


def tmux_final(source):
    """The rows tmux 3.3a shows after `source` (raw, 80x24)."""
    sock = f"rea-bench-{os.getpid()}"
    tmux = ["tmux", "-L", sock, "-f", "/dev/null"]
    with tempfile.TemporaryDirectory() as d:
        # The cursor-position answer proves tmux parsed every byte before it.
        cmd = (f"stty raw -echo -opost; cat '{source}'; printf '\\033[6n'; IFS= read -r -d R _; "
               f"tmux -L {sock} wait-for -S fed; sleep 600")
        subprocess.run(tmux + ["new-session", "-d", "-x", str(COLUMNS), "-y", str(ROWS), cmd], check=True)
        try:
            subprocess.run(tmux + ["set-option", "-g", "status", "off"], check=True)
            subprocess.run(tmux + ["wait-for", "fed"], check=True, timeout=120)
            out = subprocess.run(tmux + ["capture-pane", "-p"], check=True, stdout=subprocess.PIPE, text=True).stdout
        finally:
            subprocess.run(tmux + ["kill-server"], stderr=subprocess.DEVNULL)
    rows = [r.rstrip(" ") for r in out.split("\n")[:ROWS]]
    return rows + [""] * (ROWS - len(rows))


SHAPES = [
    ("full clear (CUP + ED 2)", full_clear),
    ("home + overwrite + ESC[K (htop, vim)", home_overwrite_el),
    ("scroll region + IL/DL (less)", scroll_region),
    ("256/true-colour SGR", colours),
    ("wide characters", wide),
]
