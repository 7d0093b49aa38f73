// The Open MPI peer of collectives_allreduce_bench: in-place MPI_Allreduce
// (MPI_FLOAT, MPI_SUM) of <floats> (default 64 MiB of them) on every rank of
// MPI_COMM_WORLD, a barrier before each, timed on rank 0; prints
// "RESULT allreduce <median ms> <min ms>" after 2 warm-up runs and checks the
// sums. Started by the driver:
//   mpirun -np 2 collectives_mpi_allreduce_bench <iterations> [<floats>]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = std::max(argc > 1 ? std::atoi(argv[1]) : 10, 1);
  constexpr int kWarmup = 2;
  const long floats =
      argc > 2 ? std::atol(argv[2]) : static_cast<long>((64u << 20) / sizeof(float));
  std::vector<float> data(static_cast<size_t>(std::max(floats, 1L)));
  std::vector<double> ms;
  bool ok = true;
  for (int it = 0; it < kWarmup + iterations; ++it) {
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(rank + i % 7);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(data.size()), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
    const double end = MPI_Wtime();
    for (size_t i = 0; i < data.size(); i += 409) {
      ok = ok && data[i] == static_cast<float>(size * (size - 1) / 2 + size * (i % 7));
    }
    if (it >= kWarmup) ms.push_back((end - start) * 1e3);
  }
  std::sort(ms.begin(), ms.end());
  if (rank == 0) std::printf("RESULT allreduce %.4f %.4f\n", ms[ms.size() / 2], ms.front());
  if (!ok) std::fprintf(stderr, "rank %d: wrong sum\n", rank);
  MPI_Finalize();
  return ok ? 0 : 1;
}
