/* How a body that is not valid UTF-8 reads as UTF-8: the Encoding Standard's UTF-8 decoder
 * (https://encoding.spec.whatwg.org/#utf-8-decoder) run for its counts only, no text built.
 *
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
 * much as detection itself.  Here one pass over a transition table, ASCII eight bytes a step, linear in the input.
 * utf8.py keeps the decoding answer as the reference; tests/decoding/codecs/test_utf8_count.py
 * checks the two agree.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define RELEASE_GIL_FROM 65536
#define HIGH_BITS 0x8080808080808080ULL

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
#define LOW_BITS 0x7F7F7F7F7F7F7F7FULL
#define BYTES(b) (0x0101010101010101ULL * (b))

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
        uint64_t word;
        memcpy(&word, in + k, 8);
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
        if (state == 0 && k + 8 <= n) {
            uint64_t word;
            memcpy(&word, in + k, 8);
            if (!(word & HIGH_BITS)) {
                k += 8;
                continue;
            }
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

static PyObject *py_more_sequences(PyObject *module, PyObject *data)
{
    (void)module;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    int more;
    if (view.len >= RELEASE_GIL_FROM) {
        Py_BEGIN_ALLOW_THREADS
        more = more_sequences(view.buf, view.len);
        Py_END_ALLOW_THREADS
    } else {
        more = more_sequences(view.buf, view.len);
    }
    PyBuffer_Release(&view);
    return PyBool_FromLong(more);
}

static PyObject *py_count(PyObject *module, PyObject *data)
{
    (void)module;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t sequences, errors;
    if (view.len >= RELEASE_GIL_FROM) {
        Py_BEGIN_ALLOW_THREADS
        count(view.buf, view.len, &sequences, &errors);
        Py_END_ALLOW_THREADS
    } else {
        count(view.buf, view.len, &sequences, &errors);
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("(nn)", sequences, errors);
}

static PyMethodDef methods[] = {
    {"count", py_count, METH_O,
     "count(data, /)\n--\n\n(well-formed multi-byte sequences, errors) of data read as UTF-8."},
    {"more_sequences_than_errors", py_more_sequences, METH_O,
     "more_sequences_than_errors(data, /)\n--\n\nWhether count(data) has more sequences than errors."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_utf8_count", "UTF-8's sequences and errors counted, no text built (see _utf8_count.c).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__utf8_count(void)
{
    build_steps();
    return PyModule_Create(&module_def);
}
