package diff

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"golang.org/x/net/html"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/partition"
)

// localStats is what localising every changed consecutive pair of
// captures of a site found.
type localStats struct {
	pairs     int       // consecutive HTML captures whose payloads differ
	flagged   []float64 // per pair with a visible change: share of the two captures' bytes in the flagged parts of content blocks
	flagBlk   []float64 // the same pairs: share in flagged content blocks, whole
	bound     []float64 // the same pairs: share a token diff of their content must flag at least
	flagAll   []float64 // per pair: share of the two captures' bytes in any flagged block (head and scripts too)
	boundAll  []float64 // per pair: share a token diff of the whole documents must flag at least
	invisible int       // pairs with a flagged block and no visible text change
	flagBlks  int       // flagged blocks (new side, or removed)
	markBlks  int       // of them, markup-only
	coarse    int       // pairs whose token diff was too long for Myers (bound from prefix/suffix)
}

// localisePairs ingests a corpus site at level (0 = ingest's default, level 1; partition.LevelAdaptive the adaptive partition) and, for
// every changed consecutive pair of HTML captures of a URL, measures the
// bytes the block comparison flags (text-changed, markup-only, added,
// removed blocks, both captures) against a token diff of the same pair.
// Each capture shows the partition the archive stores for it, as diff
// shows it (dedupe.Page.Partition).
func localisePairs(tb testing.TB, site string, level int) localStats {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(sharedtest.Dir(tb, "corpus"), site, "*.warc.gz"))
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
			res, _, err := pg.Partition(pps[n%2], v.Level, prev) // the stored partition, as diff shows it
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
	flagged, content, contentBlk := 0, 0, 0
	// content: a block a reader sees (text or media), not the head or
	// a script, style or data island.
	isContent := func(b *partition.Block) bool {
		return b != nil && b.Tag != "head" && b.Label != partition.LabelScript && (b.Features.TextLen > 0 || b.Features.Images > 0)
	}
	for _, b := range blocks {
		n, nb := 0, 0
		switch b.Status {
		case TextChanged, MarkupOnly:
			nb = b.Old.End - b.Old.Start + b.New.End - b.New.Start
			n = b.PartBytes()
		case Added:
			n = b.New.End - b.New.Start
			nb = n
		case Removed:
			n = b.Old.End - b.Old.Start
			nb = n
		default:
			continue
		}
		flagged += n
		if isContent(b.New) || b.New == nil && isContent(b.Old) {
			content += n
			contentBlk += nb
			if localiseDump {
				bb := b.New
				if bb == nil {
					bb = b.Old
				}
				ot := ""
				if b.Old != nil {
					ot = b.Old.Text
				}
				fmt.Printf("  %v %s <%s id=%q class=%q> %d bytes (%.3f) old %q new %q\n", b.Status, bb.Label, bb.Tag, bb.ID, bb.Class, n,
					float64(n)/float64(len(old.Doc)+len(new.Doc)), firstDiff(ot, bb.Text), firstDiff(bb.Text, ot))
				if b.Status == MarkupOnly {
					ob, nb := string(old.Doc[b.Old.Start:b.Old.End]), string(new.Doc[b.New.Start:b.New.End])
					fmt.Printf("    bytes old %q new %q\n", firstDiff(ob, nb), firstDiff(nb, ob))
				}
			}
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
	diffBytes, exact := tokenDiffBytes(old.Doc, new.Doc, false)
	if !exact {
		st.coarse++
	}
	st.flagAll = append(st.flagAll, float64(flagged)/total)
	st.boundAll = append(st.boundAll, float64(diffBytes)/total)
	if localiseDump {
		fmt.Printf("pair visible %v content %.3f\n", sum.VisibleChange, float64(content)/total)
	}
	if sum.VisibleChange {
		contentDiff, exact := tokenDiffBytes(old.Doc, new.Doc, true)
		if !exact {
			st.coarse++
		}
		st.flagged = append(st.flagged, float64(content)/total)
		st.flagBlk = append(st.flagBlk, float64(contentBlk)/total)
		st.bound = append(st.bound, float64(contentDiff)/total)
	}
}

// maxTokenEdits bounds the token diff; beyond it the differing middle
// (after the common prefix and suffix) is counted whole, which can only
// overstate the bound.
const maxTokenEdits = 20000

// tokenDiffBytes is the lower bound on what any localisation must flag:
// the bytes of the tokens a shortest token diff deletes from a and
// inserts from b. Tokens are the HTML tokenizer's tags, comments and
// doctypes whole, and text cut into words with their trailing space:
// finer than any block. With content, the tokens inside <head> and
// inside script, style and template elements are left out: what a
// change of the content a reader sees must flag.
func tokenDiffBytes(a, b []byte, content bool) (int, bool) {
	ta, tb := htmlTokens(a, content), htmlTokens(b, content)
	p, s := CommonEnds(ta, tb)
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

func htmlTokens(doc []byte, content bool) []string {
	z := html.NewTokenizer(bytes.NewReader(doc))
	var out []string
	inHead, inRaw := false, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		if content {
			name, _ := z.TagName()
			switch string(name) {
			case "head":
				inHead = tt == html.StartTagToken
				continue
			case "body":
				inHead = false
			case "script", "style", "template":
				switch tt {
				case html.StartTagToken:
					inRaw++
				case html.EndTagToken:
					inRaw = max(inRaw-1, 0)
				}
				continue
			}
			if inHead || inRaw > 0 {
				continue
			}
		}
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
	n, ok := tokenDiffBytes(a, b, false)
	if want := 2*len("two ") + 2*len("<div class=a>"); !ok || n != want {
		t.Fatalf("token diff = %d (%v), want %d", n, ok, want)
	}
	if n, _ := tokenDiffBytes(a, a, false); n != 0 {
		t.Fatalf("same page: %d", n)
	}
	// Content only: a changed script and head count nothing.
	c := []byte(`<html><head><title>A</title></head><body><script>var x=1</script><p>one two</p></body></html>`)
	d := []byte(`<html><head><title>B</title></head><body><script>var x=2</script><p>one too</p></body></html>`)
	if n, _ := tokenDiffBytes(c, d, true); n != 2*len("two") {
		t.Fatalf("content token diff = %d, want %d", n, 2*len("two"))
	}
	if n, _ := tokenDiffBytes(c, d, false); n <= 2*len("two") {
		t.Fatalf("whole token diff = %d, want the head and script too", n)
	}
}

// BenchmarkLocalisation reports, per corpus site and partition level
// (adaptive, the default of blocks and diff, beside the fixed levels 1 and 3), over the
// changed pairs with a visible change, the median share of the two
// captures' bytes in the content blocks the comparison flags
// (flagged-median) against a token diff of their content (outside the
// head, scripts and styles: bound-median); target flagged ≤ 2 × bound +
// 0.20, over-target the margin. Reported separately: the share of changed
// pairs flagged with no visible text change (invisible-share), the share
// of flagged blocks that are markup-only, and over all changed pairs the
// same medians counting every block and token (flagged-all-median,
// bound-all-median).
func BenchmarkLocalisation(b *testing.B) {
	for _, site := range corpusSites {
		for _, lv := range []struct {
			name  string
			level int
		}{{"adaptive", partition.LevelAdaptive}, {"level1", 1}, {"level3", 3}} {
			b.Run(site+"/"+lv.name, func(b *testing.B) {
				var st localStats
				for range b.N {
					st = localisePairs(b, site, lv.level)
				}
				fm, bm := median(st.flagged), median(st.bound)
				b.ReportMetric(float64(st.pairs), "pairs")
				b.ReportMetric(float64(len(st.flagged)), "visible-pairs")
				b.ReportMetric(fm, "flagged-median")
				b.ReportMetric(bm, "bound-median")
				b.ReportMetric(fm-(2*bm+0.20), "over-target")
				b.ReportMetric(median(st.flagBlk), "block-flagged-median")
				b.ReportMetric(median(st.flagAll), "flagged-all-median")
				b.ReportMetric(median(st.boundAll), "bound-all-median")
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

// localiseDump (LOCALISE_DUMP=1) prints every flagged content block of
// every pair, to find what makes a site's localisation coarse.
var localiseDump = os.Getenv("LOCALISE_DUMP") != ""

// firstDiff returns a's text around its first difference from b.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-30):min(len(a), i+50)]
}
