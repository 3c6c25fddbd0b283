/* The Encoding Standard's shared UTF-16 decoder (https://encoding.spec.whatwg.org/#shared-utf-16-decoder)
 * compiled whole: surrogate pairs, lone surrogates and an odd trailing byte, errors counted as they
 * are replaced.  utf16.py says when it runs (after _utf16_bmp.c declined: a surrogate or an odd length).
 *
 * decode(data, big_endian, fatal) -> (text, errors), or None when fatal and data holds an error
 *
 * Why: Python's codec in error mode "replace" calls an error handler per lone surrogate (~8 MB/s on
 * a body full of them), and counting the errors took a second decode.  Here one pass measures the
 * text (length, widest code point, errors), a second writes it into a str of exactly that kind:
 * linear in the input, at C speed whatever the errors.  tests/decoding/codecs/test_codecs_utf.py
 * checks it against a literal transcription of the standard's algorithm.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define RELEASE_GIL_FROM 65536

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

static PyObject *decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "expected (data, big_endian, fatal)");
        return NULL;
    }
    int big_endian = PyObject_IsTrue(args[1]);
    int fatal = PyObject_IsTrue(args[2]);
    if (big_endian < 0 || fatal < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *in = view.buf;
    int release = view.len >= RELEASE_GIL_FROM;
    PyObject *result = NULL;
    Measure m;
    PyThreadState *save = release ? PyEval_SaveThread() : NULL;
    walk(in, view.len, big_endian, NULL, 0, &m);
    if (save)
        PyEval_RestoreThread(save);
    if (m.errors && fatal) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *text = PyUnicode_New(m.length, m.widest);
    if (text == NULL)
        goto done;
    Measure written;
    /* Nobody else holds the str yet: it can be written without the GIL. */
    save = release ? PyEval_SaveThread() : NULL;
    walk(in, view.len, big_endian, PyUnicode_DATA(text), PyUnicode_KIND(text), &written);
    if (save)
        PyEval_RestoreThread(save);
    result = Py_BuildValue("(Nn)", text, m.errors);
done:
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"decode", (PyCFunction)(void (*)(void))decode, METH_FASTCALL,
     "decode(data, big_endian, fatal, /)\n--\n\n(text, errors) by the standard's UTF-16 decoder; None when fatal "
     "and data holds an error."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_utf16_errors", "The whole UTF-16 decoder, errors replaced and counted (see _utf16_errors.c).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__utf16_errors(void)
{
    return PyModule_Create(&module_def);
}
