/* The Encoding Standard's single-byte decoder (https://encoding.spec.whatwg.org/#single-byte-decoder)
 * compiled, with an ASCII fast path.  single_byte.py says why and stays the reference.
 *
 * decode(table, data, fatal) -> (text, errors), or None when fatal and a byte is not in the index
 *     table  the encoding's 256 code points as an array('H') (single_byte.py builds it once, at
 *            import, from the generated index; 0xFFFE marks "index single-byte code point is null")
 *     data   any object with the buffer protocol
 *     errors the number of bytes the index lacks, each decoded as U+FFFD (error mode "replacement")
 *
 * Why: codecs.charmap_decode looks every byte up in a str and, in error mode "replace", calls an
 * error handler per unmapped byte (~8 MB/s on bodies full of them).  Here a scan ORs the code
 * points of the high bytes, 16 bytes a step, until one needs UCS-2 (which picks the str's kind
 * exactly); a second pass writes the str, 16 bytes a step: as Latin-1, each block copied and its
 * high bytes looked up; as UCS-2, an ASCII block widened and any other looked up byte by byte,
 * counting the replacements as it writes them (an unmapped byte's 0xFFFE makes the str UCS-2, the
 * kind of U+FFFD; fatal drops the str when the count is not zero).  Linear in the input, the GIL released from
 * 64 KiB.  bench/undeclared.py's pages: 34 us a 55 KiB page with eight-byte ASCII words, 18.5 with these blocks.  tests/decoding/codecs/test_codecs_single_byte_compiled.py checks it equal to the
 * reference over all 256 bytes of every encoding and over generated inputs.
 */
#include "native.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define UNMAPPED 0xFFFE

/* The high bytes of the 16 at p, one bit each (SSE2, in every x86-64; else from two words). */
static inline unsigned high_bits16(const unsigned char *p)
{
#if defined(__SSE2__)
    return (unsigned)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)p));
#else
    unsigned mask = 0;
    for (int j = 0; j < 16; j++)
        mask |= (unsigned)(p[j] >> 7) << j;
    return mask;
#endif
}

/* Whether a byte's code point is 0x100 or more (an unmapped byte's 0xFFFE included): the str is
 * then UCS-2, and the scan stops there, since the write pass meets every byte anyway.  Else the
 * OR of the code points says whether it is ASCII or Latin-1.  Only the high bytes are looked up. */
static unsigned scan(const unsigned char *in, Py_ssize_t n, const uint16_t *table)
{
    unsigned bits = 0;
    Py_ssize_t k = 0;
    for (; k + 16 <= n; k += 16) {
        for (unsigned mask = high_bits16(in + k); mask; mask &= mask - 1)
            bits |= table[in[k + __builtin_ctz(mask)]];
        if (bits >= 0x100)
            return bits;
    }
    for (; k < n; k++)
        bits |= table[in[k]];
    return bits;
}

/* Every code point below 0x100: no byte is unmapped, each maps to one Latin-1 character.  A block is copied, and
 * its high bytes are looked up. */
static void write_ucs1(const unsigned char *in, Py_ssize_t n, const uint16_t *table, Py_UCS1 *out)
{
    Py_ssize_t k = 0;
    for (; k + 16 <= n; k += 16) {
        memcpy(out + k, in + k, 16);
        for (unsigned mask = high_bits16(in + k); mask; mask &= mask - 1) {
            int j = __builtin_ctz(mask);
            out[k + j] = (Py_UCS1)table[in[k + j]];
        }
    }
    for (; k < n; k++)
        out[k] = (Py_UCS1)table[in[k]];
}

/* UCS-2 by *lookup*, 16 bytes at a time: an ASCII block is widened as it is (SSE2, in every x86-64), any other
 * looked up byte by byte (a non-Latin script's text has a high byte nearly everywhere, and a branch on how many a
 * block has costs more than it saves).  An entry holds the code point and, above it, 1 for an unmapped byte: with
 * *count*, one load a byte gives both.  Inlined with *count* a constant, each caller gets its own loop. */
static inline Py_ssize_t write_ucs2_by(const unsigned char *in, Py_ssize_t n, const uint32_t *lookup, int count,
                                       Py_UCS2 *out)
{
    Py_ssize_t errors = 0;
    Py_ssize_t k = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    for (; k + 16 <= n; k += 16) {
        __m128i block = _mm_loadu_si128((const __m128i *)(in + k));
        if (!_mm_movemask_epi8(block)) {
            _mm_storeu_si128((__m128i *)(out + k), _mm_unpacklo_epi8(block, zero));
            _mm_storeu_si128((__m128i *)(out + k + 8), _mm_unpackhi_epi8(block, zero));
            continue;
        }
        for (int j = 0; j < 16; j++) {
            uint32_t entry = lookup[in[k + j]];
            out[k + j] = (Py_UCS2)entry;
            if (count)
                errors += entry >> 16;
        }
    }
#endif
    for (; k < n; k++) {
        uint32_t entry = lookup[in[k]];
        out[k] = (Py_UCS2)entry;
        errors += entry >> 16;
    }
    return errors;
}

/* Code points up to 0xFFFF; an unmapped byte becomes U+FFFD and is counted.  Most tables map every byte: their
 * loop keeps no count. */
static Py_ssize_t write_ucs2(const unsigned char *in, Py_ssize_t n, const uint16_t *table, Py_UCS2 *out)
{
    uint32_t lookup[256];
    int any_unmapped = 0;
    for (int b = 0; b < 256; b++) {
        lookup[b] = table[b] == UNMAPPED ? 0x1FFFD : table[b];
        any_unmapped |= table[b] == UNMAPPED;
    }
    return any_unmapped ? write_ucs2_by(in, n, lookup, 1, out) : write_ucs2_by(in, n, lookup, 0, out);
}

static PyObject *decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    int fatal;
    if (!expect_arguments(nargs, 3, "(table, data, fatal)") || !get_flag(args[2], &fatal))
        return NULL;
    Py_buffer table_view, view;
    if (!get_bytes(args[0], &table_view))
        return NULL;
    if (table_view.len != 256 * sizeof(uint16_t)) {
        PyBuffer_Release(&table_view);
        PyErr_SetString(PyExc_ValueError, "table must hold 256 16-bit code points");
        return NULL;
    }
    if (!get_bytes(args[1], &view)) {
        PyBuffer_Release(&table_view);
        return NULL;
    }
    const uint16_t *table = table_view.buf;
    const unsigned char *in = view.buf;
    Py_ssize_t n = view.len;
    PyObject *result = NULL;
    PyThreadState *saved = release_gil(n);
    unsigned bits = scan(in, n, table);
    take_gil(saved);
    PyObject *text = PyUnicode_New(n, bits < 0x80 ? 0x7F : bits < 0x100 ? 0xFF : 0xFFFF);
    if (text == NULL)
        goto done;
    Py_ssize_t errors = 0;
    /* Nobody else holds the str yet: it can be written without the GIL. */
    saved = release_gil(n);
    if (PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND)
        write_ucs1(in, n, table, PyUnicode_1BYTE_DATA(text));
    else
        errors = write_ucs2(in, n, table, PyUnicode_2BYTE_DATA(text));
    take_gil(saved);
    if (errors && fatal) {
        Py_DECREF(text);
        result = Py_NewRef(Py_None);
    } else {
        result = Py_BuildValue("(Nn)", text, errors);
    }
done:
    PyBuffer_Release(&view);
    PyBuffer_Release(&table_view);
    return result;
}

static PyMethodDef methods[] = {
    {"decode", (PyCFunction)(void (*)(void))decode, METH_FASTCALL,
     "decode(table, data, fatal, /)\n--\n\n(text, errors) by the 256 code points of table; None when fatal and "
     "a byte is unmapped."},
    {NULL, NULL, 0, NULL},
};

NATIVE_MODULE(single_byte, "The single-byte decoder with an ASCII fast path (see single_byte.c).", methods, (void)0)
