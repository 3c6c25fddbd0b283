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
 * points of the non-ASCII bytes, skipping ASCII eight bytes a step, until one needs UCS-2 (which
 * picks the str's kind exactly); a second pass writes the str, copying ASCII words as they are and
 * counting the replacements as it writes them (an unmapped byte's 0xFFFE makes the str UCS-2, the
 * kind of U+FFFD; fatal drops the str when the count is not zero).  Linear in the input, the GIL released from
 * 64 KiB.  tests/decoding/codecs/test_codecs_single_byte_compiled.py checks it equal to the
 * reference over all 256 bytes of every encoding and over generated inputs.
 */
#include "native.h"

#define UNMAPPED 0xFFFE

/* Whether a byte's code point is 0x100 or more (an unmapped byte's 0xFFFE included): the str is
 * then UCS-2, and the scan stops there, since the write pass meets every byte anyway.  Else the
 * OR of the code points says whether it is ASCII or Latin-1. */
static unsigned scan(const unsigned char *in, Py_ssize_t n, const uint16_t *table)
{
    unsigned bits = 0;
    Py_ssize_t k = 0;
    while (k < n) {
        if (k + 8 <= n && ascii8(in + k)) {
            k += 8;
            continue;
        }
        Py_ssize_t stop = k + 8 < n ? k + 8 : n;
        for (; k < stop; k++)
            bits |= table[in[k]];
        if (bits >= 0x100)
            return bits;
    }
    return bits;
}

/* Every code point below 0x100: no byte is unmapped, each maps to one Latin-1 character. */
static void write_ucs1(const unsigned char *in, Py_ssize_t n, const uint16_t *table, Py_UCS1 *out)
{
    Py_ssize_t k = 0;
    while (k < n) {
        if (k + 8 <= n && ascii8(in + k)) {
            memcpy(out + k, in + k, 8);
            k += 8;
            continue;
        }
        Py_ssize_t stop = k + 8 < n ? k + 8 : n;
        for (; k < stop; k++)
            out[k] = (Py_UCS1)table[in[k]];
    }
}

/* Code points up to 0xFFFF; an unmapped byte becomes U+FFFD and is counted. */
static Py_ssize_t write_ucs2(const unsigned char *in, Py_ssize_t n, const uint16_t *table, Py_UCS2 *out)
{
    /* The table with U+FFFD for "no code point", and 1 there: the loop then has no branch. */
    uint16_t replaced[256];
    unsigned char unmapped[256];
    for (int b = 0; b < 256; b++) {
        unmapped[b] = table[b] == UNMAPPED;
        replaced[b] = unmapped[b] ? 0xFFFD : table[b];
    }
    Py_ssize_t errors = 0;
    Py_ssize_t k = 0;
    while (k < n) {
        if (k + 8 <= n && ascii8(in + k)) {
            for (int j = 0; j < 8; j++)
                out[k + j] = in[k + j];
            k += 8;
            continue;
        }
        Py_ssize_t stop = k + 8 < n ? k + 8 : n;
        for (; k < stop; k++) {
            out[k] = replaced[in[k]];
            errors += unmapped[in[k]];
        }
    }
    return errors;
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
