/* fft_roundtrip.c: the measurement behind the spectral solver's choice of FFT
 * (docs/solvers.md, "spectral"): a 1024 x 1024 complex float 2-D round trip
 * (forward + inverse) made of 1-D transforms over rows and gathered columns,
 * OpenMP over lines, with libavutil's av_tx and with FFTW (FFTW_ESTIMATE), and
 * FFTW's own single-threaded 2-D plan for reference; then the time of one 1-D
 * transform of lengths that are not 2^a 3^b 5^c products with small factors.
 * Not built by make; run by hand:
 *   cc -O2 -std=c11 -D_DEFAULT_SOURCE -fopenmp tests/bench/fft_roundtrip.c -o /tmp/fft_roundtrip \
 *      $(pkg-config --cflags --libs libavutil fftw3f) -lm
 *   OMP_NUM_THREADS=1 /tmp/fft_roundtrip; OMP_NUM_THREADS=2 /tmp/fft_roundtrip
 * Prints the best of 7 runs of each. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fftw3.h>
#include <libavutil/tx.h>

#define N 1024
#define MAXT 64

typedef struct { float re, im; } cpx;
static cpx *data;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void reset(void)
{
    for (size_t i = 0; i < (size_t)N * N; i++)
        data[i] = (cpx){ (float)sin((double)i * 0.001), 0.0f };
}

/* Forward then inverse over rows and gathered columns; kind 0 av_tx, 1 FFTW. */
static void roundtrip(int kind, AVTXContext **ctx[2], av_tx_fn *fn[2], fftwf_plan plan[2], cpx **in, cpx **out)
{
    for (int dir = 0; dir < 2; dir++) {
#pragma omp parallel
        {
            int t = omp_get_thread_num();
            cpx *a = in[t], *b = out[t];
            for (int pass = 0; pass < 2; pass++) {   /* rows, then columns */
#pragma omp for schedule(static)
                for (int j = 0; j < N; j++) {
                    for (int i = 0; i < N; i++)
                        a[i] = pass == 0 ? data[(size_t)j * N + i] : data[(size_t)i * N + j];
                    if (kind == 0)
                        fn[dir][t](ctx[dir][t], b, a, sizeof(cpx));
                    else
                        fftwf_execute_dft(plan[dir], (fftwf_complex *)a, (fftwf_complex *)b);
                    for (int i = 0; i < N; i++) {
                        if (pass == 0)
                            data[(size_t)j * N + i] = b[i];
                        else
                            data[(size_t)i * N + j] = b[i];
                    }
                }
            }
        }
    }
}

int main(void)
{
    int nt = omp_get_max_threads();
    if (nt > MAXT)
        nt = MAXT;
    omp_set_num_threads(nt);
    data = fftwf_malloc(sizeof(cpx) * N * N);
    AVTXContext *cf[MAXT], *ci[MAXT], **ctx[2] = { cf, ci };
    av_tx_fn ff[MAXT], fi[MAXT], *fn[2] = { ff, fi };
    cpx *in[MAXT], *out[MAXT];
    float scale = 1.0f;
    for (int t = 0; t < nt; t++) {
        if (av_tx_init(&cf[t], &ff[t], AV_TX_FLOAT_FFT, 0, N, &scale, 0) < 0
            || av_tx_init(&ci[t], &fi[t], AV_TX_FLOAT_FFT, 1, N, &scale, 0) < 0)
            return 1;
        in[t] = fftwf_malloc(sizeof(cpx) * N);
        out[t] = fftwf_malloc(sizeof(cpx) * N);
    }
    fftwf_plan plan[2] = {
        fftwf_plan_dft_1d(N, (fftwf_complex *)in[0], (fftwf_complex *)out[0], FFTW_FORWARD, FFTW_ESTIMATE),
        fftwf_plan_dft_1d(N, (fftwf_complex *)in[0], (fftwf_complex *)out[0], FFTW_BACKWARD, FFTW_ESTIMATE),
    };
    fftwf_complex *z = (fftwf_complex *)data;
    fftwf_plan p2f = fftwf_plan_dft_2d(N, N, z, z, FFTW_FORWARD, FFTW_ESTIMATE);
    fftwf_plan p2i = fftwf_plan_dft_2d(N, N, z, z, FFTW_BACKWARD, FFTW_ESTIMATE);
    double best[3] = { 1e9, 1e9, 1e9 };
    for (int r = 0; r < 7; r++) {
        for (int k = 0; k < 3; k++) {
            reset();
            double t0 = now();
            if (k < 2)
                roundtrip(k, ctx, fn, plan, in, out);
            else {
                fftwf_execute(p2f);
                fftwf_execute(p2i);
            }
            double t = now() - t0;
            if (t < best[k])
                best[k] = t;
            double err = 0;   /* the round trip gives N^2 times the input */
            for (size_t i = 0; i < (size_t)N * N; i += 997)
                err = fmax(err, fabs(data[i].re / ((double)N * N) - sin((double)i * 0.001)));
            if (err > 1e-4)
                printf("round trip %d: error %g\n", k, err);
        }
    }
    printf("%d thread(s), 1024x1024 complex round trip: av_tx %.1f ms, FFTW 1-D lines %.1f ms, "
           "FFTW 2-D plan (1 thread) %.1f ms\n", nt, best[0] * 1e3, best[1] * 1e3, best[2] * 1e3);
    static const int lens[] = { 512, 540, 576, 600, 1000, 1024 };
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
        int n = lens[i], reps = 20;
        AVTXContext *c = NULL;
        av_tx_fn f;
        fftwf_plan p = fftwf_plan_dft_1d(n, (fftwf_complex *)in[0], (fftwf_complex *)out[0], FFTW_FORWARD,
                                         FFTW_ESTIMATE);
        cpx *a = fftwf_malloc(sizeof(cpx) * n), *b = fftwf_malloc(sizeof(cpx) * n);
        memset(a, 0, sizeof(cpx) * n);
        if (av_tx_init(&c, &f, AV_TX_FLOAT_FFT, 0, n, &scale, 0) < 0)
            return 1;
        double t0 = now();
        for (int k = 0; k < reps; k++)
            f(c, b, a, sizeof(cpx));
        double t1 = now();
        for (int k = 0; k < reps * 100; k++)
            fftwf_execute_dft(p, (fftwf_complex *)a, (fftwf_complex *)b);
        double t2 = now();
        printf("1-D length %4d: av_tx %9.2f us, FFTW %6.2f us\n", n, (t1 - t0) / reps * 1e6,
               (t2 - t1) / (reps * 100) * 1e6);
        av_tx_uninit(&c);
        fftwf_destroy_plan(p);
        fftwf_free(a);
        fftwf_free(b);
    }
    return 0;
}
