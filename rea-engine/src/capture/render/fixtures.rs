//! Byte streams that break terminal emulators, each with the screen size it
//! runs at. The oracle (`oracle.rs`) replays them in tmux;
//! `expected_screens.json` holds what tmux showed (rows, cursor and the
//! column of every character), so the test stays meaningful without tmux.
//! The `zero_width_*` and `vietnamese_*` fixtures are the cases of "widths as
//! tmux and xterm" (zero-width characters join the previous cell).

/// One step of a fixture.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step {
    /// Bytes written to the terminal (already through the line discipline:
    /// newlines are `\r\n`).
    Feed(&'static str),
    /// A resize to columns x rows.
    Resize(u16, u16),
}

/// A named stream and its initial size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fixture {
    pub(crate) name: &'static str,
    pub(crate) columns: u16,
    pub(crate) rows: u16,
    pub(crate) steps: &'static [Step],
}

use Step::{Feed, Resize};

/// The fixture table.
pub(crate) const FIXTURES: &[Fixture] = &[
    Fixture {
        name: "wrap_at_last_column",
        columns: 10,
        rows: 4,
        steps: &[Feed("0123456789\r\nabcdefghijKLM\r\n0123456789"), Feed("X")],
    },
    Fixture { name: "pending_wrap_then_cr", columns: 10, rows: 3, steps: &[Feed("0123456789\rAB\r\nnext")] },
    Fixture {
        name: "progress_rewritten_in_place",
        columns: 20,
        rows: 3,
        steps: &[Feed("progress  10%"), Feed("\rprogress  55%"), Feed("\rprogress 100%\r\ndone")],
    },
    Fixture {
        name: "alternate_screen_left",
        columns: 20,
        rows: 4,
        steps: &[Feed("shell line\r\n$ "), Feed("\x1b[?1049h\x1b[H\x1b[2JFULL SCREEN"), Feed("\x1b[?1049l")],
    },
    Fixture {
        name: "alternate_screen_active",
        columns: 20,
        rows: 4,
        steps: &[Feed("shell line\r\n$ \x1b[?1049h\x1b[H\x1b[2J\x1b[2;3Hmenu\x1b[4;1Hstatus")],
    },
    Fixture {
        name: "scroll_region",
        columns: 12,
        rows: 6,
        steps: &[Feed("HEADER\r\n\x1b[6;1HFOOTER\x1b[2;5r\x1b[2;1Hone\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\x1b[r")],
    },
    Fixture {
        name: "reverse_index_in_region",
        columns: 10,
        rows: 5,
        steps: &[Feed("a\r\nb\r\nc\r\nd\r\ne\x1b[2;4r\x1b[2;1H\x1bMnew\x1b[r")],
    },
    Fixture {
        name: "cursor_save_restore",
        columns: 20,
        rows: 4,
        steps: &[Feed("start\x1b7\x1b[3;10Hfar\x1b8-back\x1b[s\x1b[4;1Hbottom\x1b[u+csi")],
    },
    Fixture {
        name: "insert_delete_lines",
        columns: 10,
        rows: 6,
        steps: &[Feed("1\r\n2\r\n3\r\n4\r\n5\r\n6\x1b[2;1H\x1b[2L\x1b[5;1H\x1b[1M")],
    },
    Fixture {
        name: "insert_delete_erase_chars",
        columns: 16,
        rows: 3,
        steps: &[Feed("abcdefghij\x1b[1;3H\x1b[2@\x1b[2;1Hklmnopqrst\x1b[2;3H\x1b[3P\x1b[3;1Huvwxyz\x1b[3;2H\x1b[2X")],
    },
    Fixture {
        name: "erase_in_line_variants",
        columns: 12,
        rows: 3,
        steps: &[Feed(
            "aaaaaaaaaa\x1b[1;5H\x1b[K\x1b[2;1Hbbbbbbbbbb\x1b[2;5H\x1b[1K\x1b[3;1Hcccccccccc\x1b[3;5H\x1b[2Kz",
        )],
    },
    Fixture {
        name: "erase_in_display_variants",
        columns: 8,
        rows: 6,
        steps: &[Feed(
            "11111111\r\n22222222\r\n33333333\r\n44444444\r\n55555555\r\n666666\x1b[2;4H\x1b[1J\x1b[5;4H\x1b[0J",
        )],
    },
    Fixture {
        name: "clear_screen_and_home",
        columns: 10,
        rows: 3,
        steps: &[Feed("old\r\nold\r\nold"), Feed("\x1b[H\x1b[2Jnew\x1b[3;1Hend")],
    },
    Fixture {
        name: "wide_cjk",
        columns: 9,
        rows: 4,
        steps: &[Feed("日本語テキスト\r\nab漢字cd\x1b[3;1H1234567\u{4E2D}")],
    },
    Fixture { name: "emoji", columns: 12, rows: 3, steps: &[Feed("a\u{1F600}b\u{1F680}c\r\n\u{2705} ok")] },
    Fixture {
        name: "combining_marks",
        columns: 12,
        rows: 3,
        steps: &[Feed("cafe\u{301} na\u{303}o\r\nx\u{308}y\u{20DD}")],
    },
    Fixture {
        name: "sgr_colours_and_attributes",
        columns: 30,
        rows: 3,
        steps: &[Feed(
            "\x1b[1;31mred\x1b[0m \x1b[4;38;5;123mx256\x1b[0m \x1b[7;48;2;10;20;30mrgb\x1b[m\r\n\x1b[3;9mitalic-strike\x1b[0m end",
        )],
    },
    Fixture {
        name: "tabs_and_tab_stops",
        columns: 30,
        rows: 3,
        steps: &[Feed("a\tb\tc\r\n\x1b[3g\x1b[5G\x1bH\x1b[12G\x1bH\rx\ty\tz\r\n\tq")],
    },
    Fixture {
        name: "origin_mode",
        columns: 12,
        rows: 6,
        steps: &[Feed("\x1b[3;5r\x1b[?6h\x1b[1;1Htop-of-rgn\x1b[3;2Hin\x1b[?6l\x1b[1;1Hhome\x1b[r")],
    },
    Fixture {
        name: "line_drawing_charset",
        columns: 10,
        rows: 3,
        steps: &[Feed("\x1b(0lqqk\r\nx  x\r\nmqqj\x1b(B OK")],
    },
    Fixture {
        name: "resize_wider_taller_with_scrollback",
        columns: 10,
        rows: 4,
        steps: &[Feed("line1\r\nline2\r\nline3\r\nline4\r\nline5\r\nline6"), Resize(14, 6), Feed("\r\nafter")],
    },
    Fixture {
        name: "resize_narrower_shorter",
        columns: 12,
        rows: 5,
        steps: &[Feed("abcdefghij\r\nshort\r\n0123456789AB\r\nlast"), Resize(6, 3), Feed("!")],
    },
    Fixture {
        name: "resize_in_alternate_screen",
        columns: 16,
        rows: 4,
        steps: &[
            Feed("\x1b[?1049h\x1b[H\x1b[2Jtop\x1b[4;1Hbottom"),
            Resize(20, 6),
            Feed("\x1b[H\x1b[2Jtop\x1b[6;1Hbottom 20x6"),
        ],
    },
    Fixture {
        name: "curses_like_redraw",
        columns: 20,
        rows: 5,
        steps: &[
            Feed("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J\x1b[1;1H\x1b[7m Title       \x1b[m\x1b[3;2Hitem 1\x1b[4;2Hitem 2"),
            Feed("\x1b[3;1H>\x1b[4;1H \x1b[5;1H\x1b[K42%"),
            Feed("\x1b[3;1H \x1b[4;1H>\x1b[5;1H\x1b[K100%\x1b[?25h"),
        ],
    },
    Fixture { name: "zero_width_combining_acute", columns: 12, rows: 2, steps: &[Feed("e\u{301}\x1b[1;10HZ")] },
    Fixture {
        name: "zero_width_stacked_marks",
        columns: 14,
        rows: 3,
        steps: &[Feed(
            "a\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}\u{307}\u{308}\u{309}\u{30A}\u{30B}Z\r\no\u{323}\u{302}\u{301}k x\u{20DD}",
        )],
    },
    Fixture {
        name: "zero_width_emoji_zwj",
        columns: 14,
        rows: 5,
        steps: &[Feed(
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}Z\r\n\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}Z\r\n\
             \u{1F469}\u{200D}aZ a\u{200D}\u{65E5}Z\r\n\u{1F44D}\u{1F3FD}Z \u{1F1EB}\u{1F1F7}Z\r\n\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}Z",
        )],
    },
    Fixture {
        name: "zero_width_variation_selectors",
        columns: 12,
        rows: 3,
        steps: &[Feed(
            "\u{2764}\u{FE0F}Z \u{2764}\u{FE0E}Z\r\n\u{1F600}\u{FE0E}Z \u{263A}\u{FE0F}Z\r\n\u{8FBB}\u{E0100}Z",
        )],
    },
    Fixture {
        name: "zero_width_space_and_format",
        columns: 12,
        rows: 3,
        steps: &[Feed("a\u{200B}b\u{200B}c|\r\n\u{2060}x\u{FEFF}y\u{200C}z\r\nsoft\u{AD}hyphen")],
    },
    Fixture {
        name: "zero_width_at_column_zero",
        columns: 8,
        rows: 4,
        steps: &[Feed("\u{301}ab\r\n\u{200D}\u{1F469}Z\r\n\u{200B}q\r\n"), Feed("\u{302}r")],
    },
    Fixture {
        name: "zero_width_after_wide",
        columns: 10,
        rows: 3,
        steps: &[Feed("\u{65E5}\u{301}Z\u{1F600}\u{302}!\r\n\u{65E5}\x1b[2;2H\u{302}\x1b[3;1Hend")],
    },
    Fixture {
        name: "zero_width_pending_wrap",
        columns: 5,
        rows: 4,
        steps: &[Feed("0123e"), Feed("\u{301}X\r\n012\u{65E5}\u{301}Y\r\n01234"), Feed("\u{300}\r\u{301}")],
    },
    Fixture {
        name: "zero_width_after_cursor_move",
        columns: 12,
        rows: 3,
        steps: &[Feed("x\x1b[1;5H\u{301}Z\r\n\x1b[31mab\x1b[32m\u{301}\x1b[mc\r\n\x1b[4hmn\x1b[3;2H\u{301}o\x1b[4l")],
    },
    Fixture {
        name: "vietnamese_wrapping_at_margin",
        columns: 12,
        rows: 4,
        steps: &[Feed(
            "Tie\u{302}\u{301}ng Vie\u{302}\u{323}t co\u{301} nhie\u{302}\u{300}u da\u{302}\u{301}u thanh, \u{1B0}\u{300} chu\u{31B}\u{301}",
        )],
    },
    Fixture {
        name: "vietnamese_redraw_and_reflow",
        columns: 14,
        rows: 4,
        steps: &[
            Feed("\x1b[H\x1b[2JTie\u{302}\u{301}ng Vie\u{302}\u{323}t\x1b[2;1Hxin cha\u{300}o\x1b[1;13H|"),
            Feed("\x1b[4;1Hmo\u{323}\u{302}t hai ba bo\u{302}\u{301}n na\u{306}m 5"),
            Resize(9, 5),
            Feed("!"),
        ],
    },
    // Pen rules (DEC STD 070, as xterm and tmux): erased, inserted,
    // deleted-into and scrolled-in cells keep only the pen's background;
    // printed cells (REP included) keep all of it; concealed text (SGR 8)
    // is not shown.
    Fixture {
        name: "pen_erase_in_line",
        columns: 12,
        rows: 5,
        steps: &[Feed(
            "\x1b[7mrev\x1b[K\x1b[m\r\n\x1b[1;4;41mab\x1b[K\x1b[m\r\n0123456789\x1b[6G\x1b[3;44m\x1b[1K\x1b[m\r\n\
             0123456789\x1b[4G\x1b[9;7;42m\x1b[2K\x1b[m\r\nabcdefgh\x1b[3G\x1b[4;45m\x1b[3X\x1b[m",
        )],
    },
    Fixture {
        name: "pen_erase_in_display",
        columns: 10,
        rows: 6,
        steps: &[
            Feed("row0\r\nrow1\r\nrow2\r\nrow3\r\nrow4\r\nrow5"),
            Feed("\x1b[3;3H\x1b[4;7;46m\x1b[J\x1b[2;2H\x1b[1;31;43m\x1b[1J\x1b[m"),
        ],
    },
    Fixture {
        name: "pen_clear_screen_reversed",
        columns: 10,
        rows: 3,
        steps: &[Feed("one\r\ntwo\x1b[7;4m\x1b[H\x1b[2Jx\x1b[m")],
    },
    Fixture {
        name: "pen_scrolled_in_lines",
        columns: 10,
        rows: 4,
        steps: &[Feed(
            "l1\r\nl2\r\nl3\r\n\x1b[4mheading\r\nbelow\x1b[m\r\n\x1b[7;44mbar\r\n\x1b[m0123456789\x1b[1;31;42mwrap\x1b[m",
        )],
    },
    Fixture {
        name: "pen_insert_delete_chars",
        columns: 12,
        rows: 3,
        steps: &[Feed(
            "abcdefghij\x1b[3G\x1b[1;7;41m\x1b[2@\x1b[m\r\nabcdefghij\x1b[3G\x1b[4;42m\x1b[3P\x1b[m\r\n\
             \x1b[4hxyz\x1b[1G\x1b[7mI\x1b[4l\x1b[m",
        )],
    },
    Fixture {
        name: "pen_insert_delete_lines",
        columns: 8,
        rows: 6,
        steps: &[Feed("a\r\nb\r\nc\r\nd\r\ne\r\nf\x1b[2;1H\x1b[4;7;43m\x1b[2L\x1b[5;1H\x1b[1;45m\x1b[1M\x1b[m")],
    },
    Fixture {
        name: "pen_scroll_region",
        columns: 8,
        rows: 7,
        steps: &[Feed(
            "top\r\n1\r\n2\r\n3\r\n4\r\n5\r\nbottom\x1b[2;6r\x1b[6;1H\x1b[4;41m\n\x1b[7;42m\x1b[S\x1b[1;43m\x1b[2T\
             \x1b[2;1H\x1b[9;44m\x1bM\x1b[r\x1b[m",
        )],
    },
    Fixture {
        name: "pen_repeat_character",
        columns: 12,
        rows: 4,
        steps: &[Feed(
            "\x1b[31ma\x1b[1;44m\x1b[3bz\x1b[m\r\n\x1b[4m\u{65E5}\x1b[2b\x1b[m\r\n\x1b[1;44mq\x1b[3b\x1b[2b\x1b[m\x1b[3;10Hw\x1b[9b",
        )],
    },
    Fixture {
        name: "pen_conceal",
        columns: 16,
        rows: 3,
        steps: &[Feed("a\x1b[8mSECRET\x1b[28mb\r\n\x1b[8;4;41mhid\x1b[mden\r\n\x1b[8mall\x1b[0m")],
    },
    Fixture {
        name: "pen_wide_character_overwritten",
        columns: 10,
        rows: 2,
        steps: &[Feed("\u{65E5}\u{672C}\u{8A9E}\x1b[1;5H\x1b[42;4my\x1b[1;1H\x1b[41m\u{4E00}\x1b[m")],
    },
    Fixture {
        name: "pen_alternate_screen",
        columns: 10,
        rows: 3,
        steps: &[Feed("main\x1b[7;41m\x1b[?1049hx\x1b[m\r\n")],
    },
];
