// Compiled into every program that links jemalloc (tributary_malloc in CMakeLists.txt); the
// libraries never carry it. One arena per CPU instead of jemalloc's default of four per CPU: the
// writer, compaction and scan threads allocate and free large column batches, and more arenas
// mostly hold more freed memory (W1 ingest's peak RSS falls by about a tenth). One arena per
// physical core holds less still, but on a machine whose CPUs share one core it puts every
// thread on one arena and parallel scans slow down by a fifth (bench/HISTORY.md).
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "percpu_arena:percpu";
}
