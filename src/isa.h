/* isa.h: the x86-64 levels the CPU-dispatched code may pick from.
 *
 * Code built for several levels (GCC's target_clones, and the render passes'
 * and tblock_avx512.h's explicit AVX-512/AVX2 builds picked by
 * __builtin_cpu_supports) takes its attributes and CPU tests from here, so
 * that one build flag caps them all: RR_ISA_MAX (4, the default: AVX-512,
 * x86-64-v4, where the CPU has it). A build with -DRR_ISA_MAX=3 never runs an
 * AVX-512 path, whatever the CPU (its clones stop at x86-64-v3, its AVX-512
 * tests are constant false); with -DRR_ISA_MAX=1 it runs only the baseline
 * (x86-64: SSE2) paths. make bench builds both (build/isa3, build/isa1) to
 * time on one machine what a CPU without AVX-512 or without AVX2 runs
 * (tests/bench.sh's levels section). The default build is unchanged by this
 * header: the same attributes and tests as written out. Neither the
 * environment nor GLIBC_TUNABLES can cap these at run time: the clones'
 * resolvers run while the program loads, and they and
 * __builtin_cpu_supports read libgcc's own CPUID record, not glibc's.
 * Every level gives the same bits (tests/cli/test_kernels.sh). */
#ifndef RR_ISA_H
#define RR_ISA_H

#ifndef RR_ISA_MAX
#define RR_ISA_MAX 4
#endif

/* Clones for AVX-512, AVX2 and the baseline (as the cap allows). */
#if RR_ISA_MAX >= 4
#define RR_CLONES_V4_V3 __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#elif RR_ISA_MAX >= 3
#define RR_CLONES_V4_V3 __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define RR_CLONES_V4_V3
#endif

/* Clones for AVX2 and the baseline. */
#if RR_ISA_MAX >= 3
#define RR_CLONES_V3 __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define RR_CLONES_V3
#endif

/* Whether the CPU has `feature` (a __builtin_cpu_supports name) for code
 * built for x86-64-v`level`; 0 when the cap is below that level. */
#define RR_CPU_HAS(level, feature) (RR_ISA_MAX >= (level) && __builtin_cpu_supports(feature))

#endif
