/* utf8.h: well-formed UTF-8 (RFC 3629, Unicode Table 3-7): no overlong forms,
 * no surrogates, nothing past U+10FFFF. Scene files, --set arguments and every
 * JSON text ripplerender writes (--print-scene, --manifest) hold only UTF-8. */
#ifndef RR_UTF8_H
#define RR_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the well-formed sequence at p, of which `left` bytes
 * are readable (left >= 1); 0 when the bytes there are not one. */
static inline size_t utf8_seq_len(const unsigned char *p, size_t left)
{
    unsigned char b = p[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;   /* allowed range of the second byte */
    if (b < 0x80) return 1;
    else if (b >= 0xC2 && b <= 0xDF) len = 2;
    else if (b == 0xE0) { len = 3; lo = 0xA0; }
    else if (b == 0xED) { len = 3; hi = 0x9F; }
    else if (b >= 0xE1 && b <= 0xEF) len = 3;
    else if (b == 0xF0) { len = 4; lo = 0x90; }
    else if (b == 0xF4) { len = 4; hi = 0x8F; }
    else if (b >= 0xF1 && b <= 0xF3) len = 4;
    else return 0;
    if (left < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if ((p[k] & 0xC0) != 0x80)
            return 0;
    return len;
}

/* The first byte of the NUL-terminated s that does not start a well-formed
 * sequence, or NULL when s is all UTF-8. */
static inline const char *utf8_bad_byte(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = 0;
    while (p[left])
        left++;
    while (left > 0) {
        size_t n = utf8_seq_len(p, left);
        if (!n)
            return (const char *)p;
        p += n;
        left -= n;
    }
    return NULL;
}

#endif
