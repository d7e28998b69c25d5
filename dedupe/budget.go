package dedupe

import (
	"blockwarc/dedupe/pack"
	"blockwarc/warcio"
)

// Budget is one memory budget divided among ingest's consumers: the one
// place that says what -mem buys. Ingest applies it to itself from
// Options.MemLimit; a program that wants its whole Go heap held near the
// budget sets debug.SetMemoryLimit(GoHeap), as the CLI does (a library
// must not set a process-wide limit on its own).
type Budget struct {
	// Sort bounds the record bytes the capture walk holds while sorting
	// (warcio.WalkOptions.MemLimit); beyond it, sorted runs spill to disk.
	Sort int64
	// InFlight bounds the record bytes handed to model workers and not
	// yet stored: enough for several URLs at once (the jobs of one URL
	// are modelled one after the other).
	InFlight int64
	// Compress is how many frames may compress at once
	// (pack.Options.Workers): each holds up to 160 MiB of reference-zstd
	// state outside the Go heap (pack.Options.NativeMemory), so one per
	// 256 MiB of budget, and no more than the model workers.
	Compress int
	// ChunkTable bounds the pack writer's table of chunk hashes
	// (pack.Options.ChunkTable, entries of about 64 bytes): a sixteenth
	// of the budget, between 64 Ki and 2 Mi entries, taken from the sort.
	// A smaller table forgets chunks sooner (size, never correctness).
	// The writer's table of objects named by place holds a quarter as
	// many entries, of about 150 bytes with their ref lists: within the
	// 256 MiB of GoHeap's slack at the largest.
	ChunkTable int
	// GoHeap is the soft limit for the Go heap: the budget, plus 256 MiB
	// for the encoders' buffers and the frames and bases in flight, less
	// what the compressing frames hold outside the heap.
	GoHeap int64
}

// chunkEntryBytes is what one entry of the chunk table costs (a map
// entry of a 16-byte key and a chunk number, with the map's overhead).
const chunkEntryBytes = 64

// minInFlight keeps two maximal jobs in flight however small the budget.
const minInFlight = 2 * maxJobBytes

// SplitMemory divides mem (warcio.DefaultWalkMemLimit when ≤ 0) for an
// ingest with workers model workers. Sort and InFlight add up to mem, so
// the records held never exceed it: a quarter in flight, the chunk table,
// the rest for the sort.
func SplitMemory(mem int64, workers int) Budget {
	if mem <= 0 {
		mem = warcio.DefaultWalkMemLimit
	}
	b := Budget{InFlight: max(mem/4, minInFlight)}
	b.ChunkTable = int(min(max(mem/16/chunkEntryBytes, 64<<10), 2<<20))
	b.Sort = max(mem-b.InFlight-int64(b.ChunkTable)*chunkEntryBytes, 1)
	b.Compress = max(1, min(workers, int(mem/(256<<20))))
	b.GoHeap = mem + 256<<20 - pack.Options{Workers: b.Compress}.NativeMemory()
	return b
}
