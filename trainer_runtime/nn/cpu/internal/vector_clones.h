// TRAINPKG_VECTOR_CLONES: put before a CPU kernel whose loop the compiler
// vectorizes, to build it for AVX-512 (x86-64-v4), AVX2 (x86-64-v3) and the
// baseline, picked once at load time for the CPU it runs on (GCC/Clang
// function multiversioning). Binaries stay portable (training images run
// on whatever CPU the cluster has) while the hot element-wise loops use the
// widest vectors there. The files using it are built with -O3 and
// -ffp-contract=off (nn/CMakeLists.txt): no fused multiply-adds, so every
// clone rounds exactly as the scalar code does and replicas on different
// CPUs compute bit-identical updates. Private to nn/cpu.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CPU_INTERNAL_VECTOR_CLONES_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CPU_INTERNAL_VECTOR_CLONES_H_

#if defined(__x86_64__) && defined(__linux__) && \
    (defined(__clang__) ? __clang_major__ >= 14 : (defined(__GNUC__) && __GNUC__ >= 12))
#define TRAINPKG_VECTOR_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TRAINPKG_VECTOR_CLONES
#endif

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CPU_INTERNAL_VECTOR_CLONES_H_
