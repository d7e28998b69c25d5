package dedupe

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
)

// TestUpgradeGolden upgrades a copy of every golden archive of an older
// catalog (testdata/vN.bwa): the result is current, verifies, holds the
// old one's records byte for byte (recordSum, taken independently of
// Upgrade's own check) and its input files that restored bit for bit.
// The golden of the current catalog is current already, or is made so.
func TestUpgradeGolden(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for ver := oldestCatalog; ver <= catalogVersion; ver++ {
		t.Run(fmt.Sprintf("v%d", ver), func(t *testing.T) {
			arch := filepath.Join(t.TempDir(), "old.bwa")
			if err := os.CopyFS(arch, os.DirFS(filepath.Join("testdata", fmt.Sprintf("v%d.bwa", ver)))); err != nil {
				t.Fatal(err)
			}
			old, err := Outdated(arch)
			if err != nil {
				t.Fatal(err)
			}
			if ver < catalogVersion && len(old) == 0 {
				t.Fatalf("catalog version %d archive taken for current", ver)
			}
			if ver == 7 {
				// An interrupted ingest is refused, and upgraded once
				// the ingest is run again to its end.
				if _, err := Upgrade(context.Background(), arch, UpgradeOptions{Options: testOpts()}); err == nil || !strings.Contains(err.Error(), "interrupted") {
					t.Fatalf("upgrade of an open ingest: %v, want refused", err)
				}
				// The catalog names inputs by repository-relative paths:
				// so must the resumed ingest (TestReadOpenIngest).
				t.Chdir(root)
				in := "testdata/samples/ota-lovescout24-20220425123217.warc.gz"
				if _, err := Ingest(context.Background(), arch, []string{in}, Options{CommitBytes: 1}); err != nil {
					t.Fatal(err)
				}
			}
			wantSum, wantN, wantExact := archiveFacts(t, arch)
			wantRows := fileIdentities(t, arch)
			st, err := Upgrade(context.Background(), arch, UpgradeOptions{Options: testOpts()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("v%d: %+v", ver, st.Outdated)
			if st.Current != (len(old) == 0) {
				t.Errorf("Current %v, outdated %q", st.Current, old)
			}
			if now, err := Outdated(arch); err != nil || len(now) > 0 {
				t.Fatalf("after upgrade: outdated %q, %v", now, err)
			}
			if _, err := os.Stat(StagingDir(arch)); !os.IsNotExist(err) {
				t.Errorf("staging directory left: %v", err)
			}
			gotSum, gotN, gotExact := archiveFacts(t, arch)
			if gotSum != wantSum || gotN != wantN {
				t.Errorf("records after upgrade: %d, want %d (or other bytes)", gotN, wantN)
			}
			for name := range wantExact {
				if !gotExact[name] {
					t.Errorf("%s restored bit for bit before the upgrade, not after", name)
				}
			}
			if !st.Current && st.Records != wantN {
				t.Errorf("upgrade checked %d records, want %d", st.Records, wantN)
			}
			// From catalog version 5 on (the stream's length and
			// digest recorded), every row still names its file as it
			// was given (size and SHA-256 of the compressed file), not
			// the stream an upgrade copies of a file that does not
			// restore as given.
			if got := fileIdentities(t, arch); ver >= 5 && !slices.Equal(got, wantRows) {
				t.Errorf("rows after upgrade %q, before %q", got, wantRows)
			}
			// The rewrite knows every run's dates (catalog version 10),
			// and Find answers as before.
			if a, err := Open(arch, pack.Options{}); err != nil {
				t.Fatal(err)
			} else {
				checkFindOld(t, a, 0)
				a.Close()
			}
			if ver == 5 && zlibenc.Available {
				// Its files were never examined: prove can still.
				t.Chdir(root)
				res, err := Prove(context.Background(), arch, []string{"testdata/samples"}, pack.Options{})
				if err != nil || len(res.Proven) != len(wantRows) {
					t.Errorf("prove after upgrade: %+v, %v; want %d proven", res, err, len(wantRows))
				}
			}
		})
	}
}

// fileIdentities lists the name, size and SHA-256 of each input file of
// arch.
func fileIdentities(t *testing.T, arch string) []string {
	t.Helper()
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var out []string
	for _, f := range a.Files() {
		out = append(out, fmt.Sprintf("%s %d %x", f.Name, f.Size, f.SHA256[:8]))
	}
	return out
}

// archiveFacts opens arch, verifies it, and returns its record digest
// and the files that restore bit for bit.
func archiveFacts(t *testing.T, arch string) ([4]uint64, int64, map[string]bool) {
	t.Helper()
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	vst, err := a.Verify(func(p Problem) { t.Errorf("verify %s: %v", arch, p) })
	if err != nil {
		t.Fatal(err)
	}
	exact := map[string]bool{}
	for _, c := range vst.Inputs {
		if c.Original {
			exact[c.File.Name] = true
		}
	}
	sum, n, err := recordSum(a)
	if err != nil {
		t.Fatal(err)
	}
	return sum, n, exact
}

// TestUpgradeChecks: a new archive that does not hold the old one's
// records (its last restored input cut short before the ingest) is not
// swapped in: Upgrade fails, the archive keeps every byte, and the
// staging directory is gone.
// The inputs of v5 (never proven) and of v6 (proven) are restored as
// their streams, placed and checked against their rows
// (restoredStream.apply), which refuses the cut one before the new
// archive's own checks (checkUpgrade) are reached.
func TestUpgradeChecks(t *testing.T) {
	for _, c := range []struct{ ver, why string }{{"v5", "restored from the archive"}, {"v6", "restored from the archive"}} {
		t.Run(c.ver, func(t *testing.T) { testUpgradeRefused(t, c.ver, c.why) })
	}
}

func testUpgradeRefused(t *testing.T, ver, why string) {
	arch := filepath.Join(t.TempDir(), "old.bwa")
	if err := os.CopyFS(arch, os.DirFS(filepath.Join("testdata", ver+".bwa"))); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	ents, _ := os.ReadDir(arch)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(arch, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		before[e.Name()] = b
	}
	upgradeTamper = func(paths []string) {
		p := paths[len(paths)-1]
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		// Whole gzip members are dropped: the file still ingests.
		if err := os.Truncate(p, fi.Size()/2); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { upgradeTamper = nil }()
	_, err := Upgrade(context.Background(), arch, UpgradeOptions{Options: testOpts()})
	if err == nil || !strings.Contains(err.Error(), why) {
		t.Fatalf("upgrade of a tampered rewrite: %v, want refused for its %s", err, why)
	}
	t.Logf("refused: %v", err)
	for name, b := range before {
		got, err := os.ReadFile(filepath.Join(arch, name))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s changed by a refused upgrade (%v)", name, err)
		}
	}
	if old, err := Outdated(arch); err != nil || len(old) == 0 {
		t.Errorf("after a refused upgrade: outdated %q, %v; want the old archive", old, err)
	}
	if _, err := os.Stat(StagingDir(arch)); !os.IsNotExist(err) {
		t.Errorf("staging left after a refused upgrade (%v)", err)
	}
}

// BenchmarkUpgrade times Upgrade of testdata/v6.bwa against its baseline
// in the same iterations: Compact of the same archive into a new one
// (the same restore and ingest, without the checks and the swap). The
// ratio is what verifying and swapping add.
func BenchmarkUpgrade(b *testing.B) {
	var up, co time.Duration
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		arch := filepath.Join(dir, "old.bwa")
		if err := os.CopyFS(arch, os.DirFS(filepath.Join("testdata", "v6.bwa"))); err != nil {
			b.Fatal(err)
		}
		opts := testOpts()
		opts.Pack.NoParity = pack.WithoutParity(arch) // as Upgrade keeps it
		b.StartTimer()
		t0 := time.Now()
		if _, err := Compact(context.Background(), arch, filepath.Join(dir, "copy.bwa"), opts); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := Upgrade(context.Background(), arch, UpgradeOptions{Options: testOpts()}); err != nil {
			b.Fatal(err)
		}
		co, up = co+t1.Sub(t0), up+time.Since(t1)
	}
	b.ReportMetric(float64(up)/float64(co), "upgrade/compact")
}

// TestCheckUpgrade reaches upgrade's last net, checkUpgrade, which the
// copy's own checks (restoredStream.apply) now stand before in
// TestUpgradeChecks: a new archive that verifies is still refused when
// an input file the old one restored bit for bit is not proven in it, or
// when its records are not the old one's.
func TestCheckUpgrade(t *testing.T) {
	t.Chdir("..")
	one := []string{"testdata/samples/ota-lovescout24-20220120143355.warc.gz"}
	two := append(slices.Clone(one), "testdata/samples/ota-lovescout24-20220125183141.warc.gz")
	ingest := func(name string, files []string, opts Options) *Archive {
		t.Helper()
		dir := filepath.Join(t.TempDir(), name)
		if _, err := Ingest(context.Background(), dir, files, opts); err != nil {
			t.Fatal(err)
		}
		a, err := Open(dir, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		return a
	}
	old := ingest("old.bwa", one, testOpts())
	if !old.Files()[0].OriginalExact() {
		t.Skip("this build does not prove gzip files (no zlib)")
	}
	unproven := testOpts()
	unproven.SkipOriginal = true
	for _, c := range []struct {
		name string
		b    *Archive
		want string // "" when the check passes
	}{
		{"same", ingest("same.bwa", one, testOpts()), ""},
		{"not proven", ingest("unproven.bwa", one, unproven), "does not from the new one"},
		{"other records", ingest("more.bwa", two, testOpts()), "are not the old one's"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var st UpgradeStats
			err := checkUpgrade(old, c.b, &st)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("checkUpgrade: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("checkUpgrade: %v, want %q", err, c.want)
			}
		})
	}
}
