/* Mojibake's sequences counted in one pass: mojibake.py's ``_SEQUENCE`` matched, checked and weighed.
 *
 * strong_sequences(utf8, end) -> (strong, covered)
 *     strong   the strong sequences in utf8[:end], counted up to 2 (two flag a text: the scan stops)
 *     covered  their characters
 * strong_sequences_sse2(utf8, end) -> (strong, covered)
 *     the same without the AVX2 loop the processor may take (for tests)
 *
 * Why: the check runs on every record, and on accented text with typographic punctuation Python's
 * regex stops at every C3 (every accented letter) to fail its lookahead there: 26-39 µs a page of
 * dense French, three times the page's UTF-8 decode.  Here 16 positions a step are tested for a C3
 * followed, a byte later, by a lead byte, and the few that pass are checked and matched.  mojibake.py keeps the
 * regex as the reference (``reference_strong_sequences``); tests/decoding/test_mojibake_scan.py
 * checks the two agree.
 *
 * may_hold_a_sequence(text, end) -> bool
 *     whether text[:end] (a str) holds a lead character U+00C2-U+00F4 followed by a continuation
 *     character: the first two characters of every sequence.  False answers a decoded text without
 *     its UTF-8: encoding a CJK page's text to look for sequences cost ~7 us of its decode's ~25;
 *     this reads 8 (UCS-2) or 16 (Latin-1) characters a step for leads.
 *
 * A sequence, in the UTF-8 of the text: C3 and a byte that makes a lead character U+00C2-U+00F4
 * (the byte + 0x40 that windows-1252 maps it back to), then as many continuation characters as that
 * lead needs, each U+0080-U+00BF (C2 80-BF) or one of windows-1252's characters for 0x80-0x9F.  As
 * the regex's finditer, a match is skipped whole (strong or not) and a failed start is left by one byte.
 */
#include "native.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The byte windows-1252 maps the character *cp* to, for the characters above U+00BF it decodes
 * 0x80-0x9F to (its index, pointers 0-31), or -1.  Its five undefined bytes decode to U+0081,
 * U+008D, U+008F, U+0090, U+009D, which map back as every U+0080-U+00BF does: to themselves. */
static int cp1252_byte(unsigned cp)
{
    switch (cp) {
    case 0x20AC: return 0x80; /* € */
    case 0x201A: return 0x82; /* ‚ */
    case 0x0192: return 0x83; /* ƒ */
    case 0x201E: return 0x84; /* „ */
    case 0x2026: return 0x85; /* … */
    case 0x2020: return 0x86; /* † */
    case 0x2021: return 0x87; /* ‡ */
    case 0x02C6: return 0x88; /* ˆ */
    case 0x2030: return 0x89; /* ‰ */
    case 0x0160: return 0x8A; /* Š */
    case 0x2039: return 0x8B; /* ‹ */
    case 0x0152: return 0x8C; /* Œ */
    case 0x017D: return 0x8E; /* Ž */
    case 0x2018: return 0x91; /* ‘ */
    case 0x2019: return 0x92; /* ’ */
    case 0x201C: return 0x93; /* “ */
    case 0x201D: return 0x94; /* ” */
    case 0x2022: return 0x95; /* • */
    case 0x2013: return 0x96; /* – */
    case 0x2014: return 0x97; /* — */
    case 0x02DC: return 0x98; /* ˜ */
    case 0x2122: return 0x99; /* ™ */
    case 0x0161: return 0x9A; /* š */
    case 0x203A: return 0x9B; /* › */
    case 0x0153: return 0x9C; /* œ */
    case 0x017E: return 0x9E; /* ž */
    case 0x0178: return 0x9F; /* Ÿ */
    default: return -1;
    }
}

/* mojibake.py's _WORD_FINAL: NBSP ’ ” … – — » ·.  A character, not a byte: U+0092 maps back to
 * 0x92 as ’ does, and is not word-final. */
static int word_final(unsigned cp)
{
    return cp == 0x00A0 || cp == 0x2019 || cp == 0x201D || cp == 0x2026 || cp == 0x2013 || cp == 0x2014
           || cp == 0x00BB || cp == 0x00B7;
}

static int is_trail(unsigned char b)
{
    return (b & 0xC0) == 0x80;
}

/* A continuation character at p (before end): its length in bytes, 0 if there is none.  Its
 * encoding starts with C2 (U+0080-U+00BF), C5, C6, CB (ƒ ˆ Š Œ Ž š œ ž Ÿ ˜) or E2 (the others). */
static Py_ssize_t continuation(const unsigned char *p, const unsigned char *end, unsigned *byte, int *final)
{
    unsigned cp;
    Py_ssize_t length;
    if ((p[0] == 0xC2 || p[0] == 0xC5 || p[0] == 0xC6 || p[0] == 0xCB) && end - p >= 2 && is_trail(p[1])) {
        cp = (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu);
        length = 2;
    } else if (p[0] == 0xE2 && end - p >= 3 && is_trail(p[1]) && is_trail(p[2])) {
        cp = 0x2000u | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
        length = 3;
    } else {
        return 0;
    }
    int mapped = cp <= 0xBF ? (int)cp : cp1252_byte(cp);
    if (mapped < 0)
        return 0;
    *byte = (unsigned)mapped;
    *final &= word_final(cp);
    return length;
}

/* The continuation characters a lead needs, by the byte after C3 (its character is that byte +
 * 0x40): the leads of plausible two-byte characters (U+00C2-00C9, 00CE-00D3, 00D7-00DB), every
 * three- and four-byte lead (U+00E0-00EF, 00F0-00F4); 0 for the others. */
static int needed(unsigned char b)
{
    if ((b >= 0x82 && b <= 0x89) || (b >= 0x8E && b <= 0x93) || (b >= 0x97 && b <= 0x9B))
        return 1;
    if (b >= 0xA0 && b <= 0xAF)
        return 2;
    if (b >= 0xB0 && b <= 0xB4)
        return 3;
    return 0;
}

/* Whether lead, then the bytes of *trail*, are UTF-8: every trail byte is 80-BF here, so only the
 * standard's bounds on the second byte after E0, ED, F0 and F4 can fail. */
static int is_utf_8(unsigned lead, const unsigned *trail)
{
    switch (lead) {
    case 0xE0: return trail[0] >= 0xA0;
    case 0xED: return trail[0] <= 0x9F;
    case 0xF0: return trail[0] >= 0x90;
    case 0xF4: return trail[0] <= 0x8F;
    default: return 1;
    }
}

/* The sequence starting at p (a C3): its length in bytes, 0 if none starts there.  *kind is 1 for a
 * strong sequence, 0 for one that is not UTF-8 or is continued only by word-final characters. */
static Py_ssize_t sequence(const unsigned char *p, const unsigned char *end, int *kind)
{
    if (end - p < 4)
        return 0;
    int count = needed(p[1]);
    if (count == 0)
        return 0;
    unsigned trail[3];
    int final = 1;
    Py_ssize_t at = 2;
    for (int i = 0; i < count; i++) {
        Py_ssize_t length = p + at < end ? continuation(p + at, end, &trail[i], &final) : 0;
        if (length == 0)
            return 0;
        at += length;
    }
    *kind = is_utf_8(p[1] + 0x40u, trail) && !final;
    return at;
}

/* Whether a sequence may start at p (before end - 2): C3, a byte that makes a lead character
 * (U+00C2-U+00F4), and the first byte of a continuation's encoding (C2, C5, C6, CB or E2).  The regex's
 * lookahead, and what rejects an accented letter ("é" is C3 A9, then mostly a letter or a space). */
static int may_start(const unsigned char *p)
{
    unsigned char third = p[2];
    return p[0] == 0xC3 && p[1] >= 0x82 && p[1] <= 0xB4
           && (third == 0xC2 || third == 0xC5 || third == 0xC6 || third == 0xCB || third == 0xE2);
}

#if defined(__SSE2__)
/* Of the positions p + i whose bit i is set in *mask* (a block's candidates), the first where a sequence
 * may start, or NULL. */
static const unsigned char *first_start(const unsigned char *p, unsigned mask)
{
    for (; mask; mask &= mask - 1) {
        const unsigned char *at = p + __builtin_ctz(mask);
        if (may_start(at))
            return at;
    }
    return NULL;
}
#endif

/* The first position at or after p where a sequence may start, or end.  Accented Latin has a C3
 * every few bytes, too many for a call or a branch each: 16 positions are tested at once for a C3
 * two bytes before a lead byte (C2 or above: the third byte of may_start is one), which rejects
 * an accented letter followed by ASCII, and may_start checks the few that pass.  Blocks with none
 * (ASCII, CJK, most of a Latin page) are skipped four at a time. */
static const unsigned char *next_start(const unsigned char *p, const unsigned char *end)
{
#if defined(__SSE2__)
    const __m128i c3 = _mm_set1_epi8((char)0xC3), c2 = _mm_set1_epi8((char)0xC2);
#define LOAD(at) _mm_loadu_si128((const __m128i *)(at))
#define IS_C3(at) _mm_cmpeq_epi8(LOAD(at), c3)
#define LEAD_BYTE(at) _mm_cmpeq_epi8(_mm_max_epu8(LOAD(at), c2), LOAD(at)) /* C2 or above, unsigned */
    /* Where a C3 is two bytes before a lead byte: the block at p reads p[0..17], so end - p >= 18;
     * four read p[0..65]. */
#define CANDIDATES(at) _mm_and_si128(IS_C3(at), LEAD_BYTE((at) + 2))
    for (;; p += 16) {
        while (end - p >= 66 && !_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(CANDIDATES(p), CANDIDATES(p + 16)),
                                                                 _mm_or_si128(CANDIDATES(p + 32), CANDIDATES(p + 48)))))
            p += 64;
        if (end - p < 18)
            break;
        const unsigned char *at = first_start(p, (unsigned)_mm_movemask_epi8(CANDIDATES(p)));
        if (at != NULL)
            return at;
    }
#undef LOAD
#undef IS_C3
#undef LEAD_BYTE
#undef CANDIDATES
#endif
    for (; end - p >= 3; p++)
        if (may_start(p))
            return p;
    return end;
}

/* The same test on 32 positions a step where the processor has AVX2 (checked at import): every UTF-8
 * page is scanned, up to 16 KiB of it, and most have no candidate at all (a call over 16 KiB of ASCII,
 * CJK or Cyrillic: ~720 ns with SSE2, ~310 here; of French ~790 and ~500).  The last bytes are left to
 * the SSE2 loop. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
__attribute__((target("avx2"))) static const unsigned char *next_start_avx2(const unsigned char *p,
                                                                            const unsigned char *end)
{
    const __m256i c3 = _mm256_set1_epi8((char)0xC3), c2 = _mm256_set1_epi8((char)0xC2);
#define LOAD(at) _mm256_loadu_si256((const __m256i *)(at))
#define IS_C3(at) _mm256_cmpeq_epi8(LOAD(at), c3)
#define LEAD_BYTE(at) _mm256_cmpeq_epi8(_mm256_max_epu8(LOAD(at), c2), LOAD(at)) /* C2 or above, unsigned */
    /* The block at p reads p[0..33], so end - p >= 34; four read p[0..129]. */
#define CANDIDATES(at) _mm256_and_si256(IS_C3(at), LEAD_BYTE((at) + 2))
    for (;; p += 32) {
        while (end - p >= 130) {
            /* No C3 at all, the commonest block (markup, CJK, Cyrillic): told by four loads, not eight. */
            __m256i c3s = _mm256_or_si256(_mm256_or_si256(IS_C3(p), IS_C3(p + 32)),
                                          _mm256_or_si256(IS_C3(p + 64), IS_C3(p + 96)));
            if (!_mm256_testz_si256(c3s, c3s)) {
                __m256i any = _mm256_or_si256(_mm256_or_si256(CANDIDATES(p), CANDIDATES(p + 32)),
                                              _mm256_or_si256(CANDIDATES(p + 64), CANDIDATES(p + 96)));
                if (!_mm256_testz_si256(any, any))
                    break;
            }
            p += 128;
        }
        if (end - p < 34)
            break;
        const unsigned char *at = first_start(p, (unsigned)_mm256_movemask_epi8(CANDIDATES(p)));
        if (at != NULL)
            return at;
    }
#undef LOAD
#undef IS_C3
#undef LEAD_BYTE
#undef CANDIDATES
    /* Said, not left to the compiler: gcc 12 leaves out the vzeroupper before this tail call, and the SSE2
     * loop then pays a transition on every instruction (~230 ns a call, measured). */
    _mm256_zeroupper();
    return next_start(p, end);
}
#endif

/* Whether the scan takes the AVX2 loop (the processor has it); strong_sequences_sse2 never does. */
static int avx2 = 0;

static void detect_avx2(void)
{
#ifdef HAVE_AVX2_PATH
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
}

static void strong_sequences(const unsigned char *data, Py_ssize_t n, int use_avx2, Py_ssize_t *strong,
                             Py_ssize_t *covered)
{
    const unsigned char *p = data, *end = data + n;
    *strong = *covered = 0;
    const unsigned char *(*next)(const unsigned char *, const unsigned char *) = next_start;
#ifdef HAVE_AVX2_PATH
    if (use_avx2)
        next = next_start_avx2;
#else
    (void)use_avx2;
#endif
    while ((p = next(p, end)) < end) {
        int kind;
        Py_ssize_t length = sequence(p, end, &kind);
        if (length == 0) {
            p++;
            continue;
        }
        if (kind) {
            /* The characters: the lead and its continuations, as many as it needs. */
            *covered += 1 + needed(p[1]);
            if (++*strong >= 2)
                return;
        }
        p += length;
    }
}

static PyObject *scan(PyObject *const *args, Py_ssize_t nargs, int use_avx2)
{
    Py_ssize_t end;
    if (!expect_arguments(nargs, 2, "strong_sequences(utf8, end)") || !get_index(args[1], &end))
        return NULL;
    Py_buffer view;
    if (!get_bytes(args[0], &view))
        return NULL;
    if (end < 0 || end > view.len) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "end %zd outside the data (%zd bytes)", end, view.len);
        return NULL;
    }
    Py_ssize_t strong, covered;
    strong_sequences(view.buf, end, use_avx2, &strong, &covered);
    PyBuffer_Release(&view);
    return Py_BuildValue("(nn)", strong, covered);
}

static PyObject *py_strong_sequences(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    return scan(args, nargs, avx2);
}

/* strong_sequences without the AVX2 loop, for tests/decoding/test_mojibake_scan.py to hold the two equal. */
static PyObject *py_strong_sequences_sse2(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    return scan(args, nargs, 0);
}

/* -- may_hold_a_sequence: on the text, before any UTF-8 ------------------------------------------ */

/* A lead character: U+00C2-U+00F4 (C3 82-B4 in UTF-8: the lookahead's first two bytes). */
static int is_lead(Py_UCS4 cp)
{
    return cp - 0xC2u <= 0xF4u - 0xC2u;
}

/* A continuation character: U+0080-U+00BF, or one of windows-1252's characters for 0x80-0x9F (all of
 * them between U+0152 and U+2122). */
static int continues(Py_UCS4 cp)
{
    return cp - 0x80u <= 0xBFu - 0x80u || (cp > 0xFF && cp1252_byte(cp) >= 0);
}

#if defined(__SSE2__)
/* Each byte (16 bits) of v within [base, base + span], unsigned: 0xFF (0xFFFF) where it is, 0 elsewhere. */
#define WITHIN8(v, base, span) \
    _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8((v), _mm_set1_epi8((char)(base))), _mm_set1_epi8((char)(span))), \
                   _mm_setzero_si128())
#define WITHIN16(v, base, span) \
    _mm_cmpeq_epi16(_mm_subs_epu16(_mm_sub_epi16((v), _mm_set1_epi16((short)(base))), _mm_set1_epi16((short)(span))), \
                    _mm_setzero_si128())
#endif

/* A Latin-1 str: its continuations are U+0080-U+00BF alone, so lead and follower are tested 16 at once. */
static int pair_in_ucs1(const Py_UCS1 *s, Py_ssize_t n)
{
    Py_ssize_t i = 0;
#if defined(__SSE2__)
    /* The block at i pairs s[i..i+15] with s[i+1..i+16]: i + 17 <= n. */
    for (; i + 17 <= n; i += 16) {
        __m128i lead = WITHIN8(_mm_loadu_si128((const __m128i *)(s + i)), 0xC2, 0xF4 - 0xC2);
        __m128i next = WITHIN8(_mm_loadu_si128((const __m128i *)(s + i + 1)), 0x80, 0xBF - 0x80);
        if (_mm_movemask_epi8(_mm_and_si128(lead, next)))
            return 1;
    }
#endif
    for (; i + 1 < n; i++)
        if (is_lead(s[i]) && continues(s[i + 1]))
            return 1;
    return 0;
}

/* A UCS-2 str (CJK, or Latin with typographic punctuation): 8 characters a step are tested for a lead,
 * 16 skipped at once where none is (CJK text has hardly any), and a lead's follower checked alone. */
static int pair_in_ucs2(const Py_UCS2 *s, Py_ssize_t n)
{
    Py_ssize_t i = 0;
#if defined(__SSE2__)
#define LEADS(at) WITHIN16(_mm_loadu_si128((const __m128i *)(s + (at))), 0xC2, 0xF4 - 0xC2)
    for (;; i += 8) {
        while (i + 16 <= n && !_mm_movemask_epi8(_mm_or_si128(LEADS(i), LEADS(i + 8))))
            i += 16;
        if (i + 8 > n)
            break;
        /* Two mask bits a character: the even ones. */
        unsigned mask = (unsigned)_mm_movemask_epi8(LEADS(i)) & 0x5555u;
        for (; mask; mask &= mask - 1) {
            Py_ssize_t at = i + __builtin_ctz(mask) / 2;
            if (at + 1 < n && continues(s[at + 1]))
                return 1;
        }
    }
#undef LEADS
#endif
    for (; i + 1 < n; i++)
        if (is_lead(s[i]) && continues(s[i + 1]))
            return 1;
    return 0;
}

static int pair_in_ucs4(const Py_UCS4 *s, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i + 1 < n; i++)
        if (is_lead(s[i]) && continues(s[i + 1]))
            return 1;
    return 0;
}

static PyObject *py_may_hold_a_sequence(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_ssize_t end;
    if (!expect_arguments(nargs, 2, "may_hold_a_sequence(text, end)") || !get_index(args[1], &end))
        return NULL;
    PyObject *text = args[0];
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "may_hold_a_sequence: text must be a str");
        return NULL;
    }
    if (PyUnicode_READY(text) < 0)
        return NULL;
    /* Clamped as slicing would. */
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (end < n)
        n = end < 0 ? 0 : end;
    int found;
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND: found = pair_in_ucs1(PyUnicode_1BYTE_DATA(text), n); break;
    case PyUnicode_2BYTE_KIND: found = pair_in_ucs2(PyUnicode_2BYTE_DATA(text), n); break;
    default: found = pair_in_ucs4(PyUnicode_4BYTE_DATA(text), n); break;
    }
    return PyBool_FromLong(found);
}

static PyMethodDef methods[] = {
    {"may_hold_a_sequence", (PyCFunction)(void (*)(void))py_may_hold_a_sequence, METH_FASTCALL,
     "may_hold_a_sequence(text, end, /)\n--\n\nWhether text[:end] holds a lead character U+00C2-U+00F4 "
     "followed by a continuation character."},
    {"strong_sequences", (PyCFunction)(void (*)(void))py_strong_sequences, METH_FASTCALL,
     "strong_sequences(utf8, end, /)\n--\n\n(strong sequences up to 2, their characters) in utf8[:end]."},
    {"strong_sequences_sse2", (PyCFunction)(void (*)(void))py_strong_sequences_sse2, METH_FASTCALL,
     "strong_sequences_sse2(utf8, end, /)\n--\n\nstrong_sequences without its AVX2 loop (for tests)."},
    {NULL, NULL, 0, NULL},
};

NATIVE_MODULE(mojibake, "Mojibake's strong sequences counted in one pass (see mojibake.c).", methods, detect_avx2())
