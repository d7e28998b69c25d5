package partition

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"golang.org/x/net/html"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// Test-only access to ../shared: the corpus of wget crawls and the
// article-extraction pages. partition must not import warcio, so the
// corpus is read by the small WARC splitter below, which is enough for
// wget's clean files (one gzip member per record, exact Content-Length).

// corpusCapture is one HTML capture of the corpus.
type corpusCapture struct {
	URL, Date string
	Payload   []byte
}

// readCorpus returns every 200 text/html response of the corpus site
// folders (all sites when sites is empty), sorted by URL then date.
func readCorpus(tb testing.TB, sites ...string) []corpusCapture {
	tb.Helper()
	var caps []corpusCapture
	for _, f := range sharedtest.CorpusFiles(tb, sites...) {
		c, err := readWARCHTML(f)
		if err != nil {
			tb.Fatalf("read %s: %v", f, err)
		}
		caps = append(caps, c...)
	}
	sort.SliceStable(caps, func(i, j int) bool {
		if caps[i].URL != caps[j].URL {
			return caps[i].URL < caps[j].URL
		}
		return caps[i].Date < caps[j].Date
	})
	return caps
}

// readWARCHTML splits a .warc.gz into records by Content-Length and keeps
// the payloads of responses with status 200 and a text/html type.
func readWARCHTML(name string) ([]corpusCapture, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(zr)
	var out []corpusCapture
	for {
		hdr, err := readHeaderBlock(br)
		if errors.Is(err, io.EOF) && len(hdr) == 0 {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read WARC header: %w", err)
		}
		fields := headerFields(hdr[1:])
		n, err := strconv.Atoi(fields["content-length"])
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad Content-Length %q", fields["content-length"])
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return nil, fmt.Errorf("read WARC block: %w", err)
		}
		if _, err := br.Discard(4); err != nil { // CRLF CRLF
			return nil, fmt.Errorf("read record end: %w", err)
		}
		if fields["warc-type"] != "response" {
			continue
		}
		i := bytes.Index(body, []byte("\r\n\r\n"))
		if i < 0 {
			continue
		}
		http := strings.Split(string(body[:i]), "\r\n")
		hf := headerFields(http[1:])
		if st := strings.Fields(http[0]); len(st) < 2 || st[1] != "200" || !strings.HasPrefix(hf["content-type"], "text/html") {
			continue
		}
		out = append(out, corpusCapture{URL: strings.Trim(fields["warc-target-uri"], "<>"), Date: fields["warc-date"], Payload: body[i+4:]})
	}
}

// readHeaderBlock reads lines up to an empty line; the first is the
// version or status line.
func readHeaderBlock(br *bufio.Reader) ([]string, error) {
	var lines []string
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			if len(lines) == 0 && l == "" {
				return nil, err
			}
			return lines, io.ErrUnexpectedEOF
		}
		l = strings.TrimRight(l, "\r\n")
		if l == "" {
			if len(lines) == 0 {
				continue
			}
			return lines, nil
		}
		lines = append(lines, l)
	}
}

func headerFields(lines []string) map[string]string {
	m := make(map[string]string, len(lines))
	for _, l := range lines {
		if k, v, ok := strings.Cut(l, ":"); ok {
			m[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	return m
}

// changedPairs returns successive captures of one URL whose payloads
// differ, in corpus order.
func changedPairs(caps []corpusCapture) [][2]corpusCapture {
	var out [][2]corpusCapture
	for i := 1; i < len(caps); i++ {
		if caps[i].URL == caps[i-1].URL && !bytes.Equal(caps[i].Payload, caps[i-1].Payload) {
			out = append(out, [2]corpusCapture{caps[i-1], caps[i]})
		}
	}
	return out
}

// TestReadCorpus checks the test reader against the manifest, so the
// benchmark's figures rest on the right captures.
func TestReadCorpus(t *testing.T) {
	dir := sharedtest.Dir(t, "corpus")
	caps := readCorpus(t, "ota-lovescout24")
	man, err := os.ReadFile(filepath.Join(dir, "ota-lovescout24", "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(man)), "\n")[1:]
	if len(caps) != len(lines) {
		t.Fatalf("read %d HTML captures, manifest lists %d", len(caps), len(lines))
	}
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if caps[i].URL != f[0] || caps[i].Date != f[1] || fmt.Sprintf("%x", sha1.Sum(caps[i].Payload)) != f[2] {
			t.Fatalf("capture %d: %s %s, manifest %s", i, caps[i].URL, caps[i].Date, l)
		}
	}
}

// lineDiff aligns the lines of a and b (lcsIndex over line hashes, lines
// compared byte for byte) and returns the byte ranges of the lines only
// in a and only in b: what a line diff touches.
func lineDiff(a, b []byte) (onlyA, onlyB [][2]int) {
	la, lb := splitLines(a), splitLines(b)
	ha, hb := hashLines(a, la), hashLines(b, lb)
	inA, inB := make([]bool, len(la)), make([]bool, len(lb))
	for _, m := range lcsIndex(ha, hb) {
		if bytes.Equal(a[la[m[0]][0]:la[m[0]][1]], b[lb[m[1]][0]:lb[m[1]][1]]) {
			inA[m[0]], inB[m[1]] = true, true
		}
	}
	return unmatchedRanges(la, inA), unmatchedRanges(lb, inB)
}

func splitLines(d []byte) [][2]int {
	var out [][2]int
	for s := 0; s < len(d); {
		e := bytes.IndexByte(d[s:], '\n')
		if e < 0 {
			e = len(d)
		} else {
			e += s + 1
		}
		out = append(out, [2]int{s, e})
		s = e
	}
	return out
}

func hashLines(d []byte, lines [][2]int) []uint64 {
	h := make([]uint64, len(lines))
	for i, l := range lines {
		x := uint64(fnvOffset)
		for _, c := range d[l[0]:l[1]] {
			x = fnvByte(x, c)
		}
		h[i] = x
	}
	return h
}

// unmatchedRanges merges the unmatched lines into byte ranges.
func unmatchedRanges(lines [][2]int, matched []bool) [][2]int {
	var out [][2]int
	for i, l := range lines {
		if matched[i] {
			continue
		}
		if n := len(out); n > 0 && out[n-1][1] == l[0] {
			out[n-1][1] = l[1]
		} else {
			out = append(out, l)
		}
	}
	return out
}

func rangesBytes(r [][2]int) int {
	n := 0
	for _, x := range r {
		n += x[1] - x[0]
	}
	return n
}

// touches reports whether [start, end) meets one of the ranges; an empty
// range (an insertion point) meets a block that contains it.
func touches(r [][2]int, start, end int) bool {
	for _, x := range r {
		if x[0] < end && start < x[1] || x[0] == x[1] && start <= x[0] && x[0] < end {
			return true
		}
	}
	return false
}

// benchTokenize is the baseline of BenchmarkPartition: one pass of the
// x/net/html tokenizer, the least any HTML-reading step costs.
func benchTokenize(doc []byte) int {
	z := html.NewTokenizer(bytes.NewReader(doc))
	n := 0
	for z.Next() != html.ErrorToken {
		n++
	}
	return n
}

// benchPages returns the distinct HTML payloads of the corpus and the
// article-extraction pages.
func benchPages(tb testing.TB) (corpus, articles [][]byte) {
	tb.Helper()
	seen := map[[20]byte]bool{}
	for _, c := range readCorpus(tb) {
		if h := sha1.Sum(c.Payload); !seen[h] {
			seen[h] = true
			corpus = append(corpus, c.Payload)
		}
	}
	return corpus, benchArticles(tb)
}

// benchArticles returns the article-extraction pages, decompressed.
func benchArticles(tb testing.TB) [][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(sharedtest.Dir(tb, "testdata", "article-extraction", "html"), "*.html.gz"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("find article-extraction pages: %v (%d files)", err, len(files))
	}
	sort.Strings(files)
	var articles [][]byte
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			tb.Fatalf("read %s: %v", f, err)
		}
		page, err := io.ReadAll(zr)
		if err != nil {
			tb.Fatalf("read %s: %v", f, err)
		}
		articles = append(articles, page)
	}
	return articles
}

// processCPU returns the CPU time the process has used (user and
// system, all threads: garbage collection included), or 0 where it
// cannot be read.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPartition measures partitioning (tree, styles, rules, layout,
// text, features, topics and labels) over real pages the way production
// runs it: one Partitioner per worker, fed page after page (dedupe's
// ingest does this), so sheets and stems seen on earlier pages are
// reused. The Partitioner lives across iterations, as a worker's does
// across a crawl. In the same run it times a tokenizer-only pass and a
// fresh Partition per page over the same pages:
//
//   - x-tokenizer = Partitioner throughput ÷ tokenizer throughput
//     (target ≥ 0.4); MB/s and allocations are the Partitioner's;
//   - x-tokenizer-cold = fresh-Partition throughput ÷ tokenizer
//     throughput (no reuse across pages: a one-off call);
//   - x-tokenizer-cpu = x-tokenizer measured in process CPU time
//     (getrusage) rather than wall time: the same figure on an idle
//     machine, and one that other processes competing for the cores do
//     not disturb (wall-time ratios swing widely under load).
func BenchmarkPartition(b *testing.B) {
	corpus, articles := benchPages(b)
	for _, set := range []struct {
		name  string
		pages [][]byte
	}{{"corpus", corpus}, {"articles", articles}} {
		b.Run(set.name, func(b *testing.B) {
			total := 0
			for _, p := range set.pages {
				total += len(p)
			}
			b.SetBytes(int64(total))
			b.ReportAllocs()
			pp := NewPartitioner()
			var tok, part, cold time.Duration
			var tokCPU, partCPU time.Duration
			for b.Loop() {
				// The baselines run untimed, so MB/s is the Partitioner's.
				b.StopTimer()
				t0, c0 := time.Now(), processCPU()
				for _, p := range set.pages {
					benchTokenize(p)
				}
				tok += time.Since(t0)
				tokCPU += processCPU() - c0
				t0 = time.Now()
				for _, p := range set.pages {
					if _, err := Partition(p, Options{}); err != nil {
						b.Fatalf("partition: %v", err)
					}
				}
				cold += time.Since(t0)
				b.StartTimer()
				t1, c1 := time.Now(), processCPU()
				for _, p := range set.pages {
					if _, err := pp.Partition(p, Options{}); err != nil {
						b.Fatalf("partition: %v", err)
					}
				}
				part += time.Since(t1)
				partCPU += processCPU() - c1
			}
			if part > 0 && cold > 0 {
				b.ReportMetric(float64(tok)/float64(part), "x-tokenizer")
				b.ReportMetric(float64(tok)/float64(cold), "x-tokenizer-cold")
			}
			if partCPU > 0 && tokCPU > 0 {
				b.ReportMetric(float64(tokCPU)/float64(partCPU), "x-tokenizer-cpu")
			}
		})
	}
}

// BenchmarkChangeLocalisation partitions successive captures of each
// corpus URL whose payloads differ and matches their blocks, one
// sub-benchmark per corpus site. It reports
//
//   - layout-unchanged-share: share of changed captures whose layout is
//     byte-identical to the previous capture's (only blocks changed);
//   - changed-bytes-share: mean over captures of (bytes of the new
//     blocks reported Added or Modified) ÷ page bytes (smaller is better);
//   - with-layout-bytes-share: the same plus the whole layout when it
//     changed, what Algorithm 4 stores anew;
//   - linediff-bytes-share: mean (bytes of the new lines a line diff
//     finds) ÷ page bytes, the byte-level reference;
//   - x-linediff: changed-bytes-share ÷ linediff-bytes-share (below 1
//     when blocks are finer than the page's lines);
//   - unstable-share: share of captures with a block reported changed
//     although no edited line touches it (the partition regrouped
//     unchanged bytes, or the alignment failed): 0 is the goal;
//   - x-partition: time in Match ÷ time in Partition.
//
// Throughput (SetBytes) counts the new captures' bytes through Partition
// and Match.
func BenchmarkChangeLocalisation(b *testing.B) {
	all := readCorpus(b)
	sites := map[string][]corpusCapture{}
	var names []string
	for _, c := range all {
		// Each site has its own port: group by host.
		host := strings.SplitN(strings.TrimPrefix(c.URL, "http://"), "/", 2)[0]
		if sites[host] == nil {
			names = append(names, host)
		}
		sites[host] = append(sites[host], c)
	}
	sort.Strings(names)
	for _, host := range names {
		pairs := changedPairs(sites[host])
		if len(pairs) == 0 {
			continue
		}
		b.Run(siteName(host), func(b *testing.B) { benchLocalise(b, pairs) })
	}
}

// siteName names a corpus site by its port, e.g. "port-8101".
func siteName(host string) string {
	_, port, _ := strings.Cut(host, ":")
	return "port-" + port
}

func benchLocalise(b *testing.B, pairs [][2]corpusCapture) {
	total := 0
	for _, p := range pairs {
		total += len(p[1].Payload)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	var sameLayout, unstable int
	var changedShare, blockShare, diffShare float64
	var partTime, matchTime time.Duration
	for b.Loop() {
		sameLayout, unstable, changedShare, blockShare, diffShare = 0, 0, 0, 0, 0
		var prev *Result
		var prevPayload []byte
		for _, p := range pairs {
			t0 := time.Now()
			old := prev
			if old == nil || !bytes.Equal(prevPayload, p[0].Payload) {
				var err error
				if old, err = Partition(p[0].Payload, Options{}); err != nil {
					b.Fatalf("partition %s %s: %v", p[0].URL, p[0].Date, err)
				}
			}
			cur, err := Partition(p[1].Payload, Options{})
			if err != nil {
				b.Fatalf("partition %s %s: %v", p[1].URL, p[1].Date, err)
			}
			t1 := time.Now()
			ms := Match(old, cur, SimOptions{})
			t2 := time.Now()
			partTime += t1.Sub(t0)
			matchTime += t2.Sub(t1)
			prev, prevPayload = cur, p[1].Payload

			onlyOld, onlyNew := lineDiff(p[0].Payload, p[1].Payload)
			blocks, outside := 0, false
			for _, m := range ms {
				if m.Kind == Identical {
					continue
				}
				if m.Kind == Added || m.Kind == Modified {
					blocks += m.New.End - m.New.Start
				}
				if !(m.Old != nil && touches(onlyOld, m.Old.Start, m.Old.End) || m.New != nil && touches(onlyNew, m.New.Start, m.New.End)) {
					outside = true
				}
			}
			if outside {
				unstable++
			}
			changed := blocks
			if bytes.Equal(old.Layout.Encode(), cur.Layout.Encode()) {
				sameLayout++
			} else {
				for _, g := range cur.Layout.Gaps {
					changed += len(g)
				}
			}
			n := float64(max(1, len(p[1].Payload)))
			changedShare += float64(changed) / n
			blockShare += float64(blocks) / n
			diffShare += float64(rangesBytes(onlyNew)) / n
		}
	}
	n := float64(len(pairs))
	b.ReportMetric(n, "captures")
	b.ReportMetric(float64(sameLayout)/n, "layout-unchanged-share")
	b.ReportMetric(blockShare/n, "changed-bytes-share")
	b.ReportMetric(changedShare/n, "with-layout-bytes-share")
	b.ReportMetric(diffShare/n, "linediff-bytes-share")
	if diffShare > 0 {
		b.ReportMetric(blockShare/diffShare, "x-linediff")
	}
	b.ReportMetric(float64(unstable)/n, "unstable-share")
	if partTime > 0 {
		b.ReportMetric(float64(matchTime)/float64(partTime), "x-partition")
	}
}

// BenchmarkMatchUnrelated matches the partitions of unrelated pages (each
// article-extraction page against the next), the worst case for the
// similarity pairing: nothing is identical, so every block lands in one
// unmatched run. x-partition = Match time ÷ Partition time of the same
// pages, measured in the same run.
func BenchmarkMatchUnrelated(b *testing.B) {
	pages := benchArticles(b)
	res := make([]*Result, len(pages))
	total := 0
	t0 := time.Now()
	for i, p := range pages {
		r, err := Partition(p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		res[i] = r
		total += len(p)
	}
	part := time.Since(t0)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i := range res {
			Match(res[i], res[(i+1)%len(res)], SimOptions{})
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(part), "x-partition")
}
