/* The meta prescan's loop, compiled: the branches of the HTML Standard's "prescan a byte stream to
 * determine its encoding" that only move the position.
 *
 * Implements, of https://html.spec.whatwg.org/multipage/parsing.html#prescan-a-byte-stream-to-determine-its-encoding,
 * the branches for other bytes, comments, tags with "get an attribute" and bogus markup, and finds
 * where a <meta> tag ends.  prescan/compiled.py runs the <meta> branch itself on that one tag with
 * prescan/standard.py's steps; standard.py is the algorithm as the standard reads it, the reference
 * this module is tested equal to (tests/decoding/test_prescan_loop.py) and what runs where this
 * module was not built.
 *
 * next_meta(buf, position, length) -> int
 *     Runs the loop over buf[position:length] and returns the position of the "<meta" (followed by
 *     whitespace or "/") where it stops, or -1 when it stops anywhere else: at the end of the
 *     bytes or at a construct that runs out of bytes (the standard's abort).
 * tag_end(buf, position, length) -> int
 *     From the byte after a tag's name, "get an attribute" until there is none: the position after
 *     the tag's ">", or -1 when the bytes run out first.
 * find_meta(buf, start, end) -> int
 *     The first "<meta", ASCII case-insensitively, in buf[start:end], or -1.
 */
#include "native.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define NOT_FOUND (-1)

/* "get an attribute"'s whitespace: 0x09 0x0A 0x0C 0x0D 0x20. */
static int is_space(unsigned char c) { return c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x20; }

static int is_ascii_letter(unsigned char c) { return (unsigned char)((c | 0x20) - 'a') < 26; }

/* Whether b[0..n) is the lowercase ASCII *word*, in any case (OR 0x20 lowers letters only). */
static int is_word(const unsigned char *b, const char *word, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!is_ascii_letter(b[i]) || (b[i] | 0x20) != (unsigned char)word[i])
            return 0;
    }
    return 1;
}

/* *word* at p, then one of *enders* (a byte that must exist within end). */
static int word_then(const unsigned char *b, Py_ssize_t p, Py_ssize_t end, const char *word, const char *enders)
{
    Py_ssize_t n = (Py_ssize_t)strlen(word);
    return p + n < end && is_word(b + p, word, n) && b[p + n] != 0 && strchr(enders, b[p + n]) != NULL;
}

/* After an attribute's name (steps 4-12 of "get an attribute"): where its value ends, or
 * NOT_FOUND when the bytes run out first: step 4's "=" (perhaps after the spaces of steps 6-8) and
 * a value (steps 9-12: quoted, empty before ">", unquoted), else no value. */
static Py_ssize_t value_end(const unsigned char *b, Py_ssize_t q, Py_ssize_t end)
{
    Py_ssize_t r = q;
    while (r < end && is_space(b[r]))
        r++;
    if (r < end && b[r] == '=') {
        /* "=" and a value: quoted up to the same quote, empty before ">", else up to a space or ">". */
        r++;
        while (r < end && is_space(b[r]))
            r++;
        if (r < end) {
            unsigned char c = b[r];
            if (c == '"' || c == '\'') {
                const unsigned char *quote = memchr(b + r + 1, c, (size_t)(end - r - 1));
                if (quote != NULL)
                    return quote - b + 1;
            } else if (c == '>') {
                return r;
            } else {
                for (r++; r < end && !is_space(b[r]) && b[r] != '>'; r++)
                    ;
                if (r < end)
                    return r;
            }
        }
    }
    /* No value: the name ended at "/" or ">", or at spaces followed by something other than "=". */
    if (q < end && (b[q] == '/' || b[q] == '>'))
        return q;
    for (r = q; r < end && is_space(b[r]); r++)
        ;
    if (r > q && r < end && b[r] != '=')
        return r;
    return NOT_FOUND;
}

/* A tag's attributes from after its name: "get an attribute" until there is none, then past the
 * ">" (the tag branch's step 2).  NOT_FOUND when the bytes run out. */
static Py_ssize_t attributes_end(const unsigned char *b, Py_ssize_t p, Py_ssize_t end)
{
    for (;;) {
        Py_ssize_t q = p;
        while (q < end && (is_space(b[q]) || b[q] == '/'))
            q++;
        if (q >= end || b[q] == '>')
            break;
        /* The name: its first byte may be "=", the rest stops at "=", space, "/" or ">". */
        for (q++; q < end && b[q] != '=' && !is_space(b[q]) && b[q] != '/' && b[q] != '>'; q++)
            ;
        Py_ssize_t value = value_end(b, q, end);
        if (value == NOT_FOUND)
            break;  /* this attribute runs out: the tag can only end before it */
        p = value;
    }
    while (p < end && (is_space(b[p]) || b[p] == '/'))
        p++;
    return p < end && b[p] == '>' ? p + 1 : NOT_FOUND;
}

/* The loop from p: the position of the <meta it stops at, or NOT_FOUND. */
static Py_ssize_t next_meta(const unsigned char *b, Py_ssize_t p, Py_ssize_t end)
{
    while (p < end) {
        if (b[p] != '<') {  /* any other byte: do nothing with it */
            const unsigned char *lt = memchr(b + p, '<', (size_t)(end - p));
            if (lt == NULL)
                return NOT_FOUND;
            p = lt - b;
        }
        int has_next = p + 1 < end;
        unsigned char next = has_next ? b[p + 1] : 0;
        if (next == '!' && p + 3 < end && b[p + 2] == '-' && b[p + 3] == '-') {
            /* "<!--": up to the first ">" preceded by "--", which may be the dashes of "<!--". */
            Py_ssize_t q = p + 4;
            for (;;) {
                const unsigned char *gt = q < end ? memchr(b + q, '>', (size_t)(end - q)) : NULL;
                if (gt == NULL)
                    return NOT_FOUND;
                q = gt - b;
                if (b[q - 1] == '-' && b[q - 2] == '-')
                    break;
                q++;
            }
            p = q + 1;
        } else if (has_next && (is_ascii_letter(next) || (next == '/' && p + 2 < end && is_ascii_letter(b[p + 2])))) {
            /* "<" + letter or "</" + letter: a tag, unless it is the <meta the caller wants. */
            if (word_then(b, p + 1, end, "meta", "\t\n\x0c\r /"))
                return p;
            Py_ssize_t q = (next == '/' ? p + 2 : p + 1) + 1;
            while (q < end && !is_space(b[q]) && b[q] != '>')
                q++;
            p = attributes_end(b, q, end);
            if (p == NOT_FOUND)
                return NOT_FOUND;
        } else if (has_next && (next == '!' || next == '/' || next == '?')) {
            /* "<!" (not a comment), "</" (not a tag), "<?": up to the first ">". */
            const unsigned char *gt = p + 2 < end ? memchr(b + p + 2, '>', (size_t)(end - p - 2)) : NULL;
            if (gt == NULL)
                return NOT_FOUND;
            p = gt - b + 1;
        } else {
            /* "<" followed by anything else is a byte like any other; of a run of them, the last
             * is left when it starts a construct above. */
            Py_ssize_t run = 1;
            while (p + run < end && b[p + run] == '<')
                run++;
            if (p + run < end) {
                unsigned char after = b[p + run];
                if (after == '!' || after == '/' || after == '?' || is_ascii_letter(after))
                    run--;
            }
            if (run == 0)
                return NOT_FOUND;  /* unreachable: a single "<" before those bytes is handled above */
            p += run;
        }
    }
    return NOT_FOUND;
}

/* A page has a "<" every few dozen bytes, too many for a memchr each: where SSE2 is there, 16
 * positions are tested at once for "<" followed by "m" or "M" (OR 0x20 makes 'm' of both and of no
 * other byte), and only those are compared with "meta"; a block without one costs a few
 * instructions, two blocks are skipped at a time.  The last bytes, and other machines, take the
 * memchr loop. */
static Py_ssize_t find_meta_sse2(const unsigned char *b, Py_ssize_t p, Py_ssize_t end)
{
#if defined(__SSE2__)
    const __m128i lt = _mm_set1_epi8('<'), m = _mm_set1_epi8('m'), lower = _mm_set1_epi8(0x20);
#define LT_M(at) _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(at)), lt), \
                               _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)((at) + 1)), lower), m))
    /* A block at p reads b[p..p+16]; a "<m" at p+15 needs b[p+16..p+19] for "eta": p + 20 <= end. */
    for (;; p += 16) {
        while (end - p >= 36 && !_mm_movemask_epi8(_mm_or_si128(LT_M(b + p), LT_M(b + p + 16))))
            p += 32;
        if (end - p < 20)
            break;
        unsigned mask = (unsigned)_mm_movemask_epi8(LT_M(b + p));
        for (; mask; mask &= mask - 1) {
            Py_ssize_t at = p + __builtin_ctz(mask);
            if (is_word(b + at + 1, "meta", 4))
                return at;
        }
    }
#undef LT_M
#endif
    while (p + 5 <= end) {
        const unsigned char *lt = memchr(b + p, '<', (size_t)(end - p - 4));
        if (lt == NULL)
            return NOT_FOUND;
        p = lt - b;
        if (is_word(b + p + 1, "meta", 4))
            return p;
        p++;
    }
    return NOT_FOUND;
}

/* The same test on 32 positions a step where the processor has AVX2 (checked at import): a page that
 * declares nothing in its first 1024 bytes is searched up to 64 KiB for a late <meta> (late_meta.py),
 * ~1.8 us a 35 KB page with SSE2, half that here.  The last bytes are left to the SSE2 loop. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
__attribute__((target("avx2"))) static Py_ssize_t find_meta_avx2(const unsigned char *b, Py_ssize_t p, Py_ssize_t end)
{
    const __m256i lt = _mm256_set1_epi8('<'), m = _mm256_set1_epi8('m'), lower = _mm256_set1_epi8(0x20);
#define LT_M32(at)                                                                                          \
    _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(at)), lt),                      \
                     _mm256_cmpeq_epi8(_mm256_or_si256(_mm256_loadu_si256((const __m256i *)((at) + 1)), lower), m))
    /* A block at p reads b[p..p+32]; a "<m" at p+31 needs b[p+32..p+35] for "eta": p + 36 <= end. */
    for (;; p += 32) {
        while (end - p >= 68 && !_mm256_movemask_epi8(_mm256_or_si256(LT_M32(b + p), LT_M32(b + p + 32))))
            p += 64;
        if (end - p < 36)
            break;
        unsigned mask = (unsigned)_mm256_movemask_epi8(LT_M32(b + p));
        for (; mask; mask &= mask - 1) {
            Py_ssize_t at = p + __builtin_ctz(mask);
            if (is_word(b + at + 1, "meta", 4))
                return at;
        }
    }
#undef LT_M32
    return find_meta_sse2(b, p, end);
}
#endif

/* Whether find_meta takes the AVX2 loop (the processor has it; tests may turn it off: use_avx2). */
static int avx2 = 0;

static Py_ssize_t find_meta(const unsigned char *b, Py_ssize_t p, Py_ssize_t end)
{
#ifdef HAVE_AVX2_PATH
    if (avx2)
        return find_meta_avx2(b, p, end);
#endif
    return find_meta_sse2(b, p, end);
}

/* (buf, start, end) from a fast call: *buf* any bytes-like object, the bounds clamped to it as
 * slicing would.  Returns 0 on error (with an exception set). */
static int parse_bounds(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t expected, Py_buffer *view,
                        Py_ssize_t *start, Py_ssize_t *end)
{
    if (!expect_arguments(nargs, expected, "(buf, start, end)") || !get_index(args[1], start) ||
        !get_index(args[2], end))
        return 0;
    if (!get_bytes(args[0], view))
        return 0;
    if (*end > view->len)
        *end = view->len;
    if (*start < 0)
        *start = 0;
    return 1;
}

static PyObject *py_next_meta(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    Py_ssize_t start, end;
    if (!parse_bounds(args, nargs, 3, &view, &start, &end))
        return NULL;
    Py_ssize_t found = start < end ? next_meta(view.buf, start, end) : NOT_FOUND;
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(found);
}

static PyObject *py_tag_end(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    Py_ssize_t start, end;
    if (!parse_bounds(args, nargs, 3, &view, &start, &end))
        return NULL;
    Py_ssize_t found = start < end ? attributes_end(view.buf, start, end) : NOT_FOUND;
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(found);
}

static PyObject *py_find_meta(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    Py_ssize_t start, end;
    if (!parse_bounds(args, nargs, 3, &view, &start, &end))
        return NULL;
    Py_ssize_t found = find_meta(view.buf, start, end);
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(found);
}

/* find_meta without the AVX2 loop, for tests/decoding/test_prescan_loop.py to hold the two equal. */
static PyObject *py_find_meta_sse2(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    Py_ssize_t start, end;
    if (!parse_bounds(args, nargs, 3, &view, &start, &end))
        return NULL;
    Py_ssize_t found = find_meta_sse2(view.buf, start, end);
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(found);
}

static void detect_avx2(void)
{
#ifdef HAVE_AVX2_PATH
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
}

static PyMethodDef methods[] = {
    {"next_meta", (PyCFunction)(void (*)(void))py_next_meta, METH_FASTCALL,
     "next_meta(buf, position, length) -> position of the <meta the prescan's loop stops at, or -1"},
    {"tag_end", (PyCFunction)(void (*)(void))py_tag_end, METH_FASTCALL,
     "tag_end(buf, position, length) -> position after the > of the tag whose attributes start at position, or -1"},
    {"find_meta", (PyCFunction)(void (*)(void))py_find_meta, METH_FASTCALL,
     "find_meta(buf, start, end) -> position of the first \"<meta\" (any case) in buf[start:end], or -1"},
    {"find_meta_sse2", (PyCFunction)(void (*)(void))py_find_meta_sse2, METH_FASTCALL,
     "find_meta_sse2(buf, start, end) -> find_meta without its AVX2 loop (for tests)"},
    {NULL, NULL, 0, NULL},
};

NATIVE_MODULE(prescan, "The meta prescan's loop, compiled (see prescan/compiled.py).", methods, detect_avx2())
