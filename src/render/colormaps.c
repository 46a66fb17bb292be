/* render/colormaps.c: the named 256-entry colour tables of render.mode "colormap".
 *
 * Every table is computed once, in double precision, from published formulas
 * or control points, and rounded to bytes with lrint (round half to even):
 * plain IEEE arithmetic without fused multiply-add (-std=c11), so the bytes are
 * the same on every CPU. Entry i is the colour at t = i / 255. */
#include "render.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

typedef unsigned char rgb_t[3];

const char *const colormap_names[] = {
    "grey", "viridis", "magma", "inferno", "plasma", "turbo", "coolwarm", "balance", "ocean", "cividis", NULL,
};

#define N_MAPS (sizeof colormap_names / sizeof colormap_names[0] - 1)

static rgb_t tables[N_MAPS][256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static unsigned char to_byte(double c)
{
    if (!(c > 0.0))
        return 0;
    if (c >= 1.0)
        return 255;
    return (unsigned char)lrint(c * 255.0);
}

/* Degree-6 minimax fits of matplotlib's viridis, magma, inferno and plasma
 * (Matt Zucker, "Optimal polynomial fits of matplotlib colormaps", shadertoy
 * WlfXRN, CC0; fitted to the BIDS/colormap data). c[k][channel] is the
 * coefficient of t^k. Error below one byte step nearly everywhere. */
static const double fit_viridis[7][3] = {
    { 0.2777273272234177, 0.005407344544966578, 0.3340998053353061 },
    { 0.1050930431085774, 1.404613529898575, 1.384590162594685 },
    { -0.3308618287255563, 0.214847559468213, 0.09509516302823659 },
    { -4.634230498983486, -5.799100973351585, -19.33244095627987 },
    { 6.228269936347081, 14.17993336680509, 56.69055260068105 },
    { 4.776384997670288, -13.74514537774601, -65.35303263337234 },
    { -5.435455855934631, 4.645852612178535, 26.3124352495832 },
};
static const double fit_magma[7][3] = {
    { -0.002136485053939582, -0.000749655052795221, -0.005386127855323933 },
    { 0.2516605407371642, 0.6775232436837668, 2.494026599312351 },
    { 8.353717279216625, -3.577719514958484, 0.3144679030132573 },
    { -27.66873308576866, 14.26473078096533, -13.64921318813922 },
    { 52.17613981234068, -27.94360607168351, 12.94416944238394 },
    { -50.76852536473588, 29.04658282127291, 4.23415299384598 },
    { 18.65570506591883, -11.48977351997711, -5.601961508734096 },
};
static const double fit_inferno[7][3] = {
    { 0.0002189403691192265, 0.001651004631001012, -0.01948089843709184 },
    { 0.1065134194856116, 0.5639564367884091, 3.932712388889277 },
    { 11.60249308247187, -3.972853965665698, -15.9423941062914 },
    { -41.70399613139459, 17.43639888205313, 44.35414519872813 },
    { 77.162935699427, -33.40235894210092, -81.80730925738993 },
    { -71.31942824499214, 32.62606426397723, 73.20951985803202 },
    { 25.13112622477341, -12.24266895238567, -23.07032500287172 },
};
static const double fit_plasma[7][3] = {
    { 0.05873234392399702, 0.02333670892565664, 0.5433401826748754 },
    { 2.176514634195958, 0.2383834171260182, 0.7539604599784036 },
    { -2.689460476458034, -7.455851135738909, 3.110799939717086 },
    { 6.130348345893603, 42.3461881477227, -28.51885465332158 },
    { -11.10743619062271, -82.66631109428045, 60.13984767418263 },
    { 10.02306557647065, 71.41361770095349, -54.07218655560067 },
    { -3.658713842777788, -22.93153465461149, 18.19190778539828 },
};

static void fill_poly6(rgb_t *t, const double c[7][3])
{
    for (int i = 0; i < 256; i++) {
        double x = i / 255.0;
        for (int ch = 0; ch < 3; ch++) {
            double v = c[6][ch];
            for (int k = 5; k >= 0; k--)
                v = c[k][ch] + x * v;   /* Horner */
            t[i][ch] = to_byte(v);
        }
    }
}

/* Turbo: Google's polynomial approximation (Anton Mikhailov and Ruofei Du,
 * 2019): r = dot((1, x, x^2, x^3), R4) + dot((x^4, x^5), R2), same for g, b. */
static void fill_turbo(rgb_t *t)
{
    static const double r4[4] = { 0.13572138, 4.61539260, -42.66032258, 132.13108234 };
    static const double g4[4] = { 0.09140261, 2.19418839, 4.84296658, -14.18503333 };
    static const double b4[4] = { 0.10667330, 12.64194608, -60.58204836, 110.36276771 };
    static const double r2[2] = { -152.94239396, 59.28637943 };
    static const double g2[2] = { 4.27729857, 2.82956604 };
    static const double b2[2] = { -89.90310912, 27.34824973 };
    for (int i = 0; i < 256; i++) {
        double x = i / 255.0;
        double v4[4] = { 1.0, x, x * x, x * x * x };
        double v2[2] = { v4[2] * v4[2], v4[3] * v4[2] };
        double r = 0, g = 0, b = 0;
        for (int k = 0; k < 4; k++) {
            r += v4[k] * r4[k];
            g += v4[k] * g4[k];
            b += v4[k] * b4[k];
        }
        for (int k = 0; k < 2; k++) {
            r += v2[k] * r2[k];
            g += v2[k] * g2[k];
            b += v2[k] * b2[k];
        }
        t[i][0] = to_byte(r);
        t[i][1] = to_byte(g);
        t[i][2] = to_byte(b);
    }
}

/* Piecewise-linear interpolation between n equally spaced byte colours. */
static void fill_points(rgb_t *t, const unsigned char (*p)[3], int n)
{
    for (int i = 0; i < 256; i++) {
        double s = i / 255.0 * (n - 1);
        int k = (int)s;
        if (k >= n - 1)
            k = n - 2;
        double f = s - k;
        for (int ch = 0; ch < 3; ch++)
            t[i][ch] = to_byte((p[k][ch] + f * (p[k + 1][ch] - p[k][ch])) / 255.0);
    }
}

/* Kenneth Moreland, "Diverging Color Maps for Scientific Visualization"
 * (2009): the published 33-entry byte table of the cool-warm map. */
static const unsigned char coolwarm_pts[33][3] = {
    { 59, 76, 192 },   { 68, 90, 204 },   { 77, 104, 215 },  { 87, 117, 225 },  { 98, 130, 234 },
    { 108, 142, 241 }, { 119, 154, 247 }, { 130, 165, 251 }, { 141, 176, 254 }, { 152, 185, 255 },
    { 163, 194, 255 }, { 174, 201, 253 }, { 184, 208, 249 }, { 194, 213, 244 }, { 204, 217, 238 },
    { 213, 219, 230 }, { 221, 221, 221 }, { 229, 216, 209 }, { 236, 211, 197 }, { 241, 204, 185 },
    { 245, 196, 173 }, { 247, 187, 160 }, { 247, 177, 148 }, { 247, 166, 135 }, { 244, 154, 123 },
    { 241, 141, 111 }, { 236, 127, 99 },  { 229, 112, 88 },  { 222, 96, 77 },   { 213, 80, 66 },
    { 203, 62, 56 },   { 192, 40, 47 },   { 180, 4, 38 },
};

/* A balance-like diverging map (after cmocean's "balance": dark blue, white,
 * dark red) from our own control points; not cmocean's exact table. */
static const unsigned char balance_pts[5][3] = {
    { 24, 28, 67 }, { 40, 115, 190 }, { 241, 237, 236 }, { 190, 70, 50 }, { 60, 9, 18 },
};

/* Ocean: deep navy to light cyan, our own control points. */
static const unsigned char ocean_pts[4][3] = {
    { 3, 5, 26 }, { 10, 60, 120 }, { 40, 150, 190 }, { 210, 250, 255 },
};

/* Cividis (Jamie R. Nunez, Christopher R. Anderton, Ryan S. Renslow,
 * "Optimizing colormaps with consideration for color vision deficiency",
 * PLoS ONE 2018; arXiv:1712.01662): every 15th entry of the published
 * 256-entry table (CC0), rounded to bytes, linearly interpolated between. */
static const unsigned char cividis_pts[18][3] = {
    { 0, 32, 77 },     { 0, 43, 103 },    { 0, 53, 110 },    { 40, 64, 108 },   { 61, 74, 107 },
    { 77, 85, 108 },   { 91, 96, 110 },   { 105, 107, 113 }, { 118, 118, 118 }, { 132, 129, 121 },
    { 146, 141, 120 }, { 161, 153, 118 }, { 177, 165, 115 }, { 193, 178, 109 }, { 209, 191, 102 },
    { 226, 205, 92 },  { 243, 219, 79 },  { 255, 234, 70 },
};

static void fill_all(void)
{
    for (int i = 0; i < 256; i++)
        tables[0][i][0] = tables[0][i][1] = tables[0][i][2] = (unsigned char)i;
    fill_poly6(tables[1], fit_viridis);
    fill_poly6(tables[2], fit_magma);
    fill_poly6(tables[3], fit_inferno);
    fill_poly6(tables[4], fit_plasma);
    fill_turbo(tables[5]);
    fill_points(tables[6], coolwarm_pts, 33);
    fill_points(tables[7], balance_pts, 5);
    fill_points(tables[8], ocean_pts, 4);
    fill_points(tables[9], cividis_pts, 18);
}

const unsigned char (*colormap_find(const char *name))[3]
{
    if (!name)
        return NULL;
    if (strcmp(name, "gray") == 0)   /* the American spelling, as an alias */
        name = "grey";
    for (size_t i = 0; i < N_MAPS; i++) {
        if (strcmp(colormap_names[i], name) == 0) {
            pthread_once(&tables_once, fill_all);
            return (const unsigned char (*)[3])tables[i];
        }
    }
    return NULL;
}
