package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A go test -json log: p1 passes but skipped TestB's subtest and cut
// TestC down; p2's TestF fails; p3 does not build.
const logJSON = `{"Action":"start","Package":"p1"}
{"Action":"run","Package":"p1","Test":"TestA"}
{"Action":"output","Package":"p1","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"p1","Test":"TestA","Elapsed":0.1}
{"Action":"run","Package":"p1","Test":"TestB"}
{"Action":"run","Package":"p1","Test":"TestB/site"}
{"Action":"output","Package":"p1","Test":"TestB/site","Output":"    x_test.go:9: ../shared/corpus: large-data check skipped in -short mode\n"}
{"Action":"skip","Package":"p1","Test":"TestB/site","Elapsed":0}
{"Action":"pass","Package":"p1","Test":"TestB","Elapsed":0.1}
{"Action":"run","Package":"p1","Test":"TestC"}
{"Action":"output","Package":"p1","Test":"TestC","Output":"    y_test.go:3: cut down in -short mode: two samples\n"}
{"Action":"pass","Package":"p1","Test":"TestC","Elapsed":0.1}
{"Action":"pass","Package":"p1","Elapsed":1.5}
{"Action":"run","Package":"p2","Test":"TestF"}
{"Action":"output","Package":"p2","Test":"TestF","Output":"    f_test.go:7: got 1, want 2\n"}
{"Action":"output","Package":"p2","Test":"TestF","Output":"--- FAIL: TestF (0.00s)\n"}
{"Action":"fail","Package":"p2","Test":"TestF","Elapsed":0}
{"Action":"output","Package":"p2","Output":"FAIL\n"}
{"Action":"output","Package":"p2","Output":"FAIL\tp2\t0.2s\n"}
{"Action":"fail","Package":"p2","Elapsed":0.2}
{"ImportPath":"p3","Action":"build-output","Output":"p3/x.go:1:1: syntax error\n"}
{"ImportPath":"p3","Action":"build-fail"}
{"Action":"fail","Package":"p3","Elapsed":0,"FailedBuild":"p3"}
`

func TestSummary(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log.json")
	var out bytes.Buffer
	rc := summary(strings.NewReader(logJSON), log, &out)
	got := out.String()
	if rc != 1 {
		t.Errorf("rc %d with a failed test and a failed build, want 1", rc)
	}
	for _, want := range []string{"ok  \tp1\t1.5s", "f_test.go:7: got 1, want 2", "FAIL\tp2", "p3/x.go:1:1: syntax error", "FAIL\tp3 [build failed]", "3 tests passed, 0 skipped, 1 failed; 2 packages failed"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "FAIL\tp2") != 1 {
		t.Errorf("p2's failure said %d times, want once:\n%s", strings.Count(got, "FAIL\tp2"), got)
	}
	if strings.Contains(got, "=== RUN") || strings.Contains(got, "large-data") {
		t.Errorf("summary prints passing tests' output:\n%s", got)
	}
	if data, err := os.ReadFile(log); err != nil || string(data) != logJSON {
		t.Errorf("log copied %d of %d bytes (%v)", len(data), len(logJSON), err)
	}
	if rc := summary(strings.NewReader(strings.SplitAfter(logJSON, "\n{\"Action\":\"run\",\"Package\":\"p2\"")[0]), log, &out); rc != 0 {
		t.Errorf("rc %d for a log of passing tests, want 0", rc)
	}
}

func TestLeftOut(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log.json")
	if err := os.WriteFile(log, []byte(logJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := leftOut(log)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !slices.Equal(got["p1"], []string{"TestB", "TestC"}) {
		t.Errorf("left out %v, want p1: TestB (a subtest skipped), TestC (cut down)", got)
	}
}
