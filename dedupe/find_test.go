package dedupe

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/warcio"
)

// findExhaustive is Find as it was before catalog version 10: every
// capture of the URL (Versions, one segment of every run), then the last
// in capture order of the highest priority dated at or before at.
func findExhaustive(a *Archive, url string, at time.Time) (Version, error) {
	vs, err := a.Versions(warcio.SURT(url))
	if err != nil {
		return Version{}, err
	}
	best := -1
	for i := range vs {
		if !at.IsZero() && vs[i].Date.After(at) {
			continue
		}
		if best < 0 || pagePriority(vs[i].Type) >= pagePriority(vs[best].Type) {
			best = i
		}
	}
	if best < 0 {
		return Version{}, fmt.Errorf("find %s: %w", url, ErrNoCapture)
	}
	return vs[best], nil
}

// findNearExhaustive is FindNear as it was before catalog version 10:
// every capture of the URL (Versions), then Nearest among its pages, or
// among all when it has none.
func findNearExhaustive(a *Archive, url string, start, end time.Time) (Version, error) {
	vs, err := a.Versions(warcio.SURT(url))
	if err != nil {
		return Version{}, err
	}
	var pages []Version
	for _, v := range vs {
		if pagePriority(v.Type) > 0 {
			pages = append(pages, v)
		}
	}
	if len(pages) > 0 {
		vs = pages
	}
	i := Nearest(vs, start, end)
	if i < 0 {
		return Version{}, fmt.Errorf("find %s: %w", url, ErrNoCapture)
	}
	return vs[i], nil
}

// sameNear checks that FindNear and findNearExhaustive give a the same
// answer for url and each period around at: an hour from at, the empty
// [at, at), an inverted one, and a day before at; it returns the
// segments FindNear read and those findNearExhaustive read.
func sameNear(t *testing.T, a *Archive, url string, at time.Time) (got, want int64) {
	t.Helper()
	for _, p := range [][2]time.Time{{at, at.Add(time.Hour)}, {at, at}, {at, at.Add(-time.Hour)}, {at.Add(-24 * time.Hour), at}} {
		n0 := segmentReads.Load()
		g, gerr := a.FindNear(url, p[0], p[1])
		n1 := segmentReads.Load()
		w, werr := findNearExhaustive(a, url, p[0], p[1])
		n2 := segmentReads.Load()
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("FindNear(%s, %v, %v): error %v, exhaustive %v", url, p[0], p[1], gerr, werr)
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("FindNear(%s, %v, %v) = %s %s %s@%d, exhaustive %s %s %s@%d", url, p[0], p[1],
				g.Type, g.Date, g.File, g.Offset, w.Type, w.Date, w.File, w.Offset)
		}
		got += n1 - n0
		want += n2 - n1
	}
	return got, want
}

// sameNearVersions checks that NearVersions of url's key at at (zero:
// the latest) is a part of Versions from which the rules a caller may
// choose by — the page capture (non-zero date) nearest at, ties to the
// earlier date then the first in capture order (replay's /web/), or to
// the later date then the last; with at zero, the latest date, the last
// of it — choose what they choose from Versions; it returns the
// segments NearVersions read.
func sameNearVersions(t *testing.T, a *Archive, url string, at time.Time) int64 {
	t.Helper()
	key := warcio.SURT(url)
	all, err := a.Versions(key)
	if err != nil {
		t.Fatal(err)
	}
	n0 := segmentReads.Load()
	near, err := a.NearVersions(key, at, at.Add(time.Nanosecond))
	if err != nil {
		t.Fatal(err)
	}
	n := segmentReads.Load() - n0
	for _, v := range near {
		if !slices.ContainsFunc(all, func(w Version) bool { return reflect.DeepEqual(v, w) }) {
			t.Fatalf("NearVersions(%s, %v) holds %s %s@%d, which Versions does not", url, at, v.Type, v.File, v.Offset)
		}
	}
	to := at
	if to.IsZero() {
		to = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC) // the latest is nearest
	}
	dist := func(v *Version) time.Duration { return max(v.Date.Sub(to), to.Sub(v.Date)) }
	pick := func(vs []Version, laterWins bool) int {
		best := -1
		for i := range vs {
			v := &vs[i]
			if pagePriority(v.Type) == 0 || v.Date.IsZero() {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			b := &vs[best]
			switch d, bd := dist(v), dist(b); {
			case d < bd:
				best = i
			case d == bd && laterWins && !v.Date.Before(b.Date):
				best = i
			case d == bd && !laterWins && v.Date.Before(b.Date):
				best = i
			}
		}
		return best
	}
	for _, later := range []bool{false, true} {
		g, w := pick(near, later), pick(all, later)
		if (g < 0) != (w < 0) || g >= 0 && !reflect.DeepEqual(near[g], all[w]) {
			t.Fatalf("NearVersions(%s, %v) chooses %d of %d, Versions %d of %d (later wins: %v)", url, at, g, len(near), w, len(all), later)
		}
	}
	return n
}

// sameFind checks that Find and findExhaustive give a the same answer
// for url at at, and returns the segments Find read and those
// findExhaustive read.
func sameFind(t *testing.T, a *Archive, url string, at time.Time) (int64, int64) {
	t.Helper()
	n0 := segmentReads.Load()
	got, gerr := a.Find(url, at)
	n1 := segmentReads.Load()
	want, werr := findExhaustive(a, url, at)
	n2 := segmentReads.Load()
	if (gerr == nil) != (werr == nil) || gerr != nil && errors.Is(werr, ErrNoCapture) != errors.Is(gerr, ErrNoCapture) {
		t.Fatalf("Find(%s, %v): error %v, exhaustive %v", url, at, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Find(%s, %v) = %s %s %s@%d, exhaustive %s %s %s@%d", url, at,
			got.Type, got.Date, got.File, got.Offset, want.Type, want.Date, want.File, want.Offset)
	}
	return n1 - n0, n2 - n1
}

// findTimes are the times to ask Find at given the dates of an
// archive's captures: the latest (zero), before every one, each date,
// a second either side of it, after every one.
func findTimes(dates []time.Time) []time.Time {
	ts := []time.Time{{}}
	if len(dates) == 0 {
		return ts
	}
	slices.SortFunc(dates, time.Time.Compare)
	ts = append(ts, dates[0].Add(-time.Hour), dates[len(dates)-1].Add(time.Hour))
	for i, d := range dates {
		if i > 0 && d.Equal(dates[i-1]) {
			continue
		}
		ts = append(ts, d, d.Add(-time.Second), d.Add(time.Second))
	}
	return ts
}

// ingestCrawls ingests each of crawls (the records of one WARC file each)
// into arch as an ingest of its own, and returns the dates written.
func ingestCrawls(t testing.TB, arch string, crawls [][]byte) {
	t.Helper()
	dir := t.TempDir()
	for i, c := range crawls {
		in := filepath.Join(dir, fmt.Sprintf("crawl-%04d.warc", i))
		if err := os.WriteFile(in, c, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Ingest(context.Background(), arch, []string{in}, testOpts()); err != nil {
			t.Fatalf("ingest %d: %v", i, err)
		}
	}
}

// randomCrawls are n crawls of a few URLs at overlapping, often equal,
// dates: responses and resources (priority 1), requests and metadata
// (priority 0, and the only records of /req), /old captured in the first
// crawls only, /late in the last ones; the dates written are returned.
func randomCrawls(rng *rand.Rand, n int) ([][]byte, map[string][]time.Time) {
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	urls := []string{"http://p.example/a", "http://p.example/b", "http://p.example/c", "http://p.example/req", "http://p.example/old", "http://p.example/late"}
	dates := map[string][]time.Time{}
	var crawls [][]byte
	rec := 0
	for c := range n {
		var b []byte
		// Crawls overlap: each starts within a few hours of a date that
		// grows slowly, some go back in time.
		base := t0.Add(time.Duration(c/3+rng.Intn(4)) * time.Hour)
		for _, u := range urls {
			switch {
			case u == "http://p.example/old" && c >= n/4:
				continue
			case u == "http://p.example/late" && c < n-n/4:
				continue
			case rng.Intn(4) == 0:
				continue // absent from this crawl
			}
			for range 1 + rng.Intn(3) {
				d := base.Add(time.Duration(rng.Intn(3)) * time.Hour)
				rec++
				typ := []string{"response", "response", "resource", "request", "metadata"}[rng.Intn(5)]
				if u == "http://p.example/req" {
					typ = []string{"request", "metadata"}[rng.Intn(2)]
				}
				var block []byte
				if typ == "response" {
					block = httpResponse("text/html", fmt.Appendf(nil, "<p>%s %d %d</p>", u, c, rng.Intn(3)), false)
				} else {
					block = fmt.Appendf(nil, "%s %s %d", typ, u, rng.Intn(3))
				}
				b = append(b, warcRecord(typ, u, d, rec, block)...)
				dates[u] = append(dates[u], d)
			}
		}
		if len(b) == 0 { // an input with no record is not a crawl
			rec++
			b = warcRecord("metadata", "http://p.example/a", base, rec, []byte("m"))
			dates["http://p.example/a"] = append(dates["http://p.example/a"], base)
		}
		crawls = append(crawls, b)
	}
	return crawls, dates
}

// TestFindMatchesExhaustive compares Find with the exhaustive Find of
// before catalog version 10 on archives of many small ingests whose
// dates overlap and repeat across runs, with captures of low priority
// (request, metadata), URLs absent from the recent runs or from the
// early ones, at the latest, before every capture, at, between and
// after them; then again with some runs' dates made unknown, as an
// archive extended from an older version has them.
func TestFindMatchesExhaustive(t *testing.T) {
	seeds := []int64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			crawls, dates := randomCrawls(rng, 24)
			arch := filepath.Join(t.TempDir(), "a.bwa")
			ingestCrawls(t, arch, crawls)
			a, err := Open(arch, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if len(a.root.Runs) != len(crawls) || len(a.root.Dates) != len(crawls) {
				t.Fatalf("%d runs, %d with dates, want %d", len(a.root.Runs), len(a.root.Dates), len(crawls))
			}
			var all []time.Time
			for _, ds := range dates {
				all = append(all, ds...)
			}
			urls := []string{"http://p.example/absent", "http://p.example/zz"}
			for u := range dates {
				urls = append(urls, u)
			}
			slices.Sort(urls)
			var nearVers int64 // segments NearVersions read
			check := func() (got, want, gotNear, wantNear int64) {
				for _, u := range urls {
					for _, at := range findTimes(slices.Clone(all)) {
						nearVers += sameNearVersions(t, a, u, at)
						g, w := sameFind(t, a, u, at)
						got += g
						want += w
						if !at.IsZero() {
							g, w = sameNear(t, a, u, at)
							gotNear += g
							wantNear += w
						}
					}
				}
				return got, want, gotNear, wantNear
			}
			got, want, gotNear, wantNear := check()
			t.Logf("segments read: Find %d, exhaustive %d; FindNear %d, exhaustive %d; NearVersions %d", got, want, gotNear, wantNear, nearVers)
			if nearVers >= want {
				t.Errorf("NearVersions read %d segments, the exhaustive Find %d: no run skipped", nearVers, want)
			}
			if got >= want || gotNear >= wantNear {
				t.Errorf("Find read %d segments, the exhaustive Find %d; FindNear %d, exhaustive %d: no run skipped", got, want, gotNear, wantNear)
			}
			for i := range a.root.Dates {
				if rng.Intn(3) == 0 {
					a.root.Dates[i] = runDates{}
				}
			}
			check()
		})
	}
}

// TestFindReadsFewRuns: on an archive of n crawls ingested one at a
// time, Find at the latest, at the last crawl's date and at a crawl's
// date in the middle, and FindNear of a day from those dates, read O(1)
// runs' segments (the exhaustive ones of before version 10 read n), and
// answer as they did.
func TestFindReadsFewRuns(t *testing.T) {
	const n = 30
	t0 := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	var crawls [][]byte
	urls := []string{"http://r.example/", "http://r.example/a", "http://r.example/b"}
	for c := range n {
		var b []byte
		d := t0.Add(time.Duration(c) * 24 * time.Hour)
		for k, u := range urls {
			id := c*10 + k
			b = append(b, warcRecord("request", u, d, id*2, []byte("GET "+u))...)
			b = append(b, warcRecord("response", u, d, id*2+1, httpResponse("text/html", fmt.Appendf(nil, "<p>%s on day %d</p>", u, c), false))...)
		}
		crawls = append(crawls, b)
	}
	arch := filepath.Join(t.TempDir(), "a.bwa")
	ingestCrawls(t, arch, crawls)
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if len(a.root.Runs) != n {
		t.Fatalf("%d runs, want %d", len(a.root.Runs), n)
	}
	for _, u := range urls {
		for _, at := range []time.Time{{}, t0.Add((n - 1) * 24 * time.Hour), t0.Add(n / 2 * 24 * time.Hour), t0.Add((n/2*24 + 5) * time.Hour)} {
			got, want := sameFind(t, a, u, at)
			if want != n && at.IsZero() {
				t.Errorf("exhaustive Find(%s) read %d segments, want %d", u, want, n)
			}
			if got > 2 {
				t.Errorf("Find(%s, %v) read %d segments of %d runs, want at most 2", u, at, got, n)
			}
			if at.IsZero() {
				continue
			}
			// And FindNear, of a day from at.
			n0 := segmentReads.Load()
			g, gerr := a.FindNear(u, at, at.Add(24*time.Hour))
			got = segmentReads.Load() - n0
			w, werr := findNearExhaustive(a, u, at, at.Add(24*time.Hour))
			if gerr != nil || werr != nil || !reflect.DeepEqual(g, w) {
				t.Errorf("FindNear(%s, %v) = %v@%d (%v), exhaustive %v@%d (%v)", u, at, g.Date, g.Offset, gerr, w.Date, w.Offset, werr)
			}
			if got > 2 {
				t.Errorf("FindNear(%s, %v) read %d segments of %d runs, want at most 2", u, at, got, n)
			}
		}
	}
}

// TestRunDatesRoundTrip: run dates (unknown, none, a range, undated
// captures and nanoseconds) come back from an encoded root as written;
// an unknown tag is refused.
func TestRunDatesRoundTrip(t *testing.T) {
	d0 := time.Date(2021, 5, 6, 7, 8, 9, 123456789, time.UTC)
	r := &root{Runs: make([][]segRef, 5), Dates: []runDates{
		{},
		{Known: true},
		{Known: true, Any: true, Min: d0, Max: d0},
		{Known: true, Any: true, Min: time.Time{}, Max: d0.Add(1000 * time.Hour)},
	}}
	for i := range r.Runs {
		r.Runs[i] = []segRef{{First: "a", Last: "b"}}
	}
	_, back := encodeDecodeRoot(t, r)
	want := append(slices.Clone(r.Dates), runDates{}) // the fifth: unknown
	if len(back.Dates) != len(want) {
		t.Fatalf("%d run dates back, want %d", len(back.Dates), len(want))
	}
	for i, d := range back.Dates {
		w := want[i]
		if d.Known != w.Known || d.Any != w.Any || !d.Min.Equal(w.Min) || !d.Max.Equal(w.Max) {
			t.Errorf("run %d: dates %+v, want %+v", i, d, w)
		}
	}
	if !back.Dates[3].Min.IsZero() {
		t.Errorf("undated capture's date back as %v", back.Dates[3].Min)
	}
	var body []byte
	body = appendDates(body, runDates{})
	body[0] = 3
	d := &dec{b: body}
	if d.runDates(); d.err == nil {
		t.Error("run dates of tag 3 decoded")
	}
}

// TestRunDatesRebuilt: a root rebuilt from the packs (COMMIT and
// COMMIT.copy lost) has the dates of the lost one, and Find answers as
// the exhaustive Find.
func TestRunDatesRebuilt(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	crawls, dates := randomCrawls(rng, 8)
	arch := filepath.Join(t.TempDir(), "a.bwa")
	ingestCrawls(t, arch, crawls)
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(a.root.Dates)
	a.Close()
	for _, name := range []string{"COMMIT", "COMMIT.copy"} {
		if err := os.Remove(filepath.Join(arch, name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := RebuildCommit(arch, pack.Options{}); err != nil {
		t.Fatal(err)
	}
	a, err = Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if !reflect.DeepEqual(a.root.Dates, before) {
		t.Fatalf("rebuilt run dates %+v, want %+v", a.root.Dates, before)
	}
	for _, d := range before {
		if !d.Known || !d.Any {
			t.Fatalf("run dates %+v: every crawl's are known", d)
		}
	}
	var all []time.Time
	for _, ds := range dates {
		all = append(all, ds...)
	}
	for u := range dates {
		for _, at := range findTimes(slices.Clone(all)) {
			sameFind(t, a, u, at)
			if !at.IsZero() {
				sameNear(t, a, u, at)
			}
		}
	}
}

// checkFindOld checks, on an archive of an older catalog version or
// extended from one, that Find answers as the exhaustive Find for every
// URL at the latest and at and around every capture's date, and that the
// run dates are unknown for the runs an older version wrote (oldRuns)
// and known for the others.
func checkFindOld(t *testing.T, a *Archive, oldRuns int) {
	t.Helper()
	for i := range a.root.Runs {
		if d := a.root.dates(i); d.Known == (i < oldRuns) {
			t.Errorf("run %d of %d (%d of an older version): dates %+v", i, len(a.root.Runs), oldRuns, d)
		}
	}
	var urls []string
	var dates []time.Time
	err := a.WalkOrdered(func(u URLVersions) error {
		for _, v := range u.Versions {
			if v.TargetURI != "" {
				urls = append(urls, v.TargetURI)
			}
			dates = append(dates, v.Date)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(urls)
	for _, u := range slices.Compact(urls) {
		for _, at := range findTimes(slices.Clone(dates)) {
			sameFind(t, a, u, at)
			if !at.IsZero() {
				sameNear(t, a, u, at)
			}
		}
	}
}
