package diff

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"golang.org/x/net/html"

	"blockwarc/dedupe"
	"blockwarc/dedupe/pack"
	"blockwarc/partition"
)

// localStats is what localising every changed consecutive pair of
// captures of a site found.
type localStats struct {
	pairs     int       // consecutive HTML captures whose payloads differ
	flagged   []float64 // per pair: share of the two captures' bytes in flagged blocks
	bound     []float64 // per pair: share a token diff must flag at least
	invisible int       // pairs with a flagged block and no visible text change
	flagBlks  int       // flagged blocks (new side, or removed)
	markBlks  int       // of them, markup-only
	coarse    int       // pairs whose token diff was too long for Myers (bound from prefix/suffix)
}

// localisePairs ingests a corpus site at level (0 = the default) and, for
// every changed consecutive pair of HTML captures of a URL, measures the
// bytes the block comparison flags (text-changed, markup-only, added,
// removed blocks, both captures) against a token diff of the same pair.
// The newer capture is partitioned with the older one as its prior, as
// ingest and diff do.
func localisePairs(tb testing.TB, site string, level int) localStats {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(sharedCorpus(tb), site, "*.warc.gz"))
	if len(files) == 0 {
		tb.Fatalf("no WARC files for corpus site %s", site)
	}
	slices.Sort(files)
	dir := filepath.Join(tb.TempDir(), site+".bwa")
	if _, err := dedupe.Ingest(context.Background(), dir, files, dedupe.Options{Level: level}); err != nil {
		tb.Fatal(err)
	}
	a, err := dedupe.Open(dir, pack.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer a.Close()
	var st localStats
	pps := [2]*partition.Partitioner{partition.NewPartitioner(), partition.NewPartitioner()}
	err = a.Walk(func(uv dedupe.URLVersions) error {
		var prev *partition.Result
		n := 0
		for i := range uv.Versions {
			v := &uv.Versions[i]
			if v.Type != "response" {
				continue
			}
			pg, err := a.ReadPage(v)
			if err != nil {
				return err
			}
			if !pg.IsHTML() || len(pg.Doc) == 0 {
				continue
			}
			opts := dedupe.PageOptions(pg.ContentType, v.Level, v.TargetURI)
			opts.Prior = prev
			res, err := pps[n%2].Partition(pg.Doc, opts)
			if err != nil {
				return err
			}
			n++
			if prev != nil && !bytes.Equal(prev.Doc, res.Doc) {
				st.add(prev, res)
			}
			prev = res
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

func (st *localStats) add(old, new *partition.Result) {
	st.pairs++
	blocks, sum := Compare(old, new)
	flagged := 0
	for _, b := range blocks {
		switch b.Status {
		case TextChanged, MarkupOnly:
			flagged += b.Old.End - b.Old.Start + b.New.End - b.New.Start
		case Added:
			flagged += b.New.End - b.New.Start
		case Removed:
			flagged += b.Old.End - b.Old.Start
		default:
			continue
		}
		if b.Status != Removed {
			st.flagBlks++
			if b.Status == MarkupOnly {
				st.markBlks++
			}
		}
	}
	if flagged > 0 && !sum.VisibleChange {
		st.invisible++
	}
	total := float64(len(old.Doc) + len(new.Doc))
	diffBytes, exact := tokenDiffBytes(old.Doc, new.Doc)
	if !exact {
		st.coarse++
	}
	st.flagged = append(st.flagged, float64(flagged)/total)
	st.bound = append(st.bound, float64(diffBytes)/total)
}

// maxTokenEdits bounds the token diff; beyond it the differing middle
// (after the common prefix and suffix) is counted whole, which can only
// overstate the bound.
const maxTokenEdits = 20000

// tokenDiffBytes is the lower bound on what any localisation must flag:
// the bytes of the tokens a shortest token diff deletes from a and
// inserts from b. Tokens are the HTML tokenizer's tags, comments and
// doctypes whole, and text cut into words with their trailing space:
// finer than any block.
func tokenDiffBytes(a, b []byte) (int, bool) {
	ta, tb := htmlTokens(a), htmlTokens(b)
	p := 0
	for p < len(ta) && p < len(tb) && ta[p] == tb[p] {
		p++
	}
	s := 0
	for s < len(ta)-p && s < len(tb)-p && ta[len(ta)-1-s] == tb[len(tb)-1-s] {
		s++
	}
	ma, mb := ta[p:len(ta)-s], tb[p:len(tb)-s]
	size := func(ts []string) int {
		k := 0
		for _, t := range ts {
			k += len(t)
		}
		return k
	}
	ops, ok := myers(ma, mb, maxTokenEdits)
	if !ok {
		return size(ma) + size(mb), false
	}
	n, i, j := 0, 0, 0
	for _, op := range ops {
		switch op {
		case Equal:
			i, j = i+1, j+1
		case Delete:
			n += len(ma[i])
			i++
		case Insert:
			n += len(mb[j])
			j++
		}
	}
	return n, true
}

func htmlTokens(doc []byte) []string {
	z := html.NewTokenizer(bytes.NewReader(doc))
	var out []string
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		if tt != html.TextToken {
			out = append(out, string(raw))
			continue
		}
		start := 0
		for k := 0; k < len(raw); k++ {
			if (raw[k] == ' ' || raw[k] == '\n' || raw[k] == '\t' || raw[k] == '\r') && (k+1 == len(raw) || raw[k+1] != ' ' && raw[k+1] != '\n' && raw[k+1] != '\t' && raw[k+1] != '\r') {
				out = append(out, string(raw[start:k+1]))
				start = k + 1
			}
		}
		if start < len(raw) {
			out = append(out, string(raw[start:]))
		}
	}
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TestTokenDiffBytes: the bound counts exactly the changed word and tag.
func TestTokenDiffBytes(t *testing.T) {
	a := []byte(`<p>one two three</p><div class=a>x</div>`)
	b := []byte(`<p>one TWO three</p><div class=b>x</div>`)
	n, ok := tokenDiffBytes(a, b)
	if want := 2*len("two ") + 2*len("<div class=a>"); !ok || n != want {
		t.Fatalf("token diff = %d (%v), want %d", n, ok, want)
	}
	if n, _ := tokenDiffBytes(a, a); n != 0 {
		t.Fatalf("same page: %d", n)
	}
}

// BenchmarkLocalisation reports, per corpus site and partition level
// (adaptive, the default, beside the fixed levels 1 and 3), the median
// share of the two captures' bytes that the block comparison flags per
// changed pair (flagged-median) against a token diff's lower bound on the
// same pairs (bound-median); target flagged ≤ 2 × bound + 0.20. It also
// reports the share of changed pairs flagged with no visible text change
// (invisible-share) and the share of flagged blocks that are markup-only.
func BenchmarkLocalisation(b *testing.B) {
	for _, site := range corpusSites {
		for _, lv := range []struct {
			name  string
			level int
		}{{"adaptive", 0}, {"level1", 1}, {"level3", 3}} {
			b.Run(site+"/"+lv.name, func(b *testing.B) {
				var st localStats
				for range b.N {
					st = localisePairs(b, site, lv.level)
				}
				fm, bm := median(st.flagged), median(st.bound)
				b.ReportMetric(float64(st.pairs), "pairs")
				b.ReportMetric(fm, "flagged-median")
				b.ReportMetric(bm, "bound-median")
				b.ReportMetric(fm-(2*bm+0.20), "over-target")
				b.ReportMetric(float64(st.invisible)/float64(max(st.pairs, 1)), "invisible-share")
				b.ReportMetric(float64(st.markBlks)/float64(max(st.flagBlks, 1)), "markup-only-blocks")
				b.ReportMetric(float64(st.coarse), "coarse-pairs")
				if testing.Verbose() {
					fmt.Printf("%s %s: %d pairs, flagged %.3f, bound %.3f\n", site, lv.name, st.pairs, fm, bm)
				}
			})
		}
	}
}
