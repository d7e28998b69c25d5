package partition

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// The hand-labelled region set (testdata/regions/*.regions): pages of
// ../shared (corpus captures and article-extraction pages) with the
// regions a reader sees, looked at in headless Chromium screenshots of
// `blocks -html`. A file names its page and half, then lists the regions
// in page order, one a line:
//
//	# page: corpus SITE STAMP URL      (the capture in SITE-STAMP.warc.gz)
//	# page: article ID                 (article-extraction/html/ID*.html.gz)
//	# half: tune | held-out
//	= LABEL[|LABEL...] | FIRST WORDS OF THE REGION'S TEXT
//	+ LABEL[|LABEL...] | FIRST WORDS ...
//
// "=" is a region that must be one kept block; "+" one the partition may
// divide (an article holding most of the page's text, by its sections).
// A region starts where its first words first occur after the previous
// region's start, in the text of the page's kept blocks. LABELs are the
// labels its blocks may carry.

type labelledRegion struct {
	whole  bool
	labels []string
	words  string
}

type labelledPage struct {
	name, page, half string
	regions          []labelledRegion
}

func readRegionFiles(tb testing.TB) []labelledPage {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "regions", "*.regions"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no labelled pages in testdata/regions: %v", err)
	}
	var out []labelledPage
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			tb.Fatal(err)
		}
		lp := labelledPage{name: filepath.Base(f)}
		sc := bufio.NewScanner(fh)
		for ln := 1; sc.Scan(); ln++ {
			line := strings.TrimSpace(sc.Text())
			switch {
			case line == "":
			case strings.HasPrefix(line, "# page:"):
				lp.page = strings.TrimSpace(line[len("# page:"):])
			case strings.HasPrefix(line, "# half:"):
				lp.half = strings.TrimSpace(line[len("# half:"):])
			case strings.HasPrefix(line, "#"):
			case line[0] == '=' || line[0] == '+':
				lab, words, ok := strings.Cut(line[1:], "|")
				rest := ""
				if ok {
					// LABEL|LABEL | words: the words follow the first " | "
					// (label names have no spaces; words may hold " | ",
					// "Milan Design Week 2018 | Michael …").
					if i := strings.Index(line, " | "); i > 0 {
						lab, rest = line[1:i], line[i+3:]
					} else {
						rest = words
					}
				}
				if !ok || strings.TrimSpace(rest) == "" {
					tb.Fatalf("%s:%d: want '= LABEL | WORDS'", f, ln)
				}
				lp.regions = append(lp.regions, labelledRegion{whole: line[0] == '=',
					labels: strings.Split(strings.ReplaceAll(strings.TrimSpace(lab), " ", ""), "|"), words: normSpace(rest)})
			default:
				tb.Fatalf("%s:%d: unknown line %q", f, ln, line)
			}
		}
		fh.Close()
		if lp.page == "" || (lp.half != "tune" && lp.half != "held-out") || len(lp.regions) == 0 {
			tb.Fatalf("%s: needs '# page:', '# half: tune|held-out' and regions", f)
		}
		out = append(out, lp)
	}
	return out
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// loadLabelledPage reads the page a labelled file names from ../shared.
func loadLabelledPage(tb testing.TB, page string) []byte {
	tb.Helper()
	f := strings.Fields(page)
	switch {
	case len(f) == 4 && f[0] == "corpus":
		dir := sharedtest.Dir(tb, "corpus", f[1])
		for _, r := range ptReadWARCHTML(tb, filepath.Join(dir, f[1]+"-"+f[2]+".warc.gz")) {
			if strings.Trim(r.URI, "<>") == f[3] {
				return r.Payload
			}
		}
	case len(f) == 2 && f[0] == "article":
		dir := sharedtest.Dir(tb, "testdata", "article-extraction", "html")
		m, _ := filepath.Glob(filepath.Join(dir, f[1]+"*.html.gz"))
		if len(m) == 1 {
			return ptReadGz(tb, m[0])
		}
	}
	tb.Fatalf("labelled page %q not found", page)
	return nil
}

// regionScore is the agreement of one partition with one labelled page.
type regionScore struct {
	regions, agree int // labelled regions; those whose bounds are kept-block bounds (and one block if '=')
	blocks, right  int // kept blocks with text inside a found region; those with a label the region allows
	missing        []string
	wrong          []string // mislabelled blocks: label, allowed labels, tag, names, features, text
}

func scoreRegions(res *Result, lp labelledPage) regionScore {
	var text strings.Builder
	var starts []int
	var blocks []*Block
	for _, l := range res.Leaves {
		t := normSpace(l.Text)
		if t == "" {
			continue
		}
		if text.Len() > 0 {
			text.WriteByte(' ')
		}
		starts = append(starts, text.Len())
		blocks = append(blocks, l)
		text.WriteString(t)
	}
	all := text.String()
	sc := regionScore{regions: len(lp.regions)}
	pos := make([]int, len(lp.regions)) // region start offsets, -1 when not found
	cur := 0
	for i, r := range lp.regions {
		k := strings.Index(all[cur:], r.words)
		if k < 0 {
			pos[i] = -1
			sc.missing = append(sc.missing, r.words)
			continue
		}
		pos[i] = cur + k
		cur = pos[i] + 1
	}
	isStart := func(off int) bool { _, ok := slices.BinarySearch(starts, off); return ok }
	for i, r := range lp.regions {
		if pos[i] < 0 {
			continue
		}
		end := len(all) + 1 // one past the text: the end of the last block
		for j := i + 1; j < len(lp.regions); j++ {
			if pos[j] >= 0 {
				end = pos[j]
				break
			}
		}
		if !isStart(pos[i]) || end <= len(all) && !isStart(end) {
			// A kept block straddles this region's start or end.
		} else {
			inside := 0
			for _, s := range starts {
				if s >= pos[i] && s < end {
					inside++
				}
			}
			if !r.whole || inside == 1 {
				sc.agree++
			}
		}
		for bi, s := range starts {
			if s >= pos[i] && s < end {
				sc.blocks++
				if bl := blocks[bi]; slices.Contains(r.labels, string(bl.Label)) {
					sc.right++
				} else {
					role := ""
					if bl.Node != nil {
						role = bl.Node.Attr("role")
					}
					t := normSpace(bl.Text)
					sc.wrong = append(sc.wrong, fmt.Sprintf("%s want %s: <%s id=%q class=%q role=%q> len %d links %d ltr %.2f inputs %d pos %.2f %q",
						bl.Label, strings.Join(r.labels, "|"), bl.Tag, bl.ID, bl.Class, role, bl.Features.TextLen, bl.Features.Links,
						bl.Features.LinkTextRatio, bl.Features.Inputs, bl.Features.Position, t[:min(len(t), 90)]))
				}
			}
		}
	}
	return sc
}

// BenchmarkRegions reports, for the tuning and held-out halves of the
// labelled set, region agreement (labelled regions whose bounds are kept
// blocks' bounds, and one block where the region must be whole) and
// label accuracy (kept blocks whose label the region allows), for the
// default (adaptive) partition and, for comparison, fixed levels 1 and 3.
func BenchmarkRegions(b *testing.B) {
	pages := readRegionFiles(b)
	docs := make([][]byte, len(pages))
	for i, lp := range pages {
		docs[i] = loadLabelledPage(b, lp.page)
	}
	for _, lv := range []struct {
		name  string
		level int
	}{{"adaptive", 0}, {"level1", 1}, {"level3", 3}} {
		for _, half := range []string{"tune", "held-out"} {
			b.Run(lv.name+"/"+half, func(b *testing.B) {
				var tot regionScore
				np := 0
				for range b.N {
					tot, np = regionScore{}, 0
					for i, lp := range pages {
						if lp.half != half {
							continue
						}
						res, err := Partition(docs[i], Options{Level: lv.level})
						if err != nil {
							b.Fatal(err)
						}
						s := scoreRegions(res, lp)
						np++
						tot.regions += s.regions
						tot.agree += s.agree
						tot.blocks += s.blocks
						tot.right += s.right
						if testing.Verbose() && lv.level == 0 && (s.agree < s.regions || s.right < s.blocks) {
							fmt.Printf("%s %s: regions %d/%d labels %d/%d missing %q\n", half, lp.name, s.agree, s.regions, s.right, s.blocks, s.missing)
							for _, w := range s.wrong {
								fmt.Printf("\t%s\n", w)
							}
						}
					}
				}
				b.ReportMetric(float64(np), "pages")
				b.ReportMetric(float64(tot.regions), "regions")
				b.ReportMetric(float64(tot.blocks), "blocks")
				b.ReportMetric(float64(tot.agree)/float64(max(tot.regions, 1)), "region-agreement")
				b.ReportMetric(float64(tot.right)/float64(max(tot.blocks, 1)), "label-accuracy")
			})
		}
	}
}

// TestRegionFiles: every labelled page loads and every region's first
// words occur in order in the default partition's text, so the
// benchmark's figures count every region.
func TestRegionFiles(t *testing.T) {
	pages := readRegionFiles(t)
	halves := map[string]int{}
	blocks := 0
	for _, lp := range pages {
		res := mustPartition(t, loadLabelledPage(t, lp.page), Options{})
		s := scoreRegions(res, lp)
		if len(s.missing) > 0 {
			t.Errorf("%s: regions not found in the page's text: %q", lp.name, s.missing)
		}
		halves[lp.half]++
		blocks += s.blocks
	}
	if len(pages) < 40 || blocks < 300 || halves["tune"] == 0 || halves["held-out"] == 0 {
		t.Errorf("labelled set: %d pages (%v), %d blocks; want at least 40 pages, 300 blocks and both halves", len(pages), halves, blocks)
	}
}

// TestRegionsDraft (REGIONS_DRAFT=LIST, LIST a file of "NAME|PAGE|HALF"
// lines) writes a draft labelled file for each page that has none, from
// the default partition's kept blocks, for a person to correct.
func TestRegionsDraft(t *testing.T) {
	list := os.Getenv("REGIONS_DRAFT")
	if list == "" {
		t.Skip("REGIONS_DRAFT not set: nothing to draft")
	}
	data, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "|")
		out := filepath.Join("testdata", "regions", f[0]+".regions")
		if _, err := os.Stat(out); err == nil {
			continue
		}
		res := mustPartition(t, loadLabelledPage(t, f[1]), Options{})
		var b strings.Builder
		fmt.Fprintf(&b, "# page: %s\n# half: %s\n", f[1], f[2])
		for _, l := range res.Leaves {
			w := strings.Fields(l.Text)
			if len(w) == 0 {
				continue
			}
			fmt.Fprintf(&b, "= %s | %s\n", l.Label, strings.Join(w[:min(len(w), 7)], " "))
		}
		os.MkdirAll(filepath.Dir(out), 0o755)
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
