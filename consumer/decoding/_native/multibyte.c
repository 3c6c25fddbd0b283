/* The Encoding Standard's legacy multi-byte decoders, compiled: Shift_JIS, EUC-JP, EUC-KR, Big5,
 * gb18030 (GBK's decoder is gb18030's) and ISO-2022-JP, table-driven over the standard's indexes.
 *
 * Each function transcribes the standard's decoder (https://encoding.spec.whatwg.org/ sections 11
 * to 14; each names its section) with the same error cases and "prepend byte" rules as the readable
 * Python modules beside this file (shift_jis.py, euc_jp.py, euc_kr.py, big5.py, gb18030.py,
 * iso_2022_jp.py), which stay the reference: tests/decoding/codecs/test_codecs_compiled.py checks
 * this file against them on every one- and two-byte sequence, gb18030's four-byte ranges, sampled
 * ISO-2022-JP escapes, random and mutated text, in both error modes.  Like those modules, each
 * decoder walks a position instead of a queue: "prepend byte to stream" always prepends the bytes
 * just read, so it is "advance by fewer bytes".
 *
 * configure(jis0208, jis0212, euc_kr, big5, gb18030, gb18030_range_pointers,
 *           gb18030_range_code_points)
 *     Once, at import (multibyte.py): every index as an array('I') of code points by pointer,
 *     0xFFFE where the index has no code point (the generated whatwg.py's NO_CODE_POINT), built
 *     from consumer/decoding/data/whatwg.py, the only place the standard's data lives.
 * shift_jis(data, fatal), euc_jp(...), euc_kr(...), big5(...), gb18030(...), iso_2022_jp(...)
 *     data is any object with the buffer protocol.  Error mode replacement (fatal false): returns
 *     (text, number of U+FFFD the decoder introduced).  Error mode fatal: returns (text, 0), or
 *     None at the first error.
 *
 * Linear time and bounded memory: every step of the stateless decoders consumes at least one byte
 * (a "prepend" consumes fewer bytes than it read, never none); ISO-2022-JP's steps that consume
 * nothing (escape start and escape prepending) move to a state that consumes the byte next, so a
 * byte is read at most three times.  Output is one UCS-2 buffer of at most input length + 4 code
 * units (no step emits more characters than it consumes bytes, but for one error at the end of
 * ISO-2022-JP input), copied once into a str of the smallest kind.  When Big5 or gb18030 meets a
 * supplementary code point, the UCS-2 str is freed and the input decoded again from its start
 * straight into a UCS-4 str, shrunk in place at the end: never two copies of the text alive, so
 * memory peaks at 4 bytes a character (widening in place had held the UCS-2 str, a UCS-4 scratch
 * and the final str together, 10x the input; bench/memory.py).  The GIL is released while decoding inputs of
 * 64 KiB and more (the processor's commit thread runs meanwhile); below that, releasing and taking
 * it back costs more than it frees.
 */
#include "native.h"

/* The generated indexes mark a pointer they lack with U+FFFE, which no index maps to. */
#define NONE 0xFFFEu

/* -- the indexes ---------------------------------------------------------------------------------
 * Each table is padded with NONE up to the largest pointer its decoders can compute, so a lookup
 * needs no bounds check:
 *   jis0208: Shift_JIS lead 0xFC, trail 0xFC: (0xFC - 0xC1) * 188 + 0xFC - 0x41 = 11279
 *            (EUC-JP's and ISO-2022-JP's largest, 93 * 94 + 93 = 8835, is smaller)
 *   jis0212: 93 * 94 + 93 = 8835
 *   EUC-KR and gb18030: (0xFE - 0x81) * 190 + 0xFE - 0x41 = 23939
 *   Big5: (0xFE - 0x81) * 157 + 0xFE - 0x62 = 19781
 * The BMP-only indexes are stored as 16-bit code points, half the cache lines of 32. */
#define JIS0208_SIZE 11280
#define JIS0212_SIZE 8836
#define EUC_KR_SIZE 23940
#define GB18030_SIZE 23940
#define BIG5_SIZE 19782
#define MAX_RANGES 1024

static uint16_t index_jis0208[JIS0208_SIZE];
static uint16_t index_jis0212[JIS0212_SIZE];
static uint16_t index_euc_kr[EUC_KR_SIZE];
static uint16_t index_gb18030[GB18030_SIZE];
static uint32_t index_big5[BIG5_SIZE];
/* Shift_JIS's and Big5's pointer arithmetic as tables: a lead's row start and a trail's column,
 * NOT_IN_RANGE where the byte is no lead or trail, so that the pointer is one addition and one
 * sign test instead of four range tests and two offset choices that mispredict as text switches
 * between leads below and above 0xA0 (gb18030's two-byte trails likewise). */
#define NOT_IN_RANGE (-0x40000)
static int32_t shift_jis_row[256], shift_jis_column[256], big5_row[256], big5_column[256], gb18030_column[256];

static void build_arithmetic(void)
{
    for (int b = 0; b < 256; b++) {
        int sjis_lead = (b >= 0x81 && b <= 0x9F) || (b >= 0xE0 && b <= 0xFC);
        shift_jis_row[b] = sjis_lead ? (b - (b < 0xA0 ? 0x81 : 0xC1)) * 188 : NOT_IN_RANGE;
        shift_jis_column[b] = (b >= 0x40 && b <= 0x7E) || (b >= 0x80 && b <= 0xFC) ? b - (b < 0x7F ? 0x40 : 0x41)
                                                                                  : NOT_IN_RANGE;
        big5_row[b] = b >= 0x81 && b <= 0xFE ? (b - 0x81) * 157 : NOT_IN_RANGE;
        big5_column[b] = (b >= 0x40 && b <= 0x7E) || (b >= 0xA1 && b <= 0xFE) ? b - (b < 0x7F ? 0x40 : 0x62)
                                                                               : NOT_IN_RANGE;
        gb18030_column[b] = (b >= 0x40 && b <= 0x7E) || (b >= 0x80 && b <= 0xFE) ? b - (b < 0x7F ? 0x40 : 0x41)
                                                                                  : NOT_IN_RANGE;
    }
}

/* Big5's four pointers that decode to two code points are marked in its table with values above
 * U+10FFFF, so the common case (one BMP code point) is one test. */
#define BIG5_PAIR 0x110000u
static const uint32_t big5_pair_pointers[4] = {1133, 1135, 1164, 1166};
static const Py_UCS2 big5_pairs[4][2] = {{0x00CA, 0x0304}, {0x00CA, 0x030C}, {0x00EA, 0x0304}, {0x00EA, 0x030C}};

static uint32_t range_pointers[MAX_RANGES];
static uint32_t range_code_points[MAX_RANGES];
static Py_ssize_t range_count;
static int configured;

/* Copies an array('I') of code points into *table* (16- or 32-bit), NONE past its end. */
static int load(PyObject *source, void *table, Py_ssize_t size, int wide, const char *name)
{
    Py_buffer view;
    if (PyObject_GetBuffer(source, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    int ok = view.itemsize == 4 && view.format != NULL && strcmp(view.format, "I") == 0;
    Py_ssize_t count = ok ? view.len / 4 : 0;
    if (!ok || count > size) {
        PyErr_Format(PyExc_ValueError, "%s: expected an array('I') of at most %zd code points", name, size);
        PyBuffer_Release(&view);
        return -1;
    }
    const uint32_t *code_points = view.buf;
    for (Py_ssize_t p = 0; p < size; p++) {
        uint32_t c = p < count ? code_points[p] : NONE;
        if (c > 0x10FFFF || (!wide && c > 0xFFFF)) {
            PyErr_Format(PyExc_ValueError, "%s: code point %#x at pointer %zd does not fit", name, c, p);
            PyBuffer_Release(&view);
            return -1;
        }
        if (wide)
            ((uint32_t *)table)[p] = c;
        else
            ((uint16_t *)table)[p] = (uint16_t)c;
    }
    PyBuffer_Release(&view);
    return 0;
}

static PyObject *configure(PyObject *module, PyObject *args)
{
    PyObject *j208, *j212, *kr, *b5, *gb, *rp, *rc;
    if (!PyArg_ParseTuple(args, "OOOOOOO:configure", &j208, &j212, &kr, &b5, &gb, &rp, &rc))
        return NULL;
    if (configured) {
        /* Decoding threads may be reading the tables without the GIL. */
        PyErr_SetString(PyExc_RuntimeError, "configure() may run only once");
        return NULL;
    }
    if (load(j208, index_jis0208, JIS0208_SIZE, 0, "jis0208") < 0 || load(j212, index_jis0212, JIS0212_SIZE, 0, "jis0212") < 0
        || load(kr, index_euc_kr, EUC_KR_SIZE, 0, "euc_kr") < 0 || load(gb, index_gb18030, GB18030_SIZE, 0, "gb18030") < 0
        || load(b5, index_big5, BIG5_SIZE, 1, "big5") < 0)
        return NULL;
    /* Shift_JIS reads pointers 8836..10715 (leads F0..F9) as the user-defined area, U+E000 on,
     * before the index; EUC-JP's and ISO-2022-JP's pointers stop at 8835.  So the area can live
     * in the shared table: one lookup for every Shift_JIS pair. */
    for (unsigned pointer = 8836; pointer <= 10715; pointer++)
        index_jis0208[pointer] = (uint16_t)(0xE000 - 8836 + pointer);
    for (int k = 0; k < 4; k++)
        index_big5[big5_pair_pointers[k]] = BIG5_PAIR + k;
    Py_buffer pointers, code_points;
    if (PyObject_GetBuffer(rp, &pointers, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (PyObject_GetBuffer(rc, &code_points, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&pointers);
        return NULL;
    }
    Py_ssize_t count = pointers.len / 4;
    int ok = pointers.itemsize == 4 && code_points.itemsize == 4 && pointers.len == code_points.len
             && count > 0 && count <= MAX_RANGES && strcmp(pointers.format, "I") == 0
             && strcmp(code_points.format, "I") == 0 && ((uint32_t *)pointers.buf)[0] == 0;
    for (Py_ssize_t k = 1; ok && k < count; k++)
        ok = ((uint32_t *)pointers.buf)[k - 1] < ((uint32_t *)pointers.buf)[k];
    if (ok) {
        memcpy(range_pointers, pointers.buf, count * 4);
        memcpy(range_code_points, code_points.buf, count * 4);
        range_count = count;
    }
    PyBuffer_Release(&pointers);
    PyBuffer_Release(&code_points);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "gb18030 ranges: expected two equal array('I'), ascending pointers from 0");
        return NULL;
    }
    configured = 1;
    Py_RETURN_NONE;
}

/* -- output ---------------------------------------------------------------------------------------
 * The decoders write UCS-2 straight into the buffer of a new str of input length + 4 characters,
 * which is shrunk in place at the end: no scratch buffer, whose allocation would cost a page fault
 * per 4 KiB on every call once malloc returns freed memory to the system (measured: EUC-KR at 256
 * KB ran at half speed).  Big5 and gb18030 move to a UCS-4 buffer on their first supplementary code
 * point.  *bits* is the OR of every code point written: below 0x80 every one is ASCII, below 0x100
 * every one is Latin-1, so it picks the str's kind exactly without a second pass.  No step emits
 * more characters than it consumes bytes (ISO-2022-JP's errors that consume nothing each follow a
 * lead byte or ESC that emitted nothing), so input length + 4 is never reached: ISO-2022-JP, whose
 * argument is the least obvious, checks it anyway and fails safe. */
typedef struct {
    Py_UCS2 *u2; /* the UCS-2 str's buffer, or NULL */
    Py_UCS4 *u4; /* the UCS-4 str's buffer (a decode begun again, see WIDER), or NULL */
    Py_ssize_t capacity;
    Py_ssize_t length;
    Py_UCS4 bits;
    Py_ssize_t errors;
} Sink;

/* WIDER: a supplementary code point met while writing UCS-2; run() decodes again into UCS-4. */
enum { DONE = 0, FAILED = 1, WIDER = 2, NO_MEMORY = -1, OVERFLOW = -2 };

/* Copies a run of ASCII bytes: 8 bytes a test, the widening loop is vectorised by the compiler. */
#define COPY_ASCII(out, in, i, o, n)                                                                 \
    do {                                                                                             \
        while ((i) + 8 <= (n)) {                                                                     \
            if (!ascii8((in) + (i)))                                                                 \
                break;                                                                               \
            for (int k_ = 0; k_ < 8; k_++)                                                           \
                (out)[(o) + k_] = (in)[(i) + k_];                                                    \
            (i) += 8;                                                                                \
            (o) += 8;                                                                                \
        }                                                                                            \
        while ((i) < (n) && (in)[i] < 0x80)                                                          \
            (out)[(o)++] = (in)[(i)++];                                                              \
    } while (0)

/* An error: fatal stops, replacement writes U+FFFD and counts it. */
#define ERROR_BMP()                                                                                  \
    do {                                                                                             \
        if (fatal)                                                                                   \
            return FAILED;                                                                           \
        errors++;                                                                                    \
        bits |= 0xFFFD;                                                                              \
        out[o++] = 0xFFFD;                                                                           \
    } while (0)

#define SAVE_BMP()                                                                                   \
    do {                                                                                             \
        s->length = o;                                                                               \
        s->bits |= bits;                                                                             \
        s->errors += errors;                                                                         \
    } while (0)

/* -- Shift_JIS: https://encoding.spec.whatwg.org/#shift_jis-decoder ------------------------------- */

static int decode_shift_jis(const unsigned char *in, Py_ssize_t n, int fatal, Sink *s)
{
    Py_UCS2 *out = s->u2;
    Py_ssize_t i = 0, o = 0, errors = 0;
    Py_UCS4 bits = 0;
    while (i < n) {
        unsigned b = in[i];
        if (b < 0x80) {
            COPY_ASCII(out, in, i, o, n);
            continue;
        }
        int32_t row = shift_jis_row[b];
        if (row >= 0) { /* a lead */
            if (i + 1 == n) { /* at the end of the stream */
                ERROR_BMP();
                i++;
                continue;
            }
            unsigned t = in[i + 1];
            int32_t pointer = row + shift_jis_column[t];
            if (pointer >= 0) {
                /* The table holds the user-defined area too (see configure). */
                unsigned c = index_jis0208[pointer];
                if (c != NONE) {
                    bits |= c;
                    out[o++] = (Py_UCS2)c;
                    i += 2;
                    continue;
                }
            }
            ERROR_BMP();
            i += t < 0x80 ? 1 : 2; /* an ASCII trail is prepended: decoded afresh */
        } else if (b == 0x80) {
            bits |= b;
            out[o++] = 0x80;
            i++;
        } else if (b >= 0xA1 && b <= 0xDF) {
            bits |= 0xFF61 - 0xA1 + b;
            out[o++] = 0xFF61 - 0xA1 + b;
            i++;
        } else {
            ERROR_BMP();
            i++;
        }
    }
    SAVE_BMP();
    return DONE;
}

/* -- EUC-JP: https://encoding.spec.whatwg.org/#euc-jp-decoder ------------------------------------- */

static int decode_euc_jp(const unsigned char *in, Py_ssize_t n, int fatal, Sink *s)
{
    Py_UCS2 *out = s->u2;
    Py_ssize_t i = 0, o = 0, errors = 0;
    Py_UCS4 bits = 0;
    while (i < n) {
        unsigned b = in[i];
        if (b < 0x80) {
            COPY_ASCII(out, in, i, o, n);
            continue;
        }
        if (b >= 0xA1 && b <= 0xFE && i + 1 < n) { /* the common case first: a JIS X 0208 pair */
            unsigned t = in[i + 1];
            unsigned c = t >= 0xA1 && t <= 0xFE ? index_jis0208[(b - 0xA1) * 94 + t - 0xA1] : NONE;
            if (c != NONE) {
                bits |= c;
                out[o++] = (Py_UCS2)c;
                i += 2;
                continue;
            }
        }
        if (!(b == 0x8E || b == 0x8F || (b >= 0xA1 && b <= 0xFE)) || i + 1 == n) {
            ERROR_BMP();
            i++;
            continue;
        }
        unsigned second = in[i + 1];
        if (b == 0x8E && second >= 0xA1 && second <= 0xDF) {
            bits |= 0xFF61 - 0xA1 + second;
            out[o++] = 0xFF61 - 0xA1 + second;
            i += 2;
            continue;
        }
        const uint16_t *index = index_jis0208;
        unsigned lead = b, trail = second;
        Py_ssize_t used = 0; /* bytes before the lead: 0x8F when jis0212 */
        if (b == 0x8F && second >= 0xA1 && second <= 0xFE) {
            /* The jis0212 flag is set and the second byte becomes the lead. */
            if (i + 2 == n) { /* the pending lead at the end of the stream: one error for both */
                ERROR_BMP();
                i += 2;
                continue;
            }
            index = index_jis0212;
            lead = second;
            trail = in[i + 2];
            used = 1;
        }
        if (lead >= 0xA1 && lead <= 0xFE && trail >= 0xA1 && trail <= 0xFE) {
            unsigned c = index[(lead - 0xA1) * 94 + trail - 0xA1];
            if (c != NONE) {
                bits |= c;
                out[o++] = (Py_UCS2)c;
                i += used + 2;
                continue;
            }
        }
        ERROR_BMP();
        i += used + (trail < 0x80 ? 1 : 2); /* an ASCII trail is prepended: decoded afresh */
    }
    SAVE_BMP();
    return DONE;
}

/* -- EUC-KR: https://encoding.spec.whatwg.org/#euc-kr-decoder ------------------------------------- */

static int decode_euc_kr(const unsigned char *in, Py_ssize_t n, int fatal, Sink *s)
{
    Py_UCS2 *out = s->u2;
    Py_ssize_t i = 0, o = 0, errors = 0;
    Py_UCS4 bits = 0;
    while (i < n) {
        unsigned b = in[i];
        if (b < 0x80) {
            COPY_ASCII(out, in, i, o, n);
            continue;
        }
        if (b < 0x81 || b == 0xFF || i + 1 == n) {
            ERROR_BMP();
            i++;
            continue;
        }
        unsigned t = in[i + 1];
        if (t >= 0x41 && t <= 0xFE) {
            unsigned c = index_euc_kr[(b - 0x81) * 190 + t - 0x41];
            if (c != NONE) {
                bits |= c;
                out[o++] = (Py_UCS2)c;
                i += 2;
                continue;
            }
        }
        ERROR_BMP();
        i += t < 0x80 ? 1 : 2; /* an ASCII trail is prepended: decoded afresh */
    }
    SAVE_BMP();
    return DONE;
}

/* -- Big5 and gb18030: code points beyond the BMP ------------------------------------------------
 * These two write through PUT, which gives up (WIDER) on the first supplementary code point met
 * while writing UCS-2. */
#define PUT(cp)                                                                                      \
    do {                                                                                             \
        Py_UCS4 c_ = (cp);                                                                           \
        bits |= c_;                                                                                  \
        if (u4 != NULL) {                                                                            \
            u4[o++] = c_;                                                                            \
        } else if (c_ <= 0xFFFF) {                                                                   \
            u2[o++] = (Py_UCS2)c_;                                                                   \
        } else {                                                                                     \
            return WIDER;                                                                            \
        }                                                                                            \
    } while (0)

#define ERROR_ANY()                                                                                  \
    do {                                                                                             \
        if (fatal)                                                                                   \
            return FAILED;                                                                           \
        errors++;                                                                                    \
        PUT(0xFFFD);                                                                                 \
    } while (0)

#define COPY_ASCII_ANY()                                                                             \
    do {                                                                                             \
        if (u4 != NULL)                                                                              \
            COPY_ASCII(u4, in, i, o, n);                                                             \
        else                                                                                         \
            COPY_ASCII(u2, in, i, o, n);                                                             \
    } while (0)

/* -- Big5: https://encoding.spec.whatwg.org/#big5-decoder ----------------------------------------- */

static int decode_big5(const unsigned char *in, Py_ssize_t n, int fatal, Sink *s)
{
    Py_UCS2 *u2 = s->u2;
    Py_UCS4 *u4 = s->u4;
    Py_ssize_t i = 0, o = 0, errors = 0;
    Py_UCS4 bits = 0;
    while (i < n) {
        unsigned b = in[i];
        if (b < 0x80) {
            COPY_ASCII_ANY();
            continue;
        }
        int32_t row = big5_row[b];
        if (row < 0 || i + 1 == n) {
            ERROR_ANY();
            i++;
            continue;
        }
        unsigned t = in[i + 1];
        int32_t pointer = row + big5_column[t];
        if (pointer >= 0) {
            uint32_t c = index_big5[pointer];
            if (c < NONE && u2 != NULL) { /* the common case: one BMP code point, UCS-2 output */
                bits |= c;
                u2[o++] = (Py_UCS2)c;
                i += 2;
                continue;
            }
            if (c >= BIG5_PAIR) { /* a base letter and a combining mark: two code points */
                PUT(big5_pairs[c - BIG5_PAIR][0]);
                PUT(big5_pairs[c - BIG5_PAIR][1]);
                i += 2;
                continue;
            }
            if (c != NONE) {
                PUT(c);
                i += 2;
                continue;
            }
        }
        ERROR_ANY();
        i += t < 0x80 ? 1 : 2; /* an ASCII trail is prepended: decoded afresh */
    }
    s->length = o;
    s->bits |= bits;
    s->errors += errors;
    return DONE;
}

/* -- gb18030: https://encoding.spec.whatwg.org/#gb18030-decoder ----------------------------------- */

/* The standard's "index gb18030 ranges code point"; -1 for null (0xFFFE is a real answer here). */
static int64_t ranges_code_point(uint32_t pointer)
{
    if ((pointer > 39419 && pointer < 189000) || pointer > 1237575)
        return -1;
    if (pointer == 7457)
        return 0xE7C7;
    /* The last range whose pointer is at most *pointer* (range_pointers[0] is 0). */
    Py_ssize_t low = 0, high = range_count;
    while (high - low > 1) {
        Py_ssize_t middle = (low + high) / 2;
        if (range_pointers[middle] <= pointer)
            low = middle;
        else
            high = middle;
    }
    return (int64_t)range_code_points[low] + pointer - range_pointers[low];
}

static int decode_gb18030(const unsigned char *in, Py_ssize_t n, int fatal, Sink *s)
{
    Py_UCS2 *u2 = s->u2;
    Py_UCS4 *u4 = s->u4;
    Py_ssize_t i = 0, o = 0, errors = 0;
    Py_UCS4 bits = 0;
    while (i < n) {
        unsigned b = in[i];
        if (b < 0x80) {
            COPY_ASCII_ANY();
            continue;
        }
        if (b != 0x80 && b != 0xFF && i + 1 < n && u2 != NULL) { /* the common case first: a pair */
            int32_t pointer = (int32_t)(b - 0x81) * 190 + gb18030_column[in[i + 1]];
            unsigned c = pointer >= 0 ? index_gb18030[pointer] : NONE;
            if (c != NONE) {
                bits |= c;
                u2[o++] = (Py_UCS2)c;
                i += 2;
                continue;
            }
        }
        if (b == 0x80) {
            PUT(0x20AC);
            i++;
            continue;
        }
        if (b == 0xFF || i + 1 == n) {
            ERROR_ANY();
            i++;
            continue;
        }
        unsigned second = in[i + 1];
        if (second >= 0x30 && second <= 0x39) { /* (NOT_IN_RANGE in gb18030_column) */
            /* Four bytes.  At the end of the stream a pending sequence is one error consuming it;
             * a bad third or fourth byte drops the first byte only (the others are prepended). */
            if (i + 2 == n) {
                ERROR_ANY();
                i += 2;
                continue;
            }
            unsigned third = in[i + 2];
            if (third < 0x81 || third > 0xFE) {
                ERROR_ANY();
                i++;
                continue;
            }
            if (i + 3 == n) {
                ERROR_ANY();
                i += 3;
                continue;
            }
            unsigned fourth = in[i + 3];
            if (fourth < 0x30 || fourth > 0x39) {
                ERROR_ANY();
                i++;
                continue;
            }
            uint32_t pointer = (((b - 0x81) * 10 + second - 0x30) * 126 + third - 0x81) * 10 + fourth - 0x30;
            int64_t c = ranges_code_point(pointer);
            if (c < 0)
                ERROR_ANY();
            else
                PUT((Py_UCS4)c);
            i += 4;
            continue;
        }
        int32_t pointer = (int32_t)(b - 0x81) * 190 + gb18030_column[second];
        if (pointer >= 0) {
            unsigned c = index_gb18030[pointer];
            if (c != NONE) {
                PUT(c);
                i += 2;
                continue;
            }
        }
        ERROR_ANY();
        i += second < 0x80 ? 1 : 2; /* an ASCII second byte is prepended: decoded afresh */
    }
    s->length = o;
    s->bits |= bits;
    s->errors += errors;
    return DONE;
}

/* -- ISO-2022-JP: https://encoding.spec.whatwg.org/#iso-2022-jp-decoder --------------------------- */

enum { ASCII, ROMAN, KATAKANA, LEAD_BYTE, TRAIL_BYTE, ESCAPE_START, ESCAPE };

/* The output bound (see Sink) checked: a compare a character, never true. */
#define EMIT_JP(cp)                                                                                  \
    do {                                                                                             \
        if (o == s->capacity)                                                                        \
            return OVERFLOW;                                                                         \
        bits |= (cp);                                                                                \
        out[o++] = (Py_UCS2)(cp);                                                                    \
    } while (0)

#define ERROR_JP()                                                                                   \
    do {                                                                                             \
        if (fatal)                                                                                   \
            return FAILED;                                                                           \
        errors++;                                                                                    \
        EMIT_JP(0xFFFD);                                                                             \
    } while (0)

static int decode_iso_2022_jp(const unsigned char *in, Py_ssize_t n, int fatal, Sink *s)
{
    Py_UCS2 *out = s->u2;
    Py_ssize_t i = 0, o = 0, errors = 0;
    Py_UCS4 bits = 0;
    int state = ASCII, output_state = ASCII, output_flag = 0;
    unsigned lead = 0;
    for (;;) {
        int b = i < n ? in[i] : -1; /* -1: end of stream */
        switch (state) {
        case ASCII:
        case ROMAN:
            if (b == 0x1B) {
                state = ESCAPE_START;
                i++;
            } else if (b < 0) {
                goto finished;
            } else if (b <= 0x7F && b != 0x0E && b != 0x0F) {
                output_flag = 0;
                if (state == ROMAN && (b == 0x5C || b == 0x7E)) {
                    EMIT_JP(b == 0x5C ? 0x00A5 : 0x203E);
                    i++;
                    break;
                }
                /* A run of bytes that stand for themselves (the check above bounds it by n). */
                while (i < n) {
                    unsigned c = in[i];
                    if (c > 0x7F || c == 0x0E || c == 0x0F || c == 0x1B || (state == ROMAN && (c == 0x5C || c == 0x7E)))
                        break;
                    EMIT_JP(c);
                    i++;
                }
            } else {
                output_flag = 0;
                ERROR_JP();
                i++;
            }
            break;
        case KATAKANA:
            if (b == 0x1B) {
                state = ESCAPE_START;
            } else if (b < 0) {
                goto finished;
            } else if (b >= 0x21 && b <= 0x5F) {
                output_flag = 0;
                EMIT_JP(0xFF61 - 0x21 + b);
            } else {
                output_flag = 0;
                ERROR_JP();
            }
            i++;
            break;
        case LEAD_BYTE:
            if (b == 0x1B) {
                state = ESCAPE_START;
            } else if (b < 0) {
                goto finished;
            } else if (b >= 0x21 && b <= 0x7E) {
                output_flag = 0;
                lead = b;
                state = TRAIL_BYTE;
            } else {
                output_flag = 0;
                ERROR_JP();
            }
            i++;
            break;
        case TRAIL_BYTE:
            if (b == 0x1B) {
                state = ESCAPE_START;
                ERROR_JP();
                i++;
                break;
            }
            state = LEAD_BYTE;
            if (b < 0) { /* end of stream is prepended: the lead byte state finishes */
                ERROR_JP();
                break;
            }
            i++;
            if (b >= 0x21 && b <= 0x7E) {
                unsigned c = index_jis0208[(lead - 0x21) * 94 + b - 0x21];
                if (c != NONE) {
                    EMIT_JP(c);
                    break;
                }
            }
            ERROR_JP();
            break;
        case ESCAPE_START:
            if (b == 0x24 || b == 0x28) {
                lead = b;
                state = ESCAPE;
                i++;
                break;
            }
            /* The byte is prepended: decoded afresh in the output state. */
            output_flag = 0;
            state = output_state;
            ERROR_JP();
            break;
        case ESCAPE: {
            unsigned escape_lead = lead;
            int next = -1;
            lead = 0;
            if (escape_lead == 0x28 && b == 0x42)
                next = ASCII;
            else if (escape_lead == 0x28 && b == 0x4A)
                next = ROMAN;
            else if (escape_lead == 0x28 && b == 0x49)
                next = KATAKANA;
            else if (escape_lead == 0x24 && (b == 0x40 || b == 0x42))
                next = LEAD_BYTE;
            if (next >= 0) {
                int output = output_flag;
                state = output_state = next;
                output_flag = 1;
                i++;
                /* An escape sequence right after another one (no output between) is an error. */
                if (output)
                    ERROR_JP();
                break;
            }
            /* The lead (0x24 or 0x28) and the byte are prepended: back to the lead. */
            output_flag = 0;
            state = output_state;
            i--;
            ERROR_JP();
            break;
        }
        }
    }
finished:
    SAVE_BMP();
    return DONE;
}

/* -- the Python functions ------------------------------------------------------------------------- */

typedef int (*Decoder)(const unsigned char *, Py_ssize_t, int, Sink *);

/* The str of the smallest kind holding the sink's code points; consumes *text*, the UCS-2 str the
 * sink wrote into. */
static PyObject *to_str(PyObject *text, const Sink *s)
{
    Py_ssize_t n = s->length;
    PyObject *narrow;
    if (s->u4 != NULL) {
        /* A supplementary code point is there: UCS-4 is the right kind; shrinking keeps one copy. */
        if (PyUnicode_Resize(&text, n) < 0)
            return NULL; /* text was released */
        return text;
    } else if (s->bits < 0x100) {
        narrow = PyUnicode_New(n, s->bits < 0x80 ? 0x7F : 0xFF);
        if (narrow != NULL) {
            Py_UCS1 *target = PyUnicode_1BYTE_DATA(narrow);
            for (Py_ssize_t k = 0; k < n; k++)
                target[k] = (Py_UCS1)s->u2[k];
        }
    } else {
        /* At least one character is above U+00FF (bits says so): UCS-2 is the right kind. */
        if (PyUnicode_Resize(&text, n) < 0)
            return NULL; /* text was released */
        return text;
    }
    Py_DECREF(text);
    return narrow;
}

/* The decoder's run, without the GIL from RELEASE_GIL_FROM bytes: nobody else holds the str yet. */
static int decode_unlocked(Decoder decoder, const unsigned char *in, Py_ssize_t n, int fatal, Sink *sink)
{
    PyThreadState *saved = release_gil(n);
    int status = decoder(in, n, fatal, sink);
    take_gil(saved);
    return status;
}

static PyObject *run(PyObject *const *args, Py_ssize_t nargs, Decoder decoder, int iso_2022_jp)
{
    int fatal;
    if (!expect_arguments(nargs, 2, "(data, fatal)"))
        return NULL;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "configure() has not run");
        return NULL;
    }
    if (!get_flag(args[1], &fatal))
        return NULL;
    Py_buffer view;
    if (!get_bytes(args[0], &view))
        return NULL;
    const unsigned char *in = view.buf;
    Py_ssize_t n = view.len;
    /* ASCII (for ISO-2022-JP without ESC, SO and SI) decodes to itself: CPython's ASCII decoder
     * builds that str fastest.  Eight bytes a test where every ASCII byte is plain: a byte at a time
     * (~1 ns each), the test read a 32 KB ASCII page in ~10 us. */
    Py_ssize_t plain = iso_2022_jp ? 0 : skip_ascii(in, 0, n);
    while (plain < n && in[plain] < 0x80
           && !(iso_2022_jp && (in[plain] == 0x1B || in[plain] == 0x0E || in[plain] == 0x0F)))
        plain++;
    if (plain == n) {
        PyObject *text = PyUnicode_DecodeASCII((const char *)in, n, NULL);
        PyBuffer_Release(&view);
        return text == NULL ? NULL : Py_BuildValue("(Nn)", text, (Py_ssize_t)0);
    }
    Sink sink = {0};
    sink.capacity = n + 4;
    /* Nobody else holds the str yet: it can be written without the GIL. */
    PyObject *text = PyUnicode_New(sink.capacity, 0xFFFF);
    if (text == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    sink.u2 = PyUnicode_2BYTE_DATA(text);
    int status = decode_unlocked(decoder, in, n, fatal, &sink);
    if (status == WIDER) {
        /* Free the UCS-2 str before the UCS-4 one exists, and decode again from the start. */
        Py_DECREF(text);
        text = PyUnicode_New(sink.capacity, 0x10FFFF);
        if (text == NULL) {
            PyBuffer_Release(&view);
            return NULL;
        }
        sink = (Sink){.u4 = PyUnicode_4BYTE_DATA(text), .capacity = sink.capacity};
        status = decode_unlocked(decoder, in, n, fatal, &sink);
    }
    PyBuffer_Release(&view);
    PyObject *result = NULL;
    if (status == DONE) {
        PyObject *decoded = to_str(text, &sink);
        if (decoded != NULL)
            result = Py_BuildValue("(Nn)", decoded, sink.errors);
    } else {
        Py_DECREF(text);
        if (status == FAILED)
            result = Py_NewRef(Py_None);
        else if (status == NO_MEMORY)
            PyErr_NoMemory();
        else
            PyErr_SetString(PyExc_SystemError, "multibyte: output bound exceeded (a bug: please report the input)");
    }
    return result;
}

#define DEFINE(name, iso)                                                                            \
    static PyObject *py_##name(PyObject *module, PyObject *const *args, Py_ssize_t nargs)                 \
    {                                                                                                \
        return run(args, nargs, decode_##name, iso);                                                 \
    }
DEFINE(shift_jis, 0)
DEFINE(euc_jp, 0)
DEFINE(euc_kr, 0)
DEFINE(big5, 0)
DEFINE(gb18030, 0)
DEFINE(iso_2022_jp, 1)

#define DOC(name, section)                                                                           \
    #name "(data, fatal, /)\n--\n\nThe Encoding Standard's " section " decoder: (text, errors), or "   \
    "None when fatal and data holds an error."

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(jis0208, jis0212, euc_kr, big5, gb18030, gb18030_range_pointers, "
     "gb18030_range_code_points, /)\n--\n\nLoad the indexes (arrays 'I' of code points by pointer, "
     "0xFFFE for none); once."},
    {"shift_jis", (PyCFunction)(void (*)(void))py_shift_jis, METH_FASTCALL, DOC(shift_jis, "Shift_JIS")},
    {"euc_jp", (PyCFunction)(void (*)(void))py_euc_jp, METH_FASTCALL, DOC(euc_jp, "EUC-JP")},
    {"euc_kr", (PyCFunction)(void (*)(void))py_euc_kr, METH_FASTCALL, DOC(euc_kr, "EUC-KR")},
    {"big5", (PyCFunction)(void (*)(void))py_big5, METH_FASTCALL, DOC(big5, "Big5")},
    {"gb18030", (PyCFunction)(void (*)(void))py_gb18030, METH_FASTCALL, DOC(gb18030, "gb18030 (and GBK)")},
    {"iso_2022_jp", (PyCFunction)(void (*)(void))py_iso_2022_jp, METH_FASTCALL, DOC(iso_2022_jp, "ISO-2022-JP")},
    {NULL, NULL, 0, NULL},
};

NATIVE_MODULE(multibyte, "The Encoding Standard's legacy multi-byte decoders, compiled (see multibyte.c).", methods, build_arithmetic())
