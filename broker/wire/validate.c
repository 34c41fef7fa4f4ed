/*
 * validate: the naming, path, signature and UTF-8 rules of the D-Bus
 * specification, as pure functions over (pointer, length).
 *
 * Everything here sees untrusted bytes straight from clients, so each
 * function accepts any input, never reads past s + n, never allocates,
 * and answers "invalid" for anything the specification does not allow
 * (an embedded NUL included). The signature rules match libdbus'
 * _dbus_validate_signature_with_reason() except that array nesting is
 * counted as real nesting ("a(a(ai))" is three deep), where libdbus only
 * counts consecutive 'a's; the specification says nesting.
 */
#include <stdint.h>
#include <string.h>

#include "validate.h"

/* Character classes of the naming rules, one table lookup per byte. */
enum {
        CHAR_ALPHA = 1 << 0,    /* A-Z a-z _ */
        CHAR_DIGIT = 1 << 1,
        CHAR_DASH = 1 << 2,
};

static const uint8_t char_class[256] = {
        ['A' ... 'Z'] = CHAR_ALPHA,
        ['a' ... 'z'] = CHAR_ALPHA,
        ['_'] = CHAR_ALPHA,
        ['0' ... '9'] = CHAR_DIGIT,
        ['-'] = CHAR_DASH,
};

static bool is_digit(char c) {
        return char_class[(uint8_t) c] & CHAR_DIGIT;
}

/*
 * Dot-separated elements of [A-Za-z0-9_] (plus '-' if allow_dash), at
 * least two, none empty, none starting with a digit unless
 * allow_leading_digit. The inner loop runs over an element's characters
 * with one table lookup each and looks at state only where an element
 * starts or ends: names are validated in every header (destination,
 * interface, sender), and this is half the instructions of a loop that
 * carries the state through every character.
 */
static bool validate_dotted(const char *s, size_t n, bool allow_dash, bool allow_leading_digit) {
        uint8_t allowed = CHAR_ALPHA | CHAR_DIGIT | (allow_dash ? CHAR_DASH : 0);
        uint8_t leading = allow_leading_digit ? allowed : (allowed & ~CHAR_DIGIT);
        size_t elements = 0, i = 0;

        if (n == 0 || n > VALIDATE_NAME_MAX)
                return false;
        for (;;) {
                /* An element: a leading character (so never empty), then any allowed ones. */
                if (i >= n || !(char_class[(uint8_t) s[i]] & leading))
                        return false;
                i++;
                while (i < n && (char_class[(uint8_t) s[i]] & allowed))
                        i++;
                elements++;
                if (i == n)
                        return elements >= 2;
                if (s[i] != '.')
                        return false;   /* a character no element may hold, a NUL included */
                i++;
        }
}

bool validate_unique_name(const char *s, size_t n) {
        if (n < 1 || n > VALIDATE_NAME_MAX || s[0] != ':')
                return false;
        return validate_dotted(s + 1, n - 1, true, true);
}

bool validate_well_known_name(const char *s, size_t n) {
        return validate_dotted(s, n, true, false);
}

bool validate_bus_name(const char *s, size_t n) {
        if (n > 0 && s[0] == ':')
                return validate_unique_name(s, n);
        return validate_well_known_name(s, n);
}

bool validate_interface_name(const char *s, size_t n) {
        return validate_dotted(s, n, false, false);
}

bool validate_error_name(const char *s, size_t n) {
        return validate_interface_name(s, n);
}

/* One table lookup per byte: member names are in every call's header. */
bool validate_member_name(const char *s, size_t n) {
        if (n == 0 || n > VALIDATE_NAME_MAX || is_digit(s[0]))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!(char_class[(uint8_t) s[i]] & (CHAR_ALPHA | CHAR_DIGIT)))
                        return false;
        return true;
}

/* As validate_member_name(), a slash is looked at only where the table says "no". */
bool validate_object_path(const char *s, size_t n) {
        if (n == 0 || s[0] != '/')
                return false;
        if (n == 1)
                return true;
        if (s[n - 1] == '/')
                return false;
        for (size_t i = 1; i < n; i++)
                if (!(char_class[(uint8_t) s[i]] & (CHAR_ALPHA | CHAR_DIGIT)) && (s[i] != '/' || s[i - 1] == '/'))
                        return false;
        return true;
}

bool validate_is_basic_type(char c) {
        switch (c) {
        case 'y': case 'b': case 'n': case 'q': case 'i': case 'u': case 'x':
        case 't': case 'd': case 'h': case 's': case 'o': case 'g':
                return true;
        default:
                return false;
        }
}

static bool walk_complete_type(const char *s, size_t n, size_t *pos,
                               unsigned arrays, unsigned structs, unsigned dicts);

/*
 * A dict entry at s[*pos] == '{': a basic key and exactly one value
 * type. Depths include the enclosing array.
 */
static bool walk_dict_entry(const char *s, size_t n, size_t *pos,
                            unsigned arrays, unsigned structs, unsigned dicts) {
        (*pos)++;
        if (dicts + 1 > VALIDATE_DEPTH_MAX || *pos >= n || !validate_is_basic_type(s[*pos]))
                return false;
        (*pos)++;
        if (!walk_complete_type(s, n, pos, arrays, structs, dicts + 1))
                return false;
        if (*pos >= n || s[*pos] != '}')
                return false;
        (*pos)++;
        return true;
}

/*
 * Walks one complete type at s[*pos], checking nesting. Depths are the
 * numbers of enclosing arrays, structs and dict entries.
 */
static bool walk_complete_type(const char *s, size_t n, size_t *pos,
                               unsigned arrays, unsigned structs, unsigned dicts) {
        char c;

        if (*pos >= n)
                return false;
        c = s[(*pos)++];
        if (validate_is_basic_type(c) || c == 'v')
                return true;

        if (c == 'a') {
                if (arrays + 1 > VALIDATE_DEPTH_MAX || *pos >= n)
                        return false;
                if (s[*pos] == '{')
                        return walk_dict_entry(s, n, pos, arrays + 1, structs, dicts);
                return walk_complete_type(s, n, pos, arrays + 1, structs, dicts);
        }

        if (c == '(') {
                if (structs + 1 > VALIDATE_DEPTH_MAX || *pos >= n || s[*pos] == ')')
                        return false;
                while (*pos < n && s[*pos] != ')')
                        if (!walk_complete_type(s, n, pos, arrays, structs + 1, dicts))
                                return false;
                if (*pos >= n)
                        return false;
                (*pos)++;
                return true;
        }

        return false;   /* unknown code, stray ')' '}' '{', NUL */
}

bool validate_signature(const char *s, size_t n) {
        size_t pos = 0;

        if (n > VALIDATE_SIGNATURE_MAX)
                return false;
        while (pos < n)
                if (!walk_complete_type(s, n, &pos, 0, 0, 0))
                        return false;
        return true;
}

bool validate_single_complete_type(const char *s, size_t n) {
        size_t pos = 0;

        if (n > VALIDATE_SIGNATURE_MAX)
                return false;
        return walk_complete_type(s, n, &pos, 0, 0, 0) && pos == n;
}

size_t validate_complete_type_length(const char *s, size_t n) {
        size_t pos = 0;
        bool ok;

        /* An array's element may be a dict entry, which is no type on its own. */
        if (n > 0 && s[0] == '{')
                ok = walk_dict_entry(s, n, &pos, 1, 0, 0);
        else
                ok = walk_complete_type(s, n, &pos, 0, 0, 0);
        return ok ? pos : 0;
}

/* Length of the UTF-8 sequence starting with lead byte c, 0 if invalid. */
static size_t utf8_sequence_length(uint8_t c) {
        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf)
                return 2;
        if (c >= 0xe0 && c <= 0xef)
                return 3;
        if (c >= 0xf0 && c <= 0xf4)
                return 4;
        return 0;       /* continuation byte, overlong 0xc0/0xc1, > U+10FFFF */
}

bool validate_utf8(const char *s, size_t n) {
        const uint8_t *p = (const uint8_t *) s;
        size_t i = 0;

        while (i < n) {
                size_t len;
                uint32_t cp;

                /* Fast path: eight ASCII bytes, none of them NUL. */
                if (n - i >= 8) {
                        uint64_t w;

                        memcpy(&w, p + i, sizeof(w));
                        if (!(w & UINT64_C(0x8080808080808080)) &&
                            !((w - UINT64_C(0x0101010101010101)) & ~w & UINT64_C(0x8080808080808080))) {
                                i += 8;
                                continue;
                        }
                }
                if (p[i] < 0x80) {
                        if (p[i] == 0)
                                return false;
                        i++;
                        continue;
                }
                len = utf8_sequence_length(p[i]);
                if (len == 0 || len > n - i)
                        return false;
                cp = p[i] & (0x7f >> len);
                for (size_t k = 1; k < len; k++) {
                        if ((p[i + k] & 0xc0) != 0x80)
                                return false;
                        cp = (cp << 6) | (p[i + k] & 0x3f);
                }
                if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff)
                        return false;   /* overlong or out of range */
                if (cp >= 0xd800 && cp <= 0xdfff)
                        return false;   /* surrogate */
                i += len;
        }
        return true;
}
