// Embedded Swift's Double(String) calls this C entry point, which the full runtime defines and the
// embedded standard library leaves to the program (ENCore's JSON parser reads numbers with it).
// The same contract as the runtime's: parse in the C locale, return where parsing stopped, or NULL when
// the value is out of range.
#define _GNU_SOURCE
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>

const char *_swift_stdlib_strtod_clocale(const char *nptr, double *outResult) {
    static locale_t c_locale;
    if (!c_locale) c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    char *end;
    errno = 0;
    double result = strtod_l(nptr, &end, c_locale);
    *outResult = result;
    if (errno == ERANGE && (result == 0.0 || result == HUGE_VAL || result == -HUGE_VAL)) return NULL;
    return end;
}
