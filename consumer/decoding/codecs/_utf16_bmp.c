/* UTF-16 text without surrogates, decoded at memory speed: the Encoding Standard's shared UTF-16
 * decoder (https://encoding.spec.whatwg.org/#shared-utf-16-decoder) for the input where it is
 * simplest, and the only one most UTF-16 pages are: an even number of bytes and no code unit in
 * D800..DFFF.  There every code unit is its own code point and no error can occur.
 *
 * decode(data, big_endian) -> str, or None when data has an odd length or a surrogate code unit
 *     data is any object with the buffer protocol.  utf16.py decodes the None cases with Python's
 *     codec (surrogate pairs, errors: the standard's rules, which tests check), and everything
 *     when this extension was not built.
 *
 * Why: Python's utf-16 codec builds its str while it decodes, upgrading its kind as it goes
 * (bench/codecs.py sets it against encoding_rs decoding to UTF-16).  Here one pass
 * ORs the code units (the OR picks the str's kind exactly: below 0x80 ASCII, below 0x100 Latin-1)
 * and flags surrogates, both vectorised by the compiler, and a second copies the units into a str
 * of that kind (a memcpy when the byte order is the machine's).  The GIL is released from 64 KiB.
 * tests/decoding/codecs/test_codecs_utf.py checks it against the standard's algorithm.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define RELEASE_GIL_FROM 65536

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

static PyObject *decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "expected (data, big_endian)");
        return NULL;
    }
    int big_endian = PyObject_IsTrue(args[1]);
    if (big_endian < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
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
    if (view.len >= RELEASE_GIL_FROM) {
        Py_BEGIN_ALLOW_THREADS
        scan(in, units, swapped, &bits, &surrogates);
        Py_END_ALLOW_THREADS
    } else {
        scan(in, units, swapped, &bits, &surrogates);
    }
    if (surrogates) {
        text = Py_NewRef(Py_None);
        goto done;
    }
    text = PyUnicode_New(units, bits < 0x80 ? 0x7F : bits < 0x100 ? 0xFF : 0xFFFF);
    if (text == NULL)
        goto done;
    int kind = PyUnicode_KIND(text);
    void *out = PyUnicode_DATA(text);
    /* Nobody else holds the str yet: it can be written without the GIL. */
    if (view.len >= RELEASE_GIL_FROM) {
        Py_BEGIN_ALLOW_THREADS
        copy(in, units, big_endian, swapped, out, kind);
        Py_END_ALLOW_THREADS
    } else {
        copy(in, units, big_endian, swapped, out, kind);
    }
done:
    PyBuffer_Release(&view);
    return text;
}

static PyMethodDef methods[] = {
    {"decode", (PyCFunction)(void (*)(void))decode, METH_FASTCALL,
     "decode(data, big_endian, /)\n--\n\nUTF-16 of even length without surrogates as a str; None otherwise."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_utf16_bmp", "UTF-16 without surrogates, decoded at memory speed (see _utf16_bmp.c).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__utf16_bmp(void)
{
    return PyModule_Create(&module_def);
}
