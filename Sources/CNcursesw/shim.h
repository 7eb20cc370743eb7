// ncursesw for Swift. SwiftPM drops pkg-config's -D_XOPEN_SOURCE, which hides the
// wide-character API; NCURSES_WIDECHAR brings it back. Function-like macros are not
// imported by Swift, so the few we need are wrapped here.
#ifndef BLEEXPLR_CNCURSESW_SHIM_H
#define BLEEXPLR_CNCURSESW_SHIM_H
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <wchar.h>
#include <curses.h>

static inline attr_t bx_attr_bold(void) { return A_BOLD; }
static inline attr_t bx_attr_dim(void) { return A_DIM; }
static inline attr_t bx_attr_reverse(void) { return A_REVERSE; }
static inline attr_t bx_attr_underline(void) { return A_UNDERLINE; }
static inline attr_t bx_color_pair(short n) { return COLOR_PAIR(n); }
static inline int bx_lines(void) { return LINES; }
static inline int bx_cols(void) { return COLS; }
/// The terminal can move the cursor anywhere (terminfo `cup`): `dumb` and other
/// line-only terminals cannot show a full screen.
static inline int bx_can_address_cursor(void) {
    const char *cup = tigetstr("cup");
    return cup != NULL && cup != (char *)-1;
}

/// Draws one grapheme (UTF-8, already sanitized) at y,x with attributes and color pair.
static inline int bx_put(int y, int x, const wchar_t *wch, attr_t attrs, short pair) {
    cchar_t c;
    if (setcchar(&c, wch, attrs, pair, NULL) != OK) return ERR;
    return mvadd_wch(y, x, &c);
}
#endif
