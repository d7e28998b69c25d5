package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestParityOverhead measures parity bytes ÷ the archive's other bytes
// (LOCK and tables/ apart) on the corpus's sites, one crawl and whole
// (docs/FORMAT.md "Cost"). Correcting any two damaged 4 KiB disk
// sectors of a file takes 8 KiB of parity, or a copy of the file when it
// is smaller: no layout does better than that floor. Archives over
// 200 KB must come to at most 5.5 %, and every archive within 15 % of
// what the best layout would pay for its files (the floor, or the 1/32
// burst of the file and one sector of 1 KiB, and the checksums).
func TestParityOverhead(t *testing.T) {
	corpus := sharedtest.Dir(t, "corpus")
	root := t.TempDir()
	for _, site := range []string{"mkdocs-org", "ota-tinder", "ota-mektoube", "ota-lovescout24"} {
		crawls, _ := filepath.Glob(filepath.Join(corpus, site, "*.warc.gz"))
		if len(crawls) == 0 {
			t.Fatalf("%s: no crawls", site)
		}
		for _, c := range []struct {
			what string
			in   []string
		}{{"one crawl", crawls[:1]}, {"whole", []string{filepath.Join(corpus, site)}}} {
			dir := filepath.Join(root, site+strings.ReplaceAll(c.what, " ", "")+".bwa")
			if code, _, stderr := runCmd(t, append([]string{"ingest", "-tables=false", dir}, c.in...)...); code != exitOK {
				t.Fatalf("ingest %s: exit %d: %s", site, code, stderr)
			}
			var par, other, floor, bound int64
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				fi, err := e.Info()
				if err != nil || !fi.Mode().IsRegular() || e.Name() == "LOCK" {
					continue
				}
				if strings.HasSuffix(e.Name(), ".par") {
					par += fi.Size()
					continue
				}
				other += fi.Size()
				if strings.HasSuffix(e.Name(), ".pack") || strings.HasSuffix(e.Name(), ".idx") {
					floor += min(8192, fi.Size())
					// What the best layout pays: the floor, or the burst
					// and a sector of 1 KiB, plus two checksums of 4 B
					// per KiB and the meta blocks.
					bound += max(min(8192, fi.Size()), fi.Size()/32+1024) + fi.Size()/128 + 200
				}
			}
			ratio := float64(par) / float64(other)
			t.Logf("%s %s: parity %d B ÷ %d B = %.1f %% (floor %d B = %.1f %%)", site, c.what, par, other, 100*ratio, floor, 100*float64(floor)/float64(other))
			if other > 200_000 && ratio > 0.055 {
				t.Errorf("%s %s: parity %.1f %% of %d B, over 5.5 %%", site, c.what, 100*ratio, other)
			}
			if float64(par) > 1.15*float64(bound) {
				t.Errorf("%s %s: parity %d B, more than 15 %% over %d B, the floor or the burst", site, c.what, par, bound)
			}
		}
	}
}
