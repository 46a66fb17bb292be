/* frame.h: one rendered frame as it passes from the renderer to a sink,
 * and what a sink may ask the renderer to add to it (RENDER_NEED_*).
 *
 * rgb is always present: width * height * 3 bytes, packed rows (stride
 * width * 3), the bytes that --hash and .framemd5 hash. gray16 (width * height
 * native-endian values) is present only when a sink asked for 16-bit grey;
 * heights (grid_w * grid_h floats, packed rows) only when a sink asked for raw
 * heights. deep is present only when a sink asked for 16 bits per channel or
 * for alpha: width * height pixels of deep_channels interleaved samples (r, g,
 * b and, with 4, straight alpha), deep_bits 8 (bytes) or 16 (native-endian
 * uint16), packed rows: what libswscale calls rgba, rgb48 or rgba64. Its
 * colour at 8 bits is rgb's, byte for byte. With RENDER_NEED_FLOAT, deep
 * holds instead the mode's quantities at full precision, deep_bits 32
 * (native float): height: the height; normals: the unit normal nx, ny, nz
 * (render.normal_convention's sign of ny); caustics: the floor's light; and,
 * with RENDER_NEED_ALPHA, render.alpha's alpha in [0, 1] last: 1 to 4
 * channels, one pixel per grid cell (the renderer refuses a scaled render).
 * yuv (RENDER_NEED_YUV420) is the picture as yuv420p, made only where the
 * renderer scales to render size (render.h): the Y plane (width * height
 * bytes), then Cb and Cr (width / 2 * height / 2 bytes each), packed rows;
 * NULL where the renderer does not make it (unscaled, odd sizes), when the
 * sink converts rgb itself. rgb is NULL only where yuv is made and the run
 * asked for RENDER_YUV_ONLY.
 * The renderer owns the buffers; they are valid until its next frame. */
#ifndef RR_FRAME_H
#define RR_FRAME_H

#include <stdint.h>

/* The optional parts of a frame: a sink's needs (sink.h) and the
 * renderer's render_create take a mask of these. */
enum render_needs {
    /* 16-bit grey at render size when the mode's picture is grey (height);
     * the other modes give frame.deep at 16 bits instead, as for RGB16. */
    RENDER_NEED_GRAY16 = 1,
    RENDER_NEED_HEIGHTS = 2,   /* raw float heights at grid size */
    RENDER_NEED_RGB16 = 4,     /* frame.deep at 16 bits per channel */
    RENDER_NEED_ALPHA = 8,     /* frame.deep with render.alpha's alpha (8 or 16 bits, as RGB16 says) */
    RENDER_NEED_FLOAT = 16,    /* frame.deep as floats: the mode's quantities, not colours */
    /* frame.yuv where the picture is scaled: converted at grid size by
     * sinks/yuv420.c and its planes scaled (render.h), for a yuv420p encoder. */
    RENDER_NEED_YUV420 = 32,
    /* Nothing reads frame.rgb where frame.yuv is made (main.c: no hashes), so
     * the renderer does not scale it. */
    RENDER_YUV_ONLY = 64,
};

struct frame {
    long index;                 /* frame number, from 0 */
    int width, height;          /* rendered size */
    const uint8_t *rgb;
    const uint16_t *gray16;     /* NULL unless asked for */
    int grid_w, grid_h;
    const float *heights;       /* NULL unless asked for */
    const void *deep;           /* NULL unless asked for */
    int deep_channels, deep_bits;
    const uint8_t *yuv;         /* NULL unless asked for and scaled */
};

/* Bytes of a frame's yuv420p picture (0 without one). */
static inline unsigned long frame_yuv_bytes(const struct frame *fr)
{
    return fr->yuv ? (unsigned long)fr->width * (unsigned long)fr->height * 3 / 2 : 0;
}

/* Bytes of a frame's deep picture (0 without one). */
static inline unsigned long frame_deep_bytes(const struct frame *fr)
{
    return fr->deep ? (unsigned long)fr->width * (unsigned long)fr->height * (unsigned long)fr->deep_channels *
                          (unsigned long)(fr->deep_bits / 8)
                    : 0;
}

#endif
