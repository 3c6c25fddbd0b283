/* UTF-8, compiled: whether bytes are UTF-8 (is_valid, validity), and how bytes that are not read as
 * UTF-8 (count, more_sequences_than_errors), without building a str.  Both are answers of the Encoding
 * Standard's UTF-8 decoder (https://encoding.spec.whatwg.org/#utf-8-decoder); codecs/utf8.py keeps the
 * decoding answer of each as the reference.
 *
 * -- validity --
 * Whether bytes are well-formed UTF-8, without decoding them: the decoder's answer in error mode
 * fatal, that is, whether bytes.decode("utf-8") would succeed, at SIMD speed.  The processor writes a
 * valid UTF-8 page's body as its text, byte for byte: it needs the answer, not the text, and
 * CPython's decoder spends most of its time building a str nobody reads.
 *
 * is_valid(data) -> bool
 *     data is any object with the buffer protocol (bytes in practice).
 * validity(data) -> int
 *     0: not UTF-8; 1: UTF-8; 2: UTF-8 that is all ASCII and holds an ESC byte (0x1B), which only
 *     ISO-2022-JP's escapes put in a page (a declaration of UTF-8 over such a body is weighed again
 *     by the resolution: contradiction.py).  The same pass as is_valid, two instructions more a step.
 *
 * On x86-64 the check is the "lookup" algorithm of Keiser and Lemire, "Validating UTF-8 in less
 * than one instruction per byte" (Software: Practice and Experience, 2021), as in simdjson, with
 * SSSE3 (pshufb), 16 bytes a step, checked at run time; elsewhere, or without SSSE3, a scalar
 * transcription of the standard's decoder.  tests/decoding/codecs/test_utf8_validity.py checks
 * both against Python's codec on every sequence of up to four bytes placed across block edges.
 *
 * -- counts --
 * count(data) -> (sequences, errors)
 *     sequences  the well-formed multi-byte sequences (each one non-ASCII code point)
 *     errors     the U+FFFD the decoder in error mode "replacement" introduces
 * more_sequences_than_errors(data) -> bool
 *     sequences > errors, the question resolution asks, answered as soon as the rest of the input
 *     cannot change it: every sequence starts with a lead byte followed by a continuation byte, so
 *     when the errors already reach the sequences plus the one in progress plus such pairs still
 *     to come (counted first, eight bytes a step), the answer is no (a legacy page: early)
 *
 * Why: resolution asks whether an undeclared body is damaged UTF-8 (mostly well-formed multi-byte
 * sequences, a few errors) before detection.  Decoding it to answer calls CPython's error handler
 * per malformed byte, and a legacy page is one malformed byte after another: that question cost as
 * much as detection itself.  Here one pass over a transition table, ASCII eight bytes a step, linear
 * in the input.  tests/decoding/codecs/test_utf8_count.py checks the counts equal the decoding's.
 */
#include "native.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* -- validity: the standard's decoder, scalar ------------------------------------------------------------- */

/* The UTF-8 decoder's steps with "UTF-8 bytes needed", "lower/upper boundary", fatal on error. */
/* 0, 1 or 2 as validity() says.  ASCII bytes are tested for ESC a word at a time (a zero byte of
 * word ^ 0x1B...: the "haszero" bit trick); a multi-byte sequence clears all_ascii. */
static int validity_scalar(const unsigned char *b, Py_ssize_t n)
{
    const uint64_t escs = BYTES(0x1B);
    uint64_t escape = 0;
    int all_ascii = 1;
    Py_ssize_t i = 0;
    while (i < n) {
        /* Eight ASCII bytes at a time: the common case in markup. */
        while (i + 8 <= n) {
            uint64_t word = load64(b + i);
            if (word & HIGH_BITS)
                break;
            uint64_t x = word ^ escs;
            escape |= (x - BYTES(1)) & ~x & HIGH_BITS;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned char c = b[i];
        int needed;
        unsigned char lower = 0x80, upper = 0xBF;
        if (c < 0x80) {
            escape |= c == 0x1B;
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            needed = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            if (c == 0xE0)
                lower = 0xA0;
            if (c == 0xED)
                upper = 0x9F;
            needed = 2;
        } else if (c >= 0xF0 && c <= 0xF4) {
            if (c == 0xF0)
                lower = 0x90;
            if (c == 0xF4)
                upper = 0x8F;
            needed = 3;
        } else {
            return 0;
        }
        if (i + needed >= n)
            return 0; /* the bytes end inside the sequence */
        unsigned char second = b[i + 1];
        if (second < lower || second > upper)
            return 0;
        for (int k = 2; k <= needed; k++) {
            if ((b[i + k] & 0xC0) != 0x80)
                return 0;
        }
        i += needed + 1;
        all_ascii = 0;
    }
    return all_ascii && escape ? 2 : 1;
}

static int valid_scalar(const unsigned char *b, Py_ssize_t n) { return validity_scalar(b, n) != 0; }

/* -- Keiser and Lemire's lookup algorithm, SSSE3 -------------------------------------------------- */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_SSSE3_PATH 1

/* Error classes of two consecutive bytes (byte 1, byte 2), one bit each; a pair is an error when
 * the three lookups below (byte 1's high nibble, its low nibble, byte 2's high nibble) share a bit. */
#define TOO_SHORT (1 << 0)      /* 11______ 0_______ or 11______ 11______: a lead not continued */
#define TOO_LONG (1 << 1)       /* 0_______ 10______: a continuation after ASCII */
#define OVERLONG_3 (1 << 2)     /* 11100000 100_____ */
#define TOO_LARGE (1 << 3)      /* 11110100 1001____, 11110100 101_____, 11110101+ 1001____ or 101_____ */
#define SURROGATE (1 << 4)      /* 11101101 101_____ */
#define OVERLONG_2 (1 << 5)     /* 1100000_ 10______ */
#define TOO_LARGE_1000 (1 << 6) /* 11110101+ 1000____ */
#define OVERLONG_4 (1 << 6)     /* 11110000 1000____ */
#define TWO_CONTS (1 << 7)      /* 10______ 10______: allowed only as a 3rd or 4th byte (checked apart) */
#define CARRY (TOO_SHORT | TOO_LONG | TWO_CONTS)

__attribute__((target("ssse3"))) static __m128i special_cases(__m128i input, __m128i prev1)
{
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m128i byte_1_high_table = _mm_setr_epi8(
        TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, /* 0_______ */
        TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,                                     /* 10______ */
        TOO_SHORT | OVERLONG_2,                                                         /* 1100____ */
        TOO_SHORT,                                                                      /* 1101____ */
        TOO_SHORT | OVERLONG_3 | SURROGATE,                                             /* 1110____ */
        (char)(TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4));                   /* 1111____ */
    const __m128i byte_1_low_table = _mm_setr_epi8(
        (char)(CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4), /* ____0000 */
        (char)(CARRY | OVERLONG_2),                           /* ____0001 */
        (char)CARRY, (char)CARRY,                             /* ____001_ */
        (char)(CARRY | TOO_LARGE),                            /* ____0100 */
        (char)(CARRY | TOO_LARGE | TOO_LARGE_1000),           /* ____0101 */
        (char)(CARRY | TOO_LARGE | TOO_LARGE_1000), (char)(CARRY | TOO_LARGE | TOO_LARGE_1000),
        (char)(CARRY | TOO_LARGE | TOO_LARGE_1000), (char)(CARRY | TOO_LARGE | TOO_LARGE_1000),
        (char)(CARRY | TOO_LARGE | TOO_LARGE_1000), (char)(CARRY | TOO_LARGE | TOO_LARGE_1000),
        (char)(CARRY | TOO_LARGE | TOO_LARGE_1000),
        (char)(CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE), /* ____1101 */
        (char)(CARRY | TOO_LARGE | TOO_LARGE_1000), (char)(CARRY | TOO_LARGE | TOO_LARGE_1000));
    const __m128i byte_2_high_table = _mm_setr_epi8(
        TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, /* 0_______ */
        (char)(TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4),   /* 1000____ */
        (char)(TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE),                    /* 1001____ */
        (char)(TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE),                     /* 101_____ */
        (char)(TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE),
        TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT); /* 11______ */
    __m128i prev1_high = _mm_and_si128(_mm_srli_epi16(prev1, 4), nibble);
    __m128i prev1_low = _mm_and_si128(prev1, nibble);
    __m128i input_high = _mm_and_si128(_mm_srli_epi16(input, 4), nibble);
    return _mm_and_si128(
        _mm_and_si128(_mm_shuffle_epi8(byte_1_high_table, prev1_high), _mm_shuffle_epi8(byte_1_low_table, prev1_low)),
        _mm_shuffle_epi8(byte_2_high_table, input_high));
}

/* The errors of the 16 bytes *input* preceded by *prev* (the previous 16): nonzero when any. */
__attribute__((target("ssse3"))) static __m128i block_errors(__m128i input, __m128i prev)
{
    __m128i prev1 = _mm_alignr_epi8(input, prev, 15);
    __m128i prev2 = _mm_alignr_epi8(input, prev, 14);
    __m128i prev3 = _mm_alignr_epi8(input, prev, 13);
    __m128i special = special_cases(input, prev1);
    /* A continuation after a continuation is right exactly where a 3-byte lead is two bytes back
     * or a 4-byte lead two or three back: 0x80 set where it must be so, to match TWO_CONTS. */
    __m128i third = _mm_subs_epu8(prev2, _mm_set1_epi8((char)(0xE0 - 0x80)));  /* >= 0x80 iff 111_____ */
    __m128i fourth = _mm_subs_epu8(prev3, _mm_set1_epi8((char)(0xF0 - 0x80))); /* >= 0x80 iff 1111____ */
    __m128i must_be_continuation = _mm_and_si128(_mm_or_si128(third, fourth), _mm_set1_epi8((char)0x80));
    return _mm_xor_si128(must_be_continuation, special);
}

__attribute__((target("ssse3"))) static int validity_ssse3(const unsigned char *b, Py_ssize_t n)
{
    __m128i prev = _mm_setzero_si128();
    __m128i error = _mm_setzero_si128();
    const __m128i esc = _mm_set1_epi8(0x1B);
    __m128i escape = _mm_setzero_si128();
    int prev_ascii = 1, all_ascii = 1;
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i input = _mm_loadu_si128((const __m128i *)(b + i));
        int ascii = _mm_movemask_epi8(input) == 0;
        escape = _mm_or_si128(escape, _mm_cmpeq_epi8(input, esc));
        all_ascii &= ascii;
        /* Two ASCII blocks in a row have no error to find: skip the lookups. */
        if (!(ascii && prev_ascii))
            error = _mm_or_si128(error, block_errors(input, prev));
        prev = input;
        prev_ascii = ascii;
        /* Once a KiB, a body already malformed (a legacy page, usually in its first KiB) is answered. */
        if ((i & 1023) == 1008 && _mm_movemask_epi8(_mm_cmpeq_epi8(error, _mm_setzero_si128())) != 0xFFFF)
            return 0;
    }
    /* The last 0-15 bytes, padded with zeros (ASCII): at least one zero follows the data, so a
     * sequence the data ends inside meets ASCII where a continuation must be, an error. */
    unsigned char tail[16] = {0};
    memcpy(tail, b + i, (size_t)(n - i));
    __m128i last = _mm_loadu_si128((const __m128i *)tail);
    escape = _mm_or_si128(escape, _mm_cmpeq_epi8(last, esc));
    all_ascii &= _mm_movemask_epi8(last) == 0;
    error = _mm_or_si128(error, block_errors(last, prev));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(error, _mm_setzero_si128())) != 0xFFFF)
        return 0;
    return all_ascii && _mm_movemask_epi8(escape) ? 2 : 1;
}

__attribute__((target("ssse3"))) static int valid_ssse3(const unsigned char *b, Py_ssize_t n)
{
    return validity_ssse3(b, n) != 0;
}
#endif

/* -- counts ------------------------------------------------------------------------------------ */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The standard's decoder as a table, so that no byte costs a branch (legacy pages are high bytes
 * in no predictable order).  States: 0 start; 1 one continuation byte needed; 2 two; 3 two after
 * E0 (the next A0..BF); 4 two after ED (80..9F); 5 three; 6 three after F0 (90..BF); 7 three after
 * F4 (80..8F).  An entry is the next state | errors added << 3 | sequences completed << 5; a byte
 * out of its state's bounds is an error and is read again from state 0 ("prepend"), which the
 * entry includes (a second error when that byte cannot start a sequence either). */
static uint8_t step[8][256];

static unsigned start_entry(unsigned b)
{
    if (b < 0x80)
        return 0;
    if (b >= 0xC2 && b <= 0xDF)
        return 1;
    if (b == 0xE0)
        return 3;
    if (b == 0xED)
        return 4;
    if (b >= 0xE1 && b <= 0xEF)
        return 2;
    if (b == 0xF0)
        return 6;
    if (b == 0xF4)
        return 7;
    if (b >= 0xF1 && b <= 0xF3)
        return 5;
    return 1u << 3; /* 80..C1, F5..FF: an error, back at the start */
}

static void build_steps(void)
{
    /* state -> (bounds of the next byte, the state after it: 0 means a sequence completes) */
    static const struct { unsigned lower, upper, next; } need[8] = {
        {0, 0, 0}, {0x80, 0xBF, 0}, {0x80, 0xBF, 1}, {0xA0, 0xBF, 1},
        {0x80, 0x9F, 1}, {0x80, 0xBF, 2}, {0x90, 0xBF, 2}, {0x80, 0x8F, 2},
    };
    for (unsigned b = 0; b < 256; b++) {
        step[0][b] = (uint8_t)start_entry(b);
        for (unsigned state = 1; state < 8; state++) {
            if (b >= need[state].lower && b <= need[state].upper)
                step[state][b] = (uint8_t)(need[state].next | (need[state].next == 0 ? 1u << 5 : 0));
            else
                step[state][b] = (uint8_t)(start_entry(b) + (1u << 3));
        }
    }
}

/* Bytes that start a sequence (C2..F4) and continuation bytes (80..BF), as bit 7 of each byte of a
 * little-endian word: for a high byte, t = its low seven bits is 42..74 for a lead, and no sum
 * below carries into the next byte. */
static uint64_t leads(uint64_t word)
{
    uint64_t t = word & LOW_BITS;
    return word & (t + BYTES(0x80 - 0x42)) & ~(t + BYTES(0x7F - 0x74)) & HIGH_BITS;
}

static uint64_t continuations(uint64_t word)
{
    return word & ~(word << 1) & HIGH_BITS;
}

static int popcount64(uint64_t bits)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(bits);
#else
    int total = 0;
    for (; bits; bits &= bits - 1)
        total++;
    return total;
#endif
}

/* Lead bytes of in immediately followed by a continuation byte: every well-formed sequence starts
 * with one such pair, so no more sequences can start in in than this.  Eight bytes a step. */
static Py_ssize_t sequence_starts(const unsigned char *in, Py_ssize_t n)
{
    Py_ssize_t total = 0, k = 0;
    uint64_t lead_before = 0; /* whether the previous block's last byte is a lead */
#if defined(__SSE2__)
    /* Sixteen bytes a step (x86-64 always has SSE2): as signed bytes, a lead is -62..-12. */
    const __m128i top_two = _mm_set1_epi8((char)0xC0), continuation_bits = _mm_set1_epi8((char)0x80);
    const __m128i below_leads = _mm_set1_epi8(-63), above_leads = _mm_set1_epi8(-11);
    for (; k + 16 <= n; k += 16) {
        __m128i bytes = _mm_loadu_si128((const __m128i *)(in + k));
        unsigned lead = (unsigned)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpgt_epi8(bytes, below_leads), _mm_cmplt_epi8(bytes, above_leads)));
        unsigned continuation =
            (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(bytes, top_two), continuation_bits));
        total += popcount64(lead & (continuation >> 1)) + (int)(lead_before & continuation & 1);
        lead_before = lead >> 15;
    }
#endif
    for (; k + 8 <= n; k += 8) {
        uint64_t word = load64(in + k);
        uint64_t lead = leads(word), continuation = continuations(word);
        total += popcount64(lead & (continuation >> 8)) + (int)(lead_before & (continuation >> 7) & 1);
        lead_before = lead >> 63;
    }
    for (; k < n; k++) {
        int continuation = (in[k] & 0xC0) == 0x80;
        total += (int)lead_before & continuation;
        lead_before = in[k] >= 0xC2 && in[k] <= 0xF4;
    }
    return total;
}

/* The sequences and errors of in read as UTF-8, in *good and *bad, stopping early (returning 0) once
 * the errors reach the sequences plus the one in progress plus to_come, the sequences the rest can
 * still start (each is a lead byte followed by a continuation byte): the errors never decrease, so
 * then they are at least the sequences at the end.  Returns 1 when it read in whole. */
static int walk(const unsigned char *in, Py_ssize_t n, Py_ssize_t to_come, Py_ssize_t *good, Py_ssize_t *bad)
{
    Py_ssize_t sequences = 0, errors = 0, k = 0;
    unsigned state = 0;
    while (k < n) {
        if (errors >= sequences + to_come + (state != 0)) {
            *good = sequences, *bad = errors;
            return 0;
        }
        if (state == 0 && k + 8 <= n && ascii8(in + k)) {
            k += 8;
            continue;
        }
        Py_ssize_t stop = k + 16 < n ? k + 16 : n;
        for (; k < stop; k++) {
            unsigned entry = step[state][in[k]];
            to_come -= k + 1 < n && in[k] >= 0xC2 && in[k] <= 0xF4 && (in[k + 1] & 0xC0) == 0x80;
            state = entry & 7;
            errors += (entry >> 3) & 3;
            sequences += entry >> 5;
        }
    }
    if (state != 0)
        errors++; /* the input ends inside a sequence */
    *good = sequences, *bad = errors;
    return 1;
}

/* count(): the whole input, never stopping (more sequences to come than any errors can reach). */
static void count(const unsigned char *in, Py_ssize_t n, Py_ssize_t *sequences, Py_ssize_t *errors)
{
    walk(in, n, PY_SSIZE_T_MAX / 2, sequences, errors);
}

static int more_sequences(const unsigned char *in, Py_ssize_t n)
{
    Py_ssize_t sequences, errors;
    return walk(in, n, sequence_starts(in, n), &sequences, &errors) && sequences > errors;
}


/* -- module --------------------------------------------------------------------------------------- */

static int use_ssse3 = 0;

static int valid_best(const unsigned char *b, Py_ssize_t n)
{
#ifdef HAVE_SSSE3_PATH
    if (use_ssse3)
        return valid_ssse3(b, n);
#endif
    return valid_scalar(b, n);
}

static int validity_best(const unsigned char *b, Py_ssize_t n)
{
#ifdef HAVE_SSSE3_PATH
    if (use_ssse3)
        return validity_ssse3(b, n);
#endif
    return validity_scalar(b, n);
}

/* *check* applied to the bytes of *arg*, its answer made a Python object by *answer* (a bool, an int). */
static PyObject *check_buffer(PyObject *arg, int (*check)(const unsigned char *, Py_ssize_t),
                              PyObject *(*answer)(long))
{
    Py_buffer view;
    if (!get_bytes(arg, &view))
        return NULL;
    int found = check(view.buf, view.len);
    PyBuffer_Release(&view);
    return answer(found);
}

static PyObject *is_valid(PyObject *Py_UNUSED(module), PyObject *arg)
{
    return check_buffer(arg, valid_best, PyBool_FromLong);
}

static PyObject *is_valid_scalar(PyObject *Py_UNUSED(module), PyObject *arg)
{
    return check_buffer(arg, valid_scalar, PyBool_FromLong);
}

static PyObject *validity(PyObject *Py_UNUSED(module), PyObject *arg)
{
    return check_buffer(arg, validity_best, PyLong_FromLong);
}

static PyObject *validity_scalar_py(PyObject *Py_UNUSED(module), PyObject *arg)
{
    return check_buffer(arg, validity_scalar, PyLong_FromLong);
}

static PyObject *py_more_sequences(PyObject *Py_UNUSED(module), PyObject *data)
{
    Py_buffer view;
    if (!get_bytes(data, &view))
        return NULL;
    PyThreadState *saved = release_gil(view.len);
    int more = more_sequences(view.buf, view.len);
    take_gil(saved);
    PyBuffer_Release(&view);
    return PyBool_FromLong(more);
}

static PyObject *py_count(PyObject *Py_UNUSED(module), PyObject *data)
{
    Py_buffer view;
    if (!get_bytes(data, &view))
        return NULL;
    Py_ssize_t sequences, errors;
    PyThreadState *saved = release_gil(view.len);
    count(view.buf, view.len, &sequences, &errors);
    take_gil(saved);
    PyBuffer_Release(&view);
    return Py_BuildValue("(nn)", sequences, errors);
}

static PyMethodDef methods[] = {
    {"is_valid", is_valid, METH_O, "Whether the bytes are well-formed UTF-8 (bytes.decode('utf-8') succeeds)."},
    {"is_valid_scalar", is_valid_scalar, METH_O, "is_valid without SIMD (for tests)."},
    {"validity", validity, METH_O, "0: not UTF-8; 1: UTF-8; 2: UTF-8, all ASCII, with an ESC byte."},
    {"validity_scalar", validity_scalar_py, METH_O, "validity without SIMD (for tests)."},
    {"count", py_count, METH_O,
     "count(data, /)\n--\n\n(well-formed multi-byte sequences, errors) of data read as UTF-8."},
    {"more_sequences_than_errors", py_more_sequences, METH_O,
     "more_sequences_than_errors(data, /)\n--\n\nWhether count(data) has more sequences than errors."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "consumer.decoding._native.utf8",
    "UTF-8's validity and its sequences and errors counted, no text built (see utf8.c).", -1, methods,
};

PyMODINIT_FUNC PyInit_utf8(void)
{
    build_steps();
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        return NULL;
#ifdef HAVE_SSSE3_PATH
    __builtin_cpu_init();
    use_ssse3 = __builtin_cpu_supports("ssse3") != 0;
#endif
    if (PyModule_AddObjectRef(module, "SIMD", use_ssse3 ? Py_True : Py_False) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
