/* The one fast path, compiled: resolve.undisputed_utf8's answers, its Python steps made one C call.
 *
 * undisputed_utf8(body, content_type, lazy_text=False) -> Decoded | None
 *     body is bytes, content_type a response.ContentTypeFacts.  The answer of
 *     resolve.reference_undisputed_utf8 (which runs without this extension), every field: see its
 *     docstring for when a response is undisputed UTF-8 and why each step may be skipped.
 * configure(...)
 *     Called once, by resolve.py at import, with what the steps are made of (below): the Decoded
 *     type, the four provenances and the late <meta>'s source, the BOM and XML starts, and the
 *     callables of the other concepts (the prescan, the late <meta> scan, the mojibake check,
 *     UTF-8's validity).  Until then undisputed_utf8 raises.
 *
 * Why: most responses of a crawl are UTF-8 that nothing disputes, and for them the resolution is
 * a few table lookups around one decode.  Written in Python those lookups are seven calls and a
 * dozen bytecode steps, ~2 us a page whatever its size: a tenth of what decoding a 30 KB page
 * costs, and the gap between decode() and a raw bytes.decode() on bench/decode.py's mix.  Here
 * they are C, and the searches the other concepts own (find_meta, the prescan, the mojibake scan)
 * are called through their Python objects, so that each decision stays written once, in its own
 * module.  tests/decoding/test_undisputed.py requires every answer here to be the reference's and
 * the resolution's, on generated and hand-picked responses.
 */
#include "native.h"

/* -- what configure() gives ------------------------------------------------------------------- */

static PyTypeObject *decoded_type;       /* decoded.Decoded, a named tuple of DECODED_FIELDS */
static PyObject *why_header_and_meta;    /* the Provenance of UTF-8 in the header and the <meta> */
static PyObject *why_header;             /* ... in the header alone */
static PyObject *why_meta;               /* ... in the <meta> alone */
static PyObject *why_valid;              /* ... of a body declaring nothing, valid UTF-8 */
static PyObject *meta_late;              /* the source "meta-late" */
static PyObject *bom_and_xml_starts;     /* response.BOMS_AND_XML_STARTS, a tuple of bytes */
static PyObject *find_meta;              /* prescan.find_meta(body, start, end) -> int */
static PyObject *prescan_meta;           /* prescan.prescan_meta(body) -> str | None */
static PyObject *may_declare_a_charset;  /* prescan.may_declare_a_charset(body) -> bool */
static PyObject *late_meta_labels;       /* late_meta.late_meta_labels(body) -> (str | None, str | None) */
static PyObject *looks_double_encoded;   /* mojibake.utf8_looks_double_encoded(utf8) -> bool */
static PyObject *utf8_validity;          /* codecs.utf8.validity(data) -> 0, 1 (UTF-8) or 2 */
static Py_ssize_t prescan_bytes;         /* prescan.PRESCAN_BYTES */
static Py_ssize_t late_meta_limit;       /* late_meta.LATE_META_LIMIT */
static PyObject *utf8_name, *zero, *prescan_end;

#define DECODED_FIELDS 12
#define PROVENANCE_FIELDS 5

/* -- small steps ------------------------------------------------------------------------------ */

/* Whether *label* (a str or None, a Content-Type or <meta> answer) is in (None, "UTF-8"). */
static int utf8_or_nothing(PyObject *label)
{
    return label == Py_None || (PyUnicode_Check(label) && PyUnicode_CompareWithASCIIString(label, "UTF-8") == 0);
}

/* Whether *body* starts with a byte order mark or an XML declaration's start. */
static int starts_with_bom_or_xml(const char *body, Py_ssize_t n)
{
    Py_ssize_t count = PyTuple_GET_SIZE(bom_and_xml_starts);
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *start = PyTuple_GET_ITEM(bom_and_xml_starts, k);
        Py_ssize_t length = PyBytes_GET_SIZE(start);
        if (length <= n && memcmp(body, PyBytes_AS_STRING(start), (size_t)length) == 0)
            return 1;
    }
    return 0;
}

/* *answer* (a new reference, or NULL on error) as an integer in *out*, the reference released: 0 on error. */
static int integer_answer(PyObject *answer, Py_ssize_t *out)
{
    if (answer == NULL)
        return 0;
    *out = PyLong_AsSsize_t(answer);
    Py_DECREF(answer);
    return !(*out == -1 && PyErr_Occurred());
}

/* find_meta(body, 0, end) >= 0: 1, 0, or -1 with an exception set. */
static int has_meta(PyObject *body, PyObject *end)
{
    PyObject *args[3] = {body, zero, end};
    Py_ssize_t position;
    if (!integer_answer(PyObject_Vectorcall(find_meta, args, 3, NULL), &position))
        return -1;
    return position >= 0;
}

/* callable(body), a new reference or NULL. */
static PyObject *ask(PyObject *callable, PyObject *body)
{
    return PyObject_Vectorcall(callable, &body, 1, NULL);
}

/* callable(body) as a truth value: 1, 0, or -1 with an exception set. */
static int ask_truth(PyObject *callable, PyObject *body)
{
    PyObject *answer = ask(callable, body);
    if (answer == NULL)
        return -1;
    int truth = PyObject_IsTrue(answer);
    Py_DECREF(answer);
    return truth;
}

/* -- the steps -------------------------------------------------------------------------------- */

/* The prescan's answer over the first PRESCAN_BYTES when it says UTF-8 or nothing (a new reference:
 * None or the str), else NULL with *disputed* set (or NULL and an exception). */
static PyObject *undisputed_meta(PyObject *body, int *disputed)
{
    int found = has_meta(body, prescan_end);
    if (found <= 0)
        return found < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *meta = ask(prescan_meta, body);
    if (meta == NULL)
        return NULL;
    if (meta == Py_None) {
        int may = ask_truth(may_declare_a_charset, body);
        if (may != 0) { /* perhaps a <meta> naming an unknown charset, which read_response reports */
            Py_DECREF(meta);
            *disputed = may > 0;
            return NULL;
        }
    }
    if (!utf8_or_nothing(meta)) { /* a declaration of another encoding */
        Py_DECREF(meta);
        *disputed = 1;
        return NULL;
    }
    return meta;
}

/* _late_meta's step for a body that declares nothing in its first PRESCAN_BYTES: 1 when a late
 * <meta> says UTF-8 (the source is "meta-late"), 0 when none declares anything, 2 when one disputes
 * (another encoding, or an unknown label to report), -1 with an exception set.  The scan is
 * late_meta_labels'; like its own first test, a body whose scanned part is no longer than the prescan's
 * window, or holds no "<meta" at all, is answered without it. */
static int late_meta(PyObject *body)
{
    Py_ssize_t n = PyBytes_GET_SIZE(body), scanned = n < late_meta_limit ? n : late_meta_limit;
    if (scanned <= prescan_bytes)
        return 0;
    PyObject *end = PyLong_FromSsize_t(scanned);
    if (end == NULL)
        return -1;
    int found = has_meta(body, end);
    Py_DECREF(end);
    if (found <= 0)
        return found;
    PyObject *labels = ask(late_meta_labels, body);
    if (labels == NULL)
        return -1;
    if (!PyTuple_Check(labels) || PyTuple_GET_SIZE(labels) != 2) {
        Py_DECREF(labels);
        PyErr_SetString(PyExc_TypeError, "late_meta_labels must return a pair");
        return -1;
    }
    PyObject *late = PyTuple_GET_ITEM(labels, 0), *unknown = PyTuple_GET_ITEM(labels, 1);
    int answer = unknown != Py_None || !utf8_or_nothing(late) ? 2 : late != Py_None;
    Py_DECREF(labels);
    return answer;
}

/* attempt.utf8 with refuse_escapes: *text* (a new reference; None under lazy_text) and *mojibake*
 * when body is valid UTF-8 and not all ASCII with an ESC byte; 0 when it is not; -1 on error. */
static int utf8_reading(PyObject *body, int lazy_text, PyObject **text, int *mojibake)
{
    const char *bytes = PyBytes_AS_STRING(body);
    Py_ssize_t n = PyBytes_GET_SIZE(body);
    if (lazy_text) {
        Py_ssize_t kind;
        if (!integer_answer(ask(utf8_validity, body), &kind))
            return -1;
        if (kind != 1) /* not UTF-8, or ASCII with an ESC byte */
            return 0;
        *mojibake = ask_truth(looks_double_encoded, body);
        if (*mojibake < 0)
            return -1;
        *text = Py_NewRef(Py_None);
        return 1;
    }
    /* bytes.decode("utf-8"): the standard's UTF-8 decoder, error mode fatal (codecs/utf8.py). */
    PyObject *decoded = PyUnicode_DecodeUTF8(bytes, n, NULL);
    if (decoded == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    int ascii = PyUnicode_IS_ASCII(decoded);
    if (ascii && memchr(bytes, 0x1B, (size_t)n) != NULL) { /* perhaps ISO-2022-JP: resolve weighs it */
        Py_DECREF(decoded);
        return 0;
    }
    *mojibake = ascii ? 0 : ask_truth(looks_double_encoded, body);
    if (*mojibake < 0) {
        Py_DECREF(decoded);
        return -1;
    }
    *text = decoded;
    return 1;
}

/* The Decoded of a UTF-8 reading: attempt.utf8's fields, in order.  Steals *text*. */
static PyObject *utf8_decoded(PyObject *text, PyObject *why, PyObject *source, int mojibake, PyObject *body,
                              int lazy_text)
{
    PyObject *decoded = decoded_type->tp_alloc(decoded_type, DECODED_FIELDS);
    if (decoded == NULL) {
        Py_DECREF(text);
        return NULL;
    }
    PyObject *fields[DECODED_FIELDS] = {
        text,                                    /* built_text (stolen) */
        Py_NewRef(utf8_name),                    /* encoding */
        Py_NewRef(source),                       /* source */
        Py_NewRef(zero),                         /* replacements */
        Py_NewRef(PyTuple_GET_ITEM(why, 1)),     /* declared */
        Py_NewRef(PyTuple_GET_ITEM(why, 2)),     /* conflicts */
        Py_NewRef(PyTuple_GET_ITEM(why, 3)),     /* confidence */
        Py_NewRef(mojibake ? Py_True : Py_False), /* mojibake_suspected */
        Py_NewRef(PyTuple_GET_ITEM(why, 4)),     /* override */
        Py_NewRef(Py_None),                      /* binary */
        Py_NewRef(Py_None),                      /* doubted */
        Py_NewRef(lazy_text ? body : Py_None),   /* utf8 */
    };
    for (int k = 0; k < DECODED_FIELDS; k++)
        PyTuple_SET_ITEM(decoded, k, fields[k]);
    return decoded;
}

/* -- the entry point -------------------------------------------------------------------------- */

/* lazy_text, given third or by name, in *lazy_text*: 0 on error (exception set). */
static int lazy_text_argument(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int *lazy_text)
{
    Py_ssize_t named = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (nargs < 2 || nargs + named > 3 ||
        (named == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "lazy_text") != 0)) {
        PyErr_SetString(PyExc_TypeError, "expected undisputed_utf8(body, content_type, lazy_text=False)");
        return 0;
    }
    *lazy_text = 0;
    return nargs + named == 2 || get_flag(args[2], lazy_text);
}

static PyObject *py_undisputed_utf8(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames)
{
    if (decoded_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "undisputed_utf8 called before configure()");
        return NULL;
    }
    int lazy_text;
    if (!lazy_text_argument(args, nargs, kwnames, &lazy_text))
        return NULL;
    PyObject *body = args[0], *facts = args[1];
    if (!PyBytes_CheckExact(body) || !PyTuple_Check(facts) || PyTuple_GET_SIZE(facts) != 5) {
        PyErr_SetString(PyExc_TypeError, "undisputed_utf8 takes bytes and a ContentTypeFacts");
        return NULL;
    }
    /* facts: (mime, charset, unknown_charset, is_json, is_xml) */
    PyObject *header = PyTuple_GET_ITEM(facts, 1), *unknown_charset = PyTuple_GET_ITEM(facts, 2);
    int is_json = PyObject_IsTrue(PyTuple_GET_ITEM(facts, 3)), is_xml = PyObject_IsTrue(PyTuple_GET_ITEM(facts, 4));
    if (is_json < 0 || is_xml < 0)
        return NULL;
    if (is_json || is_xml || unknown_charset != Py_None || !utf8_or_nothing(header))
        Py_RETURN_NONE; /* a label to report, another encoding declared, or a type with its own rule */
    if (starts_with_bom_or_xml(PyBytes_AS_STRING(body), PyBytes_GET_SIZE(body)))
        Py_RETURN_NONE;
    int disputed = 0;
    PyObject *meta = undisputed_meta(body, &disputed);
    if (meta == NULL) {
        if (disputed)
            Py_RETURN_NONE;
        return NULL;
    }
    int meta_says_utf8 = meta != Py_None;
    Py_DECREF(meta);
    int declared = header != Py_None || meta_says_utf8;
    PyObject *why = header != Py_None ? (meta_says_utf8 ? why_header_and_meta : why_header)
                                      : (meta_says_utf8 ? why_meta : why_valid);
    PyObject *text = NULL;
    int mojibake = 0;
    int read = utf8_reading(body, lazy_text, &text, &mojibake);
    if (read <= 0) {
        if (read < 0)
            return NULL;
        Py_RETURN_NONE; /* not UTF-8, or a 7-bit body with an ESC byte: resolve weighs it */
    }
    PyObject *source = PyTuple_GET_ITEM(why, 0);
    if (!declared) { /* nothing declared in the first bytes: a late <meta> may, after the decode */
        int late = late_meta(body);
        if (late < 0 || late == 2) {
            Py_DECREF(text);
            if (late < 0)
                return NULL;
            Py_RETURN_NONE;
        }
        if (late == 1)
            source = meta_late;
    }
    return utf8_decoded(text, why, source, mojibake, body, lazy_text);
}

/* -- configure -------------------------------------------------------------------------------- */

static int keep(PyObject **slot, PyObject *value)
{
    Py_XSETREF(*slot, Py_NewRef(value));
    return 1;
}

static int keep_provenance(PyObject **slot, PyObject *value)
{
    if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) != PROVENANCE_FIELDS) {
        PyErr_SetString(PyExc_TypeError, "a provenance is a tuple of 5 fields");
        return 0;
    }
    return keep(slot, value);
}

static PyObject *py_configure(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"decoded", "why_header_and_meta", "why_header", "why_meta", "why_valid",
                            "meta_late", "bom_and_xml_starts", "find_meta", "prescan_meta",
                            "may_declare_a_charset", "late_meta_labels", "looks_double_encoded",
                            "utf8_validity", "prescan_bytes", "late_meta_limit", NULL};
    PyObject *type, *hm, *h, *m, *v, *late, *starts, *find, *prescan, *may, *labels, *looks, *validity;
    Py_ssize_t window, limit;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "$O!OOOOUO!OOOOOOnn", names, &PyType_Type, &type, &hm, &h, &m,
                                     &v, &late, &PyTuple_Type, &starts, &find, &prescan, &may, &labels, &looks,
                                     &validity, &window, &limit))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "decoded must be a named tuple type");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(starts); k++) {
        if (!PyBytes_CheckExact(PyTuple_GET_ITEM(starts, k))) {
            PyErr_SetString(PyExc_TypeError, "bom_and_xml_starts must hold bytes");
            return NULL;
        }
    }
    if (!(keep_provenance(&why_header_and_meta, hm) && keep_provenance(&why_header, h) &&
          keep_provenance(&why_meta, m) && keep_provenance(&why_valid, v)))
        return NULL;
    keep(&meta_late, late);
    keep(&bom_and_xml_starts, starts);
    keep(&find_meta, find);
    keep(&prescan_meta, prescan);
    keep(&may_declare_a_charset, may);
    keep(&late_meta_labels, labels);
    keep(&looks_double_encoded, looks);
    keep(&utf8_validity, validity);
    prescan_bytes = window;
    late_meta_limit = limit;
    Py_XSETREF(prescan_end, PyLong_FromSsize_t(window));
    if (prescan_end == NULL)
        return NULL;
    Py_XSETREF(decoded_type, (PyTypeObject *)Py_NewRef(type));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"undisputed_utf8", (PyCFunction)(void (*)(void))py_undisputed_utf8, METH_FASTCALL | METH_KEYWORDS,
     "undisputed_utf8(body, content_type, lazy_text=False)\n--\n\nresolve.reference_undisputed_utf8, compiled."},
    {"configure", (PyCFunction)(void (*)(void))py_configure, METH_VARARGS | METH_KEYWORDS,
     "configure(*, decoded, why_header_and_meta, why_header, why_meta, why_valid, meta_late, bom_and_xml_starts,"
     " find_meta, prescan_meta, may_declare_a_charset, late_meta_labels, looks_double_encoded, utf8_validity,"
     " prescan_bytes, late_meta_limit)\n--\n\nWhat the fast path's steps are made of (resolve.py, at import)."},
    {NULL, NULL, 0, NULL},
};

NATIVE_MODULE(undisputed, "resolve.reference_undisputed_utf8, compiled (see undisputed.c).", methods,
              utf8_name = PyUnicode_InternFromString("UTF-8");
              zero = PyLong_FromLong(0);
              if (utf8_name == NULL || zero == NULL) return NULL)
