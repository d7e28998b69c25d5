package dedupe

import (
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/warcio"
)

// Budget is one memory budget divided among ingest's consumers: the one
// place that says what -mem buys. Ingest applies it to itself from
// Options.MemLimit; a program that wants its whole Go heap held near the
// budget sets debug.SetMemoryLimit(GoHeap), as the CLI does (a library
// must not set a process-wide limit on its own).
//
// The budget decides how fast and how much memory, never what is
// stored: the tables that decide which chunks and objects are found
// again are sized by the archive's settings (pack.Settings), the same
// for every ingest of an archive whatever its -mem.
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
	// Tables is what the pack writer's tables hold at most (TableBytes of
	// the archive's chunk table): taken from the budget first, as far as
	// it goes; the sort keeps at least minSort.
	Tables int64
	// Cache bounds each of the store's caches of decoded frames
	// (pack.Options.CacheBytes) and the catalog segments the history
	// reader keeps open: a sixteenth of the budget, minCache to
	// maxCache.
	Cache int64
	// GoHeap is the soft limit for the Go heap: the budget (or what the
	// tables, the records in flight and the smallest sort need, when
	// more), plus 256 MiB for the encoders' buffers and the frames and
	// bases in flight, less what the compressing frames hold outside the
	// heap.
	GoHeap int64
}

// chunkEntryBytes is what one entry of the chunk table costs (a map
// entry of a 16-byte key and a chunk number, measured at 53 bytes for
// two maps of 512 Ki entries each, with room for map growth);
// placeEntryBytes one of the table of objects named by place (a 32-byte
// id and place, and the ref list of a small object), which holds a
// quarter as many.
const (
	chunkEntryBytes = 64
	placeEntryBytes = 160
)

// TableBytes is what a writer's tables hold at most for a chunk table of
// entries entries (0: pack.DefaultChunkTable).
func TableBytes(entries int) int64 {
	if entries <= 0 {
		entries = pack.DefaultChunkTable
	}
	return int64(entries)*chunkEntryBytes + int64(max(entries/4, 1024))*placeEntryBytes
}

// minInFlight keeps two maximal jobs in flight however small the budget;
// minSort keeps the sort's runs from shrinking to nothing.
const (
	minInFlight = 2 * maxJobBytes
	minSort     = 8 << 20
)

// minCache and maxCache bound Budget.Cache. Each new version of a page
// is stored against its last one, restored from frames across the
// archive's history (a template's chunks from the first crawl, last
// week's edit from the last): a crawl's ingest reads the frames its
// pages' previous captures reference, and a cache smaller than those
// decodes them again and again. 1.6 GB of generated crawls of real pages
// (make bench-scale-synth), its 24th crawl into the 23 before it at
// -mem 64MiB: 44 CPU-s with caches of 8 MiB, 17 with 16, 4.4 with 32, at
// the same peak RSS (about 270 MB: what the decodes allocated was most
// of the heap); the ingest CPU per GB grew 7.8× over the collection with
// 8 MiB. Above it, a sixteenth of the budget each (about a third
// together): a larger archive reads more frames a crawl.
const (
	minCache = 32 << 20
	maxCache = 512 << 20
)

// cachesBytes is what caches of Budget.Cache hold at most together: the
// store's two caches of decoded frames and the buffers each keeps of
// frames gone from it (pack.Options.CacheBytes: as many bytes again,
// 16 to 64 MiB), and the history reader's segments.
func cachesBytes(cache int64) int64 {
	return 3*cache + 2*min(max(cache, 16<<20), 64<<20)
}

// SplitMemory divides mem (warcio.DefaultWalkMemLimit when ≤ 0) for an
// ingest with workers model workers, into an archive whose chunk table
// has tableEntries entries (pack.Settings.ChunkTable; 0 the default).
// Sort, InFlight, Tables and the caches add up to mem when it holds
// them: a quarter in flight, the tables, a sixteenth for each cache, the
// rest for the sort. Up to 512 MiB the caches keep minCache each, within
// the 256 MiB the process is given beyond mem.
func SplitMemory(mem int64, workers, tableEntries int) Budget {
	if mem <= 0 {
		mem = warcio.DefaultWalkMemLimit
	}
	b := Budget{InFlight: max(mem/4, minInFlight), Tables: TableBytes(tableEntries)}
	b.Cache = min(max(mem/16, minCache), maxCache)
	caches := cachesBytes(b.Cache)
	if b.Cache == minCache {
		caches = 0 // beyond mem, as the encoders are
	}
	b.Sort = max(mem-b.InFlight-b.Tables-caches, minSort)
	b.Compress = max(1, min(workers, int(mem/(256<<20))))
	b.GoHeap = max(mem, b.Sort+b.InFlight+b.Tables) + 256<<20 - pack.Options{Workers: b.Compress}.NativeMemory()
	return b
}
