/* sws_one_call.h: the plain path the banded scalers are compared with: one
 * sws_scale call over the whole picture with the renderer's flags
 * (RR_SWS_FLAGS, src/scale.h), one plane of format fmt, sw x sh at src
 * (rows ss bytes apart) to dw x dh at dst (rows ds bytes apart). Include
 * after cmocka.h. */
#ifndef RR_TEST_SWS_ONE_CALL_H
#define RR_TEST_SWS_ONE_CALL_H

#include <stdint.h>

#include <libswscale/swscale.h>

#include "scale.h"

static inline void sws_one_call(int sw, int sh, int dw, int dh, enum AVPixelFormat fmt, const uint8_t *src, int ss,
                                uint8_t *dst, int ds)
{
    struct SwsContext *c = sws_getContext(sw, sh, fmt, dw, dh, fmt, RR_SWS_FLAGS, NULL, NULL, NULL);
    assert_non_null(c);
    const uint8_t *s[4] = { src, NULL, NULL, NULL };
    int sst[4] = { ss, 0, 0, 0 };
    uint8_t *d[4] = { dst, NULL, NULL, NULL };
    int dst_[4] = { ds, 0, 0, 0 };
    assert_int_equal(sws_scale(c, s, sst, 0, sh, d, dst_), dh);
    sws_freeContext(c);
}

#endif
