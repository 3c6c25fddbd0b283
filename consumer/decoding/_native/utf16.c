/* UTF-16BE and UTF-16LE, compiled: the Encoding Standard's shared UTF-16 decoder
 * (https://encoding.spec.whatwg.org/#shared-utf-16-decoder), two ways.  codecs/utf16.py says when
 * each runs; without this extension Python's codec decodes everything.
 *
 * decode_bmp(data, big_endian) -> str, or None when data has an odd length or a surrogate code unit
 *     The input where the decoder is simplest, and the only one most UTF-16 pages are: an even
 *     number of bytes and no code unit in D800..DFFF, where every code unit is its own code point
 *     and no error can occur.  Python's utf-16 codec builds its str while it decodes, upgrading its
 *     kind as it goes (bench/codecs.py sets it against encoding_rs decoding to UTF-16).  Here one
 *     pass ORs the code units (the OR picks the str's kind exactly: below 0x80 ASCII, below 0x100
 *     Latin-1) and flags surrogates, both vectorised by the compiler, and a second copies the units
 *     into a str of that kind (a memcpy when the byte order is the machine's).
 * decode(data, big_endian, fatal) -> (text, errors), or None when fatal and data holds an error
 *     The whole decoder, for what decode_bmp declines: surrogate pairs, lone surrogates and an odd
 *     trailing byte, errors counted as they are replaced.  Python's codec in error mode "replace"
 *     calls an error handler per lone surrogate (~8 MB/s on a body full of them), and counting the
 *     errors took a second decode.  Here one pass measures the text (length, widest code point,
 *     errors), a second writes it into a str of exactly that kind: linear in the input, at C speed
 *     whatever the errors.
 *
 * data is any object with the buffer protocol; the GIL is released from RELEASE_GIL_FROM bytes.
 * tests/decoding/codecs/test_codecs_utf.py checks both against a literal transcription of the
 * standard's algorithm.
 */
#include "native.h"

/* -- decode_bmp: no surrogates, no error -------------------------------------------------------- */

static inline uint16_t swap(uint16_t u)
{
    return (uint16_t)((u >> 8) | (u << 8));
}

/* The OR of the code units and whether one is a surrogate (D800..DFFF). */
static void scan(const unsigned char *in, Py_ssize_t units, int swapped, unsigned *bits, unsigned *surrogates)
{
    unsigned or_all = 0, any = 0;
    if (swapped) {
        for (Py_ssize_t k = 0; k < units; k++) {
            uint16_t u;
            memcpy(&u, in + 2 * k, 2);
            u = swap(u);
            or_all |= u;
            any |= (u & 0xF800) == 0xD800;
        }
    } else {
        for (Py_ssize_t k = 0; k < units; k++) {
            uint16_t u;
            memcpy(&u, in + 2 * k, 2);
            or_all |= u;
            any |= (u & 0xF800) == 0xD800;
        }
    }
    *bits = or_all;
    *surrogates = any;
}

static void copy(const unsigned char *in, Py_ssize_t units, int big_endian, int swapped, void *out, int kind)
{
    if (kind == PyUnicode_2BYTE_KIND && !swapped) {
        memcpy(out, in, 2 * units);
    } else if (kind == PyUnicode_2BYTE_KIND) {
        Py_UCS2 *target = out;
        for (Py_ssize_t k = 0; k < units; k++) {
            uint16_t u;
            memcpy(&u, in + 2 * k, 2);
            target[k] = swap(u);
        }
    } else {
        /* Every unit is below 0x100: its high byte is zero, its low byte the character. */
        Py_UCS1 *target = out;
        const unsigned char *low = in + (big_endian ? 1 : 0);
        for (Py_ssize_t k = 0; k < units; k++)
            target[k] = low[2 * k];
    }
}

/* -- decode: the whole decoder ----------------------------------------------------------------- */

typedef struct {
    Py_ssize_t length;  /* code points of the text */
    Py_UCS4 widest;
    Py_ssize_t errors;
} Measure;

static inline Py_UCS4 unit_at(const unsigned char *in, Py_ssize_t k, int big_endian)
{
    return big_endian ? ((Py_UCS4)in[2 * k] << 8) | in[2 * k + 1] : ((Py_UCS4)in[2 * k + 1] << 8) | in[2 * k];
}

static inline void emit(void *out, int kind, Py_ssize_t at, Py_UCS4 c)
{
    if (out != NULL)
        PyUnicode_WRITE(kind, out, at, c);
}

/* The standard's algorithm over the code units; out NULL only measures, else writes the text. */
static void walk(const unsigned char *in, Py_ssize_t n, int big_endian, void *out, int kind, Measure *m)
{
    Py_ssize_t units = n / 2, at = 0, errors = 0;
    Py_UCS4 widest = 0, lead = 0;  /* lead: a pending lead surrogate, 0 when none */
    for (Py_ssize_t k = 0; k < units; k++) {
        Py_UCS4 u = unit_at(in, k, big_endian), c;
        if (lead) {
            if (u >= 0xDC00 && u <= 0xDFFF) {
                c = 0x10000 + ((lead - 0xD800) << 10) + (u - 0xDC00);
                lead = 0;
                emit(out, kind, at++, c);
                widest = c > widest ? c : widest;
                continue;
            }
            /* A lead not followed by a trail: an error, and the unit is decoded afresh. */
            lead = 0;
            emit(out, kind, at++, 0xFFFD);
            errors++;
        }
        if (u >= 0xD800 && u <= 0xDBFF) {
            lead = u;
            continue;
        }
        c = (u >= 0xDC00 && u <= 0xDFFF) ? 0xFFFD : u;
        errors += c != u;
        emit(out, kind, at++, c);
        widest = c > widest ? c : widest;
    }
    /* End of input with a lead byte or lead surrogate pending: one error for either or both. */
    if (lead || n % 2) {
        emit(out, kind, at++, 0xFFFD);
        errors++;
    }
    if (errors)
        widest = widest > 0xFFFD ? widest : 0xFFFD;
    m->length = at;
    m->widest = widest;
    m->errors = errors;
}

static PyObject *py_decode_bmp(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    int big_endian;
    if (!expect_arguments(nargs, 2, "(data, big_endian)") || !get_flag(args[1], &big_endian))
        return NULL;
    Py_buffer view;
    if (!get_bytes(args[0], &view))
        return NULL;
    const unsigned char *in = view.buf;
    Py_ssize_t units = view.len / 2;
    int swapped = big_endian == PY_LITTLE_ENDIAN; /* the data's byte order is not the machine's */
    unsigned bits, surrogates;
    PyObject *text = NULL;
    if (view.len % 2) {
        text = Py_NewRef(Py_None);
        goto done;
    }
    PyThreadState *saved = release_gil(view.len);
    scan(in, units, swapped, &bits, &surrogates);
    take_gil(saved);
    if (surrogates) {
        text = Py_NewRef(Py_None);
        goto done;
    }
    text = PyUnicode_New(units, bits < 0x80 ? 0x7F : bits < 0x100 ? 0xFF : 0xFFFF);
    if (text == NULL)
        goto done;
    int kind = PyUnicode_KIND(text);
    void *out = PyUnicode_DATA(text);
    saved = release_gil(view.len);
    copy(in, units, big_endian, swapped, out, kind);
    take_gil(saved);
done:
    PyBuffer_Release(&view);
    return text;
}

static PyObject *py_decode(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    int big_endian, fatal;
    if (!expect_arguments(nargs, 3, "(data, big_endian, fatal)") || !get_flag(args[1], &big_endian) ||
        !get_flag(args[2], &fatal))
        return NULL;
    Py_buffer view;
    if (!get_bytes(args[0], &view))
        return NULL;
    const unsigned char *in = view.buf;
    PyObject *result = NULL;
    Measure m;
    PyThreadState *saved = release_gil(view.len);
    walk(in, view.len, big_endian, NULL, 0, &m);
    take_gil(saved);
    if (m.errors && fatal) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *text = PyUnicode_New(m.length, m.widest);
    if (text == NULL)
        goto done;
    Measure written;
    saved = release_gil(view.len);
    walk(in, view.len, big_endian, PyUnicode_DATA(text), PyUnicode_KIND(text), &written);
    take_gil(saved);
    result = Py_BuildValue("(Nn)", text, m.errors);
done:
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"decode_bmp", (PyCFunction)(void (*)(void))py_decode_bmp, METH_FASTCALL,
     "decode_bmp(data, big_endian, /)\n--\n\nUTF-16 of even length without surrogates as a str; None otherwise."},
    {"decode", (PyCFunction)(void (*)(void))py_decode, METH_FASTCALL,
     "decode(data, big_endian, fatal, /)\n--\n\n(text, errors) by the standard's UTF-16 decoder; None when fatal "
     "and data holds an error."},
    {NULL, NULL, 0, NULL},
};

NATIVE_MODULE(utf16, "UTF-16 decoded: at memory speed without surrogates, else errors replaced and counted (see utf16.c).", methods, (void)0)
