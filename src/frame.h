/* frame.h: one rendered frame as it passes from the renderer to a sink.
 *
 * rgb is always present: width * height * 3 bytes, packed rows (stride
 * width * 3), the bytes that --hash and .framemd5 hash. gray16 (width * height
 * native-endian values) is present only when a sink asked for 16-bit grey;
 * heights (grid_w * grid_h floats, packed rows) only when a sink asked for raw
 * heights. The renderer owns the buffers; they are valid until its next frame. */
#ifndef RR_FRAME_H
#define RR_FRAME_H

#include <stdint.h>

struct frame {
    long index;                 /* frame number, from 0 */
    int width, height;          /* rendered size */
    const uint8_t *rgb;
    const uint16_t *gray16;     /* NULL unless asked for */
    int grid_w, grid_h;
    const float *heights;       /* NULL unless asked for */
};

#endif
