package shard

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/blockwarc/blockwarc/warcio"
)

// maxSampleKeys bounds the distinct keys the boundary sample holds (about
// 100 bytes each): beyond it, the sample keeps a smaller share of keys.
const maxSampleKeys = 1 << 20

// recordWork, responseWork and keylessWork are what a record costs a
// shard's ingest beyond its block bytes, in block bytes of the same
// cost: the sample weighs a key by the work of its records, not their
// bytes, since a shard's ingest time is what must come out even. Every
// record, of any type, is parsed, digested, given an id, a catalog
// entry, index entries and a restore check, and a distributed ingest
// reads the segment of its file's part that holds it (recordWork); a
// response's payload is modelled and matched besides (responseWork). A
// record without a target URI (key "") is nearly always a file's
// warcinfo, one a file: shard 0, where they all go, reads a segment of
// every file for them, which a file's pages share (keylessWork).
// Measured by profiling single shard ingests (shard.IngestParts) of the
// corpus sites: a shard of the warcinfo records alone (one a file) took
// 1.6 ms of CPU a record, one of wget's log and argument records (three
// a file) 0.9 ms, a capture (request and response) 0.5-1.8 ms, record
// bytes 12-45 ms a MB (less as the inputs repeat more: a repeated block
// costs a digest). Weighing responses alone (50 KB) left shard 0, of
// the most small records (warcinfo, requests), 1.3 times the mean CPU
// with the fewest bytes.
const (
	recordWork   = 30_000
	responseWork = 10_000
	keylessWork  = 30_000
)

// work is the weight in the sample of a record of key key.
func work(rec *warcio.Record, key string) int64 {
	w := rec.ContentLen + recordWork
	if rec.Type == "response" {
		w += responseWork
	}
	if key == "" {
		w += keylessWork
	}
	return w
}

// keyHash is a fixed (seedless) 64-bit FNV-1a of key: the sample must not
// change from run to run.
func keyHash(key string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	// FNV's low bits mix poorly; fold the high ones in.
	return h ^ h>>29
}

// sample is a work-weighted sample of SURT keys: every key whose hash is
// below limit, with the work of its records (work). Which keys it holds
// depends only on the set of keys read, not on their order: the limit
// halves whenever the sample outgrows maxSampleKeys, and a key dropped
// then would be dropped whenever it came. The key "" (records without a
// target URI: warcinfo, a crawler's logs) is always held: its records
// all go to shard 0, whose first unit of the cut it is (held scales it
// to the share of keys held).
type sample struct {
	mu    sync.Mutex
	limit uint64 // keys with keyHash < limit are sampled
	cap   int    // the most keys held (maxSampleKeys)
	bytes map[string]int64
	total int64 // work of every record read, sampled or not
}

func (s *sample) add(key string, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += n
	if key != "" && keyHash(key) >= s.limit {
		return
	}
	s.bytes[key] += n
	for len(s.bytes) > s.cap {
		s.limit /= 2
		for k := range s.bytes {
			if k != "" && keyHash(k) >= s.limit {
				delete(s.bytes, k)
			}
		}
	}
}

// Boundaries chooses the first keys of shards 1..n-1 for the records of
// inputs: it reads every record's key and block length (headers only,
// files in parallel) into a sample weighted by work (work: block bytes
// plus a fixed cost a record, more for a response; the keyless records'
// in shard 0's first unit) and cuts it into n ranges whose heaviest is
// as light as possible (cut). Fewer boundaries come back when the inputs
// have fewer distinct places to cut.
func Boundaries(ctx context.Context, inputs []string, n int, reader warcio.Options) ([]string, error) {
	if n <= 1 {
		return nil, nil
	}
	files, err := warcio.ExpandInputs(inputs)
	if err != nil {
		return nil, err
	}
	s := &sample{limit: ^uint64(0), cap: maxSampleKeys, bytes: map[string]int64{}}
	reader.Policy = warcio.PolicySkip
	reader.OnError = nil
	work := make(chan string)
	errs := make(chan error, len(files))
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(files), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				errs <- sampleFile(ctx, f, reader, s)
			}
		}()
	}
	for _, f := range files {
		work <- f
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return cut(held(s.bytes, s.total), n), nil
}

// thinned is how many times the sample's key limit was halved.
func (s *sample) thinned() uint {
	var t uint
	for l := ^uint64(0); l > s.limit; l /= 2 {
		t++
	}
	return t
}

// held is keys as cut weighs them: a thinned sample holds a share of the
// keys, and the keyless records' work, held whole, is scaled to that
// share (the held keys' work ÷ that of every keyed record read: total
// is the work of every record read).
func held(keys map[string]int64, total int64) map[string]int64 {
	keyless, ok := keys[""]
	if !ok {
		return keys
	}
	var sampled int64
	for k, w := range keys {
		if k != "" {
			sampled += w
		}
	}
	read := total - keyless
	if sampled >= read || read <= 0 {
		return keys
	}
	out := maps.Clone(keys)
	hi, lo := bits.Mul64(uint64(keyless), uint64(sampled))
	q, _ := bits.Div64(hi, lo, uint64(read))
	out[""] = int64(q)
	return out
}

func sampleFile(ctx context.Context, name string, o warcio.Options, s *sample) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("sample shard keys: %w", err)
	}
	defer f.Close()
	r := warcio.NewReaderOptions(f, name, o)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("sample shard keys: %s: %w", name, err)
		}
		key := warcio.SURT(rec.TargetURI)
		s.add(key, work(rec, key))
	}
}

// Sample is a work-weighted sample of the SURT keys of some input files,
// as Boundaries collects it, in a form that can travel between processes:
// a distributed ingest (cmd/blockwarc-beam) samples each file apart and
// merges the samples. Which keys it holds depends only on the set of keys
// read: samples merged in any order equal the sample Boundaries reads
// from all their files, so Cut chooses the same boundaries. The zero
// Sample is empty.
type Sample struct {
	// Thinned is how many times the key limit was halved: keys with
	// keyHash < ^uint64(0)>>Thinned are held.
	Thinned uint
	Keys    map[string]int64 // work of the held keys' records (work; "": the keyless records', held whole)
	Total   int64            // work of every record read
}

// SampleFile reads the keys and block lengths of the records of one
// input file (headers only; malformed records skipped) into a Sample.
func SampleFile(ctx context.Context, name string, reader warcio.Options) (Sample, error) {
	s := &sample{limit: ^uint64(0), cap: maxSampleKeys, bytes: map[string]int64{}}
	reader.Policy = warcio.PolicySkip
	reader.OnError = nil
	if err := sampleFile(ctx, name, reader, s); err != nil {
		return Sample{}, err
	}
	return Sample{Thinned: s.thinned(), Keys: s.bytes, Total: s.total}, nil
}

// Merge adds the sample o to s.
func (s *Sample) Merge(o Sample) { s.merge(o, maxSampleKeys) }

func (s *Sample) merge(o Sample, capKeys int) {
	m := &sample{limit: ^uint64(0) >> max(s.Thinned, o.Thinned), cap: capKeys, bytes: map[string]int64{}}
	for _, x := range []Sample{*s, o} {
		for k, n := range x.Keys {
			m.add(k, n)
		}
	}
	// add counted the held keys' bytes into total: the totals read are
	// the parts' totals.
	*s = Sample{Thinned: max(s.Thinned, o.Thinned), Keys: m.bytes, Total: s.Total + o.Total}
	for l := ^uint64(0) >> s.Thinned; l > m.limit; l /= 2 {
		s.Thinned++
	}
}

// Cut chooses the first keys of shards 1..n-1 from the sample, as
// Boundaries does from its own.
func (s Sample) Cut(n int) []string { return cut(held(s.Keys, s.Total), n) }

// host is the host part of a SURT key ("com,example)/a" → "com,example").
func host(key string) string {
	if i := strings.IndexByte(key, ')'); i >= 0 {
		return key[:i]
	}
	return key
}

// cut splits the weighted keys into n ranges and returns the first key of
// each range after the first. The URLs of a small host (under half a
// range) stay together, so that their shared blocks stay in one shard;
// a large host is cut between its keys. The heaviest range is as light
// as any such split allows (a collection of few heavy URLs, where cutting
// at the ideal places leaves one shard a whole URL heavier than the
// others, is balanced too); among such splits, each cut is the one
// nearest an equal share of what remains.
func cut(weights map[string]int64, n int) []string {
	keys := make([]string, 0, len(weights))
	var total int64
	for k, w := range weights {
		keys = append(keys, k)
		total += w
	}
	if len(keys) == 0 || n <= 1 {
		return nil
	}
	slices.Sort(keys)
	// Units: a small host's keys together, each key of a large one.
	hostW := map[string]int64{}
	for _, k := range keys {
		hostW[host(k)] += weights[k]
	}
	per := total / int64(n)
	var first []int // index in keys of each unit's first key
	var uw []int64  // each unit's weight
	for i, k := range keys {
		if i > 0 && host(k) == host(keys[i-1]) && hostW[host(k)] < per/2 {
			uw[len(uw)-1] += weights[k]
			continue
		}
		first = append(first, i)
		uw = append(uw, weights[k])
	}
	cum := make([]int64, len(uw)+1) // weight before unit i
	for i, w := range uw {
		cum[i+1] = cum[i] + w
	}
	capW := minMaxRange(uw, cum, n)
	// parts[i]: ranges of at most capW the units from i need, packed
	// greedily (the fewest possible); parts[len] = 0.
	parts := make([]int, len(uw)+1)
	for i, e := len(uw)-1, len(uw); i >= 0; i-- {
		for cum[e]-cum[i] > capW {
			e--
		}
		parts[i] = 1 + parts[e]
	}
	var out []string
	pos := 0
	for j := 1; j < n && pos < len(uw)-1; j++ {
		left := n - j // ranges after this one
		// e (the next range's first unit) may go from lo, the first that
		// leaves what follows packable into left ranges, to hi, the last
		// that keeps this range within capW ...
		lo := pos + 1
		for lo < len(uw) && parts[lo] > left {
			lo++
		}
		if lo >= len(uw) {
			break
		}
		// ... and leaves a unit for each range after it, so that every
		// shard gets keys while there are enough.
		hi := lo
		for hi+1 <= len(uw)-left && cum[hi+1]-cum[pos] <= capW {
			hi++
		}
		target := cum[pos] + (total-cum[pos])/int64(left+1)
		e := lo
		for e < hi && absDiff(cum[e+1], target) <= absDiff(cum[e], target) {
			e++
		}
		out = append(out, keys[first[e]])
		pos = e
	}
	return out
}

// minMaxRange is the least weight w such that the units split into at
// most n contiguous ranges of weight at most w each.
func minMaxRange(uw, cum []int64, n int) int64 {
	fits := func(w int64) bool {
		ranges, acc := 1, int64(0)
		for _, x := range uw {
			if x > w {
				return false
			}
			if acc+x > w {
				ranges++
				acc = 0
			}
			acc += x
		}
		return ranges <= n
	}
	lo, hi := int64(0), cum[len(cum)-1]
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}
