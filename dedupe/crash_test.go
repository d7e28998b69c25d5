package dedupe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestCrashChild is the ingest that TestCrashResume kills; it does
// nothing unless started by it.
func TestCrashChild(t *testing.T) {
	arch, in := os.Getenv("DEDUPE_CRASH_ARCHIVE"), os.Getenv("DEDUPE_CRASH_INPUT")
	if arch == "" {
		t.Skip("helper process of TestCrashResume")
	}
	if _, err := Ingest(context.Background(), arch, []string{in}, Options{CommitBytes: 512 << 10}); err != nil {
		t.Fatal(err)
	}
}

// catalogOf lists (file, offset, skip, crc) of every version.
func catalogOf(t *testing.T, a *Archive) []string {
	t.Helper()
	var out []string
	if err := a.Walk(func(u URLVersions) error {
		for _, v := range u.Versions {
			out = append(out, fmt.Sprintf("%s %s %d %d %08x", u.Key, v.File, v.Offset, v.Skip, v.CRC))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestCrashResume kills a real ingest process with SIGKILL at several
// points; the archive must verify at its last commit, and running the
// ingest again must give the same catalog as an uninterrupted run, with
// every record restoring from the input bytes.
func TestCrashResume(t *testing.T) {
	in := sharedtest.Dir(t, "corpus", "ota-mektoube")
	ref := filepath.Join(t.TempDir(), "ref.bwa")
	if _, err := Ingest(context.Background(), ref, []string{in}, Options{}); err != nil {
		t.Fatal(err)
	}
	ra, err := Open(ref, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := catalogOf(t, ra)
	ra.Close()

	for _, delay := range []time.Duration{300 * time.Millisecond, 700 * time.Millisecond, 1200 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			arch := filepath.Join(t.TempDir(), "a.bwa")
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
			cmd.Env = append(os.Environ(), "DEDUPE_CRASH_ARCHIVE="+arch, "DEDUPE_CRASH_INPUT="+in)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay)
			cmd.Process.Kill() // SIGKILL
			cmd.Wait()

			if a, err := Open(arch, pack.Options{}); err == nil {
				vs, err := a.Verify(func(p Problem) { t.Errorf("after kill: %v", p) })
				if err != nil {
					t.Errorf("verify after kill: %v", err)
				}
				t.Logf("killed after %v: %d records committed", delay, vs.Records)
				a.Close()
			} else {
				t.Logf("killed after %v before the archive existed: %v", delay, err)
			}

			if _, err := Ingest(context.Background(), arch, []string{in}, Options{}); err != nil {
				t.Fatalf("resume: %v", err)
			}
			a, err := Open(arch, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if got := catalogOf(t, a); !slices.Equal(got, want) {
				t.Errorf("resumed catalog has %d versions, uninterrupted %d (or they differ)", len(got), len(want))
			}
			checkRoundTrip(t, a)
			if _, err := a.Verify(func(p Problem) { t.Errorf("after resume: %v", p) }); err != nil {
				t.Error(err)
			}
		})
	}
}
