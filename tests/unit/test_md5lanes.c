/* test_md5lanes.c: MD5 of messages side by side (src/md5lanes.c): RFC 1321's
 * test suite (appendix A.5) in every lane, every length to 300 bytes (the
 * padding's one- and two-block ends: 55, 56, 63, 64 bytes mod 64) with 1 to
 * 16 distinct messages against libavutil's av_md5_sum, a byte changed in
 * one lane changing that lane's digest alone, and frame-sized messages at
 * unaligned addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libavutil/md5.h>

#include "md5lanes.h"

static uint32_t rng = 12345;
static uint8_t next_byte(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (uint8_t)(rng >> 24);
}

/* Checks md5_lanes on n messages of len bytes at msg against av_md5_sum. */
static void check_against_libavutil(const uint8_t *const *msg, int n, size_t len)
{
    uint8_t got[MD5_LANES][16], want[16];
    memset(got, 0xee, sizeof got);
    md5_lanes(msg, n, len, got);
    for (int k = 0; k < n; k++) {
        av_md5_sum(want, msg[k], len);
        if (memcmp(got[k], want, 16) != 0)
            fail_msg("length %zu, %d messages: lane %d differs", len, n, k);
    }
    /* Lanes past n are not written. */
    for (int k = n; k < MD5_LANES; k++)
        for (int j = 0; j < 16; j++)
            assert_int_equal(got[k][j], 0xee);
}

static void test_rfc1321_suite(void **state)
{
    (void)state;
    static const char *const suite[][2] = {
        { "", "d41d8cd98f00b204e9800998ecf8427e" },
        { "a", "0cc175b9c0f1b6a831c399e269772661" },
        { "abc", "900150983cd24fb0d6963f7d28e17f72" },
        { "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
        { "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
        { "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f" },
        { "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
          "57edf4a22be3c955ac49da2e2107b67a" },
    };
    for (size_t s = 0; s < sizeof suite / sizeof suite[0]; s++) {
        const uint8_t *msg[MD5_LANES];
        for (int k = 0; k < MD5_LANES; k++)
            msg[k] = (const uint8_t *)suite[s][0];
        for (int n = 1; n <= MD5_LANES; n += 15) {
            uint8_t d[MD5_LANES][16];
            char hex[33];
            md5_lanes(msg, n, strlen(suite[s][0]), d);
            for (int k = 0; k < n; k++) {
                md5_hex(d[k], hex);
                assert_string_equal(hex, suite[s][1]);
            }
        }
    }
}

static void test_every_length(void **state)
{
    (void)state;
    enum { MAX = 300 };
    uint8_t *buf[MD5_LANES];
    for (int k = 0; k < MD5_LANES; k++) {
        buf[k] = malloc(MAX);
        assert_non_null(buf[k]);
        for (int j = 0; j < MAX; j++)
            buf[k][j] = next_byte();
    }
    for (size_t len = 0; len <= MAX; len++)
        for (int n = 1; n <= MD5_LANES; n++)
            check_against_libavutil((const uint8_t *const *)buf, n, len);
    for (int k = 0; k < MD5_LANES; k++)
        free(buf[k]);
}

static void test_lanes_independent(void **state)
{
    (void)state;
    enum { LEN = 1000 };
    static uint8_t buf[MD5_LANES][LEN];
    const uint8_t *msg[MD5_LANES];
    for (int k = 0; k < MD5_LANES; k++) {
        memset(buf[k], 0x5a, LEN);   /* every lane the same message */
        msg[k] = buf[k];
    }
    uint8_t before[MD5_LANES][16], after[MD5_LANES][16];
    md5_lanes(msg, MD5_LANES, LEN, before);
    for (int k = 1; k < MD5_LANES; k++)
        assert_memory_equal(before[k], before[0], 16);
    for (int k = 0; k < MD5_LANES; k++) {
        buf[k][k * 61] ^= 1;
        md5_lanes(msg, MD5_LANES, LEN, after);
        for (int j = 0; j < MD5_LANES; j++)
            if (j == k)
                assert_memory_not_equal(after[j], before[j], 16);
            else
                assert_memory_equal(after[j], before[j], 16);
        buf[k][k * 61] ^= 1;
    }
}

/* Frame-sized messages (a 641 x 359 rgb24 picture: not a whole number of
 * blocks) at addresses 0 to 15 bytes past an allocation's. */
static void test_frames_unaligned(void **state)
{
    (void)state;
    const size_t len = (size_t)641 * 359 * 3;
    uint8_t *buf[MD5_LANES];
    const uint8_t *msg[MD5_LANES];
    for (int k = 0; k < MD5_LANES; k++) {
        buf[k] = malloc(len + 16);
        assert_non_null(buf[k]);
        for (size_t j = 0; j < len + 16; j++)
            buf[k][j] = next_byte();
        msg[k] = buf[k] + k;
    }
    check_against_libavutil(msg, MD5_LANES, len);
    check_against_libavutil(msg, 3, len);
    for (int k = 0; k < MD5_LANES; k++)
        free(buf[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc1321_suite),
        cmocka_unit_test(test_every_length),
        cmocka_unit_test(test_lanes_independent),
        cmocka_unit_test(test_frames_unaligned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
