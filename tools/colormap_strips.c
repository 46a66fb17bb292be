/* colormap_strips.c: writes every colormap of src/render/colormaps.c as a small PNG
 * strip (256 x 16, low values on the left) into a folder, for the docs:
 * `colormap_strips docs/img` writes docs/img/colormap-NAME.png. Run by
 * `make gallery`. */
#include <png.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FOLDER\n", argv[0]);
        return 2;
    }
    enum { W = 256, H = 16 };
    static unsigned char rgb[W * H * 3];
    for (int i = 0; colormap_names[i]; i++) {
        const unsigned char (*map)[3] = colormap_find(colormap_names[i]);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                memcpy(rgb + (y * W + x) * 3, map[x], 3);
        char path[4096];
        snprintf(path, sizeof path, "%s/colormap-%s.png", argv[1], colormap_names[i]);
        png_image pi;
        memset(&pi, 0, sizeof pi);
        pi.version = PNG_IMAGE_VERSION;
        pi.width = W;
        pi.height = H;
        pi.format = PNG_FORMAT_RGB;
        if (!png_image_write_to_file(&pi, path, 0, rgb, 0, NULL)) {
            fprintf(stderr, "colormap_strips: %s: %s\n", path, pi.message);
            return 1;
        }
    }
    return 0;
}
