/* What every extension of consumer/decoding/_native shares: the 8-byte ASCII skip, the high-bit
 * masks, when the GIL is released, and how arguments are read.  One copy, included by each .c file
 * of this folder (one extension per concept; __init__.py says which and how they are loaded).
 */
#ifndef CRAWL_DECODER_NATIVE_H
#define CRAWL_DECODER_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Inputs of at least this many bytes are read without the GIL: below, releasing and taking it back
 * costs more than the other threads gain (64 KiB, a few tens of microseconds of decoding). */
#define RELEASE_GIL_FROM 65536

/* Eight bytes of a little- or big-endian 64-bit word: BYTES(b) repeats b in each, HIGH_BITS is bit 7
 * of each (zero in the word of eight ASCII bytes), LOW_BITS the other seven. */
#define BYTES(b) (0x0101010101010101ULL * (b))
#define HIGH_BITS 0x8080808080808080ULL
#define LOW_BITS 0x7F7F7F7F7F7F7F7FULL

/* The eight bytes at p as a word (memcpy: unaligned reads are fine, and compile to one load). */
static inline uint64_t load64(const unsigned char *p)
{
    uint64_t word;
    memcpy(&word, p, 8);
    return word;
}

/* Whether the eight bytes at p are all ASCII. */
static inline int ascii8(const unsigned char *p)
{
    return !(load64(p) & HIGH_BITS);
}

/* The ASCII skip: from k, eight bytes a step while all eight are ASCII; the position of the first
 * word holding a high byte, or of the last 0-7 bytes of in[0:n]. */
static inline Py_ssize_t skip_ascii(const unsigned char *in, Py_ssize_t k, Py_ssize_t n)
{
    while (k + 8 <= n && ascii8(in + k))
        k += 8;
    return k;
}

/* The GIL released for an input of n bytes, when worth it: pass the result to take_gil.  Also for
 * writing a new str: nobody else holds it yet. */
static inline PyThreadState *release_gil(Py_ssize_t n)
{
    return n >= RELEASE_GIL_FROM ? PyEval_SaveThread() : NULL;
}

static inline void take_gil(PyThreadState *saved)
{
    if (saved != NULL)
        PyEval_RestoreThread(saved);
}

/* -- arguments -------------------------------------------------------------------------------- */

/* The bytes of any object with the buffer protocol (bytes in practice); 0 on error (exception set).
 * Release with PyBuffer_Release. */
static inline int get_bytes(PyObject *arg, Py_buffer *view)
{
    return PyObject_GetBuffer(arg, view, PyBUF_SIMPLE) == 0;
}

/* Whether a fast call has the *expected* number of arguments; else 0 with a TypeError naming *usage*. */
static inline int expect_arguments(Py_ssize_t nargs, Py_ssize_t expected, const char *usage)
{
    if (nargs == expected)
        return 1;
    PyErr_Format(PyExc_TypeError, "expected %s: %zd arguments, got %zd", usage, expected, nargs);
    return 0;
}

/* A truth value argument in *out*; 0 on error (exception set). */
static inline int get_flag(PyObject *arg, int *out)
{
    *out = PyObject_IsTrue(arg);
    return *out >= 0;
}

/* An integer argument in *out*; 0 on error (exception set). */
static inline int get_index(PyObject *arg, Py_ssize_t *out)
{
    *out = PyLong_AsSsize_t(arg);
    return !(*out == -1 && PyErr_Occurred());
}

/* -- the module ------------------------------------------------------------------------------ */

/* The module consumer.decoding._native.NAME with *methods* and *doc*, and its PyInit_NAME, which runs
 * *setup* (a statement: building a table, or nothing) before creating it.  No extension keeps
 * per-module state; tables built at import are static. */
#define NATIVE_MODULE(NAME, DOC, METHODS, SETUP)                                                           \
    static struct PyModuleDef NAME##_module = {                                                            \
        PyModuleDef_HEAD_INIT, "consumer.decoding._native." #NAME, DOC, -1, METHODS, NULL, NULL, NULL, NULL, \
    };                                                                                                     \
    PyMODINIT_FUNC PyInit_##NAME(void)                                                                     \
    {                                                                                                      \
        SETUP;                                                                                             \
        return PyModule_Create(&NAME##_module);                                                            \
    }

#endif
