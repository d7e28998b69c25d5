// Package ingestflags turns the flags that 'blockwarc ingest' and
// blockwarc-beam share into the ingest's options: the one owner of the
// size syntax (-commit, -mem and every other size flag), the -policy
// names, the options those flags make, and the process's Go heap limit
// that -mem implies. Both commands go through it, so that the same flag
// values make the same dedupe.Options, and the same archive bytes.
package ingestflags

import (
	"cmp"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"

	"github.com/klauspost/compress/zstd"
)

// The defaults both commands give their flags.
const (
	DefaultCommit = "256MiB" // -commit: dedupe.DefaultCommitBytes
	DefaultMem    = "1GiB"   // -mem (blockwarc-beam: -shard-mem, for each shard)
	DefaultPolicy = "warn"   // -policy
)

// Flags are the shared flags' values as given. Mem and Workers are one
// ingest's: 'blockwarc ingest' divides them among its shards
// (shard.Split); blockwarc-beam's -shard-mem and -shard-workers are each
// shard's.
type Flags struct {
	Level   int    // -level: 0 adaptive, N the fixed level N
	Commit  string // -commit SIZE
	Mem     string // -mem SIZE
	Policy  string // -policy skip, warn or fail
	Parity  bool   // -parity
	TempDir string // -tmp DIR
	Workers int    // -workers N
	// Fast is -fast: frames at a fast zstd level (the fast tier: the
	// reference library's level 6 with cgo, klauspost's "better" level
	// without), made dense later by 'blockwarc compact'.
	Fast bool
	// SkipProof: the gzip members' zlib settings are not learnt at
	// ingest (rows "not examined"), 'blockwarc prove' learns them later:
	// ingest's and blockwarc-beam's default (without -prove). Zero, as
	// compact, upgrade and repair have it: what restores as given is
	// proven again.
	SkipProof bool
}

// Values are Flags parsed and checked: plain values, which a pipeline
// sends to its workers (JSON-encoded).
type Values struct {
	Level       int // as the flag: 0 adaptive
	CommitBytes int64
	MemLimit    int64
	NoParity    bool
	Workers     int
	TempDir     string
	Policy      warcio.Policy
	Fast        bool // -fast
	SkipProof   bool // without -prove (ingest's default)
}

// Error is a flag value Parse refuses; Flag is the flag's name in
// 'blockwarc ingest' (blockwarc-beam names -mem and -workers -shard-mem
// and -shard-workers).
type Error struct {
	Flag, Value, Want string
}

func (e *Error) Error() string { return fmt.Sprintf("bad -%s %q: want %s", e.Flag, e.Value, e.Want) }

// Parse checks f and parses its sizes and policy.
func (f Flags) Parse() (Values, error) {
	v := Values{Level: f.Level, NoParity: !f.Parity, Workers: f.Workers, TempDir: f.TempDir, Fast: f.Fast, SkipProof: f.SkipProof}
	var err error
	if v.MemLimit, err = ParseSize(f.Mem); err != nil || v.MemLimit <= 0 {
		return Values{}, &Error{"mem", f.Mem, "a size such as 512MiB"}
	}
	if v.CommitBytes, err = ParseSize(f.Commit); err != nil || v.CommitBytes <= 0 {
		return Values{}, &Error{"commit", f.Commit, "a size such as 64MiB"}
	}
	if f.Level < 0 {
		return Values{}, &Error{"level", strconv.Itoa(f.Level), "0 or more"}
	}
	if f.Workers < 1 {
		return Values{}, &Error{"workers", strconv.Itoa(f.Workers), "at least 1"}
	}
	var ok bool
	if v.Policy, ok = ParsePolicy(f.Policy); !ok {
		return Values{}, &Error{"policy", f.Policy, "skip, warn or fail"}
	}
	return v, nil
}

// Options are the ingest options of v. A caller that wants warnings
// (PolicyWarn) sets Reader.OnError; the archive settings only
// 'blockwarc ingest' has (-chunk-table, -chain, -digest-min) and the
// progress callbacks are the caller's too.
func (v Values) Options() dedupe.Options {
	o := dedupe.Options{
		Level: cmp.Or(v.Level, partition.LevelAdaptive), Workers: max(v.Workers, 1),
		MemLimit: v.MemLimit, TempDir: v.TempDir, CommitBytes: v.CommitBytes,
	}
	o.Pack.NoParity = v.NoParity
	o.Reader.Policy = v.Policy
	o.SkipOriginal = v.SkipProof
	if v.Fast {
		o.Pack.Level = zstd.SpeedBetterCompression
	}
	return o
}

// ParseSize reads a size: a byte count or a number (a fraction or an
// exponent too: 1.5MiB, 1e6) with a suffix, case-insensitive: KiB, MiB,
// GiB, TiB and k, M, G, T (powers of 1024), KB, MB, GB, TB (powers of
// 1000), B.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1},
	} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	n := f * float64(mult)
	// Inf and NaN parse as floats; a size past int64 would wrap.
	if err != nil || math.IsNaN(n) || n < 0 || n >= math.MaxInt64 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(n), nil
}

// Bounds of -chain SIZE: a chain of less than MinChain holds a few small
// frames at most (off says it better); one of more than MaxChain makes a
// restore decode that much, and the writer index that much as the
// dictionary of every frame that extends it.
const (
	MinChain = 64 << 10
	MaxChain = pack.MaxChainBytes
)

// ParseChain reads a -chain value, the archive setting
// pack.Options.ChainBytes: "" or 0, the archive's (0); off, no chains
// (-1); else a size from MinChain to MaxChain.
func ParseChain(s string) (int, error) {
	if s == "off" {
		return -1, nil
	}
	if s == "" {
		return 0, nil
	}
	n, err := ParseSize(s)
	if err != nil || (n != 0 && (n < MinChain || n > MaxChain)) {
		return 0, &Error{"chain", s, "a size from 64KiB to 16MiB such as 4MiB, or off"}
	}
	return int(n), nil
}

// ParsePolicy reads a -policy value: skip, warn or fail.
func ParsePolicy(s string) (warcio.Policy, bool) {
	switch s {
	case "skip":
		return warcio.PolicySkip, true
	case "warn":
		return warcio.PolicyWarn, true
	case "fail":
		return warcio.PolicyFail, true
	}
	return 0, false
}

// heap is the process's share of the Go heap soft limit: the sum of the
// ingests holding it, and the limit before the first.
var heap struct {
	sync.Mutex
	held  int64
	n     int
	prior int64
}

// HoldHeap raises the process's Go heap soft limit (debug.SetMemoryLimit)
// by what an ingest of mem bytes of budget with workers workers in
// shards shards needs (shard.Split's goHeap, from dedupe.SplitMemory):
// the collector then holds the heap near the budget instead of letting
// garbage double it. Ingests running at once in one process (shards of a
// pipeline on one worker) add up, as 'blockwarc ingest -shards' counts
// its shards. release takes the ingest's share back, and the last
// release restores the limit the process had. It returns the limit set.
func HoldHeap(mem int64, workers, shards int) (limit int64, release func()) {
	_, _, _, goHeap := shard.Split(mem, workers, shards)
	heap.Lock()
	defer heap.Unlock()
	if heap.n == 0 {
		heap.prior = debug.SetMemoryLimit(-1)
	}
	heap.n++
	heap.held += goHeap
	limit = heap.held
	debug.SetMemoryLimit(limit)
	var once sync.Once
	return limit, func() {
		once.Do(func() {
			heap.Lock()
			defer heap.Unlock()
			heap.n--
			heap.held -= goHeap
			if heap.n == 0 {
				debug.SetMemoryLimit(heap.prior)
			} else {
				debug.SetMemoryLimit(heap.held)
			}
		})
	}
}
