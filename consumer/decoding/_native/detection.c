/* Detection's counting and scoring loops, compiled (detection.py says what they are for and keeps
 * the readable reference of each: reference_high_bytes, reference_best_dot_products,
 * reference_text_likelihood; tests/decoding/detection/test_compiled.py checks them equal).
 *
 * high_bytes(data) -> (order, counts)
 *     order   the distinct bytes >= 0x80 of data, in order of first occurrence
 *     counts  how often each occurs (a list aligned with order)
 * high_byte_counts(data) -> list[int]
 *     how often each byte 0x80 + i occurs in data, for i in 0..127 (order does not matter here)
 * squeeze(data) -> bytes
 *     data with each run of ASCII bytes cut to its first two bytes, but for its last three bytes,
 *     kept as they are
 * mixed_pairs(sample, classes) -> int
 *     classes a 256-byte translate table marking bytes "a" (ASCII letters), "n" (the encoding's
 *             non-Latin letters) or anything else; the adjacent pairs of sample marked "an" or "na"
 * pair_sum(sample, classes, weights) -> float
 *     classes a 256-byte table of class numbers below 16; weights an array('d') of 256 entries; the
 *             sum, over the adjacent pairs (x, y) of sample where x or y is >= 0x80, of
 *             weights[16 * classes[x] + classes[y]]: counted per entry first, then count * weight
 *             added in the entries' order
 * high_byte_count(data) -> int
 *     how many bytes of data are >= 0x80
 * first_high_byte(data) -> int
 *     the index of data's first byte >= 0x80, or -1
 * four_byte_gb18030(data) -> bool
 *     whether data holds [81-FE][30-39][81-FE][30-39] (the shape of a gb18030 four-byte sequence)
 * best_dot_products(order, counts, tables, groups) -> (list[float], bytes)
 *     tables  128-entry tables of doubles laid end to end (an array('d'), index: byte - 0x80);
 *             a table's dot product is the sum of count * table[byte - 0x80] over order, added
 *             left to right
 *     groups  how many consecutive tables of tables each group has (a bytes of sizes >= 1, summing
 *             to the number of tables); per group, the largest of its tables' dot products and the
 *             index within the group of the first table giving it
 * softmax_weights(scores, best) -> (float, list[int], list[float])
 *     scores  a list of floats; each weight is exp(max(score - best, -50.0)), the total their sum
 *             added left to right; then the indexes and the weights of those above 1e-6, in order
 * strict_decodes(data, decoders) -> list[str | None]
 *     decoders a tuple of incremental decoder classes; per class, data decoded by one made
 *             "strict" with final false, or None where that raises UnicodeDecodeError
 * agreed_decodes(data, decoders, readers) -> list[str | None]
 *     strict_decodes' answers; readers a tuple as long as decoders, each None or (singles, pairs,
 *             triple_lead, triples, native): where the tables (detection/agreement.py) say the codec
 *             fails, None without running it; where they say the standard's decoder reads data (but for
 *             an incomplete sequence at its end) as the codec does, native(that part, True)'s text
 * text_likelihood(text, logp, unseen, memo) -> float
 *     the sum, over the distinct characters >= U+0080 of text in order of first occurrence, of
 *     count * logp[char], added left to right; a character logp lacks gets unseen(char), stored in
 *     logp; memo (an array('d') of 0x10000 entries, NaN where not known yet) keeps the BMP's values
 *     as doubles, so that a known character costs no str object and no dict lookup
 * high_runs(data) -> int
 *     how many maximal runs of bytes >= 0x80 data holds (the high bytes whose previous byte is not)
 * non_ascii_capitals(text) -> int
 *     how many characters of text are in U+0080-U+2FFF and uppercase (str.isupper of the one
 *     character: Py_UNICODE_ISUPPER), what a regular expression of those characters finds; a text
 *     of one str kind above Latin-1 is read without a branch per character beyond the range test
 * latin_after_non_ascii(text) -> int
 *     how many characters >= U+0080 of text an ASCII letter follows, what a regular expression of
 *     the pair finds (~30 ns a character of a CJK text: a multi-byte reading asks it of every window)
 *
 * Why: the Python forms translate the sample and count its pairs in three passes, build a Counter of the window's bytes or characters (a dict operation per
 * byte) and sum one table per candidate language in a generator: together most of detect()'s time.
 * The later ones replace Python loops over a few dozen candidates and bytes.translate passes (a
 * byte at a time) that cost more, around the compiled loops, than the loops themselves.
 * The order of additions is the reference's (Counter's first-occurrence order), so the sums are
 * equal to the last bit: contraction into fused multiply-adds is off.  Linear in the input.
 */
#include "native.h"
#include <math.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#define TABLE 128
#define MEMO_SIZE 0x10000

/* The histogram of data's high bytes, and order gets each at its first occurrence.  In a word
 * holding a high byte every byte is counted, without a branch (in text, ASCII and high bytes
 * alternate unpredictably), into four tables in turn so that a run of one byte does not wait on its
 * own increments; the one branch, "not seen yet", is rare (ASCII counts as seen).  Words of ASCII
 * are skipped.  32-bit counts: a block of at most 2^31 bytes at a time. */
static void histogram_block(const unsigned char *in, Py_ssize_t n, Py_ssize_t counts[TABLE], unsigned char seen[256],
                            unsigned char order[TABLE], int *distinct)
{
    uint32_t lanes[4][256];
    memset(lanes, 0, sizeof lanes);
    int found = *distinct;
#define HISTOGRAM_BYTE(INDEX, LANE)                                                                          \
    do {                                                                                                     \
        unsigned byte = in[INDEX];                                                                           \
        lanes[LANE][byte]++;                                                                                 \
        if (!seen[byte]) {                                                                                   \
            seen[byte] = 1;                                                                                  \
            order[found++] = (unsigned char)byte;                                                            \
        }                                                                                                    \
    } while (0)
    Py_ssize_t k = 0;
    for (; k + 8 <= n; k += 8) {
        if (ascii8(in + k))
            continue;
        HISTOGRAM_BYTE(k, 0);
        HISTOGRAM_BYTE(k + 1, 1);
        HISTOGRAM_BYTE(k + 2, 2);
        HISTOGRAM_BYTE(k + 3, 3);
        HISTOGRAM_BYTE(k + 4, 0);
        HISTOGRAM_BYTE(k + 5, 1);
        HISTOGRAM_BYTE(k + 6, 2);
        HISTOGRAM_BYTE(k + 7, 3);
    }
    for (; k < n; k++)
        HISTOGRAM_BYTE(k, 0);
#undef HISTOGRAM_BYTE
    for (int byte = 0; byte < TABLE; byte++)
        counts[byte] += (Py_ssize_t)lanes[0][0x80 + byte] + lanes[1][0x80 + byte] + lanes[2][0x80 + byte] +
                        lanes[3][0x80 + byte];
    *distinct = found;
}

#define BLOCK ((Py_ssize_t)0x7FFFFFF8)

static int histogram(const unsigned char *in, Py_ssize_t n, Py_ssize_t counts[TABLE], unsigned char order[TABLE])
{
    unsigned char seen[256];
    memset(seen, 1, 0x80);
    memset(seen + 0x80, 0, 0x80);
    int distinct = 0;
    memset(counts, 0, TABLE * sizeof counts[0]);
    for (Py_ssize_t start = 0; start < n; start += BLOCK)
        histogram_block(in + start, n - start > BLOCK ? BLOCK : n - start, counts, seen, order, &distinct);
    return distinct;
}

/* high_byte_counts: counted as histogram_block counts, without the order. */

static void count_all(const unsigned char *in, Py_ssize_t n, Py_ssize_t counts[256])
{
    uint32_t lanes[4][256];
    memset(lanes, 0, sizeof lanes);
    Py_ssize_t k = 0;
    for (; k + 8 <= n; k += 8) {
        if (ascii8(in + k))
            continue;
        lanes[0][in[k]]++;
        lanes[1][in[k + 1]]++;
        lanes[2][in[k + 2]]++;
        lanes[3][in[k + 3]]++;
        lanes[0][in[k + 4]]++;
        lanes[1][in[k + 5]]++;
        lanes[2][in[k + 6]]++;
        lanes[3][in[k + 7]]++;
    }
    for (; k < n; k++)
        lanes[0][in[k]]++;
    for (int byte = 0; byte < 256; byte++)
        counts[byte] += (Py_ssize_t)lanes[0][byte] + lanes[1][byte] + lanes[2][byte] + lanes[3][byte];
}

static PyObject *py_high_byte_counts(PyObject *module, PyObject *data)
{
    (void)module;
    Py_buffer view;
    if (!get_bytes(data, &view))
        return NULL;
    Py_ssize_t counts[256] = {0};
    const unsigned char *in = view.buf;
    for (Py_ssize_t start = 0; start < view.len; start += BLOCK)
        count_all(in + start, view.len - start > BLOCK ? BLOCK : view.len - start, counts);
    PyBuffer_Release(&view);
    PyObject *list = PyList_New(TABLE);
    if (list == NULL)
        return NULL;
    for (int i = 0; i < TABLE; i++) {
        PyObject *count = PyLong_FromSsize_t(counts[0x80 + i]);
        if (count == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, count);
    }
    return list;
}

static PyObject *py_high_bytes(PyObject *module, PyObject *data)
{
    (void)module;
    Py_buffer view;
    if (!get_bytes(data, &view))
        return NULL;
    Py_ssize_t counts[TABLE];
    unsigned char order[TABLE];
    int distinct = histogram(view.buf, view.len, counts, order);
    PyBuffer_Release(&view);
    PyObject *list = PyList_New(distinct);
    if (list == NULL)
        return NULL;
    for (int i = 0; i < distinct; i++) {
        PyObject *count = PyLong_FromSsize_t(counts[order[i] - 0x80]);
        if (count == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, count);
    }
    PyObject *order_bytes = PyBytes_FromStringAndSize((const char *)order, distinct);
    if (order_bytes == NULL) {
        Py_DECREF(list);
        return NULL;
    }
    return Py_BuildValue("(NN)", order_bytes, list);
}

/* Per table of args[2], the sum of count * table[byte - 0x80] over args[0] (order) and args[1]
 * (counts), added left to right: a PyMem array of *n_tables doubles, or NULL with an exception. */
static double *dot_sums(PyObject *const *args, Py_ssize_t *n_tables)
{
    Py_buffer order, tables;
    if (!get_bytes(args[0], &order))
        return NULL;
    if (PyObject_GetBuffer(args[2], &tables, PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&order);
        return NULL;
    }
    double *sums = NULL;
    PyObject *counts = PySequence_Fast(args[1], "counts must be a sequence");
    if (counts == NULL)
        goto done;
    const unsigned char *bytes = order.buf;
    Py_ssize_t distinct = order.len;
    if (PySequence_Fast_GET_SIZE(counts) != distinct || distinct > TABLE || tables.format == NULL ||
        strcmp(tables.format, "d") != 0 || tables.len % (TABLE * sizeof(double)) != 0) {
        PyErr_SetString(PyExc_ValueError, "order and counts must align; tables an array('d') of 128-entry tables");
        goto done;
    }
    double weight[TABLE];
    int position[TABLE];
    for (Py_ssize_t i = 0; i < distinct; i++) {
        if (bytes[i] < 0x80) {
            PyErr_SetString(PyExc_ValueError, "order holds bytes >= 0x80 only");
            goto done;
        }
        Py_ssize_t count = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(counts, i));
        if (count == -1 && PyErr_Occurred())
            goto done;
        weight[i] = (double)count;
        position[i] = bytes[i] - 0x80;
    }
    const double *table = tables.buf;
    Py_ssize_t n = tables.len / (Py_ssize_t)(TABLE * sizeof(double));
    sums = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(double));
    if (sums == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* Eight tables at a time: each sum is still added left to right, but eight chains of additions
     * run side by side instead of one waiting on each addition's latency. */
#define LANES 8
    for (Py_ssize_t t = 0; t < n; t += LANES, table += LANES * TABLE) {
        int lanes = n - t < LANES ? (int)(n - t) : LANES;
        double totals[LANES] = {0.0};
        if (lanes == LANES) {
            for (Py_ssize_t i = 0; i < distinct; i++)
                for (int lane = 0; lane < LANES; lane++) {
                    double product = weight[i] * table[lane * TABLE + position[i]];
                    totals[lane] += product;
                }
        } else {
            for (Py_ssize_t i = 0; i < distinct; i++)
                for (int lane = 0; lane < lanes; lane++) {
                    double product = weight[i] * table[lane * TABLE + position[i]];
                    totals[lane] += product;
                }
        }
        memcpy(sums + t, totals, (size_t)lanes * sizeof(double));
    }
#undef LANES
    *n_tables = n;
done:
    Py_XDECREF(counts);
    PyBuffer_Release(&tables);
    PyBuffer_Release(&order);
    return sums;
}

/* The offset of the first high byte of the eight at p, which hold one. */
static inline Py_ssize_t first_high_in_word(const unsigned char *p)
{
#if PY_LITTLE_ENDIAN && (defined(__GNUC__) || defined(__clang__))
    return (Py_ssize_t)(__builtin_ctzll(load64(p) & HIGH_BITS) >> 3);
#else
    Py_ssize_t offset = 0;
    while (p[offset] < 0x80)
        offset++;
    return offset;
#endif
}

static PyObject *py_squeeze(PyObject *module, PyObject *data)
{
    (void)module;
    Py_buffer view;
    if (!get_bytes(data, &view))
        return NULL;
    const unsigned char *in = view.buf;
    Py_ssize_t tail = view.len < 3 ? view.len : 3, n = view.len - tail, kept = 0;
    unsigned char *out = PyMem_Malloc((size_t)(view.len ? view.len : 1));
    if (out == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    int ascii_before = 0; /* ASCII bytes kept just before, up to 2 */
    for (Py_ssize_t k = 0; k < n; k++) {
        int ascii = in[k] < 0x80;
        if (ascii && ascii_before == 2) {
            /* inside a run: skip ASCII words whole while the run lasts, then straight to the high byte
             * that ends it (a byte at a time there cost a mispredicted branch per byte: most of a
             * Latin text's squeeze, whose runs are a word or two long) */
            k = skip_ascii(in, k, n);
            if (k + 8 <= n) {
                k += first_high_in_word(in + k);
            } else {
                while (k < n && in[k] < 0x80)
                    k++;
                if (k >= n)
                    break;
            }
            ascii = 0;
        }
        out[kept++] = in[k];
        ascii_before = ascii ? ascii_before + 1 : 0;
    }
    memcpy(out + kept, in + n, (size_t)tail);
    kept += tail;
    PyBuffer_Release(&view);
    PyObject *result = PyBytes_FromStringAndSize((const char *)out, kept);
    PyMem_Free(out);
    return result;
}

static PyObject *py_mixed_pairs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "mixed_pairs(sample, classes) takes 2 arguments");
        return NULL;
    }
    Py_buffer sample, classes;
    if (!get_bytes(args[0], &sample))
        return NULL;
    if (!get_bytes(args[1], &classes)) {
        PyBuffer_Release(&sample);
        return NULL;
    }
    if (classes.len != 256) {
        PyBuffer_Release(&classes);
        PyBuffer_Release(&sample);
        PyErr_SetString(PyExc_ValueError, "classes must be a 256-byte translate table");
        return NULL;
    }
    /* a is 1, n is 2, anything else 0: a pair is "an" or "na" when the product is 2.  When no
     * ASCII byte is an "n" (detection's tables mark only high bytes so), a word of eight ASCII
     * bytes holds no pair: only the one across its start is counted. */
    unsigned char kind[256];
    const unsigned char *table = classes.buf;
    int ascii_n = 0;
    for (int byte = 0; byte < 256; byte++) {
        kind[byte] = table[byte] == 'a' ? 1 : table[byte] == 'n' ? 2 : 0;
        ascii_n |= byte < 0x80 && kind[byte] == 2;
    }
    const unsigned char *in = sample.buf;
    Py_ssize_t pairs = 0, n = sample.len, k = 1;
    unsigned previous = n ? kind[in[0]] : 0;
    for (; k + 8 <= n; k += 8) {
        if (!ascii_n && ascii8(in + k)) {
            pairs += previous * kind[in[k]] == 2;
            previous = kind[in[k + 7]];
            continue;
        }
        for (int i = 0; i < 8; i++) {
            unsigned current = kind[in[k + i]];
            pairs += previous * current == 2;
            previous = current;
        }
    }
    for (; k < n; k++) {
        unsigned current = kind[in[k]];
        pairs += previous * current == 2;
        previous = current;
    }
    PyBuffer_Release(&classes);
    PyBuffer_Release(&sample);
    return PyLong_FromSsize_t(pairs);
}

/* pair_sum: pairs with a high byte, counted per pair of classes; an all-ASCII word after an ASCII byte
 * holds none and is skipped (after a high byte only the pair across its start counts). */
static PyObject *py_pair_sum(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "pair_sum(sample, classes, weights) takes 3 arguments");
        return NULL;
    }
    Py_buffer sample, classes, weights;
    if (!get_bytes(args[0], &sample))
        return NULL;
    if (!get_bytes(args[1], &classes)) {
        PyBuffer_Release(&sample);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &weights, PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&classes);
        PyBuffer_Release(&sample);
        return NULL;
    }
    const unsigned char *table = classes.buf;
    int valid = classes.len == 256 && weights.len == 256 * (Py_ssize_t)sizeof(double) && weights.format != NULL
                && strcmp(weights.format, "d") == 0;
    for (int byte = 0; valid && byte < 256; byte++)
        valid = table[byte] < 16;
    if (!valid) {
        PyBuffer_Release(&weights);
        PyBuffer_Release(&classes);
        PyBuffer_Release(&sample);
        PyErr_SetString(PyExc_ValueError, "classes must be 256 class numbers below 16, weights an array('d') of 256");
        return NULL;
    }
    Py_ssize_t counts[256] = {0};
    const unsigned char *in = sample.buf;
    Py_ssize_t n = sample.len, k = 1;
    unsigned previous = n ? in[0] : 0;
    for (; k + 8 <= n; k += 8) {
        if (ascii8(in + k)) {
            if (previous >= 0x80)
                counts[16 * table[previous] + table[in[k]]]++;
            previous = in[k + 7];
            continue;
        }
        for (int i = 0; i < 8; i++) {
            unsigned current = in[k + i];
            if ((previous | current) >= 0x80)
                counts[16 * table[previous] + table[current]]++;
            previous = current;
        }
    }
    for (; k < n; k++) {
        unsigned current = in[k];
        if ((previous | current) >= 0x80)
            counts[16 * table[previous] + table[current]]++;
        previous = current;
    }
    const double *weight = weights.buf;
    double total = 0.0;
    for (int index = 0; index < 256; index++) {
        double product = (double)counts[index] * weight[index];
        total += product;
    }
    PyBuffer_Release(&weights);
    PyBuffer_Release(&classes);
    PyBuffer_Release(&sample);
    return PyFloat_FromDouble(total);
}

/* high_byte_count: bytes >= 0x80, eight at a time (each byte's top bit moved to the word's low
 * byte by a multiply: the eight bits sum without carries into bits 56-63). */
static PyObject *py_high_byte_count(PyObject *module, PyObject *data)
{
    (void)module;
    Py_buffer view;
    if (!get_bytes(data, &view))
        return NULL;
    const unsigned char *in = view.buf;
    Py_ssize_t n = view.len, k = 0, high = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t word = (load64(in + k) & HIGH_BITS) >> 7;
        high += (Py_ssize_t)((word * BYTES(1)) >> 56);
    }
    for (; k < n; k++)
        high += in[k] >= 0x80;
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(high);
}

/* first_high_byte: eight bytes a step to the first word holding a high byte (a regular
 * expression takes a few nanoseconds a byte, and a page's first non-ASCII byte may follow kilobytes
 * of markup and script). */
static PyObject *py_first_high_byte(PyObject *module, PyObject *data)
{
    (void)module;
    Py_buffer view;
    if (!get_bytes(data, &view))
        return NULL;
    const unsigned char *in = view.buf;
    Py_ssize_t n = view.len, k = skip_ascii(in, 0, n);
    while (k < n && in[k] < 0x80)
        k++;
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(k < n ? k : -1);
}

/* Whether any byte of word is an ASCII digit: its bytes XOR '0' below 10 (the "has a byte less
 * than" test: exact for whether one is, not for which one). */
static int has_digit(uint64_t word)
{
    uint64_t shifted = word ^ BYTES(0x30);
    return ((shifted - BYTES(10)) & ~shifted & HIGH_BITS) != 0;
}

static int four_byte_gb18030_at(const unsigned char *in)
{
    return in[1] - 0x30u <= 9u && in[3] - 0x30u <= 9u && in[0] - 0x81u <= 0x7Du && in[2] - 0x81u <= 0x7Du;
}

static PyObject *py_four_byte_gb18030(PyObject *module, PyObject *data)
{
    (void)module;
    Py_buffer view;
    if (!get_bytes(data, &view))
        return NULL;
    const unsigned char *in = view.buf;
    Py_ssize_t n = view.len, k = 0;
    int found = 0;
    /* A sequence starting at k .. k + 7 has a digit at k + 1 .. k + 8: eight starts are skipped
     * at once where those bytes hold none (text rarely has digits). */
    for (; k + 9 <= n && !found; k += 8) {
        if (!has_digit(load64(in + k + 1)))
            continue;
        for (Py_ssize_t start = k; start < k + 8 && start + 4 <= n && !found; start++)
            found = four_byte_gb18030_at(in + start);
    }
    for (; k + 4 <= n && !found; k++)
        found = four_byte_gb18030_at(in + k);
    PyBuffer_Release(&view);
    return PyBool_FromLong(found);
}

static PyObject *py_best_dot_products(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "best_dot_products(order, counts, tables, groups) takes 4 arguments");
        return NULL;
    }
    Py_buffer groups;
    if (!get_bytes(args[3], &groups))
        return NULL;
    Py_ssize_t n_tables = 0;
    double *sums = dot_sums(args, &n_tables);
    PyObject *best = NULL, *where = NULL, *result = NULL;
    if (sums == NULL)
        goto done;
    const unsigned char *sizes = groups.buf;
    Py_ssize_t covered = 0;
    for (Py_ssize_t g = 0; g < groups.len; g++)
        covered += sizes[g] ? sizes[g] : n_tables + 1; /* an empty group never matches */
    if (covered != n_tables) {
        PyErr_SetString(PyExc_ValueError, "groups must be sizes >= 1 adding up to the number of tables");
        goto done;
    }
    best = PyList_New(groups.len);
    where = PyBytes_FromStringAndSize(NULL, groups.len);
    if (best == NULL || where == NULL)
        goto done;
    unsigned char *indexes = (unsigned char *)PyBytes_AS_STRING(where);
    Py_ssize_t first = 0;
    for (Py_ssize_t g = 0; g < groups.len; first += sizes[g], g++) {
        Py_ssize_t top = first; /* the first largest, as max() picks it */
        for (Py_ssize_t t = first + 1; t < first + sizes[g]; t++)
            if (sums[t] > sums[top])
                top = t;
        PyObject *value = PyFloat_FromDouble(sums[top]);
        if (value == NULL)
            goto done;
        PyList_SET_ITEM(best, g, value);
        indexes[g] = (unsigned char)(top - first);
    }
    result = PyTuple_Pack(2, best, where);
done:
    Py_XDECREF(best);
    Py_XDECREF(where);
    PyMem_Free(sums);
    PyBuffer_Release(&groups);
    return result;
}

static PyObject *py_softmax_weights(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "softmax_weights(scores: list, best: float) takes 2 arguments");
        return NULL;
    }
    PyObject *scores = args[0];
    double best = PyFloat_AsDouble(args[1]);
    if (best == -1.0 && PyErr_Occurred())
        return NULL;
    PyObject *indexes = PyList_New(0), *weights = PyList_New(0);
    if (indexes == NULL || weights == NULL)
        goto fail;
    double total = 0.0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(scores); i++) {
        double score = PyFloat_AsDouble(PyList_GET_ITEM(scores, i));
        if (score == -1.0 && PyErr_Occurred())
            goto fail;
        double difference = score - best;
        if (-50.0 > difference) /* max(difference, -50.0): the first unless the second is larger */
            difference = -50.0;
        double weight = exp(difference); /* the libm function math.exp calls */
        if (isinf(weight) && isfinite(difference)) {
            PyErr_SetString(PyExc_OverflowError, "math range error"); /* as math.exp raises */
            goto fail;
        }
        total += weight;
        if (weight > 1e-6) {
            PyObject *index = PyLong_FromSsize_t(i), *value = PyFloat_FromDouble(weight);
            int failed = index == NULL || value == NULL || PyList_Append(indexes, index) < 0 ||
                         PyList_Append(weights, value) < 0;
            Py_XDECREF(index);
            Py_XDECREF(value);
            if (failed)
                goto fail;
        }
    }
    return Py_BuildValue("(dNN)", total, indexes, weights);
fail:
    Py_XDECREF(indexes);
    Py_XDECREF(weights);
    return NULL;
}

/* One incremental decoder class, made "strict", decoding data with final false: the text, or Py_None on a
 * UnicodeDecodeError (a new reference either way); NULL with any other exception. */
static PyObject *strict_decode(PyObject *decoder_class, PyObject *data)
{
    PyObject *strict = PyUnicode_InternFromString("strict"), *name = PyUnicode_InternFromString("decode");
    PyObject *decoder = strict == NULL || name == NULL ? NULL : PyObject_CallOneArg(decoder_class, strict);
    PyObject *text = NULL;
    if (decoder != NULL) {
        PyObject *call[3] = {decoder, data, Py_False};
        text = PyObject_VectorcallMethod(name, call, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(decoder);
        if (text == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
            PyErr_Clear();
            text = Py_NewRef(Py_None);
        }
    }
    Py_XDECREF(strict);
    Py_XDECREF(name);
    return text;
}

/* strict_decodes: strict_decode of data by each decoder class of decoders.  What Python's try/except per
 * candidate costs (a traceback, the matching, the calls) is most of a failed decode's time. */
static PyObject *py_strict_decodes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "strict_decodes(data, decoders: tuple) takes 2 arguments");
        return NULL;
    }
    PyObject *data = args[0], *decoders = args[1];
    Py_ssize_t n = PyTuple_GET_SIZE(decoders);
    PyObject *texts = PyList_New(n);
    if (texts == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *text = strict_decode(PyTuple_GET_ITEM(decoders, i), data);
        if (text == NULL) {
            Py_DECREF(texts);
            return NULL;
        }
        PyList_SET_ITEM(texts, i, text);
    }
    return texts;
}

/* agreed_decodes: strict_decodes, spared the codec where agreement tables answer (detection/agreement.py).
 * A reader is None or (singles, pairs, triple_lead, triples, native): the tables' classes of each byte, pair and
 * triple (pairs and triples packed four classes a byte), and the standard's compiled decoder for the encoding. */
enum { CLASS_INVALID, CLASS_AGREE, CLASS_DIFFER, CLASS_LEAD };
enum { READING_FAILS, READING_AGREES, READING_ASK };

static inline int packed_class(const unsigned char *packed, unsigned index)
{
    return (packed[index >> 2] >> ((index & 3) * 2)) & 3;
}

/* agreement.reference_reading: FAILS, AGREES (with *end before an incomplete sequence at the end) or ASK. */
static int scoring_reading(const unsigned char *in, Py_ssize_t n, const unsigned char *singles,
                           const unsigned char *pairs, int triple_lead, const unsigned char *triples, Py_ssize_t *end)
{
    Py_ssize_t i = 0;
    while (i < n) {
        i = skip_ascii(in, i, n); /* every table reads ASCII as the standard does (agreement.build checks) */
        if (i >= n)
            break;
        unsigned byte = in[i];
        int kind = singles[byte];
        if (kind == CLASS_AGREE) {
            i++;
            continue;
        }
        if (kind != CLASS_LEAD)
            return kind == CLASS_INVALID ? READING_FAILS : READING_ASK;
        if (i + 1 == n)
            break; /* the codec waits for a second byte */
        unsigned second = in[i + 1];
        Py_ssize_t width = 2;
        kind = packed_class(pairs, (byte << 8) | second);
        if (kind == CLASS_LEAD) {
            if (triple_lead < 0)
                return READING_ASK; /* never: agreement.build makes no such table */
            if (i + 2 == n)
                break;
            kind = packed_class(triples, (second << 8) | in[i + 2]);
            width = 3;
        }
        if (kind != CLASS_AGREE)
            return kind == CLASS_INVALID ? READING_FAILS : READING_ASK;
        i += width;
    }
    *end = i;
    return READING_AGREES;
}

/* One reader's answer for data: a new reference to the text, Py_None (the codec fails), or NULL with no
 * exception set when the codec must be asked.  NULL with an exception set on error. */
static PyObject *agreed_text(PyObject *data, const unsigned char *in, Py_ssize_t n, PyObject *reader)
{
    if (!PyTuple_Check(reader) || PyTuple_GET_SIZE(reader) != 5) {
        PyErr_SetString(PyExc_TypeError, "a reader is (singles, pairs, triple_lead, triples, native)");
        return NULL;
    }
    PyObject *singles = PyTuple_GET_ITEM(reader, 0), *pairs = PyTuple_GET_ITEM(reader, 1);
    PyObject *triples = PyTuple_GET_ITEM(reader, 3), *native = PyTuple_GET_ITEM(reader, 4);
    long triple_lead = PyLong_AsLong(PyTuple_GET_ITEM(reader, 2));
    if (triple_lead == -1 && PyErr_Occurred())
        return NULL;
    if (!PyBytes_Check(singles) || PyBytes_GET_SIZE(singles) != 256 || !PyBytes_Check(pairs) ||
        PyBytes_GET_SIZE(pairs) != 0x4000 || !PyBytes_Check(triples) || PyBytes_GET_SIZE(triples) != 0x4000) {
        PyErr_SetString(PyExc_ValueError, "agreement tables of 256, 0x4000 and 0x4000 bytes");
        return NULL;
    }
    Py_ssize_t end = 0;
    int reading = scoring_reading(in, n, (const unsigned char *)PyBytes_AS_STRING(singles),
                                  (const unsigned char *)PyBytes_AS_STRING(pairs), (int)triple_lead,
                                  (const unsigned char *)PyBytes_AS_STRING(triples), &end);
    if (reading == READING_FAILS)
        return Py_NewRef(Py_None);
    if (reading == READING_ASK)
        return NULL;
    PyObject *part = end == n && PyBytes_CheckExact(data) ? Py_NewRef(data)
                                                         : PyBytes_FromStringAndSize((const char *)in, end);
    if (part == NULL)
        return NULL;
    PyObject *call[2] = {part, Py_True};
    PyObject *result = PyObject_Vectorcall(native, call, 2, NULL);
    Py_DECREF(part);
    if (result == NULL)
        return NULL;
    PyObject *text = NULL;
    if (PyTuple_Check(result) && PyTuple_GET_SIZE(result) == 2 && PyUnicode_Check(PyTuple_GET_ITEM(result, 0)))
        text = Py_NewRef(PyTuple_GET_ITEM(result, 0));
    Py_DECREF(result);
    if (text == NULL) /* the standard's decoder refused what the tables say it reads: the codec decides */
        return NULL;
    return text;
}

static PyObject *py_agreed_decodes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyTuple_Check(args[1]) || !PyTuple_Check(args[2]) ||
        PyTuple_GET_SIZE(args[1]) != PyTuple_GET_SIZE(args[2])) {
        PyErr_SetString(PyExc_TypeError, "agreed_decodes(data, decoders: tuple, readers: tuple of as many)");
        return NULL;
    }
    PyObject *data = args[0], *decoders = args[1], *readers = args[2];
    Py_buffer view;
    if (!get_bytes(data, &view))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(decoders);
    PyObject *texts = PyList_New(n);
    if (texts == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *reader = PyTuple_GET_ITEM(readers, i), *text = NULL;
        if (reader != Py_None) {
            text = agreed_text(data, view.buf, view.len, reader);
            if (text == NULL && PyErr_Occurred())
                goto fail;
        }
        if (text == NULL) {
            text = strict_decode(PyTuple_GET_ITEM(decoders, i), data);
            if (text == NULL)
                goto fail;
        }
        PyList_SET_ITEM(texts, i, text);
    }
    PyBuffer_Release(&view);
    return texts;
fail:
    PyBuffer_Release(&view);
    Py_XDECREF(texts);
    return NULL;
}

/* One character's log-probability: the memo's, else logp's, else unseen's (stored in logp). */
static int character_logp(Py_UCS4 code_point, PyObject *logp, PyObject *unseen, double *memo, double *value)
{
    if (memo != NULL && code_point < MEMO_SIZE && !isnan(memo[code_point])) {
        *value = memo[code_point];
        return 0;
    }
    PyObject *key = PyUnicode_FromOrdinal((int)code_point);
    if (key == NULL)
        return -1;
    PyObject *found = PyDict_GetItemWithError(logp, key); /* borrowed */
    if (found != NULL) {
        Py_INCREF(found);
    } else if (PyErr_Occurred()) {
        Py_DECREF(key);
        return -1;
    } else {
        found = PyObject_CallOneArg(unseen, key);
        if (found == NULL || PyDict_SetItem(logp, key, found) < 0) {
            Py_XDECREF(found);
            Py_DECREF(key);
            return -1;
        }
    }
    Py_DECREF(key);
    *value = PyFloat_AsDouble(found);
    Py_DECREF(found);
    if (*value == -1.0 && PyErr_Occurred())
        return -1;
    if (memo != NULL && code_point < MEMO_SIZE)
        memo[code_point] = *value;
    return 0;
}

static PyObject *py_text_likelihood(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4 || !PyUnicode_Check(args[0]) || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "text_likelihood(text: str, logp: dict, unseen, memo) takes 4 arguments");
        return NULL;
    }
    PyObject *text = args[0], *logp = args[1], *unseen = args[2];
    Py_buffer memo_view;
    if (PyObject_GetBuffer(args[3], &memo_view, PyBUF_WRITABLE | PyBUF_FORMAT) < 0)
        return NULL;
    if (memo_view.format == NULL || strcmp(memo_view.format, "d") != 0 ||
        memo_view.len != (Py_ssize_t)(MEMO_SIZE * sizeof(double))) {
        PyBuffer_Release(&memo_view);
        PyErr_SetString(PyExc_ValueError, "memo must be an array('d') of 0x10000 entries");
        return NULL;
    }
    double *memo = memo_view.buf;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) {
        PyBuffer_Release(&memo_view);
        return NULL;
    }
#endif
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);

    /* Distinct characters >= U+0080 in order of first occurrence, counted in an open-addressing
     * table (a code point >= 0x80 is never 0, the empty slot's key) sized for the non-ASCII
     * characters: a mostly ASCII text needs a small one.  Each str kind is read in its own loop. */
    Py_ssize_t high = 0;
#define COUNT_HIGH(TYPE)                                                                                     \
    for (Py_ssize_t i = 0; i < length; i++)                                                                  \
        high += ((const TYPE *)data)[i] >= 0x80;
    if (kind == PyUnicode_1BYTE_KIND) {
        COUNT_HIGH(Py_UCS1)
    } else if (kind == PyUnicode_2BYTE_KIND) {
        COUNT_HIGH(Py_UCS2)
    } else {
        COUNT_HIGH(Py_UCS4)
    }
    Py_ssize_t capacity = 64;
    while (capacity < 2 * high)
        capacity *= 2;
    Py_UCS4 *keys = PyMem_Calloc((size_t)capacity, sizeof(Py_UCS4));
    Py_ssize_t *slot_counts = PyMem_Calloc((size_t)capacity, sizeof(Py_ssize_t));
    Py_ssize_t *order = PyMem_Malloc((size_t)(high ? high : 1) * sizeof(Py_ssize_t));
    PyObject *result = NULL;
    if (keys == NULL || slot_counts == NULL || order == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t distinct = 0;
    /* Each distinct character's memo entry is asked for as it is first seen, so that the sum below finds
     * them in the cache: the 512 KiB memo is cold after the megabytes of UTF-8 pages a crawl decodes between
     * two CJK ones, and the sum's loads, one after another, would each wait for memory. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_MEMO(CP)                                                                                    \
    do {                                                                                                     \
        if ((CP) < MEMO_SIZE)                                                                                \
            __builtin_prefetch(memo + (CP), 0, 1);                                                           \
    } while (0)
#else
#define PREFETCH_MEMO(CP) ((void)0)
#endif
#define COUNT_DISTINCT(TYPE)                                                                                 \
    for (Py_ssize_t i = 0; i < length; i++) {                                                                \
        Py_UCS4 code_point = ((const TYPE *)data)[i];                                                        \
        if (code_point < 0x80)                                                                               \
            continue;                                                                                        \
        Py_ssize_t slot = (Py_ssize_t)((code_point * 2654435761u) & (uint32_t)(capacity - 1));               \
        while (keys[slot] != 0 && keys[slot] != code_point)                                                  \
            slot = (slot + 1) & (capacity - 1);                                                              \
        if (keys[slot] == 0) {                                                                               \
            keys[slot] = code_point;                                                                         \
            order[distinct++] = slot;                                                                        \
            PREFETCH_MEMO(code_point);                                                                       \
        }                                                                                                    \
        slot_counts[slot]++;                                                                                 \
    }
    if (kind == PyUnicode_1BYTE_KIND) {
        COUNT_DISTINCT(Py_UCS1)
    } else if (kind == PyUnicode_2BYTE_KIND) {
        COUNT_DISTINCT(Py_UCS2)
    } else {
        COUNT_DISTINCT(Py_UCS4)
    }
    double total = 0.0;
    for (Py_ssize_t i = 0; i < distinct; i++) {
        double value;
        if (character_logp(keys[order[i]], logp, unseen, memo, &value) < 0)
            goto done;
        double product = (double)slot_counts[order[i]] * value;
        total += product;
    }
    result = PyFloat_FromDouble(total);
done:
    PyMem_Free(keys);
    PyMem_Free(slot_counts);
    PyMem_Free(order);
    PyBuffer_Release(&memo_view);
    return result;
}

/* high_runs: the maximal runs of high bytes, counted as the high bytes not preceded by one: per
 * word, the high bits not set one byte lower (the previous byte, or the previous word's last), by
 * counting them; words of ASCII are skipped.  On a big-endian machine, or without GCC's builtins, a byte
 * at a time. */
static PyObject *py_high_runs(PyObject *module, PyObject *data)
{
    (void)module;
    Py_buffer view;
    if (!get_bytes(data, &view))
        return NULL;
    const unsigned char *in = view.buf;
    Py_ssize_t n = view.len, runs = 0, k = 0;
    int previous_high = 0;
#if PY_LITTLE_ENDIAN && (defined(__GNUC__) || defined(__clang__))
    for (; k + 8 <= n; k += 8) {
        uint64_t high = load64(in + k) & HIGH_BITS;
        if (!high) {
            previous_high = 0;
            continue;
        }
        /* the starts, usually one or two: cleared one at a time (a popcount without -mpopcnt is a call) */
        for (uint64_t starts = high & ~((high << 8) | (previous_high ? 0x80u : 0u)); starts; starts &= starts - 1)
            runs++;
        previous_high = (high >> 63) != 0;
    }
#endif
    for (; k < n; k++) {
        int is_high = in[k] >= 0x80;
        runs += is_high && !previous_high;
        previous_high = is_high;
    }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(runs);
}

/* The str argument of a count over a text's characters: 0 with a TypeError unless *text* is a str (named *function*
 * in the message); else 1, with its kind, data and length. */
static int text_argument(PyObject *text, const char *function, int *kind, const void **data, Py_ssize_t *length)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "%s(text: str) takes a str", function);
        return 0;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return 0;
#endif
    *kind = PyUnicode_KIND(text);
    *data = PyUnicode_DATA(text);
    *length = PyUnicode_GET_LENGTH(text);
    return 1;
}

/* non_ascii_capitals: the characters of text in U+0080-U+2FFF that are uppercase.  A one-character
 * str's isupper() is Py_UNICODE_ISUPPER of it, so this counts what the reference's regular
 * expression of those characters matches (one match a character), at a table lookup a character
 * in the range and a comparison outside it (a CJK text's characters are mostly above U+3000). */
#define CAPITALS_END 0x3000
static PyObject *py_non_ascii_capitals(PyObject *module, PyObject *text)
{
    (void)module;
    int kind;
    const void *data;
    Py_ssize_t length, capitals = 0;
    if (!text_argument(text, "non_ascii_capitals", &kind, &data, &length))
        return NULL;
    if (PyUnicode_IS_ASCII(text))
        return PyLong_FromLong(0);
#define COUNT_CAPITALS(TYPE)                                                                                 \
    for (Py_ssize_t i = 0; i < length; i++) {                                                                \
        Py_UCS4 code_point = ((const TYPE *)data)[i];                                                        \
        if (code_point >= 0x80 && code_point < CAPITALS_END && Py_UNICODE_ISUPPER(code_point))               \
            capitals++;                                                                                      \
    }
    if (kind == PyUnicode_1BYTE_KIND) {
        COUNT_CAPITALS(Py_UCS1)
    } else if (kind == PyUnicode_2BYTE_KIND) {
        COUNT_CAPITALS(Py_UCS2)
    } else {
        COUNT_CAPITALS(Py_UCS4)
    }
#undef COUNT_CAPITALS
    return PyLong_FromSsize_t(capitals);
}

/* latin_after_non_ascii: the characters >= U+0080 of text that an ASCII letter follows. */
static inline int ascii_letter(Py_UCS4 code_point)
{
    return (code_point | 0x20) - 'a' < 26;
}

static PyObject *py_latin_after_non_ascii(PyObject *module, PyObject *text)
{
    (void)module;
    int kind;
    const void *data;
    Py_ssize_t length, glued = 0;
    if (!text_argument(text, "latin_after_non_ascii", &kind, &data, &length))
        return NULL;
    if (PyUnicode_IS_ASCII(text))
        return PyLong_FromLong(0);
#define COUNT_GLUED(TYPE)                                                                                    \
    for (Py_ssize_t i = 1; i < length; i++)                                                                  \
        glued += ((const TYPE *)data)[i - 1] >= 0x80 && ascii_letter(((const TYPE *)data)[i]);
    if (kind == PyUnicode_1BYTE_KIND) {
        COUNT_GLUED(Py_UCS1)
    } else if (kind == PyUnicode_2BYTE_KIND) {
        COUNT_GLUED(Py_UCS2)
    } else {
        COUNT_GLUED(Py_UCS4)
    }
#undef COUNT_GLUED
    return PyLong_FromSsize_t(glued);
}

static PyMethodDef methods[] = {
    {"high_bytes", py_high_bytes, METH_O,
     "high_bytes(data, /)\n--\n\n(distinct bytes >= 0x80 in order of first occurrence, their counts)."},
    {"high_byte_counts", py_high_byte_counts, METH_O,
     "high_byte_counts(data, /)\n--\n\nHow often each byte 0x80 + i occurs in data, i in 0..127."},
    {"squeeze", py_squeeze, METH_O, "squeeze(data, /)\n--\n\ndata with each run of ASCII bytes cut to its first two bytes, its last three kept."},
    {"mixed_pairs", (PyCFunction)(void (*)(void))py_mixed_pairs, METH_FASTCALL,
     "mixed_pairs(sample, classes, /)\n--\n\nAdjacent pairs of sample its classes mark \"an\" or \"na\"."},
    {"pair_sum", (PyCFunction)(void (*)(void))py_pair_sum, METH_FASTCALL,
     "pair_sum(sample, classes, weights, /)\n--\n\nSum of weights[16 * classes[x] + classes[y]] over the "
     "adjacent pairs (x, y) of sample holding a byte >= 0x80."},
    {"first_high_byte", py_first_high_byte, METH_O,
     "first_high_byte(data, /)\n--\n\nThe index of data's first byte >= 0x80, or -1."},
    {"high_byte_count", py_high_byte_count, METH_O, "high_byte_count(data, /)\n--\n\nHow many bytes of data are >= 0x80."},
    {"four_byte_gb18030", py_four_byte_gb18030, METH_O,
     "four_byte_gb18030(data, /)\n--\n\nWhether data holds [81-FE][30-39][81-FE][30-39]."},
    {"best_dot_products", (PyCFunction)(void (*)(void))py_best_dot_products, METH_FASTCALL,
     "best_dot_products(order, counts, tables, groups, /)\n--\n\nPer group of tables, the largest dot product "
     "and the index of its table."},
    {"softmax_weights", (PyCFunction)(void (*)(void))py_softmax_weights, METH_FASTCALL,
     "softmax_weights(scores, best, /)\n--\n\n(sum of exp(max(score - best, -50)), indexes, weights > 1e-6)."},
    {"strict_decodes", (PyCFunction)(void (*)(void))py_strict_decodes, METH_FASTCALL,
     "strict_decodes(data, decoders, /)\n--\n\nPer incremental decoder class, data decoded strictly with "
     "final false, or None."},
    {"agreed_decodes", (PyCFunction)(void (*)(void))py_agreed_decodes, METH_FASTCALL,
     "agreed_decodes(data, decoders, readers, /)\n--\n\nstrict_decodes, where agreement tables answer without "
     "the codec."},
    {"text_likelihood", (PyCFunction)(void (*)(void))py_text_likelihood, METH_FASTCALL,
     "text_likelihood(text, logp, unseen, memo, /)\n--\n\nSum of count * log-probability over text's "
     "distinct non-ASCII characters."},
    {"high_runs", py_high_runs, METH_O, "high_runs(data, /)\n--\n\nHow many maximal runs of bytes >= 0x80 data holds."},
    {"non_ascii_capitals", py_non_ascii_capitals, METH_O,
     "non_ascii_capitals(text, /)\n--\n\nHow many characters of text in U+0080-U+2FFF are uppercase."},
    {"latin_after_non_ascii", py_latin_after_non_ascii, METH_O,
     "latin_after_non_ascii(text, /)\n--\n\nHow many characters >= U+0080 of text an ASCII letter follows."},
    {NULL, NULL, 0, NULL},
};

NATIVE_MODULE(detection, "Detection's counting and scoring loops, compiled (see detection.c).", methods, (void)0)
